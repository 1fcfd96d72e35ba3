"""Cycle-level cost of straight-line code and of a loop body in steady state, per microarchitecture.

``Simulator(model).simulate(items)`` schedules instructions (``x86.Instr``)
and opaque control/stack items (``opaque.Opaque``) on one
``model.Model`` and returns a ``Simulation``: cycles (total, or per
iteration in steady state with ``loop=True``), cycles per byte, the
bottleneck, and a per-instruction timeline (issue and complete cycle, unit)
from which a schedule can be drawn. ``simulate(items, model)`` is the same
as a one-off call.

The stages, one module each:

* ``classes``: the instruction class each item is priced as;
* ``decode``: per-instruction facts (operand effects from ``x86.effects``,
  the class row's uops, latency, units), once per item -- a ``Simulator``
  owns the cache for its one model;
* ``inorder`` (Pentium, Atom) or ``ooo`` (P4, Core 2, Nehalem, Skylake,
  Zen 3), by ``model.engine``: the schedule, in ticks
  (``model.ticks_per_cycle`` per clock: 2 for the P4's half-clock ALUs);
* ``attribution``: unit utilisation, the chain of binding constraints, and
  the bottleneck: "critical path", "port X", "front end", "window",
  "pairing", "issue width", or a stall rule's name from the model's data
  ("AGI stall", "lea stall", "P4 replay").

Both engines honour register dependencies (renamed in OoO, scoreboarded
with write-after-write order in-order), ``rules.address_stall``,
store-to-load forwarding (a load from the address of an earlier store --
same base/index register, unchanged since, same scale and displacement --
gets the stored value ``store_forwarding`` clocks after the store's data;
out of order, ``Rules.forward_latency`` by the store's and the load's kind:
``rmw_forwarding``, ``vector_store_forwarding``, ``memory_renaming``),
``rules.replay`` and ``rules.move_elimination``.

Example: ``simulate(parse_text("roll $5, %eax", "i386"), load_model("p4"),
loop=True)`` is 4.0 cycles per iteration (Northwood's 4-clock rotate),
bottleneck "critical path"; on ``p4-prescott`` it is 1.0.

Speed: the engines touch only ints, tuples and bytearrays (one 80-round
block, ~1250 instructions, in a few tens of ms -- see bench/simspeed.py);
hot paths keep one ``Simulator`` per model so decodes are reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from sha1opt.search.cost.attribution import SATURATED, attribute, bottleneck, utilisation
from sha1opt.search.cost.classes import Item, classify
from sha1opt.search.cost.decode import ELIM, FE, FLAGS, LINE, TEXT, decode_item
from sha1opt.search.cost.floor import floor, unit_sets
from sha1opt.search.cost.inorder import run_in_order
from sha1opt.search.cost.model import Model, UarchError
from sha1opt.search.cost.ooo import Resume, run_out_of_order

# FLAGS and SATURATED are re-exported: they were public names of this module before the split.
__all__ = ["FLAGS", "Item", "SATURATED", "Simulation", "Simulator", "Slot", "classify", "decode", "simulate"]


@dataclass(frozen=True)
class Slot:
    """One instruction in the reported schedule (clocks from the start of the span)."""

    index: int          # position in the items given to simulate()
    text: str
    issue: float        # first uop dispatched (OoO) / issued (in-order)
    complete: float     # result available
    unit: str           # units used, "+"-joined; "eliminated" for a renamed-away move
    line: int = 0


class Simulation:
    """One simulation's result. ``cycles`` and the counts are computed at once; the bottleneck,
    the per-cause ``breakdown`` and the ``timeline`` on first use (the search asks only for
    cycles), from a second run of the same engine that records what bound each time -- the
    same schedule, so the same numbers as computing them at once."""

    __slots__ = ("model", "cycles", "cycles_per_byte", "loop", "iterations", "instructions", "uops",
                 "_details", "_detail_fn")

    def __init__(self, model: str, cycles: float, cycles_per_byte: float, bottleneck: str | None = None,
                 timeline: list[Slot] | None = None, breakdown: dict[str, float] | None = None,
                 loop: bool = False, iterations: int = 1, instructions: int = 0, uops: int = 0,
                 details: Callable[[], tuple] | None = None) -> None:
        self.model, self.cycles, self.cycles_per_byte = model, cycles, cycles_per_byte
        self.loop, self.iterations, self.instructions, self.uops = loop, iterations, instructions, uops
        self._details = None if details is not None else (bottleneck, timeline or [], breakdown or {})
        self._detail_fn = details

    def _get(self, k: int):
        if self._details is None:
            self._details = self._detail_fn()
            self._detail_fn = None
        return self._details[k]

    @property
    def bottleneck(self) -> str:
        return self._get(0)

    @property
    def timeline(self) -> list[Slot]:
        return self._get(1)

    @property
    def breakdown(self) -> dict[str, float]:
        return self._get(2)

    def _values(self) -> tuple:
        return (self.model, self.cycles, self.cycles_per_byte, self.bottleneck, self.timeline, self.breakdown,
                self.loop, self.iterations, self.instructions, self.uops)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Simulation) and self._values() == other._values()

    __hash__ = None     # type: ignore[assignment]  (its timeline is a list)

    def __reduce__(self):
        return (Simulation, self._values())

    def __repr__(self) -> str:
        return (f"Simulation(model={self.model!r}, cycles={self.cycles}, bottleneck={self.bottleneck!r}, "
                f"loop={self.loop}, iterations={self.iterations}, instructions={self.instructions})")


LONG_BODY = 200        # instructions: a body this long is measured by ``LONG_WARM_UP`` / ``LONG_SPAN``
LONG_WARM_UP = 3       # iterations of a long body run before the measured span (the cold start's ramp)
LONG_SPAN = 6          # iterations of a long body measured end to end (periods 1, 2, 3 and 6 average out)


def loop_window(n: int) -> tuple[int, int]:
    """(warm-up k, span m) of the loop measure for a body of ``n`` instructions: ``k + m`` iterations run
    back to back and the figure is ``(E[k+m-1] - E[k-1]) / m``, E[j] the latest completion of iteration j.

    Invariant: the figure is the body's steady-state period, not its ramp: the span starts after the
    cold start has drained and is a whole number of the schedule's short periods (1, 2, 3, 6), so a
    schedule that has become periodic is measured at exactly its rate, which every iteration obeys
    (``bound.loop_bound`` for a block loop). An aperiodic schedule's window can still read below
    that rate by the latest completion's jitter over m, and a search keeps what the window
    flatters: re-searched under this measure, a skylake x86-64 block read 283.0 against its bound
    284.25 (285.125 over 24 iterations) -- -0.4 %, where the 3-iteration measure allowed -1.8 %.
    So an out-of-order figure is never below the body's resource floor (``floor.py``: its fused
    slots over the issue width, its busiest unit set's time), which is that bound's issue-width
    and port parts for a block loop (stop 20).

    Long bodies (a whole block, >= ``LONG_BODY`` instructions): k = 3, m = 6, chosen by measuring
    (issue 11, 2026-12-01) the stop-18 best blocks and the default blocks of all 24 (model, arch)
    pairs against their rate over iterations 10-39. The measure before (3 iterations, (E2 - E0) / 2)
    read every searched best block low -- skylake x86-64 279.0 against 287.0 (bound 284.25),
    goldencove x86-64 219.0 against 225.2, zen3 i386 244.0 against 250.67 (its schedule repeats
    every 3 iterations: 246, 250, 256; bound 245) -- because the search kept what the short measure
    flattered. k = 3, m = 6 reads them 286.17, 227.5 and 250.83, every block at or above its bound;
    exactly the 30-iteration rate on the in-order models, k7/k8/k10, p4 and p6; within 0.3 on zen1
    and zen3, 1.7 on core2, nehalem and zen5, 2.9 on skylake and goldencove (5.9 on goldencove's
    default i386 block), whose schedules stay aperiodic (the rate wanders by +-2 clocks between
    10-iteration windows: 0.1 there would take hundreds of iterations). It costs 9 iterations
    where the old measure ran 3 (about 3x the simulation per whole-block evaluation).

    Short bodies: ``min(64, 2 + ceil(800 / n))`` iterations, the later half measured (a multiple
    of 12 when there are that many, so issue patterns of period 2, 3, 4 or 6 average out).

    Example: 1244 -> (3, 6): 9 iterations, (E8 - E2) / 6; 4 -> (40, 24): 64 iterations, the last 24.
    """
    if n >= LONG_BODY:
        return LONG_WARM_UP, LONG_SPAN
    iters = min(64, 2 + -(-800 // n))
    span = iters - iters // 2
    if span >= 12:
        span -= span % 12
    return iters - span, span


class Simulator:
    """The simulator for ONE model; it owns that model's decode cache (items -> decoded tuples).

    Invariant: a ``Simulator`` never sees another model, so two models --
    even two with the same name and different data -- never share decodes.
    Example: ``Simulator(load_model("zen3")).simulate(body, loop=True).cycles``.
    """

    CACHE_LIMIT = 200_000       # decoded items kept; the cache is emptied when it grows past this

    def __init__(self, model: Model) -> None:
        self.model = model
        self._unit_index = {u.name: i for i, u in enumerate(model.units)}
        self._tpc = model.ticks_per_cycle
        self._cache: dict[Item, tuple] = {}
        self._by_id: dict[int, tuple] = {}      # id(item) -> (item, decoded): the same objects again
        self._run = run_in_order if model.in_order else run_out_of_order
        # Out-of-order runs for cycles resume from the last run's state where the code first differs.
        self._resume = None if model.in_order else Resume()
        self._sets = None if model.in_order else unit_sets(model)     # floor.floor's unit sets

    def clear(self) -> None:
        """Forget every decode (what the first candidate of a search pays again) and the last run's states."""
        self._cache.clear()
        self._by_id.clear()
        if self._resume is not None:
            self._resume = Resume()

    def decode(self, items: Sequence[Item]) -> list[tuple]:
        """Decoded facts for ``items`` (``decode.py``'s tuple layout), cached per item."""
        cache, by_id = self._cache, self._by_id
        if len(cache) > self.CACHE_LIMIT or len(by_id) > self.CACHE_LIMIT:
            cache.clear()
            by_id.clear()
        model, unit_index, tpc = self.model, self._unit_index, self._tpc
        out = []
        for it in items:
            # By identity first (the search hands in the same Instr objects again and again, and
            # hashing a frozen dataclass is the dear part), then by value. The entry holds the
            # item, so its id cannot be reused by another object while the entry exists.
            e = by_id.get(id(it))
            if e is not None and e[0] is it:
                out.append(e[1])
                continue
            d = cache.get(it)
            if d is None:
                d = cache[it] = decode_item(it, model, unit_index, tpc)
            by_id[id(it)] = (it, d)
            out.append(d)
        return out

    def simulate(self, items: Sequence[Item], *, loop: bool = False, bytes_per_iteration: int = 64) -> Simulation:
        """Cycles of ``items``: once (``loop=False``), or per iteration of a loop body run back to back."""
        if bytes_per_iteration <= 0:
            raise UarchError("bytes_per_iteration must be positive")
        model = self.model
        dec = self.decode(items)
        n = len(dec)
        if n == 0:
            return Simulation(model.name, 0.0, 0.0, "none", [], {}, loop, 1, 0, 0)
        warm, span = loop_window(n) if loop else (0, 1)
        iters = warm + span
        seq = dec * iters
        # (a loop's later iterations repeat the first: resume points past it would serve only this same loop)
        trace = run_in_order(seq, model, False) if self._resume is None else \
            run_out_of_order(seq, model, False, self._resume, horizon=n + 1 if loop else None)
        complete = trace.complete
        tpc = self._tpc
        ends = [max(complete[k * n:(k + 1) * n]) for k in range(iters)]
        if loop:
            k0 = warm
            span_start = ends[k0 - 1]
            cycles_ticks = (ends[-1] - span_start) / span
            if self._sets is not None:
                # out-of-order: never below what every iteration spends (floor.py), which a finite
                # window can dip under by the latest completion's jitter over the span
                cycles_ticks = max(cycles_ticks, floor(dec, model, self._sets) * tpc)
            first = (iters - 1) * n
        else:
            k0 = 0
            span_start = 0
            cycles_ticks = ends[0]
            first = 0
        cycles = cycles_ticks / tpc

        def details() -> tuple:
            full = self._run(seq, model, True)
            issue, complete, units = full.issue, full.complete, full.units
            last_iter = range(first, first + n)
            end_node = 2 * max(last_iter, key=lambda i: complete[i])
            breakdown = attribute(full.nodes, end_node, span_start, tpc)
            if loop and iters - k0 > 1:
                # The chain covers several iterations; report clocks per iteration.
                breakdown = {k: v / (iters - k0) for k, v in breakdown.items()}
            neck = bottleneck(breakdown, utilisation(model, seq, units, last_iter, cycles))
            origin = min(issue[i] for i in last_iter) if loop else 0
            names = [u.name for u in model.units]
            timeline = [Slot(i - first, seq[i][TEXT], (issue[i] - origin) / tpc, (complete[i] - origin) / tpc,
                             "+".join(names[u] for u in units[i]) if units[i] else
                             ("eliminated" if seq[i][ELIM] else ""), seq[i][LINE]) for i in last_iter]
            return neck, timeline, {k: round(v, 3) for k, v in sorted(breakdown.items(), key=lambda kv: -kv[1])}

        return Simulation(model.name, cycles, cycles / bytes_per_iteration, loop=loop, iterations=iters,
                          instructions=n, uops=sum(d[FE] for d in dec), details=details)


# The module-level convenience keeps the Simulators of the last few models it
# saw, keyed by the model object's identity. The entry holds the model itself,
# so that id cannot be reused by another object while the entry exists, and a
# hit is checked with ``is``: two distinct models never share a Simulator.
_RECENT_LIMIT = 16
_recent: dict[int, Simulator] = {}


def simulator_for(model: Model) -> Simulator:
    """A ``Simulator`` bound to exactly this model object (reused across calls with the same object)."""
    s = _recent.get(id(model))
    if s is None or s.model is not model:
        if len(_recent) >= _RECENT_LIMIT:
            del _recent[next(iter(_recent))]
        s = _recent[id(model)] = Simulator(model)
    return s


def simulate(items: Sequence[Item], model: Model, *, loop: bool = False, bytes_per_iteration: int = 64) -> Simulation:
    """Cycles of ``items`` on ``model`` (see ``Simulator.simulate``)."""
    return simulator_for(model).simulate(items, loop=loop, bytes_per_iteration=bytes_per_iteration)


def decode(items: Sequence[Item], model: Model) -> list[tuple]:
    """Decoded facts for ``items`` on ``model`` (``decode.py``'s layout; for tests and benches)."""
    return simulator_for(model).decode(items)
