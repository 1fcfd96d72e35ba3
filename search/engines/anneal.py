"""The heuristic engine: simulated annealing over candidates (recipe + priority offsets).

Moves, drawn with a seeded ``random.Random`` (so ``--seed`` reproduces a run
given the same number of evaluations): with probability ``P_RECIPE`` switch
one instruction-selection choice to another option the uarch's ISA has;
otherwise nudge one (round, chain) group's priority offset by +-1 (clamped
to +-``MAX_OFFSET``), or -- with probability ``P_FINE`` -- one instruction's
own offset (in-order machines pair single instructions, not groups), or --
with probability ``P_STRETCH`` -- one chain's groups over a run of
consecutive rounds (``stretch_move``: "form W a round earlier from round t
on" is one move, not 60 moves each of which alone may cost more); with
probability ``P_REGS`` move in the register dimension
(``search.space.assignment``): switch floating registers on, change how many
values may be spilled (``0`` switches back to the fixed layout), or set one
op's register option; and -- only in a run given a ``reorder`` move
(``engines.dispatch``: the portfolio gives it on the models whose reservation
station binds), with probability ``P_REORDER`` -- that move, which rewrites the
whole order at once (a run without one draws exactly what it drew before). A move whose order needs more temporaries (fixed
layout) or spill slots (floating) than the architecture has is rejected. Acceptance is Metropolis with a temperature
falling linearly from ``T0_FRACTION`` of the start cost to zero (``temperature``):
over the evaluation budget, or -- a run with no budget (``NO_BUDGET``, the
driver's default) and a deadline -- over the time to the deadline (before,
such a run never cooled: at 1/10^9 of its budget a 0-79 run on nehalem near
its deadline still took a move 4 cycles dearer about one time in three).

The engine never proves anything: it returns the best candidate found and
its predicted cost; the caller screens and proves it (``search/driver.py``).
Stopping: the evaluation budget, the deadline, or a stop flag (Ctrl-C) -- in
every case the best so far is returned with the reason.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, fields, replace
from typing import Callable

from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.space.candidate import CHAINS, MAX_SPILLS, REG, REGS, Candidate, choice_points, realize
from sha1opt.search.space.recipe import Recipe, options_for

P_RECIPE = 0.15
P_REGS = 0.15     # share of moves in the register dimension
P_SPILLS = 0.15   # of those: change the spill allowance (the rest set one op's register option)
REG_OPTIONS = 4   # register options a move picks from (0: the default register)
P_FINE = 0.4      # share of offset moves that move one instruction rather than a group
P_STRETCH = 0.1   # share of offset moves that nudge one chain over a run of rounds
STRETCH_RUNS = (4, 10, 20, 80)   # rounds a stretch move covers (clipped to the range)
GROUP_OPS = 7     # groups have at most ~7 ops (f3 "or"; W with loads)
MAX_OFFSET = 4
T0_FRACTION = 0.01
P_REORDER = 0.05  # share of moves that are the run's ``reorder`` move, when it has one
NO_BUDGET = 10**9      # "no evaluation budget": the run ends at its deadline (and cools by the clock)


@dataclass
class AnnealResult:
    best: Candidate
    best_cost: float
    start_cost: float
    evaluations: int
    reason: str          # "budget", "deadline", "interrupted"
    improvements: list[tuple[int, float]]


def register_move(c: Candidate, rng: random.Random) -> Candidate:
    """A move in the register dimension: floating on, the spill allowance, or one op's register option."""
    if not c.floating:
        return c.with_offset(REGS, 1)
    if rng.random() < P_SPILLS:
        now = c.offset_map()[REGS]
        return c.with_offset(REGS, max(0, min(1 + MAX_SPILLS, now + rng.choice((-1, 1)))))
    t, k = rng.choice(choice_points(c))
    return c.with_offset((t, REG, k), rng.randrange(REG_OPTIONS))


def _nudged(cur: int, step: int) -> int:
    """An offset moved one step: clamped to +-MAX_OFFSET, unless it is already beyond (an order written as
    offsets, engines/greedy.py: nudge it, never flatten it)."""
    return cur + step if abs(cur) > MAX_OFFSET else max(-MAX_OFFSET, min(MAX_OFFSET, cur + step))


def stretch_move(c: Candidate, rng: random.Random) -> Candidate:
    """One chain's group offset nudged by the same step in every round of a run of rounds.

    Example: from the default candidate, chain "W", step +1 over rounds 16-79 asks every round's
    message word to be formed about one group earlier -- a software-pipelined message schedule --
    in one move.
    """
    chain = rng.choice(CHAINS)
    step = rng.choice((-1, 1))
    lo = rng.randint(c.first, c.last)
    hi = min(c.last, lo + rng.choice(STRETCH_RUNS) - 1)
    m = c.offset_map()
    return c.with_offsets({(t, chain): _nudged(m.get((t, chain), 0), step) for t in range(lo, hi + 1)})


def neighbour(c: Candidate, rng: random.Random, isa: str, registers: bool = True) -> Candidate:
    """One move (see the module docstring); ``registers=False`` leaves the register dimension alone."""
    if registers and rng.random() < P_REGS:
        return register_move(c, rng)
    if rng.random() < P_RECIPE:
        names = [f.name for f in fields(Recipe)]
        for _ in range(8):
            name = rng.choice(names)
            opts = [o for o in options_for(name, isa) if o != getattr(c.recipe, name)]
            if opts:
                return c.with_recipe(replace(c.recipe, **{name: rng.choice(opts)}))
    if c.last > c.first and rng.random() < P_STRETCH:
        return stretch_move(c, rng)
    key: tuple = (rng.randint(c.first, c.last), rng.choice(CHAINS))
    if rng.random() < P_FINE:
        key = key + (rng.randrange(GROUP_OPS),)
    return c.with_offset(key, _nudged(c.offset_map().get(key, 0), rng.choice((-1, 1))))


def temperature(t0: float, n: int, evaluations: int, began: float, deadline: float | None, now: float) -> float:
    """The Metropolis temperature after ``n`` evaluations: ``t0`` falling linearly to 0 over the
    evaluation budget, or -- no budget (``NO_BUDGET``) and a deadline -- over the time to the deadline.

    Example: ``temperature(4.0, 500, 1000, 0, 60, 10)`` is 2.0 (half the budget);
    ``temperature(4.0, 500, NO_BUDGET, 0, 60, 45)`` is 1.0 (three quarters of the time).
    """
    if deadline is not None and evaluations >= NO_BUDGET and deadline > began:
        done = (now - began) / (deadline - began)
    else:
        done = n / evaluations
    return t0 * max(0.0, 1.0 - done)


def anneal(start: Candidate, cost: Callable[[list], float], *, isa: str, seed: int, evaluations: int,
           deadline: float | None = None, should_stop: Callable[[], bool] = lambda: False,
           on_improve: Callable[[Candidate, float], None] | None = None,
           reorder: Callable[[Candidate, random.Random], Candidate | None] | None = None) -> AnnealResult:
    """``reorder``: a move that rewrites a whole candidate (``engines.dispatch.dispatch_move``), taken with
    probability ``P_REORDER`` -- drawn only when given, so a run without it is the run it always was."""
    rng = random.Random(seed)
    cache: dict[Candidate, float | None] = {}

    def evaluate(c: Candidate) -> float | None:
        if c not in cache:
            r = realize(c)
            cache[c] = None if r is None else cost(r.code)
        return cache[c]

    cur = start
    cur_cost = evaluate(start)
    if cur_cost is None:
        raise Sha1optError("the start candidate is infeasible (its order needs more temporaries than the architecture has)")
    best, best_cost = cur, cur_cost
    t0 = T0_FRACTION * cur_cost
    began = time.monotonic()
    improvements = [(0, cur_cost)]
    reason = "budget"
    n = 0
    while n < evaluations:
        if should_stop():
            reason = "interrupted"
            break
        if deadline is not None and time.monotonic() >= deadline:
            reason = "deadline"
            break
        if reorder is not None and rng.random() < P_REORDER:
            cand = reorder(cur, rng)
            if cand is None:
                n += 1
                continue
        else:
            cand = neighbour(cur, rng, isa)
        n += 1
        c = evaluate(cand)
        if c is None:
            continue
        temp = temperature(t0, n, evaluations, began, deadline, time.monotonic())
        if c <= cur_cost or (temp > 0 and rng.random() < math.exp((cur_cost - c) / temp)):
            cur, cur_cost = cand, c
            if c < best_cost:
                best, best_cost = cand, c
                improvements.append((n, c))
                if on_improve is not None:
                    on_improve(best, best_cost)
    return AnnealResult(best, best_cost, improvements[0][1], n, reason, improvements)
