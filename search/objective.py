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
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.sha1 import k_const
from sha1opt.semantics.x86 import Arch, Imm, Instr, Mem
from sha1opt.search.cost import fingerprint, simulate
from sha1opt.search.space.candidate import Candidate, realize
from sha1opt.search.space.recipe import TEXTBOOK

CONTEXT_ROUNDS = 4  # default-schedule rounds simulated on each side of a range


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
    before = realize(Candidate(max(0, first - CONTEXT_ROUNDS), first - 1, arch, TEXTBOOK)).code if first > 0 else []
    after = realize(Candidate(last + 1, min(79, last + CONTEXT_ROUNDS), arch, TEXTBOOK)).code if last < 79 else []
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
    """The peer's cycles for rounds first..last between its own neighbouring rounds, and how it was measured."""
    if ref is None:
        return None, "no reference code given"
    if not ref.items:
        return None, ref.name
    items = list(ref.items)
    try:
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


def model_version(model) -> str:
    """Key of stored results: the model's content (data and engine source) and the objective's definition.

    Example: two loads of ``p4.toml`` give the same key in any process; editing
    a latency in the TOML, or the simulator's code, or ``CONTEXT_ROUNDS``,
    gives a new one (results stored under the old key are then not used).
    """
    return hashlib.sha256(f"{fingerprint(model)}|context={CONTEXT_ROUNDS}".encode()).hexdigest()[:12]
