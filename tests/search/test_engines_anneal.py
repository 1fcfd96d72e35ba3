"""The annealer's stretch move (search/engines/anneal.py): one chain nudged over a run of rounds at once.

Proved here: a stretch move changes the offsets of exactly one chain's groups, over consecutive rounds
inside the range, each by the same step (within the clamp); and the annealer draws it.
"""

import random

from sha1opt.search.engines.anneal import MAX_OFFSET, neighbour, stretch_move
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
