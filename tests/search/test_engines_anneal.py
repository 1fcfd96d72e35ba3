"""The annealer (search/engines/anneal.py): its stretch move and its cooling.

Proved here: a stretch move changes the offsets of exactly one chain's groups, over consecutive rounds
inside the range, each by the same step (within the clamp), and the annealer draws it; a run without
an evaluation budget cools by the clock to its deadline, a budgeted run by its evaluations.
"""

import random

from sha1opt.search.engines.anneal import MAX_OFFSET, NO_BUDGET, neighbour, stretch_move, temperature
from sha1opt.search.space.candidate import Candidate
from sha1opt.search.space.recipe import TEXTBOOK


def test_a_stretch_moves_one_chain_over_consecutive_rounds_by_one_step():
    rng = random.Random(5)
    c = Candidate(0, 79, "x86_64", TEXTBOOK).with_offset((30, "W"), MAX_OFFSET)
    for _ in range(50):
        nxt = stretch_move(c, rng)
        before, after = c.offset_map(), nxt.offset_map()
        changed = {k for k in before.keys() | after.keys() if before.get(k, 0) != after.get(k, 0)}
        assert len({k[1] for k in changed}) <= 1 and all(len(k) == 2 for k in changed)
        rounds = sorted(k[0] for k in changed)
        assert rounds == list(range(rounds[0], rounds[-1] + 1)) if rounds else True
        assert all(0 <= t <= 79 for t in rounds)
        steps = {after.get(k, 0) - before.get(k, 0) for k in changed}
        assert steps <= {1} or steps <= {-1}
        assert all(abs(v) <= MAX_OFFSET for v in after.values())
        c = nxt


def test_the_annealer_draws_stretch_moves():
    rng = random.Random(0)
    c = Candidate(0, 79, "x86_64", TEXTBOOK)
    widths = []
    for _ in range(400):
        nxt = neighbour(c, rng, "base", registers=False)
        if nxt.recipe == c.recipe:
            widths.append(len(set(nxt.offsets) ^ set(c.offsets)))
    assert max(widths) > 2


def test_a_run_without_budget_cools_by_the_clock():
    # Regression: with no evaluation budget (runs end at their deadline, the driver's default) the
    # temperature was t0 * (1 - n / 10**9), i.e. never fell: whole-block runs never settled.
    assert temperature(4.0, 10, NO_BUDGET, 100.0, 160.0, 145.0) == 1.0
    assert temperature(4.0, 10, NO_BUDGET, 100.0, 160.0, 170.0) == 0.0


def test_a_run_with_a_budget_cools_by_its_evaluations_whatever_the_clock():
    # (so a budgeted search stays a function of its inputs, whatever the cluster's speed)
    assert temperature(4.0, 500, 1000, 100.0, 160.0, 159.0) == 2.0
    assert temperature(4.0, 500, 1000, 100.0, None, 159.0) == 2.0
