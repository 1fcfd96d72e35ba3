"""The block proof of a hybrid block: ``block.prove_block`` with the vector writes cut lane by lane.

``composition.check_program`` finds cut points by matching each written value
against the spec's definitions (``W{t}``, ``A{t+1}``) and substitutes the
proved ones by their symbols. A vector instruction writes four (or eight)
32-bit lanes at once -- ``vprold $1`` of T leaves W_t, W_t+1, W_t+2 and a
partial word in one register -- so ``LaneMachine`` hands each lane of a
vector write to the checker's hook as its own write (location
``%xmm3.2`` / ``stack+8``), under a virtual index ``LANE_STRIDE * i + lane``
(scalar writes get ``LANE_STRIDE * i``), and writes the (possibly
substituted) lanes back. The checker's soundness argument is per value, so
it holds per lane: each lane cut is a proved ``value == definition`` over
the earlier symbols.

``prove_hybrid(block)`` proves ``block.setup + block.body`` (the constants
built once, then one block) equal to the 80-round compression function
with feed-forward under ``frame.block_bindings("x86_64")``; the W+K words
are ordinary stack words the rounds add into e. The outcome is the
checker's ``CompositionResult``: ``ok`` only for ``Proved`` (an Unknown is
a failure).
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from sha1opt.semantics.block import prove_block
from sha1opt.semantics.composition import CompositionResult
from sha1opt.semantics.machine import Location, Machine, Pointer
from sha1opt.semantics.prove import Prover
from sha1opt.semantics.x86 import Instr
from sha1opt.search.space.frame import block_bindings
from sha1opt.search.space.hybrid import HybridBlock

LANE_STRIDE = 8     # lanes per vector register (ymm): virtual write indices never collide


class LaneMachine(Machine):
    """``Machine`` whose ``run`` reports a vector write as one write per lane (module docstring)."""

    def run(self, program: Iterable[Instr],
            on_write: Callable[[int, Instr, Location, object], object] | None = None) -> None:
        for i, ins in enumerate(program):
            loc, value = self.step(ins)
            if on_write is None or loc is None or isinstance(value, Pointer):
                continue
            if not isinstance(value, tuple):
                new = on_write(LANE_STRIDE * i, ins, loc, value)
                if new is not value:
                    self.write(loc, new, ins)
                continue
            lanes = list(value)
            changed = False
            for j, v in enumerate(value):
                if isinstance(v, Pointer):
                    continue
                where = ("reg", f"{loc[1]}.{j}") if loc[0] == "reg" else ("mem", loc[1], loc[2] + 4 * j)
                new = on_write(LANE_STRIDE * i + j, ins, where, v)
                if new is not v:
                    lanes[j] = new
                    changed = True
            if changed:
                self.write(loc, tuple(lanes), ins)


def lane_machine(domain, initial_reg, initial_mem, pointers) -> LaneMachine:
    """The factory ``check_program`` (through ``prove_block``) builds its interpreters with."""
    return LaneMachine(domain, initial_reg, initial_mem, pointers=pointers)


def prove_unit(code: Sequence[Instr], prover: Prover | None = None) -> CompositionResult:
    """``code`` (a setup, then one block) = SHA-1's compression function under ``frame.block_bindings``."""
    inputs, outputs, pointers = block_bindings("x86_64")
    return prove_block(list(code), inputs, outputs, pointers, prover=prover, machine=lane_machine)


def prove_hybrid(block: HybridBlock, prover: Prover | None = None) -> CompositionResult:
    """Setup + one block = SHA-1's compression function (80 rounds, W schedule, feed-forward)."""
    return prove_unit(block.proved_unit(), prover)
