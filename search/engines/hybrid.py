"""The hybrid engine: cost a hybrid block on a model, and search its parameters (grid, annealing, release polish).

``block_cost(block, model)`` is the block-loop measure of the block
(``search.measure.hybrid_loop_cost``: one iteration in steady state with its
loop control, on read-ahead the path every block but the last takes; the
setup runs once per call and is not counted).

``search_hybrid(model, ...)`` first scores a grid in four stages -- (1) the
families (without read-ahead; read-ahead (``HybridParams.ahead``) with the
rol1 or the rol2 recurrence; each with the recipe's or the first slice's
rotating scalar rounds, ``first_forms``) x every dialect the model and the
cap allow, at lead 2 / every 2 with the textbook scalar recipe (a two-block
dialect, ``hybrid_pair``, only without read-ahead and with rol1: ``point``); (2) every
other scalar form (``hybrid_forms.FORMS``: W+K early, a..e kept, pinned f,
``scalars_for``) x dialect on the best family; (3) for the ``TOP_FORMS``
best forms so far, ``lead`` 1-3 x (``every`` in ``EVERY``, or the ``slots``
placement over the model's two unit classes, ``slots_of``); (4) every form
again at the best interleaving -- then anneals from the
grid's best: a move changes one scalar recipe field (options the scalar
ISA has, ``kw``/``wsrc`` fixed), the dialect, the lead, ``every``, the
placement, read-ahead, the recurrence, the scalar form, or one (round,
chain) priority offset by +-1. Metropolis acceptance, temperature falling linearly in the
budget; equal cycles go to the shorter body (``TIE``). Last, ``polish_shifts`` moves each vector
group's release (``HybridParams.shifts``) by coordinate descent, with at most ``POLISH`` times the
annealing's budget (so ``evaluations`` N scores up to 3N points after the grid). It stops on the
evaluation budget, the deadline or ``should_stop`` and says which (``reason``: "grid", "budget",
"deadline", "interrupted").
The engine proves nothing; ``search.driver.search_hybrid_block`` proves
the winner with ``hybrid_proof.prove_hybrid``.

Example: on ``zen3`` the grid's best is an ``avx`` block at about 2.9
predicted cycles/byte against 4.3 for the textbook scalar block.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from typing import Callable

from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import Simulation
from sha1opt.search.measure import hybrid_loop_cost
from sha1opt.search.engines.anneal import MAX_OFFSET, T0_FRACTION
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.space.hybrid import (LEADS, MAX_SHIFT, HybridBlock, HybridParams, build, pair_refusal,
                                         released_groups)
from sha1opt.search.space.hybrid_merge import Slots
from sha1opt.search.space.hybrid_caps import scalar_level, vector_dialects
from sha1opt.search.space.hybrid_dialects import dialect
from sha1opt.search.space.hybrid_forms import FIRST_FORMS, FORMS
from sha1opt.search.space.recipe import ISA_LEVELS, Recipe, isa_rank, options_for

EVERY = (1, 2, 3, 4, 6)
SCALAR_FIELDS = ("f1", "f2", "f3", "rol5", "brot")      # kw / wsrc do not apply (W+K comes from the ring)
OFFSET_CHAINS = ("kw", "f", "a5", "b")
P_PARAM = 0.2        # share of moves that change dialect / lead / every
P_RECIPE = 0.2       # share that change one scalar recipe field (the rest: one priority offset)
TOP_FORMS = 3        # stage 3 of the grid interleaves this many of the best scalar forms
TIE = 1e-4           # score per body instruction: breaks ties in cycles (< 1 cycle for any block)
SHIFT_STEPS = (-4, -2, -1, 1, 2, 4)   # ``polish_shifts``' moves of one group's release, in scalar ops
POLISH = 2           # ``polish_shifts``' budget per annealing move (a sweep of 16 groups x 6 steps is 96 points)


def block_cost(block: HybridBlock, model: Model) -> Simulation:
    """The block-loop measure of ``block`` on ``model`` (``measure.hybrid_loop_cost``)."""
    return hybrid_loop_cost(block, model)


def slots_of(model: Model) -> Slots:
    """The model's unit classes for ``placement="slots"``: units of a scalar xor, of a vector xor, and both."""
    units = lambda cls: {u for uop in model.classes[cls].ports if not uop.role for u in uop.units}  # noqa: E731
    s, v = units("logic_rr"), units("vec_alu")
    return Slots(model.issue_width, len(s - v), len(v - s), len(s & v))


def build_on(params: HybridParams, model: Model) -> HybridBlock | None:
    """``hybrid.build`` with the model's ``slots_of`` (used by ``placement="slots"`` only)."""
    return build(params, slots_of(model) if params.placement == "slots" else None)


def scalars_for(scalar_isa: str, arch: str = "x86_64") -> tuple[str, ...]:
    """The scalar-round forms (``hybrid.SCALARS``) a scalar ISA allows on ``arch``: the ``-bmi`` forms need BMI2
    (rorx, andn); each form is built for its ``RoundsForm.arches``."""
    bmi = isa_rank(scalar_isa) >= isa_rank("bmi2")
    return ("recipe",) + tuple(name for name, form in FORMS.items() if (bmi or not form.bmi) and arch in form.arches)


def first_forms(scalar_isa: str) -> tuple[str, ...]:
    """The forms stage 1 of the grid scores: the first slice's (``hybrid_forms.FIRST_FORMS``) the ISA allows."""
    return tuple(x for x in scalars_for(scalar_isa) if x == "recipe" or x in FIRST_FORMS)


def dialects_for(model: Model, cap: str | None, arch: str = "x86_64") -> tuple[str, ...]:
    """The hybrid dialects ``model``'s CPU has, the cap (None: no cap) allows and ``arch`` builds."""
    return tuple(i for i in vector_dialects(cap or "shani", arch) if model.has_vector(dialect(i).feature))


def point(base: HybridParams, **changes) -> HybridParams | None:
    """``replace(base, **changes)``, or None when the dialect row refuses that combination
    (``hybrid.pair_refusal``: a dialect built for other arches; a two-block dialect's read-ahead with the
    recipe's rounds) or
    ``HybridParams`` does (the rol2 recurrence without read-ahead on x86-64)."""
    p = {f: changes.get(f, getattr(base, f)) for f in ("isa", "arch", "ahead", "recurrence", "scalar")}
    if pair_refusal(dialect(p["isa"]), p["arch"], p["ahead"], p["recurrence"], p["scalar"]):
        return None
    try:
        return replace(base, **changes)
    except Sha1optError:
        return None


def scalar_isa_for(model: Model, cap: str | None) -> str:
    """The scalar recipe ISA: the model's, lowered to the cap's."""
    mine = model.isa
    if cap is None:
        return mine
    return ISA_LEVELS[min(isa_rank(mine), isa_rank(scalar_level(cap)))]


@dataclass(frozen=True)
class HybridSearch:
    """What ``search_hybrid`` found: the best parameters and block, its simulation, and how it stopped."""

    model: str
    params: HybridParams | None          # None: the model / cap allow no dialect
    block: HybridBlock | None
    cycles: float                        # per block, steady state
    cycles_per_byte: float
    bottleneck: str
    grid_best: float                     # cycles of the grid's best (before annealing)
    evaluations: int
    seconds: float
    reason: str                          # "grid", "budget", "deadline", "interrupted", or why nothing ran
    ranked: tuple[HybridParams, ...] = ()  # ``params`` first, then the other scored points that built, cheapest first


def ranked_points(cache: dict, best: HybridParams) -> tuple[HybridParams, ...]:
    """``best``, then the other points of ``cache`` (params -> (score, block or None)) that built, cheapest first."""
    rest = sorted((p for p, (c, b) in cache.items() if b is not None and p != best), key=lambda p: cache[p][0])
    return (best, *rest)


def recipe_or_offset_move(p: HybridParams, rng: random.Random, u: float, scalar_isa: str) -> HybridParams:
    """The neighbour moves both hybrid searches share, for ``u`` (a uniform draw) at or past ``P_PARAM``:
    below ``P_PARAM + P_RECIPE`` one recipe field changed, else one round's chain offset nudged by one."""
    if u < P_PARAM + P_RECIPE:
        for _ in range(8):
            name = rng.choice(SCALAR_FIELDS)
            opts = [o for o in options_for(name, scalar_isa) if o != getattr(p.recipe, name)]
            if opts:
                return replace(p, recipe=replace(p.recipe, **{name: rng.choice(opts)}))
    key = (rng.randrange(80), rng.choice(OFFSET_CHAINS))
    offs = dict(p.offsets)
    v = max(-MAX_OFFSET, min(MAX_OFFSET, offs.get(key, 0) + rng.choice((-1, 1))))
    if v:
        offs[key] = v
    else:
        offs.pop(key, None)
    return replace(p, offsets=tuple(sorted(offs.items())))


def _neighbour(p: HybridParams, rng: random.Random, dialects: tuple[str, ...], scalar_isa: str) -> HybridParams:
    u = rng.random() if p.scalar == "recipe" else 0.0       # rotating rounds: recipe and offsets unused
    if u < P_PARAM:
        which = rng.choice(("isa", "lead", "every", "placement", "ahead", "recurrence", "rounds"))
        if which == "isa" and len(dialects) > 1:
            isa = rng.choice([d for d in dialects if d != p.isa])
            return point(p, isa=isa) or replace(p, isa=isa, ahead=False, recurrence="rol1")
        if which == "lead":
            return replace(p, lead=rng.choice([x for x in LEADS if x != p.lead]))
        if which == "ahead":       # rol2 needs read-ahead (``HybridParams``); a two-block dialect has neither
            return point(p, ahead=not p.ahead, recurrence="rol1" if p.ahead else p.recurrence) or p
        if which == "recurrence":
            return point(p, recurrence="rol1" if p.recurrence == "rol2" else "rol2", ahead=True) or p
        if which == "rounds":         # the scalar rounds' form (``HybridParams.scalar``)
            return point(p, scalar=rng.choice([x for x in scalars_for(scalar_isa) if x != p.scalar])) or p
        if which == "placement":
            return replace(p, placement="slots" if p.placement == "every" else "every")
        return replace(p, every=max(1, min(8, p.every + rng.choice((-1, 1)))), placement="every")
    return recipe_or_offset_move(p, rng, u, scalar_isa)


def anneal_params(best: HybridParams, evaluate: Callable[[HybridParams], float],
                  neighbour: Callable[[HybridParams, random.Random], HybridParams], *, evaluations: int, seed: int,
                  deadline: float, should_stop: Callable[[], bool], reason: str) -> tuple[HybridParams, int, str]:
    """The annealing stage both hybrid searches run after their grid: from the grid's ``best``, up to
    ``evaluations`` neighbours (linear cooling from ``T0_FRACTION`` of its cost); returns (best, moves
    made, stop reason). ``reason`` is the grid's: anything but "grid" skips the stage."""
    grid_score = evaluate(best)
    rng = random.Random(seed)
    cur, cur_cost = best, grid_score
    temp0 = T0_FRACTION * grid_score
    k = 0
    while reason == "grid" and k < evaluations:
        if should_stop():
            reason = "interrupted"
            break
        if time.monotonic() >= deadline:
            reason = "deadline"
            break
        cand = neighbour(cur, rng)
        k += 1
        c = evaluate(cand)
        if math.isinf(c):
            continue
        temp = temp0 * (1.0 - k / evaluations)
        if c <= cur_cost or (temp > 0 and rng.random() < math.exp((cur_cost - c) / temp)):
            cur, cur_cost = cand, c
            if c < evaluate(best):
                best = cand
    if reason == "grid" and evaluations > 0:
        reason = "budget"
    return best, k, reason


def polish_shifts(best: HybridParams, evaluate: Callable[[HybridParams], float], *, evaluations: int,
                  deadline: float, should_stop: Callable[[], bool], reason: str) -> tuple[HybridParams, int, str]:
    """The last stage of both hybrid searches: coordinate descent on where each vector group is released
    (``HybridParams.shifts``). Sweeps the groups released among the rounds (``hybrid.released_groups``: 4..19,
    or 10..19 for a two-block row with read-ahead), each moved by ``SHIFT_STEPS`` scalar ops from its current
    shift, keeping a move only when it lowers the score; stops after a sweep that kept nothing, or after
    ``evaluations`` points (the searches give it ``POLISH`` x the annealing's), the deadline or a stop request.
    Returns (best, points scored, reason: the annealing's, or "deadline" / "interrupted").

    Why: on an out-of-order model whose scheduler fills (nehalem's 36 entries) the cycles of a block move by
    several per cent with where a group sits among the rounds, which ``lead`` and ``every`` set for all
    groups at once; this stage sets them group by group."""
    if reason not in ("grid", "budget"):
        return best, 0, reason
    cost, k = evaluate(best), 0
    improved = True
    while improved:
        improved = False
        for g in released_groups(best.dialect, best.ahead):
            for step in SHIFT_STEPS:
                if k >= evaluations:
                    return best, k, reason
                if should_stop():
                    return best, k, "interrupted"
                if time.monotonic() >= deadline:
                    return best, k, "deadline"
                shifts = dict(best.shifts)
                n = shifts.get(g, 0) + step
                if abs(n) > MAX_SHIFT:
                    continue
                shifts[g] = n
                cand = replace(best, shifts=tuple(sorted((h, v) for h, v in shifts.items() if v)))
                k += 1
                c = evaluate(cand)
                if c < cost:
                    best, cost, improved = cand, c, True
    return best, k, reason


def search_hybrid(model: Model, *, cap: str | None = None, evaluations: int = 400, seed: int = 0,
                  time_limit: float = 60.0, should_stop: Callable[[], bool] = lambda: False,
                  start: Recipe | None = None, progress: ProgressFn = ignore) -> HybridSearch:
    """Grid, then annealing, over ``HybridParams`` on ``model`` (module docstring); deterministic per seed and budget.
    ``progress`` gets a ``search.progress.Progress`` per point scored (the grid takes tens of seconds)."""
    t0 = time.monotonic()
    deadline = t0 + time_limit
    dialects = dialects_for(model, cap)
    scalar_isa = scalar_isa_for(model, cap)
    if not dialects:
        return HybridSearch(model.name, None, None, math.inf, math.inf, "", math.inf, 0, 0.0,
                            f"{model.name} has no vector dialect the cap {cap or '(none)'} allows")
    recipe = start or Recipe()
    if isa_rank(recipe.isa()) > isa_rank(scalar_isa):
        recipe = Recipe()
    cache: dict[HybridParams, tuple[float, HybridBlock | None]] = {}
    phase = {"name": "grid stage 1/4", "done": 0, "total": None}

    def evaluate(p: HybridParams) -> float:
        if p not in cache:
            b = build_on(p, model)
            # Ties in cycles go to the shorter body (fewer instructions to issue on a CPU the model
            # does not saturate -- e.g. vprold/vpternlogd against the SSSE3 shifts on a wide core).
            cache[p] = (math.inf, None) if b is None else (block_cost(b, model).cycles + TIE * len(b.body), b)
            phase["done"] += 1
            progress(Progress(phase["name"], phase["done"], phase["total"], min(c for c, _ in cache.values())))
        return cache[p][0]

    n = 0
    reason = "grid"
    best: HybridParams | None = None
    # Stage 1: the families (read-ahead, recurrence, scalar rounds) x dialect at one interleaving;
    # stage 2: the other scalar forms x dialect on the best family; stage 3: lead x placement for the
    # TOP_FORMS best forms so far; stage 4: every form again on that best (the form that wins depends
    # on the interleaving, and the interleaving on the form).
    families = [(ahead, rec, sc) for ahead, rec in ((False, "rol1"), (True, "rol1"), (True, "rol2"))
                for sc in first_forms(scalar_isa)]
    base = HybridParams(isa=dialects[0], lead=2, every=2, recipe=recipe)
    grid = [q for a, r, sc in families for d in dialects
            if (q := point(base, isa=d, ahead=a, recurrence=r, scalar=sc)) is not None]
    for stage in (1, 2, 3, 4):
        if stage == 2:
            grid = [q for sc in scalars_for(scalar_isa) for d in dialects if sc not in first_forms(scalar_isa)
                    and (q := point(best, scalar=sc, isa=d) or point(best, scalar=sc, isa=d, ahead=False,
                                                                     recurrence="rol1")) is not None]
        if stage == 3:
            tops: list[HybridParams] = []
            for p in sorted(cache, key=lambda q: cache[q][0]):
                if len(tops) < TOP_FORMS and all(p.scalar != q.scalar for q in tops):
                    tops.append(p)
            grid = [replace(t, lead=lead, every=every, placement="every") for t in tops for lead in LEADS
                    for every in EVERY]
            grid += [replace(t, lead=lead, placement="slots") for t in tops for lead in LEADS]
        if stage == 4:
            grid = [q for sc in scalars_for(scalar_isa) if (q := point(best, scalar=sc)) is not None]
        phase.update(name=f"grid stage {stage}/4", done=0, total=len(grid))
        for p in grid:
            if should_stop() and best is not None:     # the first point is always scored
                reason = "interrupted"
                break
            n += 1
            if best is None or evaluate(p) < evaluate(best):
                best = p
    evaluate(best)                      # the grid's best may not be scored yet (a stop during the grid)
    grid_best = block_cost(cache[best][1], model).cycles
    phase.update(name="annealing", done=0, total=evaluations)
    best, k, reason = anneal_params(best, evaluate, lambda p, rng: _neighbour(p, rng, dialects, scalar_isa),
                                    evaluations=evaluations, seed=seed, deadline=deadline, should_stop=should_stop,
                                    reason=reason)
    phase.update(name="release shifts", done=0, total=POLISH * evaluations)
    best, j, reason = polish_shifts(best, evaluate, evaluations=POLISH * evaluations, deadline=deadline,
                                    should_stop=should_stop, reason=reason)
    block = cache[best][1]
    sim = block_cost(block, model)
    return HybridSearch(model.name, best, block, sim.cycles, sim.cycles_per_byte, sim.bottleneck, grid_best,
                        n + k + j, time.monotonic() - t0, reason, ranked_points(cache, best))

