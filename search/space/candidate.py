"""A search candidate: recipe + priority offsets -> ordered, allocated code for a round range.

The search state is small and meaningful: the ``Recipe`` (instruction
selection) and an integer offset per (round, chain) group that shifts the
list-scheduling priority of that group's operations -- "form W earlier",
"rotate b later", "start the next round's f before this round's a5".
Priorities are ``-position`` in generation order (the textbook order) plus
``spread`` times the offset, so offsets of zero reproduce generation order.

Registers are a dimension too (``search.space.assignment``): the move
``(-1, "regs") -> 1 + s`` switches a candidate from the fixed rotating layout to
floating registers (orders by values only; every value allocated, the new a
wherever a register frees up; up to ``s`` values spilled to the i386 frame),
and ``(round, "reg", k) -> c`` picks the c-th register option for the k-th op
of that round. Both travel in ``offsets`` (so the store, the Dask events and
resuming carry them unchanged); a candidate without them is exactly the
fixed-layout one it always was.

``realize`` turns a candidate into instructions (or None when the order
needs more temporaries than the architecture has); ``block_schedule`` wraps
per-range code into a whole-block ``Schedule`` (prologue, ranges in order,
feed-forward) that the prover and the emitter take.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from sha1opt.semantics.sha1 import kind
from sha1opt.semantics.x86 import Arch, Instr, Reg
from sha1opt.search.space.assignment import MOVE, SPILL, Flow, assign, budget, flow
from sha1opt.search.space.order import Graph, build_graph, list_schedule
from sha1opt.search.space.recipe import TEXTBOOK, Op, Recipe, epilogue, prologue, range_ops
from sha1opt.search.space.regalloc import TEMPS, allocate
from sha1opt.search.space.frame import LOOP_CARRIES_STATE, Schedule, block_bindings

CHAINS = ("W", "kw", "f", "a5", "b")
ORIGINS = CHAINS + (SPILL, MOVE)        # what an instruction of realized code comes from
REGS = (-1, "regs")   # the floating-register move's key (value 1 + spills allowed; round -1 sorts first)
REG = "reg"                             # (round, REG, k): the register option of the round's k-th op
MAX_SPILLS = 4


@dataclass(frozen=True)
class Candidate:
    first: int
    last: int
    arch: Arch
    recipe: Recipe
    # ((round, chain), offset) moves a whole group; ((round, chain, k), offset)
    # moves the k-th op of that group alone (fine moves, for in-order pairing).
    offsets: tuple[tuple[tuple, int], ...] = ()
    # Exact-engine templates: (kind, II, start time per template op). Rounds of
    # that kind whose op count matches are ordered by (round base + start).
    template: tuple[tuple[str, int, tuple[int, ...]], ...] = ()

    def offset_map(self) -> dict[tuple, int]:
        return dict(self.offsets)

    @property
    def floating(self) -> bool:
        """Floating registers (``search.space.assignment``) instead of the fixed rotating layout."""
        return self.offset_map().get(REGS, 0) > 0

    @property
    def spills(self) -> int:
        """Values the order may keep beyond the registers (spilled to the frame); floating only."""
        return max(0, self.offset_map().get(REGS, 0) - 1)

    def register_choices(self) -> dict[tuple[int, int], int]:
        """(round, k) -> option index of the k-th op of that round (floating only)."""
        return {(k[0], k[2]): v for k, v in self.offsets if len(k) == 3 and k[1] == REG}

    def with_offset(self, key: tuple, value: int) -> "Candidate":
        m = self.offset_map()
        if value:
            m[key] = value
        else:
            m.pop(key, None)
        return Candidate(self.first, self.last, self.arch, self.recipe, tuple(sorted(m.items())), self.template)

    def with_offsets(self, updates: dict[tuple, int]) -> "Candidate":
        """``with_offset`` for many keys at once (a value of 0 removes the key)."""
        m = self.offset_map()
        for key, value in updates.items():
            if value:
                m[key] = value
            else:
                m.pop(key, None)
        return Candidate(self.first, self.last, self.arch, self.recipe, tuple(sorted(m.items())), self.template)

    def with_recipe(self, recipe: Recipe) -> "Candidate":
        """A new recipe changes the ops, so a template made for the old one is dropped."""
        return Candidate(self.first, self.last, self.arch, recipe, self.offsets, ())


SPREAD = 6.0  # priority units per offset step (an op is ~1 unit): one step moves a group ~6 ops


@dataclass
class Realized:
    candidate: Candidate
    ops: list[Op]
    order: list[int]
    code: list[Instr]
    graph: Graph = field(repr=False)
    # Per instruction of ``code``: (round, chain), chain one of ``ORIGINS`` (spills and exit moves
    # exist only with floating registers). Empty: ``code`` is ``order``'s ops one for one.
    origins: list[tuple[int, str]] = field(default_factory=list)

    def origin(self, k: int) -> tuple[int, str]:
        """(round, chain) of ``code[k]``."""
        if self.origins:
            return self.origins[k]
        op = self.ops[self.order[k]]
        return op.round, op.chain


def priorities(c: Candidate, ops: list[Op]) -> list[float]:
    """Higher runs first. Without a template: generation order. With one: the
    template's modulo start times laid out round after round (cycles)."""
    offs = {k: v for k, v in c.offsets if k != REGS and not (len(k) == 3 and k[1] == REG)}
    fine = _fine_offsets(ops, offs)
    if not c.template:
        return [-float(i) + SPREAD * offs.get((op.round, op.chain), 0) + FINE * fine[i] for i, op in enumerate(ops)]
    tmpl = {k: (ii, starts) for k, ii, starts in c.template}
    per_round: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        per_round.setdefault(op.round, []).append(i)
    prio = [0.0] * len(ops)
    base = 0.0
    for t in sorted(per_round):
        idx = per_round[t]
        ii, starts = tmpl.get(kind(t), (None, ()))
        width = float(ii) if ii else len(idx) / 3.0
        for k, i in enumerate(idx):
            at = starts[k] if len(starts) == len(idx) else k * width / len(idx)
            prio[i] = -(base + at + 1e-3 * k) + TEMPLATE_SPREAD * offs.get((t, ops[i].chain), 0) + FINE * fine[i]
        base += width
    return prio


TEMPLATE_SPREAD = 2.0  # cycles per offset step when a template orders the range
FINE = 1.0             # priority units per fine (single-op) offset step


def _fine_offsets(ops: list[Op], offs: dict) -> list[int]:
    """Per-op fine offsets: key (round, chain, k) addresses the k-th op of a group."""
    if not any(len(k) == 3 for k in offs):
        return [0] * len(ops)
    seen: dict[tuple[int, str], int] = {}
    out = []
    for op in ops:
        g = (op.round, op.chain)
        k = seen.get(g, 0)
        seen[g] = k + 1
        out.append(offs.get((op.round, op.chain, k), 0))
    return out


@functools.lru_cache(maxsize=256)
def prepared(first: int, last: int, recipe: Recipe, arch: Arch) -> tuple[list[Op], Graph, dict]:
    """Ops, graph and an allocation memo per (range, recipe, arch): the search revisits recipes.

    A memo of a pure function of its whole key (the ops and graph follow from
    the key alone; the memo maps an order to its allocated code), so no run
    can see another's state through it.
    """
    ops = range_ops(first, last, recipe, arch)
    return ops, build_graph(ops), {}


@functools.lru_cache(maxsize=256)
def prepared_flow(first: int, last: int, recipe: Recipe, arch: Arch
                  ) -> tuple[Flow, dict[tuple[int, int], int], dict]:
    """The range's values (``assignment.flow``), (round, k) -> op index, and a placement memo
    (``assignment.assign``'s), per (range, recipe, arch) -- a memo of a pure function, as ``prepared``."""
    ops = prepared(first, last, recipe, arch)[0]
    fl = flow(ops, arch, first, last)
    return fl, {key: i for i, key in enumerate(fl.keys)}, {}


def choice_points(c: Candidate) -> list[tuple[int, int]]:
    """The (round, k) of every op whose register option the floating assignment reads (defs)."""
    fl = prepared_flow(c.first, c.last, c.recipe, c.arch)[0]
    return [key for key, d in zip(fl.keys, fl.defs) if d is not None]


def realize(c: Candidate) -> Realized | None:
    ops, graph, cache = prepared(c.first, c.last, c.recipe, c.arch)
    prio = priorities(c, ops)
    if c.floating:
        fl, index, memo = prepared_flow(c.first, c.last, c.recipe, c.arch)
        order = list_schedule(ops, fl.graph, prio, budget(c.arch, c.spills), tuple(fl.live_in), tuple(fl.live_out))
        if order is None:
            return None
        choices = {index[key]: v for key, v in c.register_choices().items() if key in index}
        placed = assign(ops, fl, order, c.arch, choices, memo)
        if placed is None:
            return None
        return Realized(c, ops, order, placed[0], fl.graph, placed[1])
    order = list_schedule(ops, graph, prio, len(TEMPS[c.arch]))
    if order is None:
        return None
    code = allocate(ops, graph, order, c.arch, cache)
    if code is None:
        return None
    return Realized(c, ops, order, code, graph)


def block_schedule(parts: list[list[Instr]], arch: Arch, name: str, round_starts=None, loop: str = "count") -> Schedule:
    """A whole-block body from per-range code covering rounds 0..79 in order, its block loop run by the
    loop control ``loop`` (``loop_control``; the model's pick is ``loop_control.best_loop``)."""
    body: list[Instr] = list(prologue(arch))
    loop_start = len(body) if LOOP_CARRIES_STATE[arch] else 0
    for p in parts:
        body += p
    body += epilogue(arch, Reg(TEMPS[arch][0]))
    inputs, outputs, pointers = block_bindings(arch)
    return Schedule(arch, name, tuple(body), inputs, outputs, pointers, tuple(round_starts or ()) or (),
                    loop_start, loop)


def textbook(arch: Arch) -> Schedule:
    """The default schedule for ``arch``: the textbook recipe in generation order.

    It is the same code the search starts from (``recipe.TEXTBOOK`` with no
    reordering), so "default" means one thing everywhere.
    """

    real = realize(Candidate(0, 79, arch, TEXTBOOK))
    base = len(prologue(arch))
    starts: dict[int, int] = {}
    for pos, i in enumerate(real.order):
        starts.setdefault(real.ops[i].round, base + pos)
    sched = block_schedule([real.code], arch, "textbook")
    return Schedule(arch, "textbook", sched.body, sched.inputs, sched.outputs, sched.pointers,
                    tuple(starts[t] for t in range(80)) + (base + len(real.code),), sched.loop_start, recipe=TEXTBOOK)
