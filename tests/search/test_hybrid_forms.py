"""The rotating-rounds forms (search/space/hybrid_rounds.py ``FORMS``): each proves, and early / keep do what they say."""

from dataclasses import replace

import pytest

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.x86 import Instr, Mem, Reg
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost, build_on
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.hybrid_regs import SP, wk_slot
from sha1opt.search.space.hybrid_rounds import FIRST_FORMS, FORMS, STATE_REGS, RoundsForm, parallel_moves

NEW_FORMS = [name for name in FORMS if name not in FIRST_FORMS]


@pytest.mark.parametrize("name", NEW_FORMS)
def test_every_new_form_proves_in_the_export_family(name):
    # read-ahead with the rol2 recurrence: what export picks on goldencove and zen5
    res = prove_hybrid(build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar=name)))
    assert res.ok, describe_failure(res)


@pytest.mark.parametrize("name", ["rotate-early-keep", "rotate-bmi-leanchp-early"])
def test_new_forms_prove_without_read_ahead(name):
    res = prove_hybrid(build(HybridParams(isa="avx", scalar=name)))
    assert res.ok, describe_failure(res)


def _wk_reads(rr):
    return [(ins.operands[0].disp, tag) for ins, tag in zip(rr.code, rr.rounds)
            if ins.mnemonic == "add" and isinstance(ins.operands[0], Mem) and ins.operands[0].base == SP]


def test_early_reads_each_wk_once_tagged_with_the_round_it_feeds():
    rr = RoundsForm(True, early=True).rounds()
    reads = _wk_reads(rr)
    assert [tag for _, tag in reads] == list(range(80))
    assert all(disp == wk_slot(tag).disp for disp, tag in reads)
    # the read of W_t+K heads round t-1's instructions: round t-2's come before it, round t-1's after it
    pos = [k for k, ins in enumerate(rr.code) if ins.mnemonic == "add" and isinstance(ins.operands[0], Mem)]
    assert all(rr.rounds[pos[t] - 1] == t - 2 and rr.rounds[pos[t] + 1] == t - 1 for t in range(2, 80))


def test_a_wrong_early_slot_is_refuted():
    block = build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar="rotate-bmi-early"))
    body = list(block.body)
    k = next(i for i, x in enumerate(body) if x.mnemonic == "add" and x.operands[0] == wk_slot(6))
    body[k] = Instr("add", (wk_slot(7), body[k].operands[1]))
    assert not prove_hybrid(replace(block, body=tuple(body))).ok


def test_keep_ends_in_the_state_registers_and_the_loop_loads_no_state():
    rr = RoundsForm(True, keep=True).rounds()
    assert rr.final == STATE_REGS
    block = build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar="rotate-bmi-keep"))
    state = Reg("edi", 64)
    loads = [i for i in block.loop_body() if i.mnemonic == "mov" and isinstance(i.operands[0], Mem)
             and i.operands[0].base == state]
    assert loads == []          # the setup loads a..e once; without keep every block loads them
    plain = build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar="rotate-bmi"))
    assert any(i.mnemonic == "mov" and isinstance(i.operands[0], Mem) and i.operands[0].base == state
               for i in plain.loop_body())


@pytest.mark.parametrize("src,dst", [(("a", "b"), ("b", "a")), (("a", "b", "c"), ("b", "c", "a")),
                                     (("e", "a", "f", "c", "d"), ("a", "b", "c", "d", "e"))])
def test_parallel_moves_copy_every_value_even_through_a_cycle(src, dst):
    regs = {r: r for r in set(src) | set(dst) | {"t0", "t1"}}      # register -> the value it holds
    for ins in parallel_moves(src, dst, ("t0", "t1")):
        regs[ins.operands[1].name] = regs[ins.operands[0].name]
    assert all(regs[d] == s for s, d in zip(src, dst))


def test_form_names_are_unique_and_keep_the_first_slice():
    assert FIRST_FORMS == ("rotate", "rotate-bmi", "rotate-bmi-lean", "rotate-bmi-mix")
    assert all(FORMS[n].name == n for n in FORMS) and len(FORMS) == 24
    assert RoundsForm(True, "ch", early=True).name == "rotate-bmi-leanch-early"


def test_goldencove_ranks_early_wk_before_late():
    # the measured order on this host (Emerald Rapids): rotate-bmi-early 0.954-0.965 of OpenSSL AVX2, rotate-bmi 0.99-1.0
    m = load_model("goldencove")
    cost = {n: block_cost(build_on(HybridParams(isa="avx512vl", lead=1, every=4, ahead=True, recurrence="rol2",
                                                scalar=n), m), m).cycles for n in ("rotate-bmi", "rotate-bmi-early")}
    assert cost["rotate-bmi-early"] < cost["rotate-bmi"]
