"""Speed work must not change results: realize() and simulate() of many candidates equal a stored snapshot.

The snapshot (``data/simulate_snapshot.json``: each candidate, the digest of
its code, its objective and two simulations) was written by ``snapshot()``
from the code before the speed changes (candidate building and the cost
engines); regenerate it only for a change that is meant to alter results:
``python -m tests.search.test_space_snapshot``.
"""

import hashlib
import json
import random
from pathlib import Path

import pytest

from sha1opt.search.cost import Simulator, simulate
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.engines.anneal import neighbour
from sha1opt.search.objective import range_cost
from sha1opt.search.space.candidate import Candidate, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK, Recipe

DATA = Path(__file__).parent / "data" / "simulate_snapshot.json"
RANGES = ((0, 19), (20, 39), (40, 59), (60, 79), (14, 22))
PER_MODEL = 10


def _digest(values) -> str:
    return hashlib.sha256(repr(values).encode()).hexdigest()[:16]


def _record(sim) -> dict:
    return {"cycles": sim.cycles, "cpb": sim.cycles_per_byte, "bottleneck": sim.bottleneck,
            "breakdown": sim.breakdown, "iterations": sim.iterations, "instructions": sim.instructions,
            "uops": sim.uops, "timeline": _digest([(s.index, s.text, s.issue, s.complete, s.unit, s.line)
                                                  for s in sim.timeline])}


def candidates(uarch: str) -> list[Candidate]:
    model = load_model(uarch)
    rng = random.Random(f"snapshot-{uarch}")
    out = []
    for k in range(PER_MODEL):
        first, last = RANGES[k % len(RANGES)]
        c = Candidate(first, last, model.arch, TEXTBOOK)
        for _ in range(rng.randint(0, 30)):
            nxt = neighbour(c, rng, model.isa)
            if realize(nxt) is not None:
                c = nxt
        out.append(c)
    return out


def _spec(c: Candidate) -> dict:
    return {"first": c.first, "last": c.last, "arch": c.arch, "recipe": c.recipe.key(),
            "offsets": [[list(k), v] for k, v in c.offsets]}


def _candidate(spec: dict) -> Candidate:
    return Candidate(spec["first"], spec["last"], spec["arch"], Recipe.parse(spec["recipe"]),
                     tuple((tuple(k), v) for k, v in spec["offsets"]))


def snapshot(uarch: str, specs: list[dict] | None = None) -> list[dict]:
    """The records of ``specs`` (stored candidates), or of freshly drawn candidates when None."""
    model = load_model(uarch)
    rows = []
    for c in ([_candidate(s) for s in specs] if specs is not None else candidates(uarch)):
        code = realize(c).code
        cost = range_cost(model, c.first, c.last, c.arch)
        rows.append({"candidate": _spec(c), "code": _digest([str(i) for i in code]),
                     "objective": cost(code), "once": _record(simulate(code, model)),
                     "loop": _record(simulate(code, model, loop=True))})
    rows.append({"candidate": None, "code": "", "objective": 0.0,
                 "once": _record(simulate(list(textbook(model.arch).body), model)),
                 "loop": _record(simulate(list(textbook(model.arch).body), model, loop=True))})
    return rows


FAST = 4        # candidates per model `make test` re-checks (one per range kind); all ten: the slow check


def _check(uarch: str, which: slice) -> None:
    expected = json.loads(DATA.read_text())[uarch]
    rows = expected[:-1][which] + expected[-1:]          # (the last row: the textbook, always checked)
    assert snapshot(uarch, [row["candidate"] for row in rows[:-1]]) == rows


@pytest.mark.parametrize("uarch", model_names())
def test_realize_and_simulate_match_the_snapshot(uarch):
    """The first ``FAST`` stored candidates of every model (and its textbook) give the snapshot's records."""
    _check(uarch, slice(0, FAST))


@pytest.mark.slow           # bench/slow_checks.py; test_realize_and_simulate_match_the_snapshot keeps the rule
@pytest.mark.parametrize("uarch", model_names())
def test_every_stored_candidate_matches_the_snapshot(uarch):
    """The rest of the snapshot: the other stored candidates of every model."""
    _check(uarch, slice(FAST, None))


if __name__ == "__main__":
    DATA.write_text(json.dumps({u: snapshot(u) for u in model_names()}, indent=0, sort_keys=True) + "\n")


# port binding and the reservation station on core2/nehalem/skylake, register reads on p6/core2/nehalem
@pytest.mark.parametrize("uarch", ["p4", "zen3", "core2", "nehalem", "p6", "skylake", "zen5"])
def test_resumed_runs_equal_runs_from_the_start(uarch):
    # The out-of-order engine resumes where the code first differs from the last run's
    # (search annealing moves): every cycle count equals a fresh simulator's.
    model = load_model(uarch)
    rng = random.Random(uarch)
    resumed = Simulator(model)
    c = Candidate(36, 63, model.arch, TEXTBOOK)
    for _ in range(25):
        nxt = neighbour(c, rng, model.isa)
        real = realize(nxt)
        if real is None:
            continue
        c = nxt if rng.random() < 0.5 else c
        assert resumed.simulate(real.code).cycles == Simulator(model).simulate(real.code).cycles
