"""Regressions of the worst defect: "proved SHA-1" for code that does not compute SHA-1.

Before the lifter, ``sha1opt analyze`` read the text with its own parser (no
cpp) and proved only the loop body, so each of these four edits of a
validated export was reported "SHA-1: proved SHA-1". Now the proof is of the
machine code the text assembles to, whole function; each edit must print
NOT proved with a counterexample confirmed by running the object, and exit 1.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sha1opt.cli_analyze import analyze
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook


@pytest.fixture(scope="module")
def export_text() -> str:
    return function_text(textbook("x86_64"))


def _analyze(tmp_path, text: str):
    p = tmp_path / "e.S"
    p.write_text(text)
    return CliRunner().invoke(analyze, [str(p), "--uarch", "zen3"])


def _refuted(r) -> None:
    assert r.exit_code == 1, r.output
    assert "NOT proved: counterexample (confirmed natively)" in r.output
    assert "proved SHA-1" not in r.output


def test_export_still_proves_whole_function(tmp_path, export_text):
    r = _analyze(tmp_path, export_text)
    assert r.exit_code == 0, r.output
    assert "SHA-1: proved SHA-1 (whole function sha1_block_data_order" in r.output


def test_define_rol_ror_is_not_proved(tmp_path, export_text):
    _refuted(_analyze(tmp_path, "#define rol ror\n" + export_text))


def test_state_zeroed_before_the_loop_is_not_proved(tmp_path, export_text):
    text = export_text.replace(".Lsha1_loop:\n", "\tmovl $0, (%rdi)\n.Lsha1_loop:\n", 1)
    assert text != export_text
    _refuted(_analyze(tmp_path, text))


def test_jnz_changed_to_js_is_not_proved(tmp_path, export_text):
    text = export_text.replace("jnz .Lsha1_loop", "js .Lsha1_loop")
    assert text != export_text
    r = _analyze(tmp_path, text)
    _refuted(r)
    assert "nblocks 2" in r.output or "nblocks 3" in r.output     # one block is still right


def test_pop_rbx_removed_is_not_proved(tmp_path, export_text):
    i = export_text.rindex("\tpop %rbx\n")
    r = _analyze(tmp_path, export_text[:i] + export_text[i + len("\tpop %rbx\n"):])
    _refuted(r)
    assert "ret does not return to the caller" in r.output


def test_state_word_changed_before_the_loop_is_not_proved(tmp_path, export_text):
    """Regression: the loop-head template read H off the head state, so a prologue that changed a state
    word (``notl (%rdi)``, a data value, unlike the constant store above) made the head's "H" the wrong
    chaining value and the loop was proved; the base case now requires the caller's h_i there."""
    text = export_text.replace(".Lsha1_loop:\n", "\tnotl (%rdi)\n.Lsha1_loop:\n", 1)
    assert text != export_text
    _refuted(_analyze(tmp_path, text))
