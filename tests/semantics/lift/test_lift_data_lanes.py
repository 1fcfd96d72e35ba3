"""Two data words in one 64-bit general register (``values.DataPair``): moved, stored, taken apart -- never computed on.

The rule (``semantics/lift/vectors.py``, ``memory.py``): a 64-bit register
written two data lanes (``movq %xmm2, %rsi``) or loaded with two message or
stack words (``mov 0x10(%rsi), %rcx``) holds both exactly; moved into a
vector register it gives the two lanes back, stored it is two words, read
as 32 bits it is the low word; any arithmetic on it is refused as on any
opaque value. gcc -O2's vectorized copy of a (digest, host-order words)
SHA-1 (csrc/sha1_words_pairs.c, written here) was refused before ("a 64-bit
register written lanes data, data: not one value the lifter tracks").
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.interface import parse_interface

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
SRC = Path(__file__).parent / "csrc" / "sha1_words_pairs.c"
WORDS = parse_interface("(state, words)")


def _build(tmp_path: Path, *defines: str) -> Path:
    out = tmp_path / f"pairs{len(defines)}.o"
    subprocess.run(["gcc", "-O2", "-c", *defines, "-o", str(out), str(SRC)], check=True, timeout=120)
    return out


def _uses_pairs(obj: Path) -> bool:
    """The object moves an xmm register's low 64 bits into a general register (``movq %xmmN, %rXX``)."""
    text = subprocess.run(["objdump", "-d", str(obj)], capture_output=True, text=True, check=True, timeout=60).stdout
    return re.search(r"movq\s+%xmm\d+,%r", text) is not None


def test_words_moved_two_at_a_time_through_a_general_register_prove(tmp_path):
    obj = _build(tmp_path)
    if shutil.which("objdump") and not _uses_pairs(obj):
        pytest.skip("this gcc does not move two words through a general register here")
    res = prove_object(obj, function="sha1_words_pairs", interface=WORDS, workdir=tmp_path)
    assert res.proved, res.summary()


def test_a_wrong_schedule_moved_through_pairs_is_a_counterexample(tmp_path):
    obj = _build(tmp_path, "-DSCHED_ROT=2")
    res = prove_object(obj, function="sha1_words_pairs", interface=WORDS, workdir=tmp_path)
    assert res.outcome == "counterexample", res.summary()


LOAD0 = "\tmov (%rsi), %r8d\n"


def _export_edit(tmp_path: Path, new: str):
    text = function_text(textbook("x86_64"))
    assert LOAD0 in text
    p = tmp_path / "e.S"
    p.write_text(text.replace(LOAD0, new, 1))
    return prove_object(p, workdir=tmp_path)


def test_two_message_words_loaded_whole_read_as_32_bits_are_the_first(tmp_path):
    """Round 0 of our textbook export loads m0 and m1 with one 64-bit ``mov``; ``bswap %r8d`` reads the low
    word, m0, exactly: proved."""
    assert _export_edit(tmp_path, "\tmov (%rsi), %r8\n").proved


def test_arithmetic_on_two_words_held_whole_is_refused(tmp_path):
    """The upper word shifted down (``shr $32``) is a value computed on the pair, never tracked: not proved."""
    res = _export_edit(tmp_path, "\tmov (%rsi), %r8\n\tshr $32, %r8\n")
    assert not res.proved, res.summary()
    assert "%r8 is not an integer here" in res.summary(), res.summary()
