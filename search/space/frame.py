"""Schedules: the straight-line code for one 64-byte block, and the default one.

A ``Schedule`` is the per-block body of ``sha1_block_data_order``: it loads
the state, runs rounds 0-79 with the W ring on the stack, adds the old state
in and stores it back. The emitter wraps it in a prologue, the block loop
and an epilogue; the prover checks it with the bindings it carries.

Frame contract (the emitter provides it, ``pointers`` declares it):

* x86-64: ``%rdi`` = state, ``%rsi`` = data, ``%rsp`` = a frame whose first
  64 bytes hold the W ring (``W[t mod 16]`` at ``4*(t mod 16)(%rsp)``).
* i386: ``%esp`` = a frame with the W ring at 0..63, the state pointer at 64
  and the data pointer at 68 (the emitter keeps the block count at 72); all
  seven other registers are free for data, so pointers are reloaded from the
  frame when needed. ``I386_SPILL_SLOTS`` (76..88) are scratch words for
  values the register assignment spills (``search.space.assignment``); the
  whole frame is ``I386_FRAME_BYTES`` = 92 bytes, so with the four saved
  registers and the return address ``%esp`` stays 16-byte aligned.

The block loop (``Schedule.loop_start``, where ``LOOP_CARRIES_STATE``): on
x86-64 the body's loads of a..e run once, before the loop; each iteration
ends with a..e holding the state it stored (the feed-forward's ``add``/``mov``
pairs), which is what those loads would load again, so they are not repeated
-- as OpenSSL's integer code keeps its state in registers from block to
block (5 of the 1192 instructions an iteration ran). The body itself, and
its proof, are those of one block with the loads in. Not on i386: there the
loads follow the block copy, which needs a data register a..e would hold
(copying through ``%edi`` with the loads hoisted was tried: the models price
the loop worse on core2, nehalem, zen3 and zen5, e.g. core2 6.09 -> 6.33 c/B).

``textbook(arch)`` is the straightforward order (``recipe.TEXTBOOK``): per
round, W (load+bswap, or the xor/rol recurrence), ``lea K(e,W),e``, f into a
temporary, ``add``, ``rol $5`` of a, ``add``, ``ror $2`` of b; register names
rotate between rounds so no value moves. It is the baseline every search result is
compared with, and it makes export work before any search has run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sha1opt.semantics.machine import Location
from sha1opt.semantics.x86 import Arch, Instr, Reg

RING = 0          # byte offset of the W ring in the frame
I386_STATE_SLOT = 64
I386_DATA_SLOT = 68
FRAME_BYTES = {"x86_64": 64, "i386": 72}
I386_COUNT_SLOT = 72                    # the emitter's block count
I386_SPILL_SLOTS = (76, 80, 84, 88)     # spill slots: scratch words of the body
I386_FRAME_BYTES = 92                   # ring, pointers, count, spill slots
SPILL_SLOTS: dict[str, tuple[int, ...]] = {"i386": I386_SPILL_SLOTS, "x86_64": ()}
LOOP_CARRIES_STATE: dict[str, bool] = {"x86_64": True, "i386": False}   # see "The block loop" above


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
    # ``body[:loop_start]`` runs once, before the block loop; the loop runs ``body[loop_start:]``.
    # ``block_schedule`` puts the loads of a..e there where ``LOOP_CARRIES_STATE``: the feed-forward
    # leaves the new state in ``state_regs(80) == state_regs(0)``, where the next block's loads put it.
    loop_start: int = 0
    # The block loop's control (``search.space.loop_control``: a row name, ``count`` or ``index``); the
    # model's pick is ``loop_control.best_loop``. The body is the same under every row.
    loop: str = "count"
    # The whole-block recipe (``recipe.Recipe``) whose rounds 0..79 in generation order are the body --
    # the textbook and its recipe variants -- or None (a searched or assembled schedule).
    recipe: object | None = None      # a ``recipe.Recipe`` (not imported: recipe.py imports this module)


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


STATE_REGS = ("eax", "ebx", "ecx", "edx", "ebp")


def state_regs(t: int) -> tuple[Reg, ...]:
    """Physical registers of (a, b, c, d, e) at the start of round t (names rotate by one per round)."""
    k = t % 5
    regs = [Reg(n) for n in STATE_REGS]
    # After each round (a,b,c,d,e) <- (e,a,b,c,d): a's register is old e's.
    return tuple(regs[(i - k) % 5] for i in range(5))
