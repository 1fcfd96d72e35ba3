"""A ``Machine`` that reports each lane of a vector write to the composition checker as its own write.

The checker (``semantics.composition.check_program``) matches and cuts 32-bit values; a vector write
carries 4 or 8 of them (a W group, a ``sha1rnds4`` result). ``LaneMachine.run`` hands lane j of
instruction i to ``on_write`` under the virtual index ``LANE_STRIDE * i + j`` at ``%xmmN.j`` (or
the word's address), scalar writes under ``LANE_STRIDE * i``, and writes back substituted lanes.
Example: ``paddd %xmm1, %xmm0`` as instruction 3 is reported as writes 24..31 at ``xmm0.0`` ..
``xmm0.7``. Used by the hybrid and SHA-NI block proofs (``hybrid_proof``, ``shani``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from sha1opt.semantics.machine import Location, Machine, Pointer
from sha1opt.semantics.vector import lane_name
from sha1opt.semantics.x86 import Instr

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
            lanes, changed = list(value), False
            for j, v in enumerate(value):
                if isinstance(v, Pointer):
                    continue
                where = ("reg", lane_name(loc[1], j)) if loc[0] == "reg" else ("mem", loc[1], loc[2] + 4 * j)
                new = on_write(LANE_STRIDE * i + j, ins, where, v)
                if new is not v:
                    lanes[j], changed = new, True
            if changed:
                self.write(loc, tuple(lanes), ins)


def lane_machine(domain, initial_reg, initial_mem, pointers) -> LaneMachine:
    """The factory ``check_program`` (through ``prove_block``) builds its interpreters with."""
    return LaneMachine(domain, initial_reg, initial_mem, pointers=pointers)
