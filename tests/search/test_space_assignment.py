"""Floating registers (search/space/assignment.py): the register dimension of the search space.

What is proved here: the dimension's default is exactly today's code; every
choice, spill and exit move still computes SHA-1 (block prover); spills use the
i386 frame's spare slots only; the moves travel through the store and rebuild
to the same code; the drawing follows the assignment; the annealer reaches
the dimension.
"""

import random

import pytest

from sha1opt.search.blocks import _rebuild
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.driver import prove_in_block
from sha1opt.search.engines.anneal import neighbour, register_move
from sha1opt.search.space.assignment import MOVE, SPILL, commutes
from sha1opt.search.space.candidate import CHAINS, REG, REGS, Candidate, choice_points, realize
from sha1opt.search.space.frame import (I386_COUNT_SLOT, I386_DATA_SLOT, I386_FRAME_BYTES, I386_SPILL_SLOTS,
                                        I386_STATE_SLOT, SPILL_SLOTS)
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, recipes_for
from sha1opt.search.store import Store
from sha1opt.semantics.x86 import Mem
from sha1opt.views.drawing import columns, table


def floating(c: Candidate, spills: int = 0) -> Candidate:
    return c.with_offset(REGS, 1 + spills)


def text(code) -> list[str]:
    return [str(i) for i in code]


@pytest.mark.parametrize("arch", ["i386", "x86_64"])
def test_floating_default_is_the_fixed_layout_code(arch):
    # No choice made: every value lands where the rotating layout keeps it, so the code is the same.
    fixed = realize(Candidate(0, 79, arch, TEXTBOOK))
    assert text(realize(floating(Candidate(0, 79, arch, TEXTBOOK))).code) == text(fixed.code)


def test_a_lea_choice_puts_the_new_a_in_another_register_and_the_exit_moves_it_back():
    c = floating(Candidate(20, 20, "i386", TEXTBOOK))
    lea = next(k for t, k in choice_points(c) if str(realize(c).ops[realize(c).order[k]].ins).startswith("lea"))
    real = realize(c.with_offset((20, REG, lea), 1))
    moved = next(i for i in real.code if i.mnemonic == "lea")
    assert moved.dest.name != "ebp"                       # e's register of round 20 (state_regs(20)[4])
    assert [o for o in real.origins if o[1] == MOVE]       # and the exit puts it back
    assert prove_in_block(real.code, 20, 20, "i386")[0]


def test_commutativity_is_read_off_the_value_functions():
    assert all(commutes(m) for m in ("add", "xor", "and", "or"))
    assert not commutes("sub") and not commutes("mov") and not commutes("rol")


@pytest.mark.parametrize("seed", range(4))
def test_random_floating_candidates_prove(seed):
    """Any order, register choice and spill allowance the search can pick is SHA-1 (Z3, cut points)."""
    rng = random.Random(seed)
    arch = ("i386", "x86_64")[seed % 2]
    first = rng.choice((14, 20, 40, 60))
    last = min(79, first + 7)
    recipe = rng.choice(recipes_for("bmi2" if arch == "x86_64" else "base"))
    proved = 0
    while proved < 2:
        c = floating(Candidate(first, last, arch, recipe), rng.randint(0, 4))
        for _ in range(rng.randint(0, 25)):
            c = c.with_offset((rng.randint(first, last), rng.choice(CHAINS)), rng.randint(-4, 4))
        for _ in range(40):
            t, k = rng.choice(choice_points(c))
            c = c.with_offset((t, REG, k), rng.randrange(4))
        real = realize(c)
        if real is None:
            continue
        ok, why = prove_in_block(real.code, first, last, arch)
        assert ok, why
        proved += 1


def _spilling(arch: str, spills: int) -> Candidate:
    # W of the next rounds much earlier: more values live than i386 has registers.
    offs = tuple(((t, "W"), 3) for t in range(21, 26))
    return floating(Candidate(20, 25, arch, Recipe(wsrc="load"), offs), spills)


def test_over_budget_orders_spill_into_the_i386_frame_and_still_prove():
    assert realize(_spilling("i386", 0)) is None            # no spill allowed: rejected as before
    real = realize(_spilling("i386", 2))
    spill = [i for i, o in zip(real.code, real.origins) if o[1] == SPILL]
    assert spill
    slots = {o.disp for i in real.code for o in i.operands
             if isinstance(o, Mem) and o.base is not None and o.base.name == "esp" and o.disp >= 64}
    assert slots and slots <= set(I386_SPILL_SLOTS)          # only the spare slots, never the pointers or count
    assert prove_in_block(real.code, 20, 25, "i386")[0]


def test_a_third_temporary_on_i386_is_spilled_instead_of_rejected():
    # W kept in registers (wsrc=reg3) needs more than i386's two temporaries in the fixed layout.
    assert realize(Candidate(20, 39, "i386", Recipe(wsrc="reg3"))) is None
    real = realize(floating(Candidate(20, 39, "i386", Recipe(wsrc="reg3")), 4))
    assert real is not None and prove_in_block(real.code, 20, 39, "i386")[0]


def test_x86_64_has_no_spill_slots():
    assert SPILL_SLOTS["x86_64"] == ()
    real = realize(_spilling("x86_64", 4))                   # thirteen registers: nothing to spill
    assert real is not None and not [o for o in real.origins if o[1] == SPILL]


def test_the_i386_frame_holds_the_spill_slots_and_stays_aligned():
    used = {0: 64, I386_STATE_SLOT: 4, I386_DATA_SLOT: 4, I386_COUNT_SLOT: 4}
    words = set()
    for start, size in used.items():
        words |= set(range(start, start + size, 4))
    assert not words & set(I386_SPILL_SLOTS)
    assert max(I386_SPILL_SLOTS) + 4 <= I386_FRAME_BYTES
    assert (I386_FRAME_BYTES + 4 * 4 + 4) % 16 == 0          # four saved registers and the return address


def test_register_moves_survive_the_store_and_rebuild_to_the_proved_code(tmp_path):
    c = _spilling("i386", 2).with_offset((22, REG, 3), 2)
    real = realize(c)
    s = Store(tmp_path / "r.sqlite")
    s.put(uarch="pentium", arch="i386", first=20, last=25, model_version="v", cycles=99.0, recipe=c.recipe.key(),
          offsets=c.offsets, code="\n".join(map(str, real.code)), evaluations=1, seconds=1.0, seed=0, proved=True)
    rebuilt, why = _rebuild(s.get("pentium", "i386", 20, 25, "v"))
    assert why == "" and text(rebuilt.code) == text(real.code)


def test_the_drawing_follows_the_assignment():
    real = realize(_spilling("i386", 2))
    sim = simulate(real.code, load_model("pentium"))
    rows = table(real, sim)
    assert "spill" in columns(real) and "spill" not in columns(realize(Candidate(20, 25, "i386", TEXTBOOK)))
    drawn = sorted(x.split(": ", 1)[1] for r in rows for cell in r.cells.values() for x in cell)
    assert drawn == sorted(text(real.code))                  # every instruction once, spills included
    spills = [x for r in rows for x in r.cells["spill"]]
    assert len(spills) == sum(1 for o in real.origins if o[1] == SPILL)


def test_the_annealer_reaches_the_register_dimension():
    rng = random.Random(1)
    c = Candidate(40, 59, "i386", TEXTBOOK)
    assert register_move(c, rng).floating
    seen = set()
    for _ in range(300):
        c = neighbour(c, rng, "base")
        seen |= {k[1] for k, _ in c.offsets if len(k) >= 2 and isinstance(k[1], str)}
    assert {"regs", REG} <= seen
    c = Candidate(40, 59, "i386", TEXTBOOK)
    for _ in range(200):
        c = neighbour(c, rng, "base", registers=False)
    assert not c.floating and not c.register_choices()


def test_the_exact_engine_orders_floating_candidates_on_in_order_models():
    from sha1opt.search.engines.exact import solve_templates

    for uarch, floating_expected in (("pentium", True), ("core2", False)):
        model = load_model(uarch)
        res = solve_templates(model, model.arch, 40, 47, model.isa, time_limit=15, recipes=[TEXTBOOK])
        assert res and all(r.candidate.floating == floating_expected for r in res)
        assert all(realize(r.candidate) is not None for r in res)
