"""Loop control: how a scalar block's loop advances the data and counts the blocks, one row per way.

The emitter (``emit.assembly``) wraps a ``Schedule``'s body in a frame and a
block loop; the row named by ``Schedule.loop`` says what that loop adds to the
frame's entry (``entry``, run once, after the frame is allocated), what runs
after the body (``advance``, the back branch included) and how the body reads
the data. The rows (``LOOP_CONTROLS``), each a choice of data, not a branch
on a name:

* ``count`` (both arches) -- the block count in the frame:
  ``add $64, %rsi ; decq 64(%rsp) ; jnz loop`` (i386: the data pointer and
  the count in their slots). Every body can take it; three instructions.
* ``index`` (x86-64) -- the data read through a base and an index, as a loop
  over an array counts its index up to zero: at entry ``%rsi`` becomes the
  end of the data (data + 64n) and a register the body leaves free
  (``index_register``: the last of ``regalloc.TEMPS`` it does not use) holds
  -64n; the body's data loads ``4j(%rsi)`` read ``4j(%rsi,%r15)`` and the
  loop control is ``add $64, %r15 ; jnz loop``: two instructions, so one
  fused uop (K8/K10: one macro-op) less per block than ``count``. A body
  that uses every temporary cannot take it (``usable``).

The body stays the one the search-time prover proves (``Schedule.body``:
data at ``%rsi``, ``block.prove_block``'s frame contract); ``loop_body``
rewrites its data loads for the row, and both the price
(``measure.block_loop_items``) and the emitted text read that rewrite, so
what is priced is what is emitted; the exported function is proved whole
from its object (``lift.function``: the index counting one block per
iteration, ``induction.block_offset``) like every export.

Which row a block runs is the model's choice (``best_loop``): the cheapest
usable row under the block-loop measure, which the whole-block objective
and ``blocks.best_block`` use, so the search ranks code under its best loop
control. Example: the x86-64 textbook block with ``wsrc=inplace`` on k8:
1173 macro-ops per block with ``count``, 1172 with ``index``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.opaque import Label, Opaque
from sha1opt.semantics.x86 import Arch, Imm, Instr, Mem, Reg
from sha1opt.search.space.frame import FRAME_BYTES, I386_COUNT_SLOT, I386_DATA_SLOT, Schedule
from sha1opt.search.space.regalloc import TEMPS

DATA = Reg("esi", 64)                  # the x86-64 data pointer of the frame contract (``frame.block_bindings``)
LOOP = Label("loop")                   # the back branch's target in the items (the emitter names it)


@dataclass(frozen=True)
class LoopControl:
    """One way to run the block loop (module docstring). ``entry`` and ``advance`` are GNU-as lines with
    ``{index}`` (the index register, 64-bit name) and ``{loop}`` (the loop label) to fill; ``items`` gives
    the cost model's items of ``advance`` for an index register (as the lifter reads the exported loop)."""

    name: str
    arch: Arch
    what: str                          # said in reports and headers
    needs_index: bool                  # the body must leave a temporary free (``index_register``)
    entry: tuple[str, ...]
    advance: tuple[str, ...]
    items: Callable[[Reg | None], tuple]


def _count_x64(_: Reg | None) -> tuple:
    return (Instr("add", (Imm(64), DATA)),
            Opaque("decq", (Mem(Reg("esp", 64), None, 1, FRAME_BYTES["x86_64"]),), 0, "counter"),
            Opaque("jne", (LOOP,), 0, "branch"))


def _count_i386(_: Reg | None) -> tuple:
    return (Instr("add", (Imm(64), Mem(Reg("esp", 32), None, 1, I386_DATA_SLOT))),
            Opaque("decl", (Mem(Reg("esp", 32), None, 1, I386_COUNT_SLOT),), 0, "counter"),
            Opaque("jne", (LOOP,), 0, "branch"))


def _index_x64(index: Reg | None) -> tuple:
    return (Instr("add", (Imm(64), index)), Opaque("jne", (LOOP,), 0, "branch"))


LOOP_CONTROLS: tuple[LoopControl, ...] = (
    LoopControl("count", "x86_64", "block count in the frame (add/decq/jnz)", False,
                (f"mov %rdx, {FRAME_BYTES['x86_64']}(%rsp)",),
                ("add $64, %rsi", f"decq {FRAME_BYTES['x86_64']}(%rsp)", "jnz {loop}"), _count_x64),
    LoopControl("count", "i386", "data pointer and block count in the frame (addl/decl/jnz)", False,
                (), (f"addl $64, {I386_DATA_SLOT}(%esp)", f"decl {I386_COUNT_SLOT}(%esp)", "jnz {loop}"),
                _count_i386),
    LoopControl("index", "x86_64", "data indexed from its end by a count up to zero (add/jnz)", True,
                ("mov %rdx, {index}", "shl $6, {index}", "add {index}, %rsi", "neg {index}"),
                ("add $64, {index}", "jnz {loop}"), _index_x64),
)
DEFAULT = "count"


def controls_for(arch: Arch) -> tuple[LoopControl, ...]:
    """The rows of ``arch``, the default (``count``) first."""
    return tuple(r for r in LOOP_CONTROLS if r.arch == arch)


def control(arch: Arch, name: str) -> LoopControl:
    """The row ``name`` of ``arch``; an unknown one is refused by name."""
    for r in controls_for(arch):
        if r.name == name:
            return r
    raise Sha1optError(f"unknown loop control {name!r} on {arch} (known: "
                       f"{', '.join(r.name for r in controls_for(arch))})")


def _names(ins: Instr) -> set[str]:
    out = set()
    for o in ins.operands:
        if isinstance(o, Reg):
            out.add(o.name)
        elif isinstance(o, Mem):
            out |= {r.name for r in (o.base, o.index) if r is not None}
    return out


def index_register(body: Sequence[Instr], arch: Arch) -> Reg | None:
    """The last temporary of ``regalloc.TEMPS[arch]`` that ``body`` never names (64-bit), or None."""
    used = set().union(*(_names(i) for i in body)) if body else set()
    free = [t for t in TEMPS[arch] if t not in used]
    return Reg(free[-1], 64) if free else None


def usable(row: LoopControl, sched: Schedule) -> bool:
    """Whether ``sched`` can run under ``row``: its arch, and a free temporary where the row needs one."""
    return row.arch == sched.arch and (not row.needs_index or index_register(sched.body, sched.arch) is not None)


def _index(sched: Schedule) -> tuple[LoopControl, Reg | None]:
    row = control(sched.arch, sched.loop)
    if not row.needs_index:
        return row, None
    reg = index_register(sched.body, sched.arch)
    if reg is None:
        raise Sha1optError(f"{sched.name}: loop control {row.name!r} needs a free temporary; the body uses all")
    return row, reg


def _indexed(ins: Instr, reg: Reg) -> Instr:
    ops = tuple(replace(o, index=reg) if isinstance(o, Mem) and o.base == DATA and o.index is None else o
                for o in ins.operands)
    return ins if ops == ins.operands else replace(ins, operands=ops)


def loop_body(sched: Schedule) -> tuple[Instr, ...]:
    """``sched.body`` as its loop control emits it: with ``index``, every data read ``d(%rsi)`` as
    ``d(%rsi,<index>)``; with ``count``, the body itself."""
    _, reg = _index(sched)
    return sched.body if reg is None else tuple(_indexed(i, reg) for i in sched.body)


def control_items(sched: Schedule) -> tuple:
    """The cost model's items of ``sched``'s loop control (after the body, the back branch included)."""
    row, reg = _index(sched)
    return row.items(reg)


def _fill(lines: Sequence[str], reg: Reg | None, loop: str) -> list[str]:
    return [ln.format(index=str(reg) if reg is not None else "", loop=loop) for ln in lines]


def entry_lines(sched: Schedule) -> list[str]:
    """What ``sched``'s loop control adds to the frame's entry (once, after the frame is allocated)."""
    row, reg = _index(sched)
    return _fill(row.entry, reg, "")


def advance_lines(sched: Schedule, loop: str) -> list[str]:
    """``sched``'s loop control after the body, branching back to ``loop``."""
    row, reg = _index(sched)
    return _fill(row.advance, reg, loop)


def best_loop(sched: Schedule, price: Callable[[Schedule], float]) -> tuple[float, Schedule]:
    """The cheapest usable row for ``sched`` under ``price`` (the block-loop measure on a model), as
    (its figure, ``sched`` with that row); ties keep the earlier row (``count`` first)."""
    best: tuple[float, Schedule] | None = None
    for row in controls_for(sched.arch):
        if usable(row, sched):
            s = replace(sched, loop=row.name)
            c = price(s)
            if best is None or c < best[0]:
                best = (c, s)
    return best
