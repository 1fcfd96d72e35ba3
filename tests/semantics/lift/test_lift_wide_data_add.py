"""A 64-bit ``add``/``sub`` of data and a numeral (or data) is data in its low half (``PathMachine._low_halves``).

The rule: data in a 64-bit register is tracked in its low 32 bits; the low
half of a 64-bit sum is the 32-bit sum of the low halves, so gcc's ``mov
$K, %r12d; mov %ebp, %ebp; add %r12, %rbp`` (the stripped SHA-1 of libdbus
and libk5crypto, refused as "addition of a pointer and a non-integer"
before) proves. The upper half -- the carry -- is never read: an edit that
adds it back into the round is not proved. Each case edits round 0 of
sha1opt's own textbook export (no other project's code).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sha1opt.cli_analyze import analyze
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook

ROUND0 = "\tlea 0x5a827999(%rbp,%r8), %ebp\n"


@pytest.fixture(scope="module")
def export_text() -> str:
    text = function_text(textbook("x86_64"))
    assert ROUND0 in text and "%r11" not in text and "%r10" not in text
    return text


def _analyze(tmp_path, text: str):
    p = tmp_path / "e.S"
    p.write_text(text)
    return CliRunner().invoke(analyze, [str(p), "--uarch", "zen3"])


def _edit(text: str, k: str, extra: str = "") -> str:
    return text.replace(ROUND0, f"\tadd %r8d, %ebp\n\tmov ${k}, %r11d\n\tmov %ebp, %ebp\n\tadd %r11, %rbp\n{extra}", 1)


def test_a_64_bit_add_of_a_round_constant_to_data_proves(tmp_path, export_text):
    r = _analyze(tmp_path, _edit(export_text, "0x5a827999"))
    assert r.exit_code == 0 and "SHA-1: proved SHA-1 (whole function" in r.output, r.output


def test_a_wrong_constant_added_in_64_bits_is_a_counterexample(tmp_path, export_text):
    r = _analyze(tmp_path, _edit(export_text, "0x5a827998"))
    assert r.exit_code == 1 and "NOT proved: counterexample (confirmed natively)" in r.output, r.output


def test_the_upper_half_of_a_64_bit_data_sum_is_never_read(tmp_path, export_text):
    """The carry out of the low half lands in bit 32; reading it (``shr $32``) is not a data value the lifter
    tracks, so the edit is refused, never proved (natively it is wrong whenever the sum carries)."""
    r = _analyze(tmp_path, _edit(export_text, "0x5a827999",
                                 "\tmov %rbp, %r10\n\tshr $32, %r10\n\tadd %r10d, %ebp\n"))
    assert r.exit_code != 0 and "proved SHA-1 (whole function" not in r.output, r.output
