"""The greedy engine: list scheduling by the model's own clock, on floating registers.

The annealer moves priorities a little at a time; an in-order CPU (Pentium's
U/V pairing, Atom's two pipes) rewards a whole order built for its pairing
rules, as gcc -mtune=pentium builds one. For one recipe and range this
engine builds that order op by op: among the ready operations (the floating
graph of ``search.space.assignment``: values only, no fixed register layout)
it takes the one that adds the fewest cycles when appended to the last
``WINDOW`` instructions placed -- simulated by the model itself, on
value-named code, so no register choice is assumed -- ties going to the
longest latency path to the end (the classic critical-path priority).

Registers: a pick must keep the live values within the floating budget
(``assignment.budget``), and one that would leave at most one register free
is taken only if the generation-order scheduler can still go on from there
for ``HORIZON`` operations (two rounds): a greedy order must not paint itself
into a corner where every ready operation needs a register nobody frees.

The order is then written exactly as fine priority offsets (priority =
-position), so the result is an ordinary floating ``Candidate``: realized,
costed, annealed further, proved and stored like any other. Nothing here
proves or stores.

The beam (``beam_order``): one pick at a time is myopic -- on Atom a round's
six port-0 W operations must start while the round before is still adding
into its a, which no single pick sees. The beam keeps the ``width`` cheapest
partial orders (the sum of their picks' added cycles, each simulated after
the last ``WINDOW`` instructions as above, with the same register rules)
instead of one, and extends each by every ready operation; width 1 is the
single-pick order up to ties. ``greedy_starts`` runs it on the ``BEAM_RECIPES``
recipes whose single-pick orders are cheapest, for ranges of up to ``BEAM_MAX_ROUNDS``
rounds (the standard ones; a whole block would cost minutes of set-up). Example: Atom rounds 40-59
with ``kw=wk``: 256 cycles single-pick, 201 with a beam of 16. Example: ``greedy_candidate(load_model("pentium"), 20, 39,
Recipe(wsrc="load"))`` is a candidate of 201 cycles under the pentium model
(the default schedule: 320; gcc -O2 -mtune=pentium's rounds 20-39: 208).
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from typing import Callable

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.sha1 import kind
from sha1opt.semantics.x86 import Arch, Instr, Mem, Reg
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import classify, simulator_for
from sha1opt.search.space.assignment import budget
from sha1opt.search.space.candidate import REGS, Candidate, prepared, prepared_flow, realize
from sha1opt.search.space.order import critical_path
from sha1opt.search.space.recipe import NAMED_OPTIONS, TEXTBOOK, Recipe, options_for

WINDOW = 12        # instructions of the placed code each pick is simulated after
HORIZON = 40       # operations the generation-order scheduler must manage after a tight pick
BEAM_WIDTH = 16    # partial orders the beam keeps (``beam_order``)
BEAM_RECIPES = 3   # recipes (the cheapest single-pick ones) ``greedy_starts`` runs the beam on
BEAM_MAX_ROUNDS = 20   # longer ranges get no beam in ``greedy_starts``: ~10 s a recipe per 20 rounds here


def _value_code(ops, fl) -> list[Instr]:
    """Each op with every value as its own register name (``%v<k>``): true dependences only."""
    names: dict[str, str] = {}

    def name(v: str) -> str:
        if v not in names:
            names[v] = f"v{100000 + len(names)}"
        return names[v]

    out = []
    for i, op in enumerate(ops):
        ins = op.ins
        regs = {n: name(v) for n, v in fl.names[i].items()}
        last = len(ins.operands) - 1

        def fix(o, k):
            if isinstance(o, Reg):
                if k == last and fl.defs[i] is not None:
                    return Reg(name(fl.defs[i]), o.width)
                return Reg(regs[o.name], o.width) if o.name in regs else o
            if isinstance(o, Mem):
                b = Reg(regs[o.base.name], o.base.width) if o.base is not None and o.base.name in regs else o.base
                x = Reg(regs[o.index.name], o.index.width) if o.index is not None and o.index.name in regs else o.index
                return Mem(b, x, o.scale, o.disp)
            return o
        out.append(Instr(ins.mnemonic, tuple(fix(o, k) for k, o in enumerate(ins.operands))))
    return out


class _State:
    """Ready ops, live values and readers to come: the list scheduler's state, copyable for look-ahead."""

    __slots__ = ("indeg", "vreads", "live", "ready")

    def __init__(self, indeg, vreads, live, ready) -> None:
        self.indeg, self.vreads, self.live, self.ready = indeg, vreads, live, ready

    def copy(self) -> "_State":
        return _State(list(self.indeg), dict(self.vreads), set(self.live), list(self.ready))

    def net(self, g, i: int) -> tuple[int, tuple]:
        """(live values added by op i, less those it frees; the values it adds)."""
        w = g.vwrite[i]
        new = tuple(v for v in w if v not in self.live)
        freed = sum(1 for v in g.vread[i] if self.vreads[v] == 1 and v not in w and v in self.live)
        return len(new) - freed, new

    def take(self, g, i: int, new: tuple) -> None:
        self.ready.remove(i)
        self.live.update(new)
        for v in g.vread[i]:
            self.vreads[v] -= 1
            if not self.vreads[v]:
                self.live.discard(v)
        for v in new:
            if not self.vreads.get(v, 0):
                self.live.discard(v)
        for s in g.succs[i]:
            self.indeg[s] -= 1
            if self.indeg[s] == 0:
                self.ready.append(s)


def _can_go_on(st: _State, g, limit: int, steps: int) -> bool:
    """Whether generation-order list scheduling from ``st`` places ``steps`` more ops (or all)."""
    st = st.copy()
    heap = list(st.ready)
    heapq.heapify(heap)
    for _ in range(steps):
        if not heap:
            return True
        skipped = []
        chosen = None
        while heap:
            i = heapq.heappop(heap)
            net, new = st.net(g, i)
            if len(st.live) + net <= limit:
                chosen = (i, new)
                break
            skipped.append(i)
        if chosen is None:
            return False
        for i in skipped:
            heapq.heappush(heap, i)
        before = len(st.ready)
        st.take(g, chosen[0], chosen[1])
        for s in st.ready[before - 1:]:
            if s not in heap:
                heapq.heappush(heap, s)
    return True


def _setting(model: Model, first: int, last: int, recipe: Recipe, arch: Arch, spills: int):
    """What both list schedulers start from: the ops, the value graph, value-named code, the model's
    simulator, critical-path priorities, the register limit and the initial state."""
    ops = prepared(first, last, recipe, arch)[0]
    fl = prepared_flow(first, last, recipe, arch)[0]
    g = fl.graph
    code = _value_code(ops, fl)
    lat = [model.classes[classify(op.ins, model)].latency for op in ops]
    cp = critical_path(g, lat)
    vreads: dict[str, int] = {v: 1 for v in fl.live_out}
    for r in g.vread:
        for v in r:
            vreads[v] = vreads.get(v, 0) + 1
    st = _State([len(p) for p in g.preds], vreads, set(fl.live_in), [i for i, p in enumerate(g.preds) if not p])
    return ops, g, code, simulator_for(model), cp, budget(arch, spills), st


def beam_order(model: Model, first: int, last: int, recipe: Recipe, arch: Arch | None = None,
               spills: int = 0, width: int = BEAM_WIDTH,
               should_stop: Callable[[], bool] = lambda: False) -> list[list[int]]:
    """The beam's complete orders of the range's ops, cheapest (summed added cycles) first; [] if every
    partial order got stuck or ``should_stop`` said so (asked before every step).

    Each step extends every kept order by every ready op its register limit allows (a tight pick only
    if the generation-order scheduler can go on, as in ``greedy_order``), scores it by its added
    cycles after its own last ``WINDOW`` instructions, ties to the longer critical path, and keeps the
    ``width`` best that differ (in the ops placed or the last six of them)."""
    if width < 1:
        raise Sha1optError("the beam width must be at least 1")
    arch = arch or model.arch
    ops, g, code, sim, cp, limit, st0 = _setting(model, first, last, recipe, arch, spills)
    beam: list[tuple[float, list[int], _State]] = [(0.0, [], st0)]
    cycles: dict[tuple, float] = {}     # a window's cycles: the same windows recur across the beam

    def window_cycles(key: tuple) -> float:
        if key not in cycles:
            cycles[key] = sim.simulate([code[j] for j in key]).cycles if key else 0.0
        return cycles[key]

    for _ in range(len(ops)):
        if should_stop():
            return []
        grown = []
        for score, order, st in beam:
            key = tuple(order[-WINDOW:])
            base = window_cycles(key)
            for i in st.ready:
                net, new = st.net(g, i)
                if len(st.live) + net <= limit:
                    grown.append((score + window_cycles(key + (i,)) - base, -cp[i], i, order, st, net, new))
        grown.sort(key=lambda x: (x[0], x[1], x[2]))
        kept: list[tuple[float, list[int], _State]] = []
        seen = set()
        for score, _, i, order, st, net, new in grown:
            if len(kept) == width:
                break
            longer = order + [i]
            sig = (frozenset(longer), tuple(longer[-6:]))
            if sig in seen:
                continue
            nxt = st.copy()
            nxt.take(g, i, new)
            if net > 0 and len(st.live) + net >= limit - 1 and not _can_go_on(nxt, g, limit, HORIZON):
                continue
            seen.add(sig)
            kept.append((score, longer, nxt))
        if not kept:
            return []
        beam = kept
    return [order for _, order, _ in beam]


def greedy_order(model: Model, first: int, last: int, recipe: Recipe, arch: Arch | None = None,
                 spills: int = 0, should_stop: Callable[[], bool] = lambda: False) -> list[int] | None:
    """The model-clocked order of the range's ops (indices into ``range_ops``), or None if it got stuck
    (or ``should_stop`` said so: it is asked before every pick, so a stop is seen within milliseconds)."""
    arch = arch or model.arch
    ops, g, code, sim, cp, limit, st = _setting(model, first, last, recipe, arch, spills)
    order: list[int] = []
    placed: list[Instr] = []
    while st.ready:
        if should_stop():
            return None
        window = placed[-WINDOW:]
        base = sim.simulate(window).cycles if window else 0.0
        best = None
        for i in sorted(st.ready):
            net, new = st.net(g, i)
            if len(st.live) + net > limit:
                continue
            key = (sim.simulate(window + [code[i]]).cycles - base, -cp[i], i)
            if best is not None and key >= best[0]:
                continue
            if net > 0 and len(st.live) + net >= limit - 1:
                trial = st.copy()
                trial.take(g, i, new)
                if not _can_go_on(trial, g, limit, HORIZON):
                    continue
            best = (key, i, new)
        if best is None:
            return None
        _, i, new = best
        st.take(g, i, new)
        order.append(i)
        placed.append(code[i])
    return order if len(order) == len(ops) else None


def order_offsets(ops, order: list[int]) -> dict[tuple, int]:
    """Fine offsets that make ``candidate.priorities`` equal ``-position in order`` (FINE = 1 per step)."""
    pos = {i: p for p, i in enumerate(order)}
    seen: dict[tuple[int, str], int] = {}
    out: dict[tuple, int] = {}
    for i, op in enumerate(ops):
        g = (op.round, op.chain)
        k = seen.get(g, 0)
        seen[g] = k + 1
        if i != pos[i]:
            out[(op.round, op.chain, k)] = i - pos[i]
    return out


def order_candidate(first: int, last: int, recipe: Recipe, arch: Arch, spills: int,
                    order: list[int]) -> Candidate | None:
    """``order`` as a floating candidate that realizes to exactly that order (None if it does not)."""
    ops = prepared(first, last, recipe, arch)[0]
    offs = order_offsets(ops, order)
    offs[REGS] = 1 + spills
    c = Candidate(first, last, arch, recipe, tuple(sorted(offs.items())))
    real = realize(c)
    return c if real is not None and real.order == order else None


def greedy_candidate(model: Model, first: int, last: int, recipe: Recipe, arch: Arch | None = None,
                     spills: int = 0, should_stop: Callable[[], bool] = lambda: False) -> Candidate | None:
    """The greedy order as a floating candidate that realizes to exactly that order (None if stuck)."""
    arch = arch or model.arch
    order = greedy_order(model, first, last, recipe, arch, spills, should_stop)
    return None if order is None else order_candidate(first, last, recipe, arch, spills, order)


def beam_candidate(model: Model, first: int, last: int, recipe: Recipe, arch: Arch | None = None,
                   spills: int = 0, width: int = BEAM_WIDTH,
                   should_stop: Callable[[], bool] = lambda: False) -> Candidate | None:
    """The cheapest of the beam's orders (``beam_order``) under the model, simulated as realized code
    (registers assigned, exit moves in), as a floating candidate; None if the beam got stuck."""
    arch = arch or model.arch
    sim = simulator_for(model)
    best = None
    for order in beam_order(model, first, last, recipe, arch, spills, width, should_stop):
        c = order_candidate(first, last, recipe, arch, spills, order)
        if c is not None:
            cycles = sim.simulate(realize(c).code).cycles
            if best is None or cycles < best[0]:
                best = (cycles, c)
    return None if best is None else best[1]


def greedy_recipes(isa: str, first: int, last: int) -> list[Recipe]:
    """The recipes the engine tries: every W source x K+W form (the fields the pairing depends on most:
    Atom's lea stall, Pentium's memory operands), then each named option of the range's round kinds
    with the loaded-W and the memory-W forms."""
    rol5 = "rorx" if "rorx" in options_for("rol5", isa) else "mov-rol"
    base = replace(TEXTBOOK, rol5=rol5)
    out = [replace(base, wsrc=w, kw=kw) for w in ("load", "mem", "late") for kw in ("lea", "wk", "add")]
    for k in sorted({kind(t) for t in range(first, last + 1)}):
        for opt in NAMED_OPTIONS[k]:
            if opt in options_for(k, isa):
                for r in (replace(base, wsrc="load", **{k: opt}), replace(base, wsrc="mem", kw="wk", **{k: opt})):
                    if r not in out:
                        out.append(r)
    return out


def greedy_starts(model: Model, first: int, last: int, arch: Arch | None = None, *,
                  should_stop: Callable[[], bool] = lambda: False) -> list[Candidate]:
    """Greedy candidates for the range, one per ``greedy_recipes`` entry that does not get stuck
    (with no spill allowed, else two). In-order models only: out-of-order ones reorder in hardware,
    and there the annealer does as well. Bounded by count, not by the clock, so a search with an
    evaluation budget stays a function of its inputs; ``should_stop`` ends it early."""
    if not model.in_order:
        return []
    out = []
    for r in greedy_recipes(model.isa, first, last):
        if should_stop():
            break
        for spills in (0, 2):
            c = greedy_candidate(model, first, last, r, arch, spills, should_stop)
            if c is not None:
                out.append(c)
                break
    # The beam on the recipes whose single-pick orders are cheapest (their code simulated alone).
    sim = simulator_for(model)
    ranked = sorted(out, key=lambda c: sim.simulate(realize(c).code).cycles)
    for c in ranked[:BEAM_RECIPES] if last - first < BEAM_MAX_ROUNDS else ():
        if should_stop():
            break
        b = beam_candidate(model, first, last, c.recipe, arch, c.spills, should_stop=should_stop)
        if b is not None:
            out.append(b)
    return out
