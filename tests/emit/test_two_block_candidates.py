"""Two-block hybrid candidates (``avx2x2`` / ``avx512vlx2``, two 64-byte blocks an iteration) in measured selection.

The rules, each from the bug or the measurement that made it:

* ``HybridFamily.ranked`` takes candidates by structure first -- the search's best, then the cheapest of
  the other block count, then of each other dialect, then of each shape (``family_hybrid.structure``).
  On Zen 4 (AuthenticAMD family 25 model 17) the zen4 model put the one-block avx512vl block first
  (2.58 c/B against 2.69-2.70 for the two-block blocks) and the machine ordered them the other way
  (0.967 against 0.925-0.932 x OpenSSL's AVX2 path), but ``export --tune 3`` timed three one-block
  interleavings of that optimum and never a two-block block.
* A candidate's predicted figure is per 64-byte block: a two-block loop's iteration is divided by two
  (``Family.blocks``) -- before, ``family.cycles`` priced the avx512vlx2 candidate at 5.38 c/B on zen4,
  its iteration's cycles over 64 bytes, and the training loops of calibrate's stage 2 would have taken
  it as cycles per block.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from sha1opt.emit import family_hybrid
from sha1opt.emit.family import Choice, cycles
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.training_loops import TimedLoop, observations
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import HybridParams, build


def _p(isa: str, lead: int = 2, every: int = 2, scalar: str = "rotate-bmi-early-majn-keep") -> HybridParams:
    return HybridParams(isa=isa, lead=lead, every=every, ahead=True, recurrence="rol2", scalar=scalar)


def test_ranked_takes_the_other_block_count_then_other_dialects_before_other_interleavings(monkeypatch):
    """The engine's ranking (cheapest first): three one-block avx512vl interleavings, then avx, then a
    two-block block. ``ranked(..., 3)`` gives the best, the two-block one, then avx -- not the two
    avx512vl neighbours of the best; with 5, the neighbours come after."""
    points = (_p("avx512vl", 3, 1), _p("avx512vl", 1, 4), _p("avx512vl", 2, 2), _p("avx", 2, 2),
              _p("avx512vlx2", 1, 4))

    def engine(model, *, cap, evaluations, seed):
        return SimpleNamespace(ranked=points, params=points[0])

    monkeypatch.setitem(family_hybrid.ARCHES, "x86_64",
                        dataclasses.replace(family_hybrid.ARCHES["x86_64"], engine=engine))
    got = [c.code.params for c in HYBRID.ranked("zen4", "x86_64", "avx512", 3)]
    assert got == [points[0], points[4], points[3]]
    got = [c.code.params for c in HYBRID.ranked("zen4", "x86_64", "avx512", 5)]
    assert got == [points[0], points[4], points[3], points[1], points[2]]


def test_regression_a_two_block_candidate_was_priced_per_iteration():
    """zen4, avx512vlx2 lead 1 every 4: ``family.cycles`` equals the search's per-block figure
    (``engines.hybrid.block_cost``), half the iteration's; the one-block figure is unchanged."""
    model = load_model("zen4")
    for isa, blocks in (("avx512vlx2", 2), ("avx512vl", 1)):
        block = build(_p(isa, 1, 4))
        choice = Choice(HYBRID, block, "x86_64")
        assert HYBRID.blocks(choice) == blocks
        per_block = block_cost(block, model).cycles
        assert abs(cycles(choice, model) - per_block) < 1e-9
        assert 2.0 < per_block / 64 < 4.0          # c/B near the SHA-1 figures, not an iteration's 5+


def test_a_two_block_training_loop_is_observed_per_iteration_and_predicted_per_byte():
    """A ``TimedLoop`` of a two-block loop measured at 2.0 c/B is 256 cycles per iteration as an observation
    (its items hash 128 bytes), and ``predicted`` is the measure of its items over 128 bytes."""
    model = load_model("zen4")
    block = build(_p("avx512vlx2", 1, 4))
    items = tuple(HYBRID.loop_items(Choice(HYBRID, block, "x86_64")))
    loop = TimedLoop("sha1.x2", "hybrid", items, "d" * 64, 2.0, 1.9, 2.1, 10, blocks=2)
    obs, = observations([loop])
    assert (obs.cycles, obs.p10, obs.p90) == (256.0, 1.9 * 128, 2.1 * 128)
    assert abs(loop.predicted(model) - block_cost(block, model).cycles_per_byte) < 1e-9
