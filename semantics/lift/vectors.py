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
* the zero idiom (``ZERO_IDIOMS``: ``pxor``/``psubd`` and their VEX forms of a
  register with itself) writes the constant 0, whatever the register held;
* general registers (``movd``/``movq``/``vmovd``/``vmovq``/``pinsrq``/
  ``pextrq``): a 32-bit register is one lane, a 64-bit one two. Besides data,
  a lane may hold half of an entry value (``Opq``) -- compiled code keeps
  callee-saved registers in xmm registers -- named ``%rbx[31:0]`` /
  ``%rbx[63:32]`` (on i386 a 32-bit entry value is one whole lane); such
  lanes go only through rows that move lanes (``VectorRow.moves``), and a
  64-bit register written the two halves of one entry value, in order, holds
  that entry value again, so the restore check sees ``%rbx`` restored (any
  other pair of halves is an entry value of its own, ``%rbx[31:0]:%rbx[63:32]``,
  restoring nothing). A string's address (a constant of the object's data, or a
  string a known function returned: fprintf's arguments gathered in xmm
  registers) moved whole into a vector register becomes two data lanes of their
  own (the pointer untracked, so never used as an address again); any other
  64-bit register's data (the lifter tracks 32 bits of it), a pointer or a
  count moved whole into a vector register is refused as an untracked value;
  a 64-bit register takes a data lane when the upper lane is the constant 0,
  and two data lanes otherwise as ``values.DataPair`` (only moved, stored as two
  words, read back into lanes);
* lanes fold (``LaneFold``): a vector row computes in the executor's domain
  seen through exact identities, so a lane that is a constant by the row's
  value is that constant -- ``pxor %xmm1, %xmm1`` (and ``vpxor``) gives 0,
  ``pand`` with a constant mask gives 0 where the mask is 0 and the lane
  itself where it is all ones, ``pinsrd`` into a zeroed register keeps the
  zeros. The loop-head template (``template``) then reads those lanes as
  ``Const`` and the lane kept whole as what it is (Intel's SHA-NI pattern
  ``pinsrd $3, 16(%rdi), %xmm1; pand mask, %xmm1``: lanes 0-2 zero, lane 3
  the chaining value's E), where an unfolded ``and(xmm1.0, 0)`` was havocked
  and gave a false counterexample;
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

from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.ir import MASK32, Term
from sha1opt.semantics.lift.decode import Decoded
from sha1opt.semantics.lift.values import RESULT_REGION, DataPair, Int, Opq, Ptr, Refused, is_data
from sha1opt.semantics.machine import vector_value
from sha1opt.semantics.vector import lane_name
from sha1opt.semantics.x86 import Mem, Reg


def vector_registers(bits: int) -> tuple[str, ...]:
    """The vector registers of the architecture: xmm0-15 (x86-64), xmm0-7 (i386)."""
    return tuple(f"xmm{i}" for i in range(16 if bits == 64 else 8))


# Vector rows whose result is 0 when both sources are the same register (the zero idiom).
ZERO_IDIOMS = ("pxor", "vpxor", "psubd", "vpsubd")


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
        ops = d.ins.operands
        if d.mnemonic in ZERO_IDIOMS and isinstance(ops[0], Reg) and ops[0] == ops[1] and isinstance(ops[-1], Reg):
            # x ^ x = x - x = 0 whatever x holds: the zero idiom's lanes are the constant 0 (a data term
            # xor(x, x) would be a value a loop invariant must havoc: Crypto++ zeroes E's other lanes so)
            width = 8 if ops[-1].width == 256 else 4
            zero = self.domain.const(0)
            value = (zero,) * width + (self.vreg(ops[-1].name)[width:] if d.mnemonic in ("pxor", "psubd") else
                                       (zero,) * (8 - width))
            self.s.regs[ops[-1].name] = value
            for j in range(width):
                self._written(("reg", lane_name(ops[-1].name, j)), zero, d)
            return
        moves = row.moves
        try:
            dest, n, value = vector_value(d.ins, row, CountLanes(self.domain, self, d),
                                          self.vreg if moves else (lambda name: self._computed(name, d)),
                                          lambda m, lanes: self._vload(m, lanes, row.aligned, d, moves),
                                          lambda r: self._gpr_lanes(r, d, moves))
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
            self.set_reg(dest, self._joined(value, d) if dest.width == 64 else value, d)
        else:
            p = self.address(dest, d)
            if row.aligned and n >= 4:
                self.check_aligned(p, 4 * n, d)
            for j, v in enumerate(value):
                self.store(Ptr(p.region, p.off + self.bv(4 * j)), v, 4, d)

    def _vload(self, m: Mem, lanes: int, aligned: bool, d: Decoded, moves: bool = False) -> tuple:
        p = self.address(m, d)
        if aligned and lanes >= 4:
            self.check_aligned(p, 4 * lanes, d)
        words = [self.load(Ptr(p.region, p.off + self.bv(4 * j)), 4, d) for j in range(lanes)]
        return tuple(w if (isinstance(w, Opq) and moves) or _count(w) else self._as_data(w, d, str(m)) for w in words)

    def _computed(self, name: str, d: Decoded) -> tuple:
        """The lanes of ``name`` for a row that computes on them: data only."""
        lanes = self.vreg(name)
        held = next((v for v in lanes if isinstance(v, Opq)), None)
        if held is not None:
            raise Refused(d, f"%{name} holds the caller's {held.name} but is computed on", "untracked value")
        return lanes

    def _gpr_lanes(self, r: Reg, d: Decoded, moves: bool):
        """A general register as a vector row reads it: a 32-bit one's value, a 64-bit one's two lanes."""
        v = self.s.regs.get(r.name)
        if r.width != 64:
            if isinstance(v, DataPair):
                return v.lo             # (a 32-bit register of two data words: the low one)
            if moves and isinstance(v, Opq):
                return v if self.bits == 32 or "[" in v.name else _halves(v)[0]
            return self.read_data(r, d)
        if v is None:
            v = self.s.regs[r.name] = self.initial_reg(r.name)
        if isinstance(v, DataPair):
            return v.lo, v.hi
        if isinstance(v, Opq) and "[" not in v.name:
            return _halves(v)
        if isinstance(v, Int) and z3.is_bv_value(z3.simplify(v.v)):
            c = z3.simplify(v.v).as_long()
            return self.domain.const(c & 0xFFFFFFFF), self.domain.const(c >> 32 & 0xFFFFFFFF)
        if isinstance(v, Ptr) and v.region.startswith(RESULT_REGION) or \
                isinstance(v, Ptr) and v.region.startswith("sec:") and v.region[4:] not in self.p.obj.executable:
            # (fprintf's varargs gathered in a vector register: data of their own, never an address again)
            return tuple(self.initial_reg(f"{r.name} [a pointer into {v.region}] at 0x{d.address:x}.{j}")
                         for j in range(2))
        what = ("a 32-bit data value (its upper half is not tracked)" if is_data(v) else
                f"the caller's {v.name}" if isinstance(v, Opq) else
                f"a pointer into {v.region}" if isinstance(v, Ptr) else "a count")
        raise Refused(d, f"{r} holds {what}: moved whole into a vector register it is not tracked", "untracked value")

    def _joined(self, lanes: tuple, d: Decoded):
        """What a 64-bit general register holds after a vector row wrote ``lanes`` (low, high) to it."""
        lo, hi = lanes
        if isinstance(lo, Opq) and isinstance(hi, Opq):
            whole = Opq(lo.name[:-len(_LOW)])
            # the halves of one entry value in order are that value; any other pair is a value of its own
            return whole if lo.name.endswith(_LOW) and _halves(whole) == (lo, hi) else Opq(f"{hi.name}:{lo.name}")
        if is_data(lo) and is_data(hi):
            clo, chi = self.domain.constant(lo), self.domain.constant(hi)
            if chi == 0:
                return lo
            if clo is not None and chi is not None:
                return Int(self.bv(chi << 32 | clo))
            return DataPair(f"[two data lanes in a 64-bit register at 0x{d.address:x}]", lo, hi)
        raise Refused(d, f"a 64-bit register written lanes {_lane_text(lo)}, {_lane_text(hi)}: not one value the "
                         "lifter tracks", "untracked value")

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


class LaneFold:
    """A data domain seen through exact 32-bit identities, for the lanes a vector row computes.

    Every rule is an identity of the operation on all inputs, so a folded value
    is the same function as the unfolded one in every domain (numpy lanes are
    unchanged; a term becomes the constant or the operand it equals):
    operations of constants fold; ``x & 0 = 0``, ``x & ~0 = x``, ``x | 0 = x``,
    ``x | ~0 = ~0``, ``x ^ 0 = x + 0 = x - 0 = x``, ``x ^ x = x - x = 0``,
    ``0 << n = 0 >> n = rol(0, n) = 0``, ``x << 0 = x >> 0 = x``. Example:
    ``pand`` of lanes (a, b, c, h4) with the constant mask (0, 0, 0, 0xffffffff)
    is (0, 0, 0, h4), not four ``and`` terms.
    """

    _fold = NumpyDomain(1)

    def __init__(self, domain) -> None:
        self.domain = domain
        self.name = domain.name

    def const(self, value: int):
        return self.domain.const(value)

    def var(self, name: str):
        return self.domain.var(name)

    def constant(self, x) -> int | None:
        return self.domain.constant(x)

    def apply(self, op: str, *args):
        d = self.domain
        consts = [d.constant(a) for a in args]
        if all(c is not None for c in consts):
            return d.const(int(self._fold.apply(op, *(self._fold.const(c) for c in consts))[0]))
        if len(args) == 2:
            x, y = args
            cx, cy = consts
            if op == "and":
                if 0 in consts:
                    return d.const(0)
                if MASK32 in consts:
                    return y if cx == MASK32 else x
            elif op == "or":
                if MASK32 in consts:
                    return d.const(MASK32)
                if 0 in consts:
                    return y if cx == 0 else x
            elif op in ("xor", "add", "sub"):
                if op != "add" and _same(x, y):
                    return d.const(0)
                if cy == 0:
                    return x
                if cx == 0 and op != "sub":
                    return y
            elif op in ("shl", "shr", "rol", "ror"):
                if cx == 0:
                    return d.const(0)
                if cy is not None and cy & 31 == 0:     # the IR's counts are taken mod 32
                    return x
        return d.apply(op, *args)


class CountLanes(LaneFold):
    """``LaneFold`` where a lane may hold a count (``Int``): OpenSSL's multi-buffer code keeps each message's
    block count in a lane (``movdqa (%rbx), %xmm0``), compares the counts with 0 (``pcmpgtd``: the mask of the
    messages with blocks left) and adds the mask (``paddd``: each such count less one), then stores them back.

    A count lane goes through a move as it is; ``add``/``sub`` of a count and a count, a constant lane or a
    mask is the count of their 32-bit sum or difference; ``gts`` (the signed comparison) of counts and
    constants is the constant mask (``0xffffffff`` or 0) where the path condition decides it, else a *mask*: a
    data unknown of its own (``%count mask@ADDR.LANE``) that the path records with its condition
    (``State.masks``), so that the data it is and-ed with carries both cases in one path and the counts it is
    added to are exact (z3 ``If``). Whoever knows more of the path condition puts the constant in
    (``streams``). Any other row on a count is refused by name. Example: counts (c0, c1) with 0: under ``c0 >=
    2`` lane 0 is ``0xffffffff``, lane 1 the mask ``%count mask@29e7.1`` of ``c1 > 0``; adding the two lanes
    to the counts gives (c0 - 1, ``If(c1 > 0, c1 - 1, c1)``).
    """

    def __init__(self, domain, machine, d: Decoded) -> None:
        super().__init__(domain)
        self.m = machine
        self.d = d
        self._lane = 0

    def apply(self, op: str, *args):
        if not any(isinstance(a, Int) for a in args):
            return super().apply(op, *args)
        if op not in ("add", "sub", "gts") or len(args) != 2:
            raise Refused(self.d, f"a block count in a vector lane is computed on ({op})", "untracked value")
        x, y = (self._word(a) for a in args)
        m = self.m
        if op != "gts":
            return Int(z3.ZeroExt(m.bits - 32, x + y if op == "add" else x - y))
        c = x > y
        lane = self._lane
        self._lane += 1
        if m.implies(c):
            return self.domain.const(MASK32)
        if m.implies(z3.Not(c)):
            return self.domain.const(0)
        name = f"count mask@{self.d.address:x}.{lane}"
        v = m.initial_reg(name)
        m.s.masks[name] = (v, c)
        return v

    def _word(self, v) -> z3.BitVecRef:
        if isinstance(v, Int):
            return z3.Extract(31, 0, v.v)
        for mask, c in self.m.s.masks.values():
            if mask is v or isinstance(v, Term) and isinstance(mask, Term) and mask == v:
                return z3.If(c, z3.BitVecVal(MASK32, 32), z3.BitVecVal(0, 32))
        c = self.domain.constant(v) if is_data(v) else None
        if c is None:
            raise Refused(self.d, "a block count in a vector lane meets a value that is not a constant",
                          "untracked value")
        return z3.BitVecVal(c, 32)


def _count(v) -> bool:
    """A count that is not a constant (a constant goes into a lane as data)."""
    return isinstance(v, Int) and not z3.is_bv_value(z3.simplify(v.v))


def _same(x, y) -> bool:
    """The same value by construction: one object, or one interned term."""
    return x is y or (isinstance(x, Term) and isinstance(y, Term) and x == y)


_LOW, _HIGH = "[31:0]", "[63:32]"


def _halves(v: Opq) -> tuple[Opq, Opq]:
    """The two 32-bit halves of a 64-bit entry value, as vector lanes hold them: ``%rbx[31:0]``, ``%rbx[63:32]``."""
    return Opq(v.name + _LOW), Opq(v.name + _HIGH)


def _lane_text(v) -> str:
    return v.name if isinstance(v, Opq) else "data"
