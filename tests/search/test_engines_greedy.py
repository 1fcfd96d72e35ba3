"""The greedy engine (search/engines/greedy.py): model-clocked orders on floating registers.

Proved here: any order of a range's ops is written exactly as fine offsets
(the candidate realizes to that very order); the greedy candidate is that
order, is SHA-1 (block prover), and is cheaper than the default schedule
under the in-order model it was built for; out-of-order models get none.
The beam of width 1 is the single-pick order; a wider beam's candidate is
SHA-1 and cheaper than the single-pick one on Atom (the regression that left
Atom's rounds 20-79 a cycle a round behind OpenSSL's).
"""

import random

import pytest

from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import prove_in_block
from sha1opt.search.engines.greedy import (beam_candidate, beam_order, greedy_candidate, greedy_order,
                                           greedy_starts, order_offsets)
from sha1opt.search.objective import range_cost
from sha1opt.search.space.candidate import REGS, Candidate, prepared, prepared_flow, realize
from sha1opt.search.space.recipe import TEXTBOOK, Recipe


def _random_topological_order(g, rng):
    indeg = [len(p) for p in g.preds]
    ready = [i for i, d in enumerate(indeg) if d == 0]
    out = []
    while ready:
        i = ready.pop(rng.randrange(len(ready)))
        out.append(i)
        for s in g.succs[i]:
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_any_order_is_written_exactly_as_offsets(seed):
    # x86-64's thirteen registers hold any order of one round pair's values, so only the encoding is tested
    rng = random.Random(seed)
    ops = prepared(40, 41, TEXTBOOK, "x86_64")[0]
    g = prepared_flow(40, 41, TEXTBOOK, "x86_64")[0].graph
    order = _random_topological_order(g, rng)
    offs = order_offsets(ops, order)
    offs[REGS] = 1
    real = realize(Candidate(40, 41, "x86_64", TEXTBOOK, tuple(sorted(offs.items()))))
    assert real is not None and real.order == order


def test_the_greedy_candidate_is_its_order_proves_and_beats_the_default_on_pentium():
    model = load_model("pentium")
    recipe = Recipe(wsrc="load")
    c = greedy_candidate(model, 20, 27, recipe)
    real = realize(c)
    assert c.floating and real.order == greedy_order(model, 20, 27, recipe)
    cost = range_cost(model, 20, 27, "i386")
    assert cost(real.code) < cost(realize(Candidate(20, 27, "i386", TEXTBOOK)).code)
    assert prove_in_block(real.code, 20, 27, "i386")[0]


def test_out_of_order_models_get_no_greedy_starts():
    assert greedy_starts(load_model("core2"), 40, 43) == []
    assert greedy_starts(load_model("pentium"), 40, 43, should_stop=lambda: True) == []


def test_a_stop_request_ends_the_greedy_engine_between_picks():
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 5            # a few picks, then stop: no order, no candidate
    assert greedy_candidate(load_model("pentium"), 20, 39, Recipe(wsrc="load"), should_stop=stop) is None
    assert len(asked) == 6


def test_a_beam_of_width_one_is_the_single_pick_order():
    model = load_model("atom")
    recipe = Recipe(kw="wk")
    assert beam_order(model, 20, 27, recipe, width=1)[0] == greedy_order(model, 20, 27, recipe)


def test_the_beam_beats_single_picks_on_atom_and_proves():
    model = load_model("atom")
    recipe = Recipe(kw="wk")
    cost = range_cost(model, 20, 27, "i386")
    single = cost(realize(greedy_candidate(model, 20, 27, recipe)).code)
    c = beam_candidate(model, 20, 27, recipe)
    code = realize(c).code
    assert c.floating and cost(code) < single
    assert prove_in_block(code, 20, 27, "i386")[0]
