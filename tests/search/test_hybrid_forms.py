"""The scalar-round forms (search/space/hybrid_forms.py ``FORMS``; hybrid_rounds.py, hybrid_pinned.py): each proves,
and early / keep / pinned do what they say."""

from dataclasses import replace

import pytest

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Mem, Reg, effects
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost, build_on
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.hybrid_regs import SP, wk_slot
from sha1opt.search.space.hybrid_forms import FIRST_FORMS, FORMS, RoundsForm
from sha1opt.search.space.hybrid_pinned import PIN_F, pinned_rounds
from sha1opt.search.space.hybrid_rounds import STATE_REGS, parallel_moves, rotating_rounds

NEW_FORMS = [name for name in FORMS if name not in FIRST_FORMS and "x86_64" in FORMS[name].arches]
# every value of every choice at least once (bench/forms.py proves all of them)
COVER = ["rotate-early", "rotate-early2-keep", "rotate-bmi-early", "rotate-bmi-keep", "rotate-bmi-leanch-early2",
         "rotate-bmi-leanchp-early-keep", "rotate-bmi-lean-early", "rotate-bmi-mix-early2-keep", "pin-early",
         "pin-early2-chain", "pin-bmi-early", "pin-bmi-leanch-early2-chain", "rotate-bmi-mix-early-majn-keep",
         "pin-bmi-early-majn", "lazy", "lazy-chain"]


@pytest.mark.parametrize("name", COVER)
def test_each_choice_of_the_new_forms_proves_in_the_export_family(name):
    # read-ahead with the rol2 recurrence: what export picks on goldencove and zen5
    res = prove_hybrid(build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar=name)))
    assert res.ok, describe_failure(res)


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW_FORMS)
def test_every_new_form_proves_in_the_export_family(name):
    # read-ahead with the rol2 recurrence: what export picks on goldencove and zen5
    res = prove_hybrid(build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar=name)))
    assert res.ok, describe_failure(res)


@pytest.mark.parametrize("name", ["rotate-early-keep", "rotate-bmi-leanchp-early", "pin-bmi-early2"])
def test_new_forms_prove_without_read_ahead(name):
    res = prove_hybrid(build(HybridParams(isa="avx", scalar=name)))
    assert res.ok, describe_failure(res)


def _wk_reads(rr):
    return [(ins.operands[0].disp, tag) for ins, tag in zip(rr.code, rr.rounds)
            if ins.mnemonic == "add" and isinstance(ins.operands[0], Mem) and ins.operands[0].base == SP]


@pytest.mark.parametrize("rr", [rotating_rounds(True, early=1), rotating_rounds(True, early=2),
                                pinned_rounds(True, early=1), pinned_rounds(False, early=2, order="chain")])
def test_early_reads_each_wk_once_tagged_with_the_round_it_feeds(rr):
    reads = _wk_reads(rr)
    assert [tag for _, tag in reads] == list(range(80))
    assert all(disp == wk_slot(tag).disp for disp, tag in reads)
    # ... and it comes before every instruction of the round it feeds
    pos = [k for k, ins in enumerate(rr.code) if ins.mnemonic == "add" and isinstance(ins.operands[0], Mem)]
    assert all(rr.rounds.index(t) == pos[t] for t in range(80))
    assert all(rr.rounds[k + 1] < tag for k, (_, tag) in zip(pos[1:], reads[1:]))   # among an earlier round's


def test_a_wrong_early_slot_is_refuted():
    block = build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2", scalar="rotate-bmi-early"))
    body = list(block.body)
    k = next(i for i, x in enumerate(body) if x.mnemonic == "add" and x.operands[0] == wk_slot(6))
    body[k] = Instr("add", (wk_slot(7), body[k].operands[1]))
    assert not prove_hybrid(replace(block, body=tuple(body))).ok


def test_keep_ends_in_the_state_registers_and_the_loop_loads_no_state():
    assert rotating_rounds(True, keep=True).final == STATE_REGS == pinned_rounds(True).final
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
    assert all(FORMS[n].name == n for n in FORMS) and len(FORMS) == 57
    assert RoundsForm("rotate", True, "ch", early=1).name == "rotate-bmi-leanch-early"
    assert FORMS["pin-bmi-early2-chain"] == RoundsForm("pin", True, "", 2, True, "chain")


def test_the_first_slice_forms_write_the_first_slice_code():
    assert FORMS["rotate-bmi-lean"].rounds() == rotating_rounds(True, "all")
    assert len(FORMS["rotate-bmi"].rounds().code) == 700 and len(FORMS["rotate"].rounds().code) == 900


def test_a_pinned_form_needs_early_wk_and_kept_state():
    with pytest.raises(Sha1optError):
        RoundsForm("pin", True, early=0, keep=True)
    with pytest.raises(Sha1optError):
        RoundsForm("pin", True, early=1, keep=False)


def test_pinned_rounds_keep_f_in_one_register_and_rotate_a_in_place():
    rr = pinned_rounds(True, early=1)
    assert len(rr.code) == 720
    f_writes = {ins.operands[-1].name for ins in rr.code if ins.mnemonic in ("and", "xor") and
                isinstance(ins.operands[-1], Reg) and ins.operands[-1].name == PIN_F}
    assert f_writes == {PIN_F}
    rol30 = [ins for ins in rr.code if ins.mnemonic == "rorx" and ins.operands[0].value == 2]
    assert len(rol30) == 80 and sum(i.operands[1] == i.operands[2] for i in rol30) == 79     # prelude: into C_1


def test_goldencove_ranks_early_wk_before_late():
    # measured on this host (Emerald Rapids): rotate-bmi-early 0.954-0.965 of OpenSSL AVX2, rotate-bmi 0.99-1.0
    m = load_model("goldencove")
    cost = {n: block_cost(build_on(HybridParams(isa="avx512vl", lead=1, every=4, ahead=True, recurrence="rol2",
                                                scalar=n), m), m).cycles for n in ("rotate-bmi", "rotate-bmi-early")}
    assert cost["rotate-bmi-early"] < cost["rotate-bmi"]


@pytest.mark.parametrize("rr", [rotating_rounds(True, early=2), pinned_rounds(True, early=2),
                                pinned_rounds(False, "", early=2, order="chain")])
def test_early2_prelude_adds_w1_into_d_only_after_f0_has_read_d(rr):
    # regression: W_1+K added into d before f_0 = Ch(b, c, d) read it gave a wrong A_1 (the block proof refuted it)
    code = list(rr.code)
    k = next(i for i, ins in enumerate(code) if ins.mnemonic == "add" and ins.operands[0] == wk_slot(1))
    dest = code[k].operands[1].name
    # instructions near the prelude that read d as an input (not the additions into it)
    readers = [i for i, ins in enumerate(code[:k + 8]) if i != k and dest in effects(ins).data
               and dest not in effects(ins).writes]
    assert readers and max(readers) < k
