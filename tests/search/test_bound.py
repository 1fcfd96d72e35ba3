"""Lower bounds (search/bound.py): no candidate of any model and range simulates below its bound, and it is tight somewhere."""

import random

import pytest

from sha1opt.search.bound import block_bound, code_bound, range_bound
from sha1opt.search.blocks import STANDARD_RANGES
from sha1opt.search.cost import simulate
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.engines.anneal import neighbour
from sha1opt.search.objective import range_cost
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK, recipes_for
from sha1opt.semantics.att import parse_text


def _random_candidates(rng, model, first, last, n):
    c = Candidate(first, last, model.arch, TEXTBOOK)
    out = []
    while len(out) < n:
        for _ in range(rng.randint(1, 8)):
            nxt = neighbour(c, rng, model.isa)
            if realize(nxt) is not None:
                c = nxt
        out.append(c)
    return out


@pytest.mark.parametrize("uarch", model_names())
def test_no_candidate_simulates_below_the_range_bound(uarch):
    model = load_model(uarch)
    rng = random.Random(uarch)
    first, last = STANDARD_RANGES[model_names().index(uarch) % len(STANDARD_RANGES)]
    bound = range_bound(model, first, last)
    cost = range_cost(model, first, last, model.arch)
    context = cost([])
    assert bound.context == context
    for c in _random_candidates(rng, model, first, last, 4):
        assert cost(realize(c).code) - context >= bound.cycles - 1e-9, c


@pytest.mark.parametrize("uarch", model_names())
def test_no_whole_block_simulates_below_the_block_bound(uarch):
    # Mixed recipes per range: the block bound must hold for blocks no single recipe makes.
    model = load_model(uarch)
    rng = random.Random(uarch + "block")
    recipes = recipes_for(model.isa)
    parts = []
    for first, last in STANDARD_RANGES:
        real = realize(Candidate(first, last, model.arch, rng.choice(recipes)))
        while real is None:
            real = realize(Candidate(first, last, model.arch, rng.choice(recipes)))
        parts.append(real.code)
    bound = block_bound(model)
    for sched in (textbook(model.arch), block_schedule(parts, model.arch, "mixed")):
        assert simulate(list(sched.body), model).cycles >= bound.cycles - 1e-9


def test_bound_is_reached_by_a_dependent_rotate_chain():
    # ten dependent 4-clock rotates on Northwood: one clock to start, then 40 clocks of latency
    model = load_model("p4")
    code = parse_text("roll $5, %eax\n" * 10, "i386")
    b = code_bound(model, code)
    assert b.cycles == simulate(code, model).cycles == 41.0
    assert b.binding == "critical path" and b.gap(41.0) == 0.0


def test_bound_is_reached_by_an_in_order_add_chain():
    model = load_model("pentium")
    code = parse_text("addl %ebx, %eax\n" * 10, "i386")
    assert code_bound(model, code).cycles == simulate(code, model).cycles == 10.0


def test_regression_eliminated_moves_take_no_port():
    # zen3 eliminates register moves: counting their uops on the ALUs overstated the
    # port bound above a real candidate (55 cycles against a "bound" of 56, rounds 20-39).
    model = load_model("zen3")
    code = parse_text("movl %eax, %ebx\nmovl %ebx, %ecx\nmovl %ecx, %edx\nmovl %edx, %esi\n" * 8, "x86_64")
    b = code_bound(model, code)
    assert b.ports == 0.0
    assert simulate(code, model).cycles >= b.cycles
