"""Progress of a long library call, as values: what it is doing, how far, the best so far.

Library code never prints; a call that can take more than a couple of seconds
takes ``progress: Callable[[Progress], None] | None`` and calls it with a
``Progress`` at each step it can count (``engines.hybrid.search_hybrid``:
each grid point and annealing move it scores; ``driver.search_hybrid_block``:
then the proof). The CLI decides whether and how to show it (on stderr, on a
terminal, not with ``--json``).

Example: ``Progress("grid stage 1/4", 5, 18, 171.0)`` -- the fifth of the
first grid stage's 18 points scored, the best so far 171 cycles/block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Progress:
    phase: str                  # what is being done, e.g. "grid stage 2/4", "annealing", "proving the block"
    done: int                   # steps of this phase done
    total: int | None = None    # steps of this phase in all, when known
    best: float | None = None   # the best figure so far (the caller's unit: cycles/block for the hybrid search)


ProgressFn = Callable[[Progress], None]


def ignore(_: Progress) -> None:
    """The default ``progress``: nothing."""
