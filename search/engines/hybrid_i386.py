"""The i386 hybrid engine: grid, annealing and release polish over ``HybridParams(arch="i386")`` blocks.

The i386 space (``space.hybrid_i386``) is the x86-64 one without the families i386 has no
registers for (the rotating rounds), so the search is ``engines.hybrid``'s reduced to what is
left: a grid in two stages -- every dialect the model and the cap allow x the recurrence (rol1,
rol2) x the scalar rounds (``scalars_for(isa, "i386")``: the textbook recipe, the lazy rounds, with BMI2
``lazy-bmi``) x read-ahead
(off, on) at lead 2 / every 2; then, for the best of them, ``lead`` 1-3 x (``every`` in
``EVERY``, or the ``slots`` placement over the model's unit classes) -- then annealing from the
grid's best, a move changing the dialect, the recurrence, the scalar rounds, read-ahead, the lead,
``every``, the placement, one scalar recipe field (options the scalar ISA has) or one (round,
chain) priority offset by +-1 -- and last ``engines.hybrid.polish_shifts`` (each group's release, by
coordinate descent). Costs are ``engines.hybrid.block_cost`` (the per-block body as a loop in steady
state), ties to the shorter body; deterministic per seed and budget; the result is an
``engines.hybrid.HybridSearch``. The engine proves nothing (``hybrid_proof.prove_hybrid`` does).

Example: on ``goldencove`` with ``cap="ssse3"`` the grid scores 2 x 2 x 3 x 2 = 24 blocks in stage 1 (ssse3 and
ssse3k x recurrence x rounds x read-ahead) and 3 x 6 = 18 in stage 2 (lead x placement).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace
from typing import Callable

from sha1opt.search.cost.model import Model
from sha1opt.search.engines.hybrid import (EVERY, P_PARAM, POLISH, TIE, HybridSearch, anneal_params, block_cost,
                                           build_on, dialects_for, polish_shifts, ranked_points,
                                           recipe_or_offset_move, scalar_isa_for, scalars_for, slots_of)
from sha1opt.search.space.hybrid import LEADS, RECURRENCES, HybridBlock, HybridParams
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.recipe import Recipe, isa_rank


def build_on_arch(params: HybridParams, model: Model) -> HybridBlock | None:
    """The block of ``params`` on its own arch (``BUILD_ON``) and ``model``'s unit classes."""
    return BUILD_ON[params.arch](params, model)


def build_on_i386(params: HybridParams, model: Model) -> HybridBlock | None:
    """``build_i386`` with the model's unit classes (used by ``placement="slots"`` only)."""
    return build_i386(params, slots_of(model) if params.placement == "slots" else None)


# the hybrid family's arch variants: how a block of each arch is built on a model
BUILD_ON = {"x86_64": build_on, "i386": build_on_i386}


def _neighbour(p: HybridParams, rng: random.Random, dialects: tuple[str, ...], scalar_isa: str) -> HybridParams:
    u = rng.random()
    if u < P_PARAM:
        which = rng.choice(("isa", "lead", "every", "placement", "recurrence", "rounds", "ahead"))
        if which == "ahead":
            return replace(p, ahead=not p.ahead)
        if which == "rounds":
            return replace(p, scalar=rng.choice([s for s in scalars_for(scalar_isa, "i386") if s != p.scalar]))
        if which == "recurrence":
            return replace(p, recurrence="rol1" if p.recurrence == "rol2" else "rol2")
        if which == "isa" and len(dialects) > 1:
            return replace(p, isa=rng.choice([d for d in dialects if d != p.isa]))
        if which == "lead":
            return replace(p, lead=rng.choice([x for x in LEADS if x != p.lead]))
        if which == "placement":
            return replace(p, placement="slots" if p.placement == "every" else "every")
        return replace(p, every=max(1, min(8, p.every + rng.choice((-1, 1)))), placement="every")
    return recipe_or_offset_move(p, rng, u, scalar_isa)


def search_hybrid_i386(model: Model, *, cap: str | None = None, evaluations: int = 400, seed: int = 0,
                       time_limit: float = 60.0, should_stop: Callable[[], bool] = lambda: False,
                       start: Recipe | None = None) -> HybridSearch:
    """Grid, then annealing (module docstring); ``reason`` as ``engines.hybrid.search_hybrid``'s."""
    t0 = time.monotonic()
    deadline = t0 + time_limit
    dialects = dialects_for(model, cap, "i386")
    scalar_isa = scalar_isa_for(model, cap)
    if not dialects:
        return HybridSearch(model.name, None, None, math.inf, math.inf, "", math.inf, 0, 0.0,
                            f"{model.name} has no vector dialect the cap {cap or '(none)'} allows")
    recipe = start or Recipe()
    if isa_rank(recipe.isa()) > isa_rank(scalar_isa):
        recipe = Recipe()
    cache: dict[HybridParams, tuple[float, HybridBlock | None]] = {}

    def evaluate(p: HybridParams) -> float:
        if p not in cache:
            b = build_on_i386(p, model)
            cache[p] = (math.inf, None) if b is None else (block_cost(b, model).cycles + TIE * len(b.body), b)
        return cache[p][0]

    base = HybridParams(isa=dialects[0], lead=2, every=2, recipe=recipe, arch="i386")
    n = 0
    reason = "grid"
    best: HybridParams | None = None
    # stage 1: dialect x recurrence at one interleaving; stage 2: lead x placement for the best of them
    grid = [replace(base, isa=d, recurrence=r, scalar=sc, ahead=a) for a in (False, True)
            for sc in scalars_for(scalar_isa, "i386")
            for r in RECURRENCES for d in dialects]
    for stage in (1, 2):
        if stage == 2:
            grid = [replace(best, lead=lead, every=every) for lead in LEADS for every in EVERY]
            grid += [replace(best, lead=lead, placement="slots") for lead in LEADS]
        for p in grid:
            if should_stop() and best is not None:
                reason = "interrupted"
                break
            n += 1
            if best is None or evaluate(p) < evaluate(best):
                best = p
    if cache[best][1] is None:
        return HybridSearch(model.name, None, None, math.inf, math.inf, "", math.inf, n,
                            time.monotonic() - t0, "no grid point fits i386's two scalar temporaries")
    evaluate(best)                      # the grid's best may not be scored yet (a stop during the grid)
    grid_best = block_cost(cache[best][1], model).cycles
    best, k, reason = anneal_params(best, evaluate, lambda p, rng: _neighbour(p, rng, dialects, scalar_isa),
                                    evaluations=evaluations, seed=seed, deadline=deadline, should_stop=should_stop,
                                    reason=reason)
    best, j, reason = polish_shifts(best, evaluate, evaluations=POLISH * evaluations, deadline=deadline,
                                    should_stop=should_stop, reason=reason)
    block = cache[best][1]
    sim = block_cost(block, model)
    return HybridSearch(model.name, best, block, sim.cycles, sim.cycles_per_byte, sim.bottleneck, grid_best,
                        n + k + j, time.monotonic() - t0, reason, ranked_points(cache, best))
