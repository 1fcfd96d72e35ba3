"""The memo of verdicts (``semantics.verdict_memo``): one proof per whole key, never a verdict from other inputs.

Rules (the module's docstring): the whole key is the caller's key, the semantics table's content and the
identities of every name the watched packages hold; only results the caller's ``kept`` accepts are kept.
The regression test is the bug of the first memo (keyed without the table): a proof made under a patched
``x86.SEMANTICS`` was handed out after the patch was undone (tests/emit/test_safety_nets.py got
"proved" for code the true table refutes; the same with real proofs: tests/emit/test_proof_memo.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import sha1opt.search.space.shani as shani
import sha1opt.semantics.composition as composition
from sha1opt.semantics import x86
from sha1opt.semantics.verdict_memo import VerdictMemo, semantics_key
from tests.conftest import spy


def _counted(result="proved"):
    calls = []

    def prove():
        calls.append(1)
        return result
    return calls, prove


def _ok(result) -> bool:
    return result == "proved"


def test_regression_a_verdict_under_a_patched_semantics_table_is_not_handed_out_under_the_true_table():
    memo, (calls, prove) = VerdictMemo(), _counted()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(x86.SEMANTICS, "sub", replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn))
        memo.remembered(("unit",), prove, _ok)
        memo.remembered(("unit",), prove, _ok)
        assert len(calls) == 1                      # (kept under the patched table)
    memo.remembered(("unit",), prove, _ok)
    assert len(calls) == 2                          # the true table: another key, proved again
    memo.remembered(("unit",), prove, _ok)
    assert len(calls) == 2


def test_a_name_rebound_in_a_watched_module_is_another_key(monkeypatch):
    """``check_program`` wrapped where the prover looks it up (``composition``): proved again."""
    memo, (calls, prove) = VerdictMemo(), _counted()
    memo.remembered(("unit",), prove, _ok)
    spy(monkeypatch, composition, "check_program")
    memo.remembered(("unit",), prove, _ok)
    assert len(calls) == 2


def test_a_result_not_kept_is_proved_again_and_other_keys_are_other_proofs():
    memo, (calls, prove) = VerdictMemo(), _counted("unknown")
    memo.remembered(("unit",), prove, _ok)
    memo.remembered(("unit",), prove, _ok)
    assert len(calls) == 2
    memo, (calls, prove) = VerdictMemo(), _counted()
    for k in ("a", "b", "a"):
        memo.remembered((k,), prove, _ok)
    assert len(calls) == 2


def test_the_table_key_reads_a_rows_function_code():
    before = semantics_key()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(x86.SEMANTICS, "sub", replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn))
        assert semantics_key() != before
    assert semantics_key() == before


def test_a_sha_ni_unit_is_proved_once_per_process(monkeypatch):
    """``search.space.shani.prove_code``: the search, the export and the dispatch plan prove the same points."""
    proofs = spy(monkeypatch, shani, "_prove_code")     # (a wrapper in the watched module: its own key)
    p = shani.default_params("x86_64")
    assert shani.prove_shani(p, "x86_64").ok and shani.prove_shani(p, "x86_64").ok
    assert len(proofs) == 1
