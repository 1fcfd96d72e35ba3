"""Lower bounds on the simulated cost of a round range or a whole block, per model.

A bound is a number of cycles no candidate of the search space can beat
under the model's own simulator, so a result whose cost equals it is proved
optimal under that model ("gap 0"). It is the largest of three bounds, each
computed over the span the objective simulates (``objective.range_cost``:
the range between ``CONTEXT_ROUNDS`` default rounds on each side, or a whole
block body with its prologue and feed-forward), minus what the objective
subtracts (the context alone, simulated):

* **critical path** -- the value chain through the state words. Per round
  kind, the longest dataflow path inside one round from each of a..e at the
  round's start to the new a (``rol(a,5)`` then its addition through a; the
  f chain through b, c, d; K+W and f into e) and from b to ``rol(b,30)``, at
  the model's latencies (an eliminated move is 0), minimised over every
  recipe the ISA has; fixed code (context, prologue, feed-forward) is walked
  instruction by instruction. The W words and every memory dependence are
  left out (dropping a path only weakens a lower bound).
* **issue width** -- the front-end slots (out-of-order: fused uops at
  ``issue_width`` per clock) or instructions (in-order: ``issue_width`` per
  group, one group per clock) the cheapest instruction selection must
  contain, per round the minimum over the options of each chain group
  (W with K+W, f, rol(a,5), rol(b,30)); minus one clock, as the last slot's
  clock is the earliest the last instruction can start.
* **ports** -- for every set U of units (unions of the classes' alternative
  sets), the uops that can only run on units of U must fit on them:
  out-of-order, their busy ticks over |U| (minus the longest busy time, as
  the last one may end after the code's last result); in-order, their count
  over |U| groups (each group takes a unit once), minus one clock.

What each bound assumes of the simulator (``cost/ooo.py``, ``cost/inorder.py``),
so that ``simulate(code).cycles >= bound`` for every candidate: a result is
never ready before its data inputs plus the class latency (0 for an
eliminated move, out-of-order); a lea waits for its address registers; the
front end allocates at most ``issue_width`` slots per clock in program order
(in-order: at most ``issue_width`` instructions per group, groups at distinct
clocks, each unit once per group); a unit runs one uop per busy tick; the
cost is the latest completion (``loop=False``). Every candidate of the space
computes the same values as generation order (reordering respects the
dependence graph, allocation only renames temporaries), so the dataflow of a
round is the recipe's whatever the order.

The whole block is judged as the block loop in steady state (``objective.block_loop_cycles``);
``loop_bound`` bounds that: the same three parts as rates per iteration (no ramp-up, no prologue
loads on x86-64) and, for the critical path, the loop-carried recurrence of a..e (its docstring).
``block_bound`` stays the bound of the block body simulated once.

Example: ``range_bound(load_model("p4"), 40, 59)`` -> a ``Bound`` whose
``cycles`` no search of p4 rounds 40-59 can go below; its ``binding`` names
which of the three it is.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from itertools import product

from sha1opt.semantics.sha1 import kind
from sha1opt.semantics.x86 import Arch, Instr, Reg
from sha1opt.search.cost.decode import ADDR, DATA, ELIM, LAT, MREAD, WRITES
from sha1opt.search.cost.floor import load as resource_load, unit_sets
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import simulator_for
from sha1opt.search.objective import LOOP_CONTROL, range_context, range_cost
from sha1opt.search.space.frame import LOOP_CARRIES_STATE, state_regs
from sha1opt.search.space.loop_control import controls_for
from sha1opt.search.space.recipe import KINDS, TEXTBOOK, Recipe, epilogue, options_for, prologue, range_ops
from sha1opt.search.space.regalloc import TEMPS

NEG = -(1 << 40)          # "no path": a ready time below any real one
GROUPS = ("Wkw", "f", "a5", "b")   # chain groups whose instructions depend on disjoint recipe fields
_GROUP_OF = {"W": "Wkw", "kw": "Wkw", "f": "f", "a5": "a5", "b": "b"}
_GROUP_FIELDS = {"Wkw": ("wsrc", "kw"), "a5": ("rol5",), "b": ("brot",)}
REPRESENTATIVE = {"f1": 17, "f2": 30, "f3": 50}   # a round of each kind past the first 16


@dataclass(frozen=True)
class Bound:
    """A lower bound (cycles) on the objective's cost, and its three parts (each already net of ``context``)."""

    cycles: float
    critical_path: float
    issue_width: float
    ports: float
    port_set: str          # the unit set behind ``ports``
    context: float         # the cycles the objective subtracts (the context rounds alone)

    @property
    def binding(self) -> str:
        parts = {"critical path": self.critical_path, "issue width": self.issue_width,
                 f"ports {self.port_set}": self.ports}
        return max(parts, key=parts.get)

    def gap(self, cycles: float) -> float | None:
        """How far ``cycles`` is above the bound, as a share of the bound (0: proved optimal); None when
        the bound is 0 (it bounds nothing, so it proves nothing)."""
        return (cycles - self.cycles) / self.cycles if self.cycles > 0 else None


# -- the instruction choices per round ------------------------------------------------------------

def _variants(field_names: tuple[str, ...], isa: str) -> list[Recipe]:
    choices = [options_for(n, isa) for n in field_names]
    return [replace(TEXTBOOK, **dict(zip(field_names, combo))) for combo in product(*choices)]


def _f_field(t: int) -> str:
    return kind(t)


@functools.cache
def round_choices(t: int, arch: Arch, isa: str) -> dict[str, tuple[tuple[Instr, ...], ...]]:
    """Per chain group, every instruction list round t can have (any recipe of ``isa``, any range boundary).

    The groups are generated in this order inside a round (W, K+W, f, rol(a,5),
    rol(b,30)), and each depends on its own recipe fields only, so a round of
    any candidate is one variant per group, concatenated. W with K+W also
    depends on whether W_{t-3} is kept in a register and whether W_t must be
    kept (``wsrc=reg3``, ``inplace``): every case is listed.
    """
    out: dict[str, set] = {g: set() for g in GROUPS}
    lo = max(16, t - 3) if t >= 16 else t
    hi = min(79, t + 3)
    # ``rol5=inplace`` reaches across rounds: round t-1's copy of a is round t's f's first operand, and
    # round t's b holds rol5 (ror 7): the f and b groups are listed with it, spans taking a neighbour in
    groups_fields = dict(_GROUP_FIELDS, f=(_f_field(t), "rol5"), b=("brot", "rol5"))
    for g, names in groups_fields.items():
        for r in _variants(names, isa):
            spans = {(t, t), (lo, t), (t, hi), (lo, hi), (max(0, t - 3), t), (max(0, t - 3), hi)} \
                if r.wsrc in ("reg3", "inplace") else {(t, t)}
            if r.rol5 == "inplace":
                spans |= {(max(0, t - 1), t), (t, min(79, t + 1)), (max(0, t - 1), min(79, t + 1))}
            for span in spans:
                ops = range_ops(span[0], span[1], r, arch)
                out[g].add(tuple(op.ins for op in ops if op.round == t and _GROUP_OF[op.chain] == g))
    return {g: tuple(sorted(v, key=str)) for g, v in out.items()}


# -- critical path -----------------------------------------------------------------------------------

def _walk(dec: list[tuple], ready: dict[str, int], ooo: bool, tpc: int) -> None:
    """Dataflow ready times through fixed code (lower bounds; memory dependences dropped)."""
    for d in dec:
        lat = 0 if ooo and d[ELIM] else d[LAT]
        # out-of-order, a uop starts a clock after its allocation at the earliest (allocation >= 0)
        floor = 0 if not ooo or d[ELIM] else tpc
        t = max(floor, max((ready.get(r, 0) for r in d[DATA]), default=0)) + lat
        if d[MREAD] is None or not ooo:       # a lea / in-order: the address registers too, with the latency
            t = max(t, max((ready.get(r, 0) for r in d[ADDR]), default=0) + lat)
        else:                                 # out-of-order load: the address is ready before the data
            t = max(t, max((ready.get(r, 0) for r in d[ADDR]), default=0))
        for r in d[WRITES]:
            ready[r] = t
    # (a register with no writer is ready at 0, as in both engines)


def _path_walk(dec: list[tuple], ready: dict[str, int], ooo: bool) -> None:
    """As ``_walk`` but keeping NEG for values with no path from the sources (longest paths from them)."""
    for d in dec:
        lat = 0 if ooo and d[ELIM] else d[LAT]
        regs = d[DATA] + d[ADDR] if d[MREAD] is None or not ooo else d[DATA]
        t = max((ready.get(r, NEG) for r in regs), default=NEG)
        for r in d[WRITES]:
            ready[r] = t + lat if t > NEG else NEG


@functools.lru_cache(maxsize=512)
def round_matrix(model: Model, arch: Arch, isa: str, t: int) -> tuple[tuple[int, ...], ...]:
    """Ticks: ``m[x][y]``, a lower bound on the longest path from role x (a..e) at round t's start to the
    value in role y's register at its end, for every round t the space has (``NEG``: no path).

    Per chain group, the shortest over its variants of the longest path from each of a..e at the
    group's start to each at its end; the round is the groups in order, so the bound is their
    (max, +) product -- each entry at most the real round's, whichever variant each group took.
    Values passed between groups in temporaries are left out (their paths only lengthen a round).
    A register no group writes keeps its value (``m[x][x] == 0`` for c, d, e's roles' registers).
    """
    sim = simulator_for(model)
    ooo = not model.in_order
    regs = [r.name for r in state_regs(t)]
    total = [[0 if x == y else NEG for y in range(5)] for x in range(5)]
    for g, variants in round_choices(t, arch, isa).items():
        m = None
        for v in variants:
            dec = sim.decode(list(v))
            rows = []
            for x in range(5):
                ready = {regs[x]: 0}
                _path_walk(dec, ready, ooo)
                rows.append([ready.get(regs[y], NEG) for y in range(5)])
            m = rows if m is None else [[min(a, b) for a, b in zip(r1, r2)] for r1, r2 in zip(m, rows)]
        total = [[max((total[x][z] + m[z][y] for z in range(5) if total[x][z] > NEG and m[z][y] > NEG),
                      default=NEG) for y in range(5)] for x in range(5)]
    return tuple(tuple(r) for r in total)


@functools.lru_cache(maxsize=64)
def round_latencies(model: Model, arch: Arch, isa: str, k: str) -> tuple[tuple[int, ...], int]:
    """Ticks: a lower bound on the longest path from each of a..e to the new a, and from b to rol(b,30),
    for every round of kind ``k`` the space has (``NEG``: no path) -- ``round_matrix`` of a round of that
    kind past the first 16, its column of e's register (the new a) and b to b."""
    total = round_matrix(model, arch, isa, REPRESENTATIVE[k])
    return tuple(total[x][4] for x in range(5)), total[1][1]


def _chain_ticks(model: Model, arch: Arch, isa: str, before: list[Instr], first: int, last: int,
                 after: list[Instr]) -> int:
    sim = simulator_for(model)
    ooo = not model.in_order
    ready: dict[str, int] = {}
    _walk(sim.decode(before), ready, ooo, model.ticks_per_cycle)
    lats = {k: round_latencies(model, arch, isa, k) for k in KINDS if any(kind(t) == k for t in range(first, last + 1))}
    for t in range(first, last + 1):
        regs = [r.name for r in state_regs(t)]
        into_a, b_rot = lats[kind(t)]
        r_in = [ready.get(n, 0) for n in regs]
        new_a = max(r_in[x] + into_a[x] for x in range(5) if into_a[x] > NEG)
        new_c = r_in[1] + b_rot if b_rot > NEG else r_in[1]
        ready[regs[4]] = new_a          # e's register holds the new a
        ready[regs[1]] = new_c          # b's register holds rol(b,30), the next c
        for tmp in TEMPS[arch]:
            ready.pop(tmp, None)        # temporaries are written before they are read again
    _walk(sim.decode(after), ready, ooo, model.ticks_per_cycle)
    return max(ready.values(), default=0)


# -- resources ---------------------------------------------------------------------------------------

def _resource_ticks(model: Model, arch: Arch, isa: str, fixed: list[Instr], first: int, last: int
                    ) -> tuple[int, int, str]:
    """(issue-width bound, port bound, that port set), in ticks, over fixed code plus rounds first..last."""
    sim = simulator_for(model)
    in_order = model.in_order
    tpc = model.ticks_per_cycle
    sets = unit_sets(model)
    slots, loads, longest = resource_load(sim.decode(fixed), sets, in_order)
    for t in range(first, last + 1):
        for g, variants in round_choices(t, arch, isa).items():
            per = [resource_load(sim.decode(list(v)), sets, in_order) for v in variants]
            slots += min(p[0] for p in per)
            for i in range(len(sets)):
                loads[i] += min(p[1][i] for p in per)
            longest = max(longest, max(p[2] for p in per))
    width = model.issue_width
    issue = max(0, (-(-slots // width) - 1) * tpc)
    best, name = 0, ""
    for s, load in zip(sets, loads):
        if in_order:
            v = max(0, (-(-load // len(s)) - 1) * tpc)
        else:
            v = max(0, -(-load // len(s)) - longest)
        if v > best:
            best, name = v, "|".join(model.units[u].name for u in sorted(s))
    return issue, best, name


# -- the bounds --------------------------------------------------------------------------------------

def _bound(model: Model, arch: Arch, before: list[Instr], first: int, last: int, after: list[Instr],
           context: float) -> Bound:
    isa = model.isa
    tpc = model.ticks_per_cycle
    chain = _chain_ticks(model, arch, isa, before, first, last, after) / tpc - context
    issue_t, port_t, port_set = _resource_ticks(model, arch, isa, before + after, first, last)
    issue, ports = issue_t / tpc - context, port_t / tpc - context
    # net of the context a part can fall below zero (a short range inside long context rounds): it then
    # bounds nothing, and is 0 -- a bound is never negative, and a bound of 0 proves nothing optimal
    chain, issue, ports = max(chain, 0.0), max(issue, 0.0), max(ports, 0.0)
    return Bound(max(chain, issue, ports), chain, issue, ports, port_set, context)


def range_bound(model: Model, first: int, last: int, arch: Arch | None = None) -> Bound:
    """A lower bound on ``objective.range_cost(model, first, last, arch)(code) - (context alone)``."""
    arch = arch or model.arch
    before, after = range_context(first, last, arch)
    context = range_cost(model, first, last, arch)([])
    return _bound(model, arch, list(before), first, last, list(after), context)


def block_bound(model: Model, arch: Arch | None = None) -> Bound:
    """A lower bound on ``simulate(schedule.body, model).cycles`` for any whole block the search can build
    (``candidate.block_schedule`` of ranges covering 0-79, each with its own recipe)."""
    arch = arch or model.arch
    return _bound(model, arch, prologue(arch), 0, 79, epilogue(arch, _temp(arch)), 0.0)


def code_bound(model: Model, code: list[Instr], arch: Arch | None = None) -> Bound:
    """The same three bounds for fixed code (no rounds searched): ``simulate(code, model).cycles >= cycles``."""
    return _bound(model, arch or model.arch, list(code), 1, 0, [], 0.0)


def _temp(arch: Arch) -> Reg:
    return Reg(TEMPS[arch][0])


# -- the block loop ----------------------------------------------------------------------------------

def _loop_fixed(arch: Arch, control: tuple = ()) -> tuple[list, list]:
    """The fixed code of one iteration of the block loop: the part of the prologue inside the loop
    (all of it on i386, none on x86-64: ``LOOP_CARRIES_STATE``), the feed-forward and the loop control
    (``control``'s items; default ``LOOP_CONTROL``)."""
    head = [] if LOOP_CARRIES_STATE[arch] else prologue(arch)
    return head, epilogue(arch, _temp(arch)) + list(control or LOOP_CONTROL[arch])


def _carried_ticks(model: Model, arch: Arch, isa: str, head: list, tail: list) -> float:
    """Ticks per iteration: the maximum cycle mean of the loop-carried path matrix over a..e's registers."""
    sim = simulator_for(model)
    ooo = not model.in_order
    names = [r.name for r in state_regs(0)]          # == state_regs(80): no rotation between iterations
    hd, tl = sim.decode(head), sim.decode(tail)
    mat = []
    for src in names:
        ready: dict[str, int] = {src: 0}
        _path_walk(hd, ready, ooo)
        for t in range(80):
            regs = [r.name for r in state_regs(t)]
            m = round_matrix(model, arch, isa, t)
            cur = [ready.get(n, NEG) for n in regs]
            for tmp in TEMPS[arch]:
                ready.pop(tmp, None)                 # temporaries are written before they are read again
            for y in range(5):
                ready[regs[y]] = max((cur[x] + m[x][y] for x in range(5) if cur[x] > NEG and m[x][y] > NEG),
                                     default=NEG)
        _path_walk(tl, ready, ooo)
        mat.append([ready.get(n, NEG) for n in names])
    best = 0.0
    power = mat
    for k in range(1, 6):                            # cycles of at most 5 registers: the max cycle mean
        best = max([best] + [power[r][r] / k for r in range(5) if power[r][r] > NEG])
        power = [[max((power[x][z] + mat[z][y] for z in range(5) if power[x][z] > NEG and mat[z][y] > NEG),
                      default=NEG) for y in range(5)] for x in range(5)]
    return best


def loop_bound(model: Model, arch: Arch | None = None) -> Bound:
    """A lower bound on ``objective.block_loop_cycles(sched, model)`` (cycles per iteration of the block
    loop in steady state) for any whole block the search can build.

    The loop runs ``body[loop_start:] + LOOP_CONTROL`` back to back, so no term for the ramp-up, the
    prologue's loads (x86-64: outside the loop) or the last result is subtracted or added; each part is
    a rate, per iteration:

    * **issue width** -- the slots the cheapest selection must contain per iteration (rounds 0-79 as
      ``block_bound`` counts them, plus the loop's fixed code and ``LOOP_CONTROL``) over ``issue_width``
      (m iterations take at least m x slots / width clocks of allocation, in-order m x instructions /
      width groups at one per clock);
    * **ports** -- per unit set U, the busy ticks (in-order: uops, one per unit per group) of the
      uops that can only run on U, over |U|, per iteration;
    * **recurrence** -- the loop-carried chain: per pair of a..e's registers, a lower bound on the
      longest path from one at the loop head to the other at the next head (``round_matrix`` per
      round, the fixed code walked; W, temporaries and memory dependences dropped, which on i386,
      whose loop reloads a..e from memory, leaves no carried path), and the period is at least the
      maximum cycle mean of that matrix (registers do not rotate between iterations:
      ``state_regs(80) == state_regs(0)``): values at head k+m are at least m x the mean later.

    Assumptions of the simulator, beyond ``block_bound``'s (a result never before its inputs plus
    the class latency, 0 for an eliminated move; at most ``issue_width`` slots per clock; a unit one
    uop per busy tick; the dispatch delay, the window, replays and stalls only add): the measured
    span of ``loop=True`` (6 iterations end to end after 3 of warm-up, ``simulator.loop_window``) is
    taken as the period. The bound holds for the period (the limit, m iterations end to end over m);
    a short span can sit below it by the jitter of the latest completion's lag behind the front end
    over m (the 3-iteration measure before issue 11 read the lead's best skylake x86-64 block at
    283.5 against 284.25; over 6 after a warm-up of 3 it is 284.83), except where the issue-width
    or port part binds: the out-of-order figure is at least the body's resource floor
    (``cost/floor.py``, the same two counts for the code the search chose).
    tests/search/test_loop_bound.py checks the default block and a small store's best on every model.

    Example: ``loop_bound(load_model("skylake"), "x86_64")`` -> a ``Bound`` whose ``cycles`` no
    block loop of the search goes below on skylake; ``context`` is 0.
    """
    arch = arch or model.arch
    # a block runs under any usable loop control (``loop_control``): the bound is the least over the rows
    return min((_loop_bound(model, arch, row.items(Reg(TEMPS[arch][-1], 64))) for row in controls_for(arch)),
               key=lambda b: b.cycles)


def _loop_bound(model: Model, arch: Arch, control: tuple) -> Bound:
    """``loop_bound`` with the loop control ``control`` (its items)."""
    isa = model.isa
    tpc = model.ticks_per_cycle
    head, tail = _loop_fixed(arch, control)
    sim = simulator_for(model)
    sets = unit_sets(model)
    in_order = model.in_order
    slots, loads, _ = resource_load(sim.decode(head + tail), sets, in_order)
    for t in range(80):
        for variants in round_choices(t, arch, isa).values():
            per = [resource_load(sim.decode(list(v)), sets, in_order) for v in variants]
            slots += min(p[0] for p in per)
            for i in range(len(sets)):
                loads[i] += min(p[1][i] for p in per)
    issue = slots / model.issue_width
    ports, name = 0.0, ""
    for s, load in zip(sets, loads):
        v = load / len(s) if in_order else load / len(s) / tpc
        if v > ports:
            ports, name = v, "|".join(model.units[u].name for u in sorted(s))
    chain = _carried_ticks(model, arch, isa, head, tail) / tpc
    return Bound(max(chain, issue, ports, 0.0), chain, issue, ports, name, 0.0)
