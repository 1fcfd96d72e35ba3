"""emit.clock: core cycles per TSC tick from a dependent add chain timed in one process."""

from __future__ import annotations

import pytest

from tests.support.cpu import needs
from sha1opt.emit import clock

pytestmark = needs()


def test_core_cycles_per_tick_is_an_ordered_positive_triple():
    med, p10, p90 = clock.core_cycles_per_tick(adds=400_000, samples=7)
    assert 0 < p10 <= med <= p90
    # Any x86 core of the last 20 years runs between 0.2x and 5x its TSC rate.
    assert 0.2 < med < 5


def test_ticks_grow_with_the_chain_length():
    """Twice the dependent adds take about twice the ticks: the chain, not the call overhead, is timed."""
    short = sorted(clock.tick_samples(adds=200_000, samples=9))[4]
    long = sorted(clock.tick_samples(adds=800_000, samples=9))[4]
    assert 2.5 < long / short < 6


def test_too_few_adds_is_misuse():
    with pytest.raises(ValueError):
        clock.core_cycles_per_tick(adds=10)
