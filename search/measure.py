"""The block-loop measure: the one figure a whole block of any family is priced by.

``block_loop(items, model)`` is the simulator's steady-state loop figure
(``simulate(items, model, loop=True)``: ``simulator.loop_window``'s
iterations back to back after a warm-up, never below the body's resource
floor) of ``items``, one iteration of the block loop *as the exported
function runs it on every block but the last*:

* included -- the loop body from the loop label to the back branch, with
  its loop control (advance the data pointer, count the blocks down,
  branch back) in the place the emitter puts it; with read-ahead (a hybrid
  ``HybridBlock.params.ahead``) the path every block but the last takes:
  ``body``, the count and the not-taken ``jz``, ``main``, the pointer
  advance and the ``jmp`` back;
* left out -- what runs once per call (the frame, the pushes, the vector
  constants' setup, the loads of a..e before an x86-64 scalar loop:
  ``Schedule.loop_start``), the last block's ``tail`` and the epilogue.

It is what ``sha1opt analyze`` measures on the exported object (the lifted
loop from its head to its back edge: the same instructions), what the
whole-block search minimises, what the store keeps for a whole block, what
the export header, ``show``, the dispatch order and the families' reports
print. Each family gives its items: ``block_loop_items`` (a ``Schedule``:
``body[loop_start:]`` and its loop control, ``space.loop_control``'s row ``Schedule.loop``:
``LOOP_CONTROL`` for ``count``), ``hybrid_loop_items`` (a
``HybridBlock``), ``engines.shani.loop_items`` (a SHA-NI point: its
``Parts.head``/``tail`` are its loop control).

Example: the default x86-64 block on nehalem: ``block_loop_cycles(textbook
("x86_64"), load_model("nehalem"))`` is 425.67 cycles per block -- not the
440 of its body simulated once, nor the figure of its body with the a..e
loads and without the loop control.
"""

from __future__ import annotations

from typing import Sequence

from sha1opt.semantics.opaque import Label, Opaque
from sha1opt.semantics.x86 import SEMANTICS, Imm, Instr, Mem, Reg
from sha1opt.search.cost.classes import Item
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import Simulation, simulator_for
from sha1opt.search.space.frame import Schedule
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.space.hybrid_pair import NEXT_HIGH, NEXT_LOW, PAIR_COUNT, PAIR_PTR
from sha1opt.search.space.loop_control import DEFAULT, control, control_items, loop_body

# The default loop control emit/assembly.py puts after a scalar body (``loop_control``'s ``count`` rows), as the
# lifter gives it to the cost model (tests/search/test_blocks.py checks it against an exported, lifted loop);
# the i386 hybrid frame runs the same.
LOOP_CONTROL: dict[str, tuple[Item, ...]] = {arch: control(arch, DEFAULT).items(None) for arch in ("x86_64", "i386")}
# The x86-64 hybrid frame's block count (``emit.hybrid_frame.COUNT``); its i386 frame uses the scalar slots.
HYBRID_COUNT = 64


# Measures made in this process: (model, items) -> Simulation. The measure is a pure function of the model's
# content (a frozen, structurally compared dataclass) and the items, so a block measured again -- a search's
# start points in every search on the model, export after search, the dispatch order -- is read back. At most
# MEMO_SIZE entries (the oldest go first).
_MEASURED: dict[tuple, Simulation] = {}
MEMO_SIZE = 4096


def block_loop(items: Sequence[Item], model: Model) -> Simulation:
    """The block-loop measure of ``items`` (one iteration with its loop control) on ``model``."""
    key = (model, tuple(items))
    try:
        return _MEASURED[key]
    except KeyError:
        pass
    except TypeError:                   # an item that cannot be hashed: measured each time
        return simulator_for(model).simulate(list(items), loop=True)
    sim = _MEASURED[key] = simulator_for(model).simulate(list(items), loop=True)
    while len(_MEASURED) > MEMO_SIZE:
        del _MEASURED[next(iter(_MEASURED))]
    return sim


def forget_measures() -> None:
    """Empty the process's measures (a test that must simulate again)."""
    _MEASURED.clear()


def measures_kept() -> int:
    """How many measures the process keeps (at most ``MEMO_SIZE``)."""
    return len(_MEASURED)


def block_loop_items(sched: Schedule) -> list:
    """A scalar block's loop: ``sched``'s code after its loop start (the a..e loads run once, before the
    loop) as its loop control emits it, and that loop control (``loop_control``: ``sched.loop``'s row)."""
    return list(loop_body(sched)[sched.loop_start:]) + list(control_items(sched))


def block_loop_cycles(sched: Schedule, model: Model) -> float:
    """Cycles per iteration of a scalar ``sched``'s block loop in steady state (``block_loop``).

    Example: the default x86-64 block on nehalem is 440 cycles simulated once
    but 425.67 per iteration of its loop (its a..e loads run once, before the
    loop; and iterations overlap).
    """
    return block_loop(block_loop_items(sched), model).cycles


def block_items(code) -> list:
    """Cost-model items of ``code``: vector rows as ``Opaque(..., "vector")`` with the instruction's own
    typed operands (the item the listing reader makes of them in an object file), the rest as they are."""
    out = []
    for ins in code:
        if isinstance(ins, Instr) and SEMANTICS[ins.mnemonic].vector:
            out.append(Opaque(ins.mnemonic, ins.operands, ins.line, "vector"))
        else:
            out.append(ins)
    return out


def hybrid_loop_items(block: HybridBlock) -> list:
    """A hybrid block's loop as ``emit.hybrid_frame.loop_lines`` / ``hybrid_i386_frame`` write it.

    Without read-ahead: ``body; add $64, data; dec count; jnz loop``. With read-ahead:
    ``body; decq count; jz tail; main; add $64, %rsi; jmp loop`` -- the path of every block but the last
    (i386: ``decl 72(%esp)``, ``addl $64, 68(%esp)``).
    Two blocks an iteration (``block.blocks``, ``hybrid_pair``): ``lea 64(%rsi), %r15; cmpq $1, count;
    cmove %rsi, %r15; body; decq count; jz done; main; add $128, %rsi; decq count; jnz loop``; with read-ahead
    the clamps at the top are the next pair's (``%r13``, ``%r14``: ``emit.hybrid_frame.loop_lines``).
    """
    if block.params.arch == "i386":
        if not block.params.ahead:
            return block_items(block.body) + list(LOOP_CONTROL["i386"])
        advance, count, _ = LOOP_CONTROL["i386"]
        return (block_items(block.body) + [count, Opaque("je", (Label("tail"),), 0, "branch")]
                + block_items(block.main) + [advance, Opaque("jmp", (Label("loop"),), 0, "jump")])
    count = Opaque("decq", (Mem(Reg("esp", 64), None, 1, HYBRID_COUNT),), 0, "counter")
    if block.blocks == 2:
        ptr, data = PAIR_PTR, Reg("esi", 64)
        count = Opaque("decq", (Mem(Reg("esp", 64), None, 1, PAIR_COUNT),), 0, "counter")
        left = Mem(Reg("esp", 64), None, 1, PAIR_COUNT)
        clamp = ([Instr("lea", (Mem(data, None, 1, 64), ptr)), Opaque("cmpq", (Imm(1), left), 0, "compare"),
                  Opaque("cmove", (data, ptr), 0, "opaque")] if not block.params.ahead else
                 [Instr("lea", (Mem(data, None, 1, 64), NEXT_LOW)), Instr("lea", (Mem(data, None, 1, 128), NEXT_HIGH)),
                  Opaque("cmpq", (Imm(3), left), 0, "compare"), Opaque("cmovae", (NEXT_HIGH, NEXT_LOW), 0, "opaque"),
                  Instr("lea", (Mem(NEXT_LOW, None, 1, 64), NEXT_HIGH)),
                  Opaque("cmpq", (Imm(4), left), 0, "compare"), Opaque("cmovb", (NEXT_LOW, NEXT_HIGH), 0, "opaque")])
        return (clamp + block_items(block.body) + [count, Opaque("je", (Label("done"),), 0, "branch")]
                + block_items(block.main) + [Instr("add", (Imm(128), data)), count,
                                             Opaque("jne", (Label("loop"),), 0, "branch")])
    advance = Instr("add", (Imm(64), Reg("esi", 64)))
    if not block.params.ahead:
        return block_items(block.body) + [advance, count, Opaque("jne", (Label("loop"),), 0, "branch")]
    return (block_items(block.body) + [count, Opaque("je", (Label("tail"),), 0, "branch")]
            + block_items(block.main) + [advance, Opaque("jmp", (Label("loop"),), 0, "jump")])


def hybrid_loop_cost(block: HybridBlock, model: Model) -> Simulation:
    """The block-loop measure of a hybrid block (``hybrid_loop_items``), per 64-byte block: a loop of two
    blocks an iteration (``hybrid_pair``) is priced whole and its cycles and uops halved (``per_block``)."""
    sim = block_loop(hybrid_loop_items(block), model)
    return sim if block.blocks == 1 else per_block(sim, block.blocks)


def per_block(sim: Simulation, blocks: int) -> Simulation:
    """``sim`` of an iteration hashing ``blocks`` blocks as the figure of one: cycles, instructions and uops
    divided by ``blocks`` (cycles per byte unchanged); the bottleneck, breakdown and timeline are the
    iteration's. Example: an iteration of 400 cycles and 1540 uops over two blocks is 200 cycles, 770 uops
    and 3.125 cycles/byte per block."""
    return Simulation(sim.model, sim.cycles / blocks, sim.cycles / blocks / 64, loop=sim.loop,
                      iterations=sim.iterations, instructions=sim.instructions // blocks, uops=sim.uops // blocks,
                      details=lambda: (sim.bottleneck, sim.timeline, sim.breakdown))
