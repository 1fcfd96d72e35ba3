"""The resource floor of a decoded body: the front-end slots and unit time every iteration must spend.

Invariant: no schedule of a loop body runs an iteration in fewer clocks than ``floor(dec, model)``,
under the out-of-order engine (``ooo.py``), because that engine allocates at most ``issue_width``
front-end slots per clock in program order and runs one uop per busy tick on a unit: m iterations
allocate m x slots (at ``issue_width`` per clock) and put m x busy(U) ticks on the units of every
set U the uops that can only run there must use (|U| units, ``ticks_per_cycle`` ticks each per
clock). So the floor is the larger of slots / ``issue_width`` and, over the unit sets, busy(U) /
(|U| x ``ticks_per_cycle``) clocks per iteration. An eliminated move reaches no unit (counted as
if every one were eliminated, which only lowers the floor). ``bound.loop_bound`` adds the
cheapest selection over the search space and the loop-carried recurrence to the same two counts.

Example: on skylake (4 slots per clock) a body of 1137 fused uops has a floor of at least
1137 / 4 = 284.25 clocks per iteration; 240 independent ``roll $5`` (one uop on p0 or p6) at least
240 / 2 = 120.
"""

from __future__ import annotations

from itertools import combinations

from sha1opt.search.cost.decode import ELIM, FE, UOPS
from sha1opt.search.cost.model import Model


def unit_sets(model: Model) -> list[frozenset[int]]:
    """Every union of up to 4 of the model's alternative unit sets (unit indices), smallest first.

    Example: skylake's classes name p0|p6, p0|p1|p5|p6, p1, p5, ...: among the sets are {p0, p6}
    and {p0, p1, p5, p6}."""
    alts = {frozenset(a) for c in model.classes.values() for u in c.ports
            for a in [[i for i, x in enumerate(model.units) if x.name in u.units]]}
    alts = sorted(alts, key=sorted)
    out = set()
    for n in range(1, min(len(alts), 4) + 1):
        for combo in combinations(alts, n):
            out.add(frozenset().union(*combo))
    return sorted(out, key=lambda s: (len(s), sorted(s)))


def load(dec: list[tuple], sets: list[frozenset[int]], in_order: bool) -> tuple[int, list[int], int]:
    """(front-end slots or, in-order, instructions; per unit set the busy ticks or, in-order, the uop
    count of the uops that can only run on it; the longest busy time of one uop).

    Example: ``load(decode([roll $5, %eax] * 2), sets, False)`` -> (2, busy 2 on every set containing
    {p0, p6}, 1) on skylake."""
    slots = len(dec) if in_order else sum(d[FE] for d in dec)
    per_alts: dict[tuple, int] = {}           # the uops' alternatives -> their busy ticks (in-order: count)
    longest = 0
    for d in dec:
        if d[ELIM] and not in_order:
            continue                          # an eliminated move never reaches a unit
        for _role, alts, busy in d[UOPS]:
            per_alts[alts] = per_alts.get(alts, 0) + (1 if in_order else busy)
            if busy > longest:
                longest = busy
    loads = [0] * len(sets)
    for alts, w in per_alts.items():          # a few distinct alternative sets: cheap against n x sets
        a = frozenset(alts)
        for i, s in enumerate(sets):
            if a <= s:
                loads[i] += w
    return slots, loads, longest


def floor(dec: list[tuple], model: Model, sets: list[frozenset[int]] | None = None) -> float:
    """Clocks per iteration no out-of-order schedule of ``dec`` (one iteration, decoded) can beat (above)."""
    sets = unit_sets(model) if sets is None else sets
    slots, loads, _ = load(dec, sets, False)
    best = slots / model.issue_width
    for s, busy in zip(sets, loads):
        best = max(best, busy / len(s) / model.ticks_per_cycle)
    return best
