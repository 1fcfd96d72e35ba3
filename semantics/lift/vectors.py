"""Vector registers in the whole-function executor: xmm/ymm state, vector loads and stores, alignment.

``VectorUnit`` is the part of ``executor.PathMachine`` for the vector rows of
``x86.SEMANTICS`` (``vector.py``). It keeps ``machine.Machine``'s
representation -- register ``xmmN`` (for %xmmN and %ymmN) holds a tuple of 8
lanes of the data domain in ``State.regs``; lane j of an untouched register
is ``initial_reg("xmmN.j")`` -- and runs each row through the one shared
``machine.vector_value``; only operand access is the executor's own:

* a vector memory operand is 4 or 8 consecutive 32-bit words of a region,
  read and written one word at a time through ``load``/``store`` (so the
  region rules, the bounds of the data buffer and the stack discipline hold
  for vector code exactly as for scalar code);
* an aligned access (``movdqa``, a legacy-SSE 16-byte memory source) is a
  precondition that is *discharged* here: on the stack against the stack
  base's alignment (the contract's entry alignment -- SysV: ``stack_base``
  = 8 mod 16, an axiom -- and after ``and $-64, %rsp``: ``align`` unknowns are
  tied to ``stack_base``), in this object's sections against the section's
  ``sh_addralign`` and the offset; anything else (the caller's state or data
  buffer, whose alignment the contract does not give) is refused by name;
* ``vzeroupper``/``vzeroall`` zero lanes 4-7 / all lanes of every register
  (untouched registers are first given their entry lanes);
* the compositional prover's ``on_write`` hook sees one write per lane
  (location ``("reg", "xmmN.j")``), so a message word W_t computed in lane
  j of a vector register becomes a cut like a scalar one.

Example: ``movdqu 16(%rsi), %xmm1`` with %rsi = data + 64k reads the words
``m4..m7`` (block-relative offsets 16..28) into lanes 0-3 of xmm1 and
keeps lanes 4-7 (legacy SSE); ``movdqa %xmm0, (%rsp)`` after ``and $-64,
%rsp`` stores 4 words, the 16-byte alignment proved from the realignment.
"""

from __future__ import annotations

import z3

from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.lift.decode import Decoded
from sha1opt.semantics.lift.values import Ptr, Refused
from sha1opt.semantics.machine import vector_value
from sha1opt.semantics.vector import lane_name
from sha1opt.semantics.x86 import Mem, Reg


def vector_registers(bits: int) -> tuple[str, ...]:
    """The vector registers of the architecture: xmm0-15 (x86-64), xmm0-7 (i386)."""
    return tuple(f"xmm{i}" for i in range(16 if bits == 64 else 8))


class VectorUnit:
    """Mixin of ``PathMachine``: needs ``s``, ``domain``, ``initial_reg``, ``address``, ``load``,
    ``store``, ``read_data``, ``set_reg``, ``_as_data``, ``_written``, ``implies``, ``stack_base``
    and ``p`` (the program, for the object's sections)."""

    def vreg(self, name: str) -> tuple:
        v = self.s.regs.get(name)
        if v is None:
            v = tuple(self.initial_reg(lane_name(name, j)) for j in range(8))
            self.s.regs[name] = v
        if not isinstance(v, tuple):  # pragma: no cover - only tuples are ever stored under xmm names
            raise Refused(None, f"%{name} holds a non-vector value", "untracked value")
        return v

    def vector_step(self, d: Decoded, row) -> None:
        if row.form == "zero":
            keep = 0 if d.mnemonic == "vzeroall" else 4
            zero = self.domain.const(0)
            for name in vector_registers(self.bits):
                self.s.regs[name] = self.vreg(name)[:keep] + (zero,) * (8 - keep)
            return
        try:
            dest, n, value = vector_value(d.ins, row, self.domain, self.vreg,
                                          lambda m, lanes: self._vload(m, lanes, row.aligned, d),
                                          lambda r: self.read_data(r, d))
        except UnsupportedError as e:
            msg = str(e)
            for where in (f"line {d.ins.line}: {d.ins}: ", f"{d.ins}: "):   # Refused names the place itself
                msg = msg[len(where):] if msg.startswith(where) else msg
            raise Refused(d, msg, "instruction") from None
        if isinstance(dest, Reg) and dest.width in (128, 256):
            self.s.regs[dest.name] = value
            for j in range(n):
                self._written(("reg", lane_name(dest.name, j)), value[j], d)
        elif isinstance(dest, Reg):
            self.set_reg(dest, value, d)
        else:
            p = self.address(dest, d)
            if row.aligned and n >= 4:
                self.check_aligned(p, 4 * n, d)
            for j, v in enumerate(value):
                self.store(Ptr(p.region, p.off + self.bv(4 * j)), v, 4, d)

    def _vload(self, m: Mem, lanes: int, aligned: bool, d: Decoded) -> tuple:
        p = self.address(m, d)
        if aligned and lanes >= 4:
            self.check_aligned(p, 4 * lanes, d)
        return tuple(self._as_data(self.load(Ptr(p.region, p.off + self.bv(4 * j)), 4, d), d, str(m))
                     for j in range(lanes))

    def check_aligned(self, p: Ptr, size: int, d: Decoded) -> None:
        """Discharge the alignment precondition of a ``size``-byte access at ``p``, or refuse by name."""
        if self.replaying:
            return          # proved when the path was explored
        if p.region == "stack":
            if self.implies((self.stack_base + p.off) & self.bv(size - 1) == 0):
                return
            raise Refused(d, f"{d.mnemonic} needs a {size}-byte aligned stack address; not proved "
                             "(the stack is known aligned only as far as the ABI's entry alignment and `and $-N` "
                             "realignments make it)", "address")
        if p.region.startswith("sec:"):
            off = z3.simplify(p.off)
            if z3.is_bv_value(off) and self.p.obj.aligned(p.region[4:], off.as_long(), size):
                return
            raise Refused(d, f"{d.mnemonic} needs a {size}-byte aligned address; {p.region[4:]}+{off} is not "
                             "known to be (section alignment and offset)", "address")
        raise Refused(d, f"{d.mnemonic} needs a {size}-byte aligned address in the caller's {p.region} buffer, "
                         "whose alignment the contract does not give", "address")

    def vector_lane(self, name: str):
        """Lane ``j`` of a register named ``"xmmN.j"`` (the locations ``on_write`` reports)."""
        reg, j = name.split(".")
        return self.vreg(reg)[int(j)]
