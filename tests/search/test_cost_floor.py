"""The resource floor of a loop body (``search/cost/floor.py``) and the loop measure's use of it.

Proved here: the floor is the larger of the body's front-end slots over ``issue_width`` and, per unit
set, the busy time of the uops that can only run there over the set's units; an out-of-order loop
figure (``simulate(..., loop=True)``) is never below it, while the figure of a body the window already
measures above it is unchanged. The regression (stop 20): the 6-iteration window read a stop-18
skylake x86-64 block at 283.67 cycles per iteration, below the 284.25 its 1137 fused uops need at 4
per clock; the loop figure is now 284.25.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.search.cost.floor import floor, load, unit_sets
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate, simulator_for
from sha1opt.search.objective import block_loop_cycles, block_loop_items
from sha1opt.search.space.candidate import block_schedule, textbook
from sha1opt.semantics.att import parse_text

DATA = Path(__file__).parent / "data"
REGS = ("eax", "ebx", "ecx", "edx", "esi", "edi", "r8d", "r9d")
OUT_OF_ORDER = ["p6", "p4", "core2", "nehalem", "skylake", "goldencove", "k7", "k8", "k10", "zen1", "zen2", "zen3",
                "zen4", "zen5"]


def _dec(model, text: str):
    return simulator_for(model).decode(parse_text(text, "x86_64"))


def test_the_floor_is_the_front_end_slots_over_the_issue_width():
    # 240 independent adds on skylake: 240 fused uops at 4 per clock = 60, and 4 ALU ports = 60 too.
    m = load_model("skylake")
    assert floor(_dec(m, "\n".join(f"addl $1, %{REGS[k % 8]}" for k in range(240))), m) == 60.0


def test_the_floor_is_the_busiest_unit_set_when_it_binds():
    # 240 independent `roll $5` on skylake: one uop on p0 or p6 (uops.info SKL: ROL (R32, I8) p06):
    # 240 busy clocks on 2 ports = 120, above the front end's 60.
    m = load_model("skylake")
    dec = _dec(m, "\n".join(f"roll $5, %{REGS[k % 8]}" for k in range(240)))
    slots, loads, longest = load(dec, unit_sets(m), False)
    assert (slots, longest) == (240, 1)
    assert floor(dec, m) == 120.0


def test_an_eliminated_move_reaches_no_unit():
    # goldencove eliminates register moves (rules.move_elimination): 240 of them cost front-end slots
    # only, 240 / 6 = 40.
    m = load_model("goldencove")
    dec = _dec(m, "\n".join(f"movl %{REGS[k % 8]}, %{REGS[(k + 1) % 8]}" for k in range(240)))
    assert floor(dec, m) == 40.0


@pytest.mark.parametrize("uarch", OUT_OF_ORDER)
def test_an_out_of_order_loop_never_reads_below_its_floor(uarch):
    m = load_model(uarch)
    arch = "x86_64" if m.arch == "x86_64" else "i386"
    sched = textbook(arch)
    body = block_loop_items(sched)
    assert simulate(body, m, loop=True).cycles >= floor(simulator_for(m).decode(body), m)


def test_a_body_measured_above_its_floor_is_unchanged():
    # A chain of 240 dependent adds: the window measures 240, far above the floor of 60.
    m = load_model("skylake")
    items = parse_text("\n".join(["addl $1, %eax"] * 240), "x86_64")
    assert floor(simulator_for(m).decode(items), m) == 60.0
    assert simulate(items, m, loop=True).cycles == 240.0


def test_regression_the_window_read_a_block_below_its_issue_width_floor():
    m = load_model("skylake")
    sched = block_schedule([parse_text((DATA / "skylake_x86_64_stop18_best_block.s").read_text(), "x86_64")],
                           "x86_64", "x")
    body = block_loop_items(sched)
    assert floor(simulator_for(m).decode(body), m) == 284.25
    assert block_loop_cycles(sched, m) == 284.25
