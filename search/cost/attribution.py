"""What bound the schedule: unit utilisation, the bottleneck, and clocks per cause on the critical chain.

Both engines return a ``Trace``: per instruction its issue and complete tick
and units, plus a node list recording, for every time they computed, what
bound it. ``nodes[2*i]`` is instruction i's completion, ``nodes[2*i+1]`` its
issue (in-order) or allocation (out-of-order); each node is
``(tick, predecessor node or -1, ((cause, ticks), ...))`` with the causes'
ticks summing to ``tick - tick(predecessor)``.

``attribute`` walks that chain back from the last result and adds up clocks
per cause; ``bottleneck`` names a saturated resource if there is one (a unit
or the front end busy >= ``SATURATED`` of the clocks), else the largest
cause on the chain.

Example: on pentium, ``addl $4, %esi; movl (%esi), %eax`` gives the chain
mov.complete <- mov.issue (1 clock "AGI stall", 0 "critical path") <-
add.complete <- add.issue: ``{"critical path": 2.0, "AGI stall": 1.0}``,
bottleneck "critical path" (no unit saturated by two instructions in 3
clocks).
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.search.cost.decode import CLS, FE, UOPS, integer_slots
from sha1opt.search.cost.model import Model

# Causes the engines name themselves (a stall rule's cause is named by the model's data).
CRITICAL = "critical path"
FRONT_END = "front end"
WINDOW = "window"
PAIRING = "pairing"
ISSUE_WIDTH = "issue width"
MULTI_CLOCK = "multi-clock instruction"
ISSUE = "issue"

SATURATED = 0.97   # a unit or the front end busy this share of the clocks is the bottleneck


@dataclass(frozen=True)
class Trace:
    """One engine run over a decoded sequence (ticks; see the module docstring for ``nodes``)."""

    issue: list[int]
    complete: list[int]
    units: list[tuple]          # unit indices used by each instruction
    nodes: list


def unit_port(name: str) -> str:
    return f"port {name}"


def utilisation(model: Model, seq: list[tuple], units: list[tuple], span: range, cycles: float) -> dict[str, float]:
    """Share of ``cycles`` each unit, and the front end (issue slots), is busy in one iteration."""
    if cycles <= 0:
        return {}
    tpc = model.ticks_per_cycle
    busy = [0.0] * len(model.units)
    for i in span:
        for u, (_role, _alts, ticks) in zip(units[i], seq[i][UOPS]):      # one unit per uop, in UOPS order
            busy[u] += ticks / tpc
    # The front end first: on a tie with a unit it is the limit (units are
    # shared out unevenly below it).
    if model.in_order:
        out = {ISSUE_WIDTH: len(span) / model.issue_width / cycles}
    else:
        micro = model.rules.microcode
        if micro is None:
            slots = sum(seq[i][FE] for i in span)
        else:                   # the op cache's slots (none for a microcoded instruction), or the integer side's
            slots = max(sum(seq[i][FE] for i in span if seq[i][CLS] not in micro.classes),
                        sum(integer_slots(seq[i], model) for i in span))
        out = {FRONT_END: slots / model.issue_width / cycles}
    out.update({unit_port(u.name): b / cycles for u, b in zip(model.units, busy)})
    return out


def bottleneck(breakdown: dict[str, float], utilisation: dict[str, float]) -> str:
    """A saturated resource if there is one (the busiest), else the largest cause on the critical chain."""
    full = {k: v for k, v in utilisation.items() if v >= SATURATED}
    if full:
        top = max(full, key=full.get)
        ports = [k[5:] for k, v in full.items() if k.startswith("port ") and v >= full[top] - 0.01]
        if top.startswith("port ") and len(ports) > 1:
            return "port " + "|".join(ports)       # a group of units, all saturated
        return top
    return max(breakdown, key=breakdown.get) if breakdown else "none"


def attribute(nodes: list, end_node: int, span_start: int, tpc: int) -> dict[str, float]:
    """Walk the binding-constraint chain back from ``end_node`` to ``span_start``; clocks per cause."""
    out: dict[str, float] = {}
    node = end_node
    while node >= 0:
        t, pred, segs = nodes[node]
        if t <= span_start:
            break
        room = t - span_start          # clip the segment that crosses the span start
        for cause, ticks in segs:
            take = min(ticks, room)
            if take > 0:
                out[cause] = out.get(cause, 0) + take / tpc
                room -= take
        node = pred
    return {k: v for k, v in out.items() if v > 0}


def split_stall(segs: tuple, stalled: int, name: str) -> tuple:
    """Move ``stalled`` ticks of the dependency segment(s) to the stall rule's name."""
    out = []
    left = stalled
    for cause, ticks in segs:
        if cause == CRITICAL and left > 0 and ticks > 0:
            take = min(ticks, left)
            out.append((name, take))
            ticks -= take
            left -= take
        out.append((cause, ticks))
    return tuple(out)


def fit(segs: tuple, total: int) -> tuple:
    """Make the segments add up to ``total`` ticks (clip the tail, or put the rest on the first cause)."""
    if len(segs) == 1 and segs[0][1] == total > 0:
        return segs                  # (the common case: one cause, exactly the ticks)
    out = []
    left = total
    for cause, ticks in segs:
        take = ticks if ticks < left else left
        if take > 0:
            out.append((cause, take))
            left -= take
    if left > 0:
        out.append((segs[0][0] if segs else CRITICAL, left))
    return tuple(out)
