"""Dispatch order: a candidate's ops listed in the order the model's out-of-order core dispatches them.

On a model whose reservation station fills (``rules.scheduler``: Core 2's 32
entries, Nehalem's 36, with ``rules.dispatch_delay``'s five clocks from
allocation to dispatch), every uop holds an entry from its allocation, which
is in program order, to its dispatch, which is in dataflow order; so the loop
runs at about (uops x mean residency) / entries clocks. Under core2 both
OpenSSL's integer loop and the best whole block of the stop-18 store run
1173 fused uops an iteration with the station 29 of 32 entries full on
average; OpenSSL's uops wait 9.61 clocks each (388.3 cycles an iteration), ours
9.66 (396.0) -- under the loop measure of ``simulator.loop_window``. The
annealer's small priority nudges rarely find a better order for a whole
block: a better one moves hundreds of instructions a little each.

``dispatch_order(c, model, blend)`` simulates the candidate in its objective's
setting (the block loop for rounds 0-79, as ``measure.block_loop_cycles``;
``objective.CONTEXT_ROUNDS`` default rounds each side for a range), reads
every op's dispatch clock off the timeline (``dispatch_times``), and
list-schedules the range's ops again by that clock (``order.list_schedule``:
every dependence edge and the register budget kept; ``blend`` weighs in the
op's current position, so 0 is the dispatch order and 1 the current order).
The order is written exactly as fine offsets (``greedy.order_offsets``), with
the candidate's register dimension kept, so the result is an ordinary
``Candidate``: costed, annealed further, proved and stored like any other;
nothing here proves or stores. Example: that core2 x86-64 whole block
(396.0 cycles per iteration) gives 386.0 rewritten once, 384.0 twice
(OpenSSL's loop: 388.3); the default block, 429.5, gives 401.2.

``dispatch_move`` is the annealer's move (``anneal(..., reorder=...)``): the
rewrite with a blend drawn from ``BLENDS`` (the blends reach other orders:
from that core2 block, three rewrites at 0.5 give 382.0). ``reorders(model,
arch)`` says where the move is offered: out-of-order models whose reservation
station is what binds the default block's loop (its bottleneck is the
``rules.scheduler`` rule's name) -- core2 and nehalem, not skylake (97
entries) or the models without the rule, whose searches stay as they were.
"""

from __future__ import annotations

import functools
import random
from typing import Callable

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.measure import block_loop, block_loop_items
from sha1opt.search.objective import is_whole_block, range_context
from sha1opt.search.engines.greedy import order_offsets
from sha1opt.search.space.assignment import MOVE, SPILL, budget
from sha1opt.search.space.candidate import REG, REGS, Candidate, Realized, block_schedule, prepared_flow, realize, textbook
from sha1opt.search.space.order import list_schedule
from sha1opt.search.space.recipe import prologue
from sha1opt.search.space.regalloc import TEMPS

BLENDS = (0.0, 0.25, 0.5, 0.75)     # weights of the current order in a move's sort key (``dispatch_order``)
__all__ = ["dispatch_move", "dispatch_order", "dispatch_times", "reorders"]


def dispatch_times(real: Realized, model: Model) -> list[float]:
    """Per op of ``real.ops`` (generation index), the clock its first uop dispatches in the candidate's
    objective setting (the last iteration of the block loop for a whole block; once, between default
    rounds, for a range). Spills and exit moves (floating registers) are not ops and are skipped."""
    c = real.candidate
    if is_whole_block(c.first, c.last):
        sched = block_schedule([real.code], c.arch, "dispatch")
        at = len(prologue(c.arch)) - sched.loop_start
        timeline = block_loop(block_loop_items(sched), model).timeline
    else:
        before, after = range_context(c.first, c.last, c.arch)
        at = len(before)
        timeline = simulate(before + list(real.code) + after, model).timeline
    times = [0.0] * len(real.ops)
    k = 0
    for j in range(len(real.code)):
        if real.origin(j)[1] in (SPILL, MOVE):
            continue
        times[real.order[k]] = timeline[at + j].issue
        k += 1
    return times


def dispatch_order(c: Candidate, model: Model, blend: float = 0.0) -> Candidate | None:
    """``c`` with its ops ordered by their dispatch clocks -- blended with their current positions by
    ``blend`` (0: dispatch order; 1: the current order) -- as far as the dependences and the register
    budget allow; None if ``c`` or the new order does not realize."""
    real = realize(c)
    if real is None:
        return None
    times = dispatch_times(real, model)
    ops = real.ops
    # The sort key: the dispatch clock, blended with the current position in clocks (the current
    # order's mean pace); ties go to generation order.
    pace = (max(times) - min(times)) / max(1, len(ops) - 1)
    at = {i: p for p, i in enumerate(real.order)}
    ranked = sorted(range(len(ops)), key=lambda i: ((1 - blend) * times[i] + blend * pace * at[i], i))
    prio = [0.0] * len(ops)
    for p, i in enumerate(ranked):
        prio[i] = -float(p)
    if c.floating:
        fl = prepared_flow(c.first, c.last, c.recipe, c.arch)[0]
        order = list_schedule(ops, fl.graph, prio, budget(c.arch, c.spills), tuple(fl.live_in), tuple(fl.live_out))
    else:
        order = list_schedule(ops, real.graph, prio, len(TEMPS[c.arch]))
    if order is None:
        return None
    offs = {k: v for k, v in c.offsets if k == REGS or (len(k) == 3 and k[1] == REG)}
    offs.update(order_offsets(ops, order))
    out = Candidate(c.first, c.last, c.arch, c.recipe, tuple(sorted(offs.items())))
    again = realize(out)
    return out if again is not None and again.order == order else None


def dispatch_move(model: Model) -> Callable[[Candidate, random.Random], Candidate | None]:
    """The annealer's move for ``model``: the candidate rewritten in dispatch order, blended with its
    current order by a weight drawn from ``BLENDS``."""
    def move(c: Candidate, rng: random.Random) -> Candidate | None:
        return dispatch_order(c, model, blend=rng.choice(BLENDS))
    return move


@functools.lru_cache(maxsize=64)
def _default_bottleneck(model: Model, arch: Arch) -> str:
    sched = textbook(arch)
    return block_loop(block_loop_items(sched), model).bottleneck


def reorders(model: Model, arch: Arch) -> bool:
    """Whether the dispatch-order move is offered on ``model`` for ``arch`` code: out of order, a
    reservation-station rule, and that rule is the bottleneck of the default block's loop.
    Example: core2 and nehalem (x86-64 and i386) yes; skylake (97 entries), zen3, p4 no."""
    rule = model.rules.scheduler
    return not model.in_order and rule is not None and _default_bottleneck(model, arch) == rule.name
