"""A proof is computed once per process for the same object (``emit.validate.proved_once``).

Rule (house rule 9, "a fact -- a proof's verdict -- is computed once and passed as data"; issue 27, "cache
expensive proofs"): the key is the object's bytes, the contract and the prover; any change of one of them is a
new proof. The prover is replaced here by a counting stand-in (its identity is part of the key, so a real proof
made elsewhere in this process is never returned to it); the objects are tiny functions assembled here.
"""

from __future__ import annotations

import shutil

import pytest

import sha1opt.emit.validate as validate
from sha1opt.emit.toolchain import assemble
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract
from sha1opt.semantics.lift.interface import ABI_OF

pytestmark = pytest.mark.skipif(shutil.which("as") is None, reason="GNU as is not installed")


def _object(tmp_path, body: str, name: str) -> ObjectFile:
    text = f".text\n.globl sha1_block_data_order\nsha1_block_data_order:\n{body}\n\tret\n"
    return ObjectFile.parse(assemble(text, "x86_64", tmp_path, name).read_bytes())


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def prover(obj, symbol, contract):
        seen.append((obj.elf_bytes, contract))
        return ("proof", len(seen))
    monkeypatch.setattr(validate, "prove_function", prover)
    return seen


def test_the_same_object_and_contract_are_proved_once(tmp_path, calls):
    a = _object(tmp_path, "\tnop", "a")
    again = _object(tmp_path, "\tnop", "again")          # assembled again: the same bytes
    c = Contract(ABI_OF["x86_64"], 0)
    assert validate.proved_once(a, c) == validate.proved_once(again, c) == ("proof", 1)
    assert len(calls) == 1


def test_other_bytes_or_another_contract_are_proved_again(tmp_path, calls):
    a = _object(tmp_path, "\tnop", "a")
    b = _object(tmp_path, "\txor %eax, %eax", "b")
    c0, c1 = Contract(ABI_OF["x86_64"], 0), Contract(ABI_OF["x86_64"], 1)
    assert validate.proved_once(a, c0) == ("proof", 1)
    assert validate.proved_once(b, c0) == ("proof", 2)
    assert validate.proved_once(a, c1) == ("proof", 3)
    assert len(calls) == 3


def test_at_most_proof_memo_proofs_are_kept(tmp_path, calls, monkeypatch):
    monkeypatch.setattr(validate, "_PROOFS", {})
    monkeypatch.setattr(validate, "PROOF_MEMO", 2)
    objs = [_object(tmp_path, "\tnop\n" * (k + 1), f"o{k}") for k in range(3)]
    c = Contract(ABI_OF["x86_64"], 0)
    for o in objs:
        validate.proved_once(o, c)
    assert len(validate._PROOFS) == 2
    validate.proved_once(objs[0], c)                      # the oldest was dropped: proved again
    assert len(calls) == 4
