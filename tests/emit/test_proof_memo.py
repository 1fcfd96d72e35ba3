"""The memo of proofs (``emit.proof_memo``): an object proved once per process, never a verdict from other inputs.

Rules (the module's docstring): the key holds everything the verdict depends on -- the object, the contract,
the prover function, the semantics table's content and what the prover looks up by name; only proofs that
proved are kept. The first regression test is the bug of the first memo (keyed without the table): a
proof made under a patched ``x86.SEMANTICS`` was handed out after the patch was undone, so
tests/emit/test_safety_nets.py got "proved" for code the true table refutes.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import sha1opt.emit.validate as validate_module
import sha1opt.semantics.lift.function as function_module
from sha1opt.emit import proof_memo
from sha1opt.emit.assembly import function_text
from sha1opt.emit.objfile import load_object
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics import x86
from sha1opt.semantics.lift.elf import Symbol
from sha1opt.semantics.verdict_memo import semantics_key
from sha1opt.semantics.x86 import Instr, Reg
from tests.conftest import spy
from tests.support.cpu import needs

pytestmark = needs()                        # GNU as for x86 (nothing is run: native=False)


def _sub_for_add(arch="x86_64", round_=10):
    """The textbook block with round ``round_``'s ``add %reg, %e`` turned into ``sub`` (no other ``sub``)."""
    sched = textbook(arch)
    body = list(sched.body)
    k = next(i for i in range(sched.round_starts[round_], sched.round_starts[round_ + 1])
             if body[i].mnemonic == "add" and all(isinstance(o, Reg) for o in body[i].operands))
    body[k] = Instr("sub", body[k].operands)
    return replace(sched, body=tuple(body))


def _prove(sched, where):
    where.mkdir()
    v = validate(function_text(sched), sched, where, native=False)
    return next(c for c in v.checks if c.name == "prove")


def test_regression_a_proof_under_a_patched_semantics_table_is_not_the_verdict_under_the_true_table(tmp_path):
    """``sub`` computed as ``add`` proves the mutant; with the row restored the same object is refuted."""
    mutant = _sub_for_add()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(x86.SEMANTICS, "sub", replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn))
        assert _prove(mutant, tmp_path / "patched").ok              # (kept: it proved)
    again = _prove(mutant, tmp_path / "true")
    assert not again.ok and "round 10" in again.detail, again


def test_the_same_object_is_proved_once_and_a_rebound_name_the_prover_reads_proves_again(tmp_path, monkeypatch):
    """Second validation of one object: no proof (the memo); then ``explore``, which ``prove_function`` looks up
    in its module, wrapped: another key, the proof runs again."""
    sched = textbook("x86_64")
    proofs = spy(monkeypatch, validate_module, "prove_function")       # (a wrapper: its own key from here on)
    assert _prove(sched, tmp_path / "a").ok and _prove(sched, tmp_path / "b").ok
    assert len(proofs) == 1
    explored = spy(monkeypatch, function_module, "explore")
    assert _prove(sched, tmp_path / "c").ok
    assert len(proofs) == 2 and explored


def test_a_proof_that_did_not_prove_is_not_kept(tmp_path, monkeypatch):
    mutant = _sub_for_add(round_=30)
    proofs = spy(monkeypatch, validate_module, "prove_function")
    assert not _prove(mutant, tmp_path / "a").ok and not _prove(mutant, tmp_path / "b").ok
    assert len(proofs) == 2


def test_the_key_names_the_objects_symbols_and_the_table_rows_code(tmp_path):
    """A symbol added to a parsed object (``scan``'s stripped functions) and a row whose value function is
    another one are other keys; the same content is the same key."""
    sched = textbook("x86_64")
    (tmp_path / "o").mkdir()
    obj = validate_module.read_object(validate(function_text(sched), sched, tmp_path / "o", native=False).obj)
    more = replace(obj, symbols=[*obj.symbols, Symbol("extra", ".text", 0, 4, "STT_FUNC", "STB_LOCAL")])
    assert proof_memo.object_key(obj) == proof_memo.object_key(replace(obj)) != proof_memo.object_key(more)
    before = semantics_key()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(x86.SEMANTICS, "sub", replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn))
        assert semantics_key() != before
    assert semantics_key() == before


def test_one_source_assembled_in_two_folders_is_one_key_and_its_line_numbers_are_in_it(tmp_path):
    """``analyze`` assembles a ``.S`` with -g in a temporary folder, which ``.debug_str`` names: not a verdict's
    input (the same file analyzed twice is proved once); the line table the prover's messages cite is."""
    src, moved = tmp_path / "t.S", tmp_path / "moved.S"
    src.write_text(function_text(textbook("i386")))
    moved.write_text("\n" + src.read_text())               # every line one further down, the same machine code
    keys = []
    for name, path in (("a", src), ("b", src), ("c", moved)):
        (tmp_path / name).mkdir()
        obj = load_object(path, tmp_path / name).obj
        assert obj.lines                                    # (assembled with its line table)
        keys.append(proof_memo.object_key(obj))
    assert keys[0] == keys[1] != keys[2]
