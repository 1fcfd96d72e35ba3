"""Schedules: the straight-line code for one 64-byte block, and the default one.

A ``Schedule`` is the per-block body of ``sha1_block_data_order``: it loads
the state, runs rounds 0-79 with the W ring on the stack, adds the old state
in and stores it back. The emitter wraps it in a prologue, the block loop
and an epilogue; the prover checks it with the bindings it carries.

Frame contract (the emitter provides it, ``pointers`` declares it):

* x86-64: ``%rdi`` = state, ``%rsi`` = data, ``%rsp`` = a frame whose first
  64 bytes hold the W ring (``W[t mod 16]`` at ``4*(t mod 16)(%rsp)``).
* i386: ``%esp`` = a frame with the W ring at 0..63, the state pointer at 64
  and the data pointer at 68; all seven other registers are free for data,
  so pointers are reloaded from the frame when needed.

``textbook(arch)`` is the straightforward order: per round, W (load+bswap,
or the xor/rol recurrence), ``lea K(e,W),e``, f into a temporary, ``add``,
``rol $5`` of a, ``add``, ``ror $2`` of b; register names rotate between
rounds so no value moves. It is the baseline every search result is
compared with, and it makes export work before any search has run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..semantics.machine import Location
from ..semantics.sha1 import k_const, kind
from ..semantics.x86 import Arch, Imm, Instr, Mem, Reg

RING = 0          # byte offset of the W ring in the frame
I386_STATE_SLOT = 64
I386_DATA_SLOT = 68
FRAME_BYTES = {"x86_64": 64, "i386": 72}


@dataclass(frozen=True)
class Schedule:
    arch: Arch
    name: str
    body: tuple[Instr, ...]
    inputs: dict[str, Location] = field(default_factory=dict)
    outputs: dict[str, Location] = field(default_factory=dict)
    pointers: dict = field(default_factory=dict)
    # Where each round's instructions start in ``body`` (81 entries: the
    # last is the start of the feed-forward), for drawing and analysis.
    round_starts: tuple[int, ...] = ()


def _r(name: str) -> Reg:
    return Reg(name)


def _ring(t: int, sp: Reg) -> Mem:
    return Mem(sp, None, 1, RING + 4 * (t % 16))


def block_bindings(arch: Arch) -> tuple[dict, dict, dict]:
    """Inputs, outputs and entry pointers of a whole-block body under the frame contract."""
    inputs: dict[str, Location] = {f"h{i}": ("mem", "state", 4 * i) for i in range(5)}
    inputs.update({f"m{j}": ("mem", "data", 4 * j) for j in range(16)})
    outputs: dict[str, Location] = {f"h{i}": ("mem", "state", 4 * i) for i in range(5)}
    if arch == "x86_64":
        pointers = {"edi": "state", "esi": "data", "esp": "stack"}
    else:
        pointers = {"esp": "stack", ("stack", I386_STATE_SLOT): "state", ("stack", I386_DATA_SLOT): "data"}
    return inputs, outputs, pointers


def textbook(arch: Arch) -> Schedule:
    """The default schedule for ``arch`` (see the module docstring)."""
    sp = Reg("esp", 64 if arch == "x86_64" else 32)
    code: list[Instr] = []
    emit = lambda m, *ops: code.append(Instr(m, tuple(ops)))  # noqa: E731
    regs = [_r(n) for n in ("eax", "ebx", "ecx", "edx", "ebp")]
    if arch == "x86_64":
        state, data = Reg("edi", 64), Reg("esi", 64)
        t1, t2 = _r("r8d"), _r("r9d")
    else:
        state = data = Reg("esi")
        t1, t2 = _r("esi"), _r("edi")
        # Copy the block into the ring, byte-swapped, while registers are free.
        emit("mov", Mem(sp, None, 1, I386_DATA_SLOT), data)
        for j in range(16):
            emit("mov", Mem(data, None, 1, 4 * j), _r("eax"))
            emit("bswap", _r("eax"))
            emit("mov", _r("eax"), _ring(j, sp))
        emit("mov", Mem(sp, None, 1, I386_STATE_SLOT), state)
    for i, r in enumerate(regs):
        emit("mov", Mem(state, None, 1, 4 * i), r)
    starts = []
    a, b, c, d, e = regs
    for t in range(80):
        starts.append(len(code))
        # W_t into t1 (and the ring, when later rounds need it).
        if t < 16:
            if arch == "x86_64":
                emit("mov", Mem(data, None, 1, 4 * t), t1)
                emit("bswap", t1)
                emit("mov", t1, _ring(t, sp))
            else:
                emit("mov", _ring(t, sp), t1)
        else:
            emit("mov", _ring(t - 3, sp), t1)
            emit("xor", _ring(t - 8, sp), t1)
            emit("xor", _ring(t - 14, sp), t1)
            emit("xor", _ring(t - 16, sp), t1)
            emit("rol", Imm(1), t1)
            if t < 77:  # W_77..79 are never read again
                emit("mov", t1, _ring(t, sp))
        emit("lea", Mem(e, t1, 1, k_const(t)), e)
        k = kind(t)
        if k == "f1":      # d ^ (b & (c ^ d))
            emit("mov", c, t2)
            emit("xor", d, t2)
            emit("and", b, t2)
            emit("xor", d, t2)
        elif k == "f2":    # b ^ c ^ d
            emit("mov", b, t2)
            emit("xor", c, t2)
            emit("xor", d, t2)
        else:              # (b & c) | (d & (b | c)), t1 is free again after the lea
            emit("mov", b, t1)
            emit("and", c, t1)
            emit("mov", b, t2)
            emit("or", c, t2)
            emit("and", d, t2)
            emit("or", t1, t2)
        emit("add", t2, e)
        emit("mov", a, t2)
        emit("rol", Imm(5), t2)
        emit("add", t2, e)
        emit("ror", Imm(2), b)
        a, b, c, d, e = e, a, b, c, d
    starts.append(len(code))
    if arch == "i386":
        emit("mov", Mem(sp, None, 1, I386_STATE_SLOT), t1)
        state = t1
    for i, r in enumerate((a, b, c, d, e)):
        emit("add", Mem(state, None, 1, 4 * i), r)
        emit("mov", r, Mem(state, None, 1, 4 * i))
    inputs, outputs, pointers = block_bindings(arch)
    return Schedule(arch, "textbook", tuple(code), inputs, outputs, pointers, tuple(starts))
