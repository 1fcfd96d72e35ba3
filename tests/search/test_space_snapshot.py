"""Speed work must not change results: realize() and simulate() of many candidates equal a stored snapshot.

The snapshot (``data/simulate_snapshot.json``) was written by ``snapshot()``
from the code before the speed changes (candidate building and the cost
engines); regenerate it only for a change that is meant to alter results:
``python -m tests.search.test_space_snapshot``.
"""

import hashlib
import json
import random
from pathlib import Path

import pytest

from sha1opt.search.cost import simulate
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.engines.anneal import neighbour
from sha1opt.search.objective import range_cost
from sha1opt.search.space.candidate import Candidate, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK

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


def snapshot(uarch: str) -> list[dict]:
    model = load_model(uarch)
    rows = []
    for c in candidates(uarch):
        code = realize(c).code
        cost = range_cost(model, c.first, c.last, c.arch)
        rows.append({"candidate": repr(c), "code": _digest([str(i) for i in code]),
                     "objective": cost(code), "once": _record(simulate(code, model)),
                     "loop": _record(simulate(code, model, loop=True))})
    rows.append({"candidate": "textbook block", "code": "", "objective": 0.0,
                 "once": _record(simulate(list(textbook(model.arch).body), model)),
                 "loop": _record(simulate(list(textbook(model.arch).body), model, loop=True))})
    return rows


@pytest.mark.parametrize("uarch", model_names())
def test_realize_and_simulate_match_the_snapshot(uarch):
    expected = json.loads(DATA.read_text())[uarch]
    assert snapshot(uarch) == expected


if __name__ == "__main__":
    DATA.write_text(json.dumps({u: snapshot(u) for u in model_names()}, indent=0, sort_keys=True) + "\n")
