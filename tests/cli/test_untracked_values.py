"""A path that mixes kinds of values (a pointer used as data, a misaligned stack read) is not a refusal.

The executor refuses such a path with the category ``"untracked value"`` (``lift.values.CATEGORIES``);
``analyze`` makes it "unknown" by that field and runs it natively -- a wrong function gets a counterexample
confirmed natively (exit 1), a right one "not proved" (exit 3). Refusals of unmodelled instructions, symbols
and jumps stay one line and exit 2 (tests/cli/test_refusals.py).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sha1opt.analyze import untracked_as_unknown
from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.function import Contract, FunctionProof, PathReport


@pytest.fixture(scope="module")
def export_text() -> str:
    return function_text(textbook("x86_64"))


def _prove(tmp_path, text: str):
    f = tmp_path / "variant.S"
    f.write_text(text)
    return CliRunner().invoke(main, ["prove", "--object", str(f)])


def test_misaligned_stack_read_mutant_is_a_native_counterexample_not_a_refusal(tmp_path, export_text):
    """Regression (bench/lift_mutants.py): one displacement bit flipped, `xor 32(%rsp)` -> `xor 33(%rsp)`,
    was refused ("accesses ... partially overlap"); the function is wrong, so it gets a counterexample."""
    r = _prove(tmp_path, export_text.replace("xor 32(%rsp), %r8d", "xor 33(%rsp), %r8d", 1))
    assert r.exit_code == 1, r.output
    assert "NOT proved: counterexample (confirmed natively)" in r.stdout and "partially overlap" in r.stdout


def test_rotated_pointer_mutant_is_a_native_counterexample_not_a_refusal(tmp_path, export_text):
    """Regression: `rol $1, %esi` on the data pointer was refused ("rol on pointers or counts")."""
    r = _prove(tmp_path, export_text.replace("\tbswap %r8d\n", "\tbswap %r8d\n\trol $1, %esi\n", 1))
    assert r.exit_code == 1, r.output
    assert "counterexample (confirmed natively)" in r.stdout and "rol on pointers or counts" in r.stdout


def test_a_misaligned_read_of_a_right_function_is_not_proved_not_refuted(tmp_path, export_text):
    """The read's value is never used: the machine agrees with SHA-1, and nothing is claimed either way."""
    r = _prove(tmp_path, export_text.replace("\tmov %r8d, (%rsp)\n", "\tmov %r8d, (%rsp)\n\tmov 1(%rsp), %r10d\n", 1))
    assert r.exit_code == 3, r.output
    assert "NOT proved (unknown)" in r.stdout and "agreed with SHA-1 on every concrete record" in r.stdout


def test_regression_unknown_was_decided_by_matching_the_refusal_message():
    """``analyze`` listed substrings of the executor's messages (``UNTRACKED``) to tell an untracked value from
    an unmodelled construct: a reworded message changed the verdict. The category decides, the text does not."""
    def refused(category, detail):
        return PathReport("stopped", "f", None, "", "refused", detail, 3, 0.0, category=category)

    untracked = refused("untracked value", "a newly worded refusal at 0x10")
    construct = refused("instruction", "%eax holds a pointer into data but is used as data at 0x12")
    got = untracked_as_unknown(FunctionProof("f", "x86_64", Contract("sysv", 0), (untracked, construct), 0.0)).paths
    assert [(p.outcome, p.category) for p in got] == [("unknown", "untracked value"), ("refused", "instruction")]
    assert got[0].detail == "not proved: a newly worded refusal at 0x10" and got[1] == construct
