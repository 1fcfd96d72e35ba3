"""The search objective: a range's cycles *inside* the block, and a peer's cycles for the same rounds.

A range simulated alone starts on an empty machine and ends with nothing
behind it, which flatters code that front-loads work; so every candidate,
baseline and peer is simulated between ``CONTEXT_ROUNDS`` default rounds on
each side and the context's own cycles are subtracted, so differences are the
range's own.

Peers (gcc -O2 -mtune=<cpu> of our C SHA-1, say) are handed in by the
caller as a ``Reference``: the items of their block loop. The search never
builds them itself (emit does: ``emit.peers``), so search never imports emit.

Example: ``reference_cycles(Reference("gcc -O2", items), model, 40, 59)``
cuts gcc's loop at each round's K (``round_segments``), simulates its rounds
36..63 and subtracts its rounds 36..39 and 60..63: the cycles its rounds
40..59 cost in the middle of its own block.

The whole block (rounds 0-79 as one range) is measured otherwise: its code
*is* a block, so its objective is the figure every block is judged by -- the
block loop in steady state (``measure.block_loop_cycles``: ``body[loop_start:]`` and
the emitter's loop control, ``LOOP_CONTROL``, run back to back), what
``sha1opt analyze`` gives the exported code and the acceptance table shows.
The range measure simulated once ranks whole blocks differently (on nehalem
x86-64 a block 4 cycles cheaper once was 3.5 dearer as the loop), so a
whole-block search ranked by it optimised something the table does not judge.
``objective(model, first, last, arch)`` picks the measure for a key, and
``model_version(model, first, last)`` names it in the store's key, so a row
made under one measure is never read as a result of the other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.sha1 import k_const
from sha1opt.semantics.x86 import Arch, Imm, Instr, Mem, Reg
from sha1opt.search.cost import fingerprint, simulate
from sha1opt.search.cost.model import Model
from sha1opt.search.measure import LOOP_CONTROL, block_loop_cycles, block_loop_items
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.loop_control import LOOP_CONTROLS, best_loop
from sha1opt.search.space.recipe import TEXTBOOK

CONTEXT_ROUNDS = 4  # default-schedule rounds simulated on each side of a range
WHOLE_BLOCK = (0, 79)   # the range that is a whole block: measured as the block loop (``block_loop_cycles``)
# Names the whole-block measure in ``model_version`` (bump when it changes). 2: the loop measured over
# 6 iterations after 3 of warm-up (``simulator.loop_window``), not 3 end to end, whose figure dipped
# below ``bound.loop_bound`` (issue 11): rows priced by the old measure are stale, re-measured.
# 3: out-of-order, never below the body's resource floor (``cost/floor.py``), which the window
# still dipped under by end jitter (a skylake block 283.0 against 284.25, stop 20).
LOOP_MEASURE = "block-loop-3"
__all__ = ["LOOP_CONTROL", "LOOP_MEASURE", "Objective", "Reference", "block_loop_cost", "block_loop_cycles",
           "block_loop_items", "is_whole_block", "model_version", "objective", "range_context", "range_cost",
           "reference_cycles", "round_segments"]


def is_whole_block(first: int | None, last: int | None) -> bool:
    """Whether rounds first..last are the whole block (its objective is then the block loop)."""
    return (first, last) == WHOLE_BLOCK


def range_context(first: int, last: int, arch: Arch) -> tuple[list, list]:
    """The default rounds each side of rounds first..last (``CONTEXT_ROUNDS`` of them, clipped to the
    block) that a range's objective simulates around it: (before, after)."""
    before = realize(Candidate(max(0, first - CONTEXT_ROUNDS), first - 1, arch, TEXTBOOK)).code if first > 0 else []
    after = realize(Candidate(last + 1, min(79, last + CONTEXT_ROUNDS), arch, TEXTBOOK)).code if last < 79 else []
    return before, after


def block_loop_cost(model: Model, arch: Arch) -> Callable[[list], float]:
    """The whole block's objective: rounds 0-79's code -> ``block_loop_cycles`` of the block it makes, under
    the loop control the model prices cheapest for it (``loop_control.best_loop``: the search ranks code as
    its best loop runs it)."""
    price = lambda s: block_loop_cycles(s, model)  # noqa: E731
    return lambda code: best_loop(block_schedule([list(code)], arch, "objective"), price)[0]


@dataclass(frozen=True)
class Objective:
    """What a key's search minimises: ``cost(code)``, less ``context`` for the range's own cycles.

    A range: ``range_cost`` (context rounds each side, simulated once) and the
    context alone; the whole block: ``block_loop_cost`` and 0 (the loop is the
    block's own). Example: ``objective(load_model("nehalem"), 0, 79, "x86_64")``
    costs the default block's code at 425.67 (its loop), context 0.
    """

    cost: Callable[[list], float]
    context: float
    measure: str             # said in reports: how the cycles were measured


def objective(model: Model, first: int, last: int, arch: Arch) -> Objective:
    """The objective for the key (uarch's ``model``, rounds first..last, ``arch``)."""
    if is_whole_block(first, last):
        return Objective(block_loop_cost(model, arch), 0.0, "the block loop in steady state")
    cost = range_cost(model, first, last, arch)
    return Objective(cost, cost([]), f"inside the block, between {CONTEXT_ROUNDS} default rounds each side")


@dataclass(frozen=True)
class Reference:
    """A peer's code for one block (the loop body of its block function), and what it is."""

    name: str              # e.g. "gcc -O2 -mtune=pentium4 -m32"; or why there is no code
    items: tuple           # Instr | Opaque, as semantics.listing yields them (empty: unavailable)


def range_cost(model, first: int | None = None, last: int | None = None, arch: Arch | None = None
               ) -> Callable[[list], float]:
    """The objective for rounds first..last on ``arch``: cycles of context + code + context.

    Without a range it is the plain simulated cycles of the code. Subtract
    ``range_cost(...)([])`` (the context alone) to get the range's own cycles.
    """
    if first is None:
        return lambda code: simulate(code, model).cycles
    before, after = range_context(first, last, arch)
    return lambda code: simulate(before + list(code) + after, model).cycles


def round_segments(items: Sequence) -> list[int] | None:
    """Cut points of 80 rounds in foreign code: each round uses its K once.

    Finds the instruction carrying K_t (as an immediate or a displacement,
    either sign) for t = 0..79 in order, and cuts half-way between
    consecutive ones. Returns 81 indices into ``items`` (None when the code
    does not use each K exactly in round order, e.g. K kept in a register).
    """
    pos = []
    for i, it in enumerate(items):
        if not isinstance(it, Instr):
            continue
        vals = {o.value for o in it.operands if isinstance(o, Imm)} | \
               {o.disp & 0xFFFFFFFF for o in it.operands if isinstance(o, Mem)}
        t = len(pos)
        if t < 80 and (k_const(t) in vals or (-k_const(t)) & 0xFFFFFFFF in vals):
            pos.append(i)
    if len(pos) != 80:
        return None
    return [0] + [(pos[t - 1] + pos[t] + 1) // 2 for t in range(1, 80)] + [len(items)]


def reference_cycles(ref: Reference | None, model, first: int, last: int) -> tuple[float | None, str]:
    """The peer's cycles for rounds first..last between its own neighbouring rounds, and how it was measured.

    For the whole block: its block loop in steady state (the whole block's objective)."""
    if ref is None:
        return None, "no reference code given"
    if not ref.items:
        return None, ref.name
    items = list(ref.items)
    try:
        if is_whole_block(first, last):
            return simulate(items, model, loop=True).cycles, f"{ref.name}, its block loop in steady state"
        cuts = round_segments(items)
        if cuts is not None:
            lo, hi = max(0, first - CONTEXT_ROUNDS), min(80, last + 1 + CONTEXT_ROUNDS)
            whole = simulate(items[cuts[lo]:cuts[hi]], model).cycles
            ctx = simulate(items[cuts[lo]:cuts[first]] + items[cuts[last + 1]:cuts[hi]], model).cycles
            return whole - ctx, f"{ref.name}, its rounds {first}-{last} (cut at each K, between its own neighbouring rounds)"
        sim = simulate(items, model, loop=True)
    except Sha1optError as e:
        return None, f"{ref.name}: its code could not be analysed: {e}"
    rounds = last - first + 1
    return sim.cycles * rounds / 80, f"{ref.name}, whole block x {rounds}/80 (no round boundaries found)"


def model_version(model, first: int | None = None, last: int | None = None) -> str:
    """Key of stored results: the model's content (data and engine source) and the objective's definition
    for the key's rounds (``objective``: a range's, or -- rounds 0-79 -- the whole block's loop).

    Example: two loads of ``p4.toml`` give the same key in any process; editing
    a latency in the TOML, or the simulator's code, or ``CONTEXT_ROUNDS``,
    gives a new one (results stored under the old key are then not used);
    ``model_version(m, 0, 79)`` differs from ``model_version(m, 20, 39)``
    (another measure), and changes with ``LOOP_MEASURE``, ``LOOP_CONTROL`` or the loop-control rows
    (``loop_control.LOOP_CONTROLS``: the objective takes the cheapest).
    Without a range: the ranges' key.
    """
    if is_whole_block(first, last):
        rows = [(r.arch, r.name, r.entry, r.advance, tuple(map(str, r.items(Reg("r15d", 64))))) for r in LOOP_CONTROLS]
        loop = hashlib.sha256(repr((sorted((a, tuple(map(str, c))) for a, c in LOOP_CONTROL.items()), rows)).encode())
        what = f"loop={LOOP_MEASURE}:{loop.hexdigest()[:12]}"
    else:
        what = f"context={CONTEXT_ROUNDS}"
    return hashlib.sha256(f"{fingerprint(model)}|{what}".encode()).hexdigest()[:12]
