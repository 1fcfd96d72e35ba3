"""A refuted loop names the real place: the earliest round whose value the code never computes.

The path report's ``first_wrong`` is the spec definition no value of the code matches, earliest in
round order. One-instruction mutants of the project's own exports: the textbook scalar block (each
arch; a rotate count and an add operand in rounds 30 and 42) and the SHA-NI block, whose
``sha1rnds4`` leaves rounds 1-2 of each group of four only as ``rol(A, 30)`` -- before that form
counted, every SHA-NI mutant was reported as "A1 (new a of round 0)".
"""

from __future__ import annotations

import pytest

from sha1opt.emit.assembly import function_text
from sha1opt.emit.objfile import load_object
from sha1opt.emit.shani_frame import shani_function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.shani import default_params
from sha1opt.semantics.lift.function import Contract, prove_function


def _mutate(text: str, rnd: int, old: str, new: str) -> str:
    """``text`` with the first ``old`` after the ``/* round rnd */`` comment replaced by ``new``."""
    i = text.index(old, text.index(f"/* round {rnd} */"))
    return text[:i] + new + text[i + len(old):]


def _loop(tmp_path, text: str, arch: str):
    f = tmp_path / "f.S"
    f.write_text(text)
    proof = prove_function(load_object(f, tmp_path).obj, "sha1_block_data_order",
                           Contract("sysv" if arch == "x86_64" else "cdecl", 0))
    (loop,) = [p for p in proof.paths if p.kind == "loop"]
    return loop


TEXTBOOK_MUTANTS = {   # (arch, round): (old, new) -- the first such text after the round's comment
    ("x86_64", 30): ("rol $5", "rol $6"),
    ("x86_64", 42): ("add %r9d, %ecx", "add %r8d, %ecx"),
    ("i386", 30): ("rol $5", "rol $6"),
    ("i386", 42): ("add %edi, %ecx", "add %esi, %ecx"),
}


@pytest.mark.parametrize("arch,rnd", sorted(TEXTBOOK_MUTANTS))
def test_textbook_mutant_names_its_round(tmp_path, arch, rnd):
    old, new = TEXTBOOK_MUTANTS[arch, rnd]
    loop = _loop(tmp_path, _mutate(function_text(textbook(arch)), rnd, old, new), arch)
    assert loop.outcome == "counterexample"
    assert loop.first_wrong == f"A{rnd + 1}"


def test_shani_mutant_names_its_group_not_round_0(tmp_path):
    """Rounds 28-31's ``sha1rnds4 $1`` made ``$2``: round 28 is the first wrong (was: A1, round 0)."""
    text = shani_function_text("x86_64", default_params("x86_64"))
    lines = text.splitlines(keepends=True)
    at = [i for i, ln in enumerate(lines) if "sha1rnds4" in ln][7]       # the eighth group: rounds 28-31
    assert "$1," in lines[at]
    lines[at] = lines[at].replace("$1,", "$2,")
    loop = _loop(tmp_path, "".join(lines), "x86_64")
    assert loop.outcome == "counterexample"
    assert loop.first_wrong == "A29"
