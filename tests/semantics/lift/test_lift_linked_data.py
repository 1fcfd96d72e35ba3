"""A linked object's data word reached by PC-relative arithmetic past the code section: an input, every path proved.

Rule (issue 24; ``lift.memory.MemoryModel._relocated``, ``lift.decode.linked_ref``): in a shared object, i386
PIC code takes its own address (``call; pop``) and adds a constant to reach ``OPENSSL_ia32cap_P`` in ``.bss``;
the address lies past ``.text``, so the read is of the section holding it by its linked address -- a writable
section's word is what the program stored there at run time, an input the proof does not know (named by its
address, ``mem_4546a0``), a read-only section's word the file's bytes. The capability words then fork the
dispatch, and each path is proved. The code is OpenSSL's ``SHA1_Transform`` in Debian's i386
``libcrypto.so.3`` (libssl3:i386, a dependency of libssl-dev:i386, installed by setup/system-packages.sh), read
at test time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.elf import ObjectFile

LIB = Path("/usr/lib/i386-linux-gnu/libcrypto.so.3")
K1 = (0x5A827999).to_bytes(4, "little")


def _lib() -> Path:
    if not LIB.exists():
        pytest.skip(f"{LIB} missing: libssl3:i386 (setup/system-packages.sh installs libssl-dev:i386 as root)")
    return LIB


@pytest.fixture(scope="module")
def transform():
    return prove_object(_lib(), function="SHA1_Transform", native=False)


def test_i386_shared_object_capability_dispatch_proves_on_every_path(transform):
    assert transform.proved, transform.summary()
    paths = transform.proof.paths
    assert len(paths) > 1 and all(p.kind == "one block" for p in paths)
    # the dispatch reads the capability words as inputs named by their linked address
    assert all("mem_" in p.condition for p in paths), [p.condition for p in paths]


@pytest.mark.slow      # (a second whole proof of the .so; the capability rule: the test above)
def test_i386_shared_object_with_a_flipped_round_constant_is_not_proved(transform, tmp_path):
    """Mutant: bit 0 of the first round constant 0x5a827999 on the first path flipped: that path does not prove."""
    raw = _lib().read_bytes()
    obj = ObjectFile.parse(raw)
    text = obj.sections[".text"]
    base = raw.index(text[:4096])                   # (the file offset of .text)
    d = next(d for d in transform.proof.paths[0].trace if K1 in text[d.address:d.address + d.size])
    at = base + d.address + text[d.address:d.address + d.size].index(K1)
    mutant = tmp_path / "libcrypto.so.3"
    mutant.write_bytes(raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1:])
    res = prove_object(mutant, function="SHA1_Transform", native=False)
    assert not res.proved
    assert res.proof.paths[0].outcome == "counterexample", res.summary()
