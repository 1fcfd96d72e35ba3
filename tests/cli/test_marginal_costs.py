"""bench/marginal_costs.py's variants (nothing timed): the fillers change no result, and sit where it says.

What is proved: a filled block is a correct block -- its block proof holds for each kind of filler on
both arches, so what the bench times is SHA-1 and the difference it measures is the fillers' cost;
``fillers`` restores the registry entry it borrows (even on an error); each round but the last gets
exactly ``n`` fillers right after its last instruction, writing that round's dead temporary; and the
variants are the subject first, then one per filler and neighbour.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from sha1opt.search.cost.model import load_model
from sha1opt.search.space import hybrid_forms
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_forms import FORMS, LAZY_TEMPS
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_proof import prove_hybrid

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mc(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))    # the script imports its sibling pair_table.py
    return importlib.import_module("marginal_costs")


@pytest.mark.parametrize("arch,kind,ahead", [("i386", "load", True), ("i386", "alu", False),
                                             ("x86_64", "move", False), ("x86_64", "alu", True)])
def test_a_filled_block_still_proves(mc, arch, kind, ahead):
    p = HybridParams(isa="avx", lead=2, every=3, arch=arch, scalar=mc.SUBJECT_FORM, ahead=ahead)
    with mc.fillers(kind, 2):
        block = build_i386(p) if arch == "i386" else build(p)
    plain = build_i386(p) if arch == "i386" else build(p)
    if not ahead:               # (with read-ahead the rounds after the fork are in both main and tail)
        assert len(block.code()) == len(plain.code()) + 2 * 79
    assert len(block.body) > len(plain.body)
    assert prove_hybrid(block).ok


def test_fillers_restore_the_form_even_on_an_error(mc):
    form = FORMS[mc.SUBJECT_FORM]
    with pytest.raises(RuntimeError):
        with mc.fillers("load", 1):
            assert FORMS[mc.SUBJECT_FORM] is not form
            raise RuntimeError("boom")
    assert hybrid_forms.FORMS[mc.SUBJECT_FORM] is form


def test_each_round_but_the_last_ends_with_its_fillers_on_its_dead_temporary(mc):
    temps = LAZY_TEMPS["i386"]
    rounds = FORMS[mc.SUBJECT_FORM].rounds("i386")
    got = mc.filled(rounds, temps, "move", 1)
    assert len(got.code) == len(rounds.code) + 79 and len(got.rounds) == len(got.code)
    ends = [k for k in range(len(got.code)) if k + 1 == len(got.code) or got.rounds[k + 1] != got.rounds[k]]
    for t, k in enumerate(ends[:79]):
        ins = got.code[k]
        assert ins.mnemonic == "mov" and ins.operands[1].name == temps[t % 2], (t, str(ins))
    assert got.code[ends[79]] == rounds.code[-1]        # round 79 (the final ror) takes none


def test_the_variants_start_with_the_subject(mc):
    p = mc.subject(load_model("zen4"), "i386")
    labels = [label for label, _, _ in mc.variants(p)] if p is not None else []
    if p is None:
        pytest.skip("this CPU runs no one-block i386 hybrid dialect of zen4")
    assert labels[0] == "subject" and p.scalar == mc.SUBJECT_FORM and p.ahead
    assert "+1 load/round" in labels and "+2 alu/round" in labels and "no read-ahead" in labels


def test_a_filler_on_the_live_temporary_would_not_prove(mc, monkeypatch):
    """The check above can fail: the same filler writing the other temporary (the next round's prepared f
    term, live) breaks the block, and its proof says so."""
    p = HybridParams(isa="avx", lead=2, every=3, arch="i386", scalar=mc.SUBJECT_FORM)
    monkeypatch.setattr(mc, "filler", lambda kind, t, dead, live: mc.Instr("add", (mc.Imm(1), live)))
    with mc.fillers("alu", 1):
        block = build_i386(p)
    assert not prove_hybrid(block).ok
