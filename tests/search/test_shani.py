"""The SHA-NI block generator and search: proofs, refutations, table rows, legality, the search's report."""

from __future__ import annotations

import dataclasses

import pytest

from sha1opt.semantics.att import parse_text
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.prove import Counterexample
from sha1opt.semantics.vector import VECTOR_ROWS
from sha1opt.semantics.x86 import SEMANTICS
from sha1opt.search.cost import Simulator, load_model
from sha1opt.search.engines.shani import best_shani, block_cycles, loop_items
from sha1opt.search.space.shani import (
    ShaniParams, default_params, grid, legal, parts, prove_code, prove_shani, slack_key, unit_text, walk_order,
)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_generated_block_proves(arch):
    res = prove_shani(default_params(arch), arch)
    assert res.ok, res.failure and res.failure.describe()


def test_a_moved_schedule_point_still_proves():
    p = ShaniParams(msg1_lead=2, xor_lead=1, msg2_lead=1, sched_after=True, load_lead=0)
    assert legal(p, "x86_64")
    assert prove_shani(p, "x86_64").ok


def _mutant(text: str, edit) -> list:
    lines = text.splitlines()
    edit(lines)
    return parse_text("\n".join(lines), "x86_64")


def test_a_wrong_sha1rnds4_immediate_is_refuted():
    def edit(lines):
        k = next(i for i, line in enumerate(lines) if line.startswith("sha1rnds4 $1,"))
        lines[k] = lines[k].replace("$1,", "$0,")
    res = prove_code(_mutant(unit_text(default_params("x86_64"), "x86_64"), edit), "x86_64")
    assert not res.ok and isinstance(res.outcome, Counterexample)


def test_a_dropped_sha1nexte_is_refuted():
    def edit(lines):
        del lines[[i for i, line in enumerate(lines) if line.startswith("sha1nexte")][3]]
    res = prove_code(_mutant(unit_text(default_params("x86_64"), "x86_64"), edit), "x86_64")
    assert not res.ok and isinstance(res.outcome, Counterexample)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_every_instruction_is_a_row_of_the_table(arch):
    code = parse_text(unit_text(default_params(arch), arch), arch)
    assert all(ins.mnemonic in SEMANTICS for ins in code)
    used = {ins.mnemonic for ins in code}
    assert {"sha1rnds4", "sha1nexte", "sha1msg1", "sha1msg2"} <= used
    assert all(VECTOR_ROWS[m].isa == "sha" for m in used if m.startswith("sha1"))


def test_i386_uses_only_xmm0_to_7():
    text = unit_text(default_params("i386"), "i386")
    assert not any(f"%xmm{n}" in text for n in range(8, 16))
    with pytest.raises(Sha1optError):
        parts(ShaniParams(), "i386")     # register saves need xmm8/9


def test_a_schedule_that_overwrites_a_live_register_is_illegal():
    # sha1msg2 of group n in group n's own slot, after its sha1nexte read the unfinished words
    assert not legal(ShaniParams(msg2_lead=0), "x86_64")


def test_best_shani_returns_a_proved_point_with_a_stop_reason():
    r = best_shani(load_model("zen5"), "x86_64", budget=3)
    assert r.proved and r.stop_reason == "budget of 3 evaluations"
    assert r.cycles <= r.default_cycles and r.cycles_per_byte == r.cycles / 64


def test_best_shani_refuses_a_model_without_shani():
    with pytest.raises(Sha1optError, match="no SHA-NI"):
        best_shani(load_model("skylake"), "x86_64", budget=3)


PRELOADED = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True, preload=1)


def test_a_software_pipelined_point_proves():
    # the unit is one block: the tail loads of the next block write m0-m3, which are not outputs
    assert legal(PRELOADED, "x86_64")
    assert prove_shani(PRELOADED, "x86_64").ok


def test_preload_moves_the_loads_into_the_setup_and_the_tail_with_cmov_loop_control():
    p = parts(PRELOADED, "x86_64")
    setup, head, body, tail = (p.lines(code) for code in (p.setup, p.head, p.body, p.tail))
    assert sum(t.startswith("movdqu ") and "(%rsi)" in t for t in setup) == 4
    assert head == ("dec %rdx", "lea 64(%rsi), %rax", "cmovne %rax, %rsi") and tail == ("jnz .Lshani_loop",)
    assert not any(t.startswith("movdqu") and "(%rsi)" in t for t in body[:40])
    assert sum(t.startswith("movdqu") and "(%rsi)" in t for t in body) == 4


def test_preload_is_x86_64_only_and_needs_the_saves_in_registers():
    with pytest.raises(Sha1optError, match="x86-64 only"):
        parts(dataclasses.replace(default_params("i386"), preload=1), "i386")
    with pytest.raises(Sha1optError, match="registers only"):
        parts(dataclasses.replace(PRELOADED, save_on_stack=True), "x86_64")


def test_the_grid_has_monotone_leads_each_point_once_and_preload_only_on_x86_64():
    for arch in ("x86_64", "i386"):
        points = list(grid(arch))
        assert len(points) == len(set(points))
        assert all(p.msg1_lead >= p.xor_lead >= p.msg2_lead for p in points)
        assert any(p.preload for p in points) == (arch == "x86_64")
        assert set(walk_order(arch, 3)) == set(points) and walk_order(arch, 3)[0] == default_params(arch)


def test_the_cmov_of_the_pipelined_loop_is_priced_as_analyze_prices_openssls():
    items = loop_items(PRELOADED, "x86_64")
    cmov = [i for i in items if getattr(i, "mnemonic", "") == "cmovne"]
    assert len(cmov) == 1 and cmov[0].kind == "opaque"
    assert block_cycles(PRELOADED, "x86_64", Simulator(load_model("goldencove"))) > 0


def test_slack_key_puts_the_rounds_first_then_the_furthest_schedule():
    d = ShaniParams()
    after = ShaniParams(sched_after=True)
    far = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True)
    assert sorted([d, after, far], key=slack_key) == [far, after, d]
    assert slack_key(far) < slack_key(dataclasses.replace(far, save_on_stack=True))


def test_slack_key_puts_the_loads_furthest_ahead_first():
    far = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True)
    pre = [dataclasses.replace(far, preload=k) for k in (1, 2, 3, 4)]
    assert sorted([far, *reversed(pre)], key=slack_key) == [*pre, far]
    assert slack_key(pre[0]) < slack_key(dataclasses.replace(pre[0], nexte_early=True))


def test_goldencove_stack_saves_a_fifth_of_a_cycle_cheaper_do_not_win_the_tie():
    # regression: the search exported (4, 3, 1 ahead, schedule after, saves on the stack) at 111.8 predicted
    # cycles vs 112.0 -- measured 1.04-1.10 x OpenSSL's shaext where the slack rule's pick runs 0.90-1.00
    r = best_shani(load_model("goldencove"), "x86_64", budget=60)
    assert r.proved and not r.params.save_on_stack and r.params.sched_after
    assert (r.params.msg1_lead, r.params.xor_lead, r.params.msg2_lead) == (4, 4, 4)


@pytest.mark.parametrize("form", ["avx512", "avx"])
def test_the_vector_sha1msg2_forms_prove(form):
    p = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True, msg2_form=form)
    assert legal(p, "x86_64") and prove_shani(p, "x86_64").ok
    assert "sha1msg2" not in unit_text(p, "x86_64")


def test_a_vector_sha1msg2_that_forgets_the_fourth_words_fix_up_is_refuted():
    p = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True, msg2_form="avx512")

    def edit(lines):
        k = [i for i, line in enumerate(lines) if line.startswith("vprold $2")][5]
        del lines[k + 2]                                          # the pxor that adds rol2 of the top lane
    lines = unit_text(p, "x86_64").splitlines()
    edit(lines)
    res = prove_code(parse_text("\n".join(lines), "x86_64"), "x86_64")
    assert not res.ok and isinstance(res.outcome, Counterexample)


def test_on_i386_the_avx512_sha1msg2_form_keeps_the_mask_on_the_stack_and_proves():
    p = dataclasses.replace(default_params("i386"), msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True,
                            msg2_form="avx512")
    text = unit_text(p, "i386")
    assert "sub $48, %esp" in text and "movdqu %xmm7, 32(%esp)" in text
    assert text.count("movdqu 32(%esp), %xmm7") == 4 and not any(f"%xmm{n}" in text for n in range(8, 16))
    assert prove_shani(p, "i386").ok


def test_the_avx_sha1msg2_form_is_x86_64_only():
    with pytest.raises(Sha1optError, match="x86-64 only"):
        parts(dataclasses.replace(default_params("i386"), msg2_form="avx"), "i386")


def test_the_search_uses_a_vector_form_only_where_the_models_cpu_has_its_isa():
    # goldencove's model prices sha1msg2 on the SHA unit the rounds need: the AVX-512 form wins there
    # (101 vs 112 predicted); zen3 has no AVX-512, so its search never proposes the vprold form
    gc = best_shani(load_model("goldencove"), "x86_64", budget=20)
    assert gc.proved and gc.params.msg2_form == "avx512" and gc.cycles < gc.default_cycles
    z3 = best_shani(load_model("zen3"), "x86_64", budget=20)
    assert z3.params.msg2_form != "avx512"
