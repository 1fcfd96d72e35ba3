"""A dispatch on global feature flags read through the GOT: every flag value is a path, each proved.

Rule (issue 24; ``lift.decode.got_address``, ``lift.calls.KNOWN``, ``lift.induction.passed_contract``):
``mov sym@GOTPCREL(%rip), %rax`` loads the symbol's *address* (the slot the linker fills), and a flag another
object defines (or this one, in a writable section) is an input the proof does not know, so ``cmpb $0,(%rax)``
forks: one path per flag value. A call whose contract is known by name (Crypto++'s ``DetectX86Features``:
writes only the library's flags) makes a later read of the flags a new unknown. A tail jump with the caller's
arguments plus constants in the next argument registers proves the callee under the caller's contract with
those constants (``(state, words, 64, 0)``). The code is Crypto++'s ``SHA1::Transform`` from Debian's
``libcrypto++.a`` (libcrypto++-dev, installed by setup/system-packages.sh), read at test time.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.x86 import Imm, Reg

LIB = Path("/usr/lib/x86_64-linux-gnu/libcryptopp.a")
TRANSFORM = "_ZN8CryptoPP4SHA19TransformEPjPKj"


def _member(name: str) -> bytes:
    if not LIB.exists():
        pytest.skip(f"{LIB} missing: libcrypto++-dev (setup/system-packages.sh installs it as root)")
    return subprocess.run(["ar", "p", str(LIB), name], capture_output=True, check=True, timeout=60).stdout


@pytest.fixture(scope="module")
def transform():
    _member("sha.o")
    return prove_object(LIB, member="sha.o", function=TRANSFORM, native=False)


def test_cryptopp_transform_proves_on_every_flag_path(transform):
    """Both flags unknown, DetectX86Features by its contract: four paths (detection done or not, SHA-NI or not),
    the SHA-NI ones through the callee's code in ``sha_simd.o`` (linked in: ``sha.o`` calls it,
    ``objfile.with_called_members``) with the length and byte order the code passes."""
    assert transform.proved, transform.summary()
    paths = transform.proof.paths
    assert len(paths) == 4 and all("g_x86DetectionDone" in p.condition for p in paths)
    # after DetectX86Features the flag is read anew: a value of its own, not the one before the call
    assert sum("after 1 call" in p.condition for p in paths) == 2
    shani = [p for p in paths if p.via and "SHA1_HashMultipleBlocks_SHANI" in p.via]
    assert len(shani) == 2 and all("g_hasSHA" in p.condition for p in shani)


def test_cryptopp_transform_with_a_flipped_length_is_not_proved():
    """Mutant: the SHA-NI tail call's length 64 with bit 6 flipped (0: no block hashed) does not prove."""
    raw = _member("sha.o")
    obj = ObjectFile.parse(raw)
    sym = obj.find_function(TRANSFORM)
    fn = decode_function(obj, obj.sized(sym))
    mov = next(d for d in fn.instructions.values() if d.mnemonic == "mov" and d.ins.operands[0] == Imm(64)
               and d.ins.operands[1] == Reg("edx", 32))
    code = obj.sections[sym.section][sym.value:sym.value + obj.sized(sym).size]
    at = raw.index(code) + mov.address - sym.value + mov.size - 4          # (the imm32 ends the instruction)
    assert raw[at:at + 4] == (64).to_bytes(4, "little")
    mutant = ObjectFile.parse(raw[:at] + bytes([raw[at] ^ 0x40]) + raw[at + 1:])
    contract = lookup(TRANSFORM, "sha.o").interface.contract("sysv")
    proof = prove_function(mutant, TRANSFORM, contract, paths=frozenset({TRANSFORM}))
    tails = [p for p in proof.paths if p.outside]
    assert tails and all(p.callee is not None for p in tails)
    simd = ObjectFile.parse(_member("sha_simd.o"))
    results = [prove_function(simd, p.outside, p.callee) for p in tails]
    assert not all(r.proved for r in results), [r.outcome for r in results]
