"""A loop's counterexample names the round where the code goes wrong, also when the loop head holds the next
block's precomputed message words (libgcrypt's SSSE3 transform, Debian's libgcrypt.a).

Rule (``lift.function._iterated_loop``, ``lift.induction.exit_compression``): when the guessed invariant
fails, the first iteration from the exact entry state is checked at its exit (nblocks = 1: the state words
must hold compress(H, block)) and on a path back to the head that writes the state words, with no guess
involved, so ``first_wrong`` is the spec's earliest definition the wrong code does not compute
(``composition.check_program``). The bug: the invariant guessed from the mutant's
own states havocked the chaining value (H is not compress(H) one iteration on), so every mutant of a loop
holding W + K of the next block (libgcrypt's, OpenSSL's SSSE3/AVX/SHA-NI) was reported as "first wrong value:
A1 (new a of round 0)".

libgcrypt emits its round macros in round order, one ``rol $5, a`` each: rounds 0-63 inside the loop before its
exit test, then rounds 64-79 of the path back to the head (with the next block's W + K), then those of the exit
path: dropping the t-th ``rol $5`` of the function (t < 80) makes the new a of round t, ``A{t+1}``, wrong -- for
t >= 64 on the path back to the head only, which stores the chaining value in the state words too.
The object is read at test time from the installed package (skipped with the reason when libgcrypt20-dev is
missing); nothing of it is in the project.
"""

from __future__ import annotations

from pathlib import Path

import capstone
import pytest
from elftools.elf.elffile import ELFFile

from sha1opt.analyze import prove_object
from tests.support.archives import member_file
from sha1opt.semantics.lift.catalogue import lookup

LIB = Path("/usr/lib/x86_64-linux-gnu/libgcrypt.a")
MEMBER = "sha1-ssse3-amd64.o"
FUNCTION = "_gcry_sha1_transform_amd64_ssse3"


@pytest.fixture(scope="module")
def ssse3_object(tmp_path_factory) -> Path:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("gcry"))


def _without_rol5(obj: Path, work: Path, t: int) -> Path:
    """``obj`` with the t-th ``rol $5`` of the function (in address order) replaced by NOPs."""
    raw = bytearray(obj.read_bytes())
    with open(obj, "rb") as fh:
        elf = ELFFile(fh)
        text = elf.get_section_by_name(".text")
        sym = elf.get_section_by_name(".symtab").get_symbol_by_name(FUNCTION)[0]
        offset, code = text["sh_offset"], text.data()
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    body = code[sym["st_value"]:sym["st_value"] + sym["st_size"]]
    rols = [i for i in md.disasm(body, sym["st_value"]) if i.mnemonic == "rol" and i.op_str.endswith(", 5")]
    assert len(rols) == 96, "not the round-ordered code this test reads (80 rounds in the loop, 16 after it)"
    site = rols[t]
    raw[offset + site.address:offset + site.address + site.size] = b"\x90" * site.size
    out = work / f"mutant_round{t}.o"
    out.write_bytes(bytes(raw))
    return out


@pytest.mark.parametrize("t", [30, 66])
def test_regression_pipelined_loop_counterexample_named_a1_whatever_the_round(ssse3_object, tmp_path, t):
    """Round t's ``rol $5`` dropped (round 30: both paths; round 66: the path back to the head only): the loop
    path is a counterexample whose first wrong value is A{t+1}."""
    row = lookup(FUNCTION, MEMBER)
    res = prove_object(_without_rol5(ssse3_object, tmp_path, t), function=FUNCTION, native=False,
                       interface=row.interface if row else None, workdir=tmp_path)
    loop = next(p for p in res.proof.paths if p.kind == "loop")
    assert loop.outcome == "counterexample", loop.detail
    assert loop.first_wrong == f"A{t + 1}", loop.detail
    assert f"first wrong value: A{t + 1} (new a of round {t})" in loop.detail
