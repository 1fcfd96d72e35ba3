"""The robust choice over a model's ensemble (search/cost/uncertainty.py robust_pick, search/robust.py).

Rule (issue 25, item 4): among final candidates, the pick has the lowest worst case over the ensemble, ties
by the nominal figure -- so its worst case is never above the nominal optimum's, and the nominal optimum is
kept whenever it is as robust as any.
"""

import random

from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.uncertainty import Spread, robust_pick
from sha1opt.search.robust import robust_pool
from sha1opt.search.space.candidate import Candidate
from sha1opt.search.space.recipe import TEXTBOOK, recipes_for


def test_the_robust_pick_never_has_a_worse_worst_case_than_the_nominal_optimum():
    rng = random.Random(7)
    for _ in range(500):
        spreads = [Spread(rng.uniform(90, 110), tuple(rng.uniform(80, 130) for _ in range(5)))
                   for _ in range(rng.randint(1, 6))]
        pick = spreads[robust_pick(spreads)]
        nominal = min(spreads, key=lambda s: s.nominal)
        assert pick.worst <= nominal.worst
        assert pick.worst == min(s.worst for s in spreads)


def test_the_nominal_optimum_is_kept_when_it_is_as_robust_as_any():
    spreads = [Spread(100.0, (101.0, 105.0)), Spread(99.0, (100.0, 105.0)), Spread(99.0, (104.0, 105.0))]
    assert robust_pick(spreads) == 1        # the same worst case: the lower nominal figure, then the first


def test_a_range_search_pool_picks_by_the_worst_member():
    model = load_model("zen1")
    cands = [("nominal optimum", Candidate(40, 44, "x86_64", TEXTBOOK))] + \
        [(f"start {k}", Candidate(40, 44, "x86_64", r)) for k, r in enumerate(recipes_for("bmi2")[:3])]
    pool = robust_pool(model, 40, 44, "x86_64", cands, members=4)
    worst = [p.spread.worst for p in pool.pooled]
    assert pool.members == 4 and len(pool.pooled[0].spread.values) == 4
    assert pool.robust.spread.worst == min(worst) <= pool.nominal.spread.worst


def test_a_search_prices_its_nominal_optimum_every_runs_best_and_its_cheapest_starts():
    """The driver's final pool (search --robust): the nominal optimum first, then each run's best, then the
    cheapest starts, each candidate once; the report's pool is priced on the ensemble."""
    from sha1opt.search.driver import _finalists, _Key, _robust, _setup
    s = _setup("zen1", 40, 41, "x86_64", 1)
    recipes = recipes_for("bmi2")[:3]
    starts = [Candidate(40, 41, "x86_64", TEXTBOOK)] + [Candidate(40, 41, "x86_64", r) for r in recipes]
    k = _Key(0, s, None, 0.0, (None, ""), starts, [])
    k.best = {1: (0.0, starts[2]), 0: (0.0, starts[1])}
    labels = [label for label, _ in _finalists(k, starts[1])]
    assert labels[:3] == ["nominal optimum", "run 0's best", "run 1's best"] and set(labels[3:]) == {"start"}
    pool, proof = _robust(k, starts[1])
    assert [p.candidate for p in pool.pooled] == list(dict.fromkeys([starts[1], starts[1], starts[2],
                                                                     *sorted(starts, key=k.cost_of)]))[:6]
    assert pool.pooled[0].label == "nominal optimum" and (proof == "") == pool.kept_nominal
