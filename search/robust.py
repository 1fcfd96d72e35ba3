"""The robust choice among a search's final candidates, and the spread of any code, over a model's ensemble.

Where no host can measure (issue 25 item 4), the search's single optimum under one parameter set is not
the only answer worth giving: ``robust_pool`` prices a range search's final candidates (the nominal
optimum first, then the other runs' bests and the cheapest starts) on the model and on every member of
its uncertainty ensemble (``cost.uncertainty.ensemble``), each by the search's own objective
(``objective.objective``: the range's cycles inside the block, or the block loop for rounds 0-79), and
picks the one with the lowest worst case (``cost.uncertainty.robust_pick``: ties by the nominal figure,
so the nominal optimum is kept whenever it is as robust as any).

``range_spread`` / ``loop_spread`` are the same pricing for one piece of code: what ``show --robust``
prints beside its figure.

Nothing here proves or stores: the driver proves the robust pick when it is not the nominal optimum, and
the store keeps the nominal optimum (what ``show`` and ``export`` read) as before. A robust pick is never
called optimal.

Example: ``robust_pool(load_model("zen1"), 0, 79, "x86_64", [("nominal optimum", best), ("run 1", other)])``
-> a ``RobustPool`` whose ``pick`` is 1 when ``other``'s worst member is cheaper than ``best``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.uncertainty import Ensemble, Spread, ensemble, robust_pick, spread_of
from sha1opt.search.measure import block_loop
from sha1opt.search.objective import Objective, objective
from sha1opt.search.space.candidate import Candidate, realize

FINALISTS = 6          # final candidates priced on the ensemble at most (each a simulation per member)


@dataclass(frozen=True)
class Pooled:
    """One final candidate: where it came from (``"nominal optimum"``, ``"run 1"``, ``"start"``), its spread."""

    label: str
    candidate: Candidate
    spread: Spread


@dataclass(frozen=True)
class RobustPool:
    """The final candidates priced on the ensemble (index 0: the nominal optimum) and the robust pick's index."""

    members: int
    seed: int
    pooled: tuple[Pooled, ...]
    pick: int

    @property
    def nominal(self) -> Pooled:
        return self.pooled[0]

    @property
    def robust(self) -> Pooled:
        return self.pooled[self.pick]

    @property
    def kept_nominal(self) -> bool:
        """Whether the robust pick is the nominal optimum (then, and only then, its proof is the search's)."""
        return self.pick == 0


def _net(obj: Objective, code: list) -> float:
    return obj.cost(code) - obj.context


def robust_pool(model: Model, first: int, last: int, arch: Arch, finalists: Sequence[tuple[str, Candidate]], *,
                members: int | None = None, seed: int = 0) -> RobustPool:
    """``finalists`` (the nominal optimum first; distinct candidates, at most ``FINALISTS``) priced on ``model``
    and its ensemble by the range's objective, net of the context; the pick by the worst case."""
    ens = ensemble(model, members=members, seed=seed)
    objectives = {id(m): objective(m, first, last, arch) for m in (ens.nominal, *ens.models)}
    seen: set[Candidate] = set()
    pooled: list[Pooled] = []
    for label, cand in finalists:
        if cand in seen or len(pooled) >= FINALISTS:
            continue
        seen.add(cand)
        code = realize(cand).code
        pooled.append(Pooled(label, cand, spread_of(lambda m, c=code: _net(objectives[id(m)], c), ens)))
    return RobustPool(len(ens.members), seed, tuple(pooled), robust_pick([p.spread for p in pooled]))


def range_spread(model: Model, first: int, last: int, arch: Arch, code: list, *, members: int | None = None,
                 seed: int = 0) -> Spread:
    """One range's code priced on ``model`` and its ensemble by the range's objective, net of the context."""
    ens = ensemble(model, members=members, seed=seed)
    objectives = {id(m): objective(m, first, last, arch) for m in (ens.nominal, *ens.models)}
    return spread_of(lambda m: _net(objectives[id(m)], list(code)), ens)


def loop_spread(model: Model, items: Sequence, *, members: int | None = None, seed: int = 0,
                ens: Ensemble | None = None, blocks: int = 1) -> Spread:
    """A whole block's loop items (``measure.block_loop``) priced on ``model`` and its ensemble (or ``ens``),
    per 64-byte block: an iteration hashing ``blocks`` blocks is divided by them."""
    ens = ens or ensemble(model, members=members, seed=seed)
    return spread_of(lambda m: block_loop(items, m).cycles / blocks, ens)
