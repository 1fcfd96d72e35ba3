"""The interpreter: runs straight-line ``x86.Instr`` lists over any ``domain.Domain``.

One interpreter, three uses: over ``Z3Domain`` it is the symbolic semantics,
over ``NumpyDomain`` it runs thousands of concrete states at once, over
``TermDomain`` it yields the IR formula of each register. Every instruction's
meaning comes from ``x86.SEMANTICS`` and which operands feed it from
``x86.value_of``; this module only moves operand values in and out.

Memory model (stated once): memory is 32-bit words in *regions* -- the stack,
the input block, the state array -- addressed as ``(region, byte offset)``.
A register holds either a 32-bit data value or a ``Pointer(region, offset)``;
pointers are only moved, offset by constants (``add $64,%rsi``, ``lea
8(%rsp),%rbp``) and used as address bases. Distinct regions never alias
(the ABI gives ``state``, ``data`` and our stack frame as separate objects;
the emitted code's tests check that claim natively). Two accesses in one
region at offsets closer than 4 bytes but not equal would partially overlap;
that is refused rather than modelled byte-wise. A memory address must be a
pointer plus a constant: an index register in a *load or store* is refused
(``lea`` may use one, as it is arithmetic, not an access).

Unwritten registers and words are read from ``initial_reg(name)`` and
``initial_mem(region, offset)``; a register first used as an address base is
taken to point at offset 0 of a region named after it (so ``12(%esi)`` in a
snippet reads word 3 of region ``esi``).

A 64-bit general register holds a 32-bit data value zero-extended (every data
write is a 32-bit one): a vector row reads it as the lanes (value, 0) and
writes it only a pair whose upper lane is known to be 0 (else refused).

Vector registers (``vector.py`` has the representation) hold 8-lane tuples
under their xmm name; lane j of register r starts as
``initial_reg(vector.lane_name(r, j))`` -- after ``vzeroupper`` an untouched
register's lanes 4-7 are 0, after ``vzeroall`` all of them. A vector store
writes its lanes to consecutive words, and ``step`` returns the tuple of
lanes (or words) written; ``vzeroupper``/``vzeroall`` return ``(None,
None)``. Aligned accesses (``movdqa``...) are recorded in ``aligned`` as
``(region, offset, bytes)``: a precondition, not checked here (regions have
no base address in this model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.vector import FORMS, lane_name, shape
from sha1opt.semantics.x86 import CL, SEMANTICS, Imm, Instr, Mem, Operand, Reg, operand_kinds, value_of

Location = tuple  # ("reg", name) | ("mem", region, offset)


@dataclass(frozen=True, slots=True)
class Pointer:
    region: str
    offset: int = 0


@dataclass
class Machine:
    domain: object
    initial_reg: Callable[[str], object]
    initial_mem: Callable[[str, int], object]
    regs: dict[str, object] = field(default_factory=dict)
    mem: dict[tuple[str, int], object] = field(default_factory=dict)
    # Where pointers are on entry: a register name ("esi") or a memory word
    # (("stack", 68), an i386 argument slot) -> the region pointed at.
    pointers: dict = field(default_factory=dict)
    # (region, offset, bytes) of every access that must be aligned (movdqa, legacy-SSE m128).
    aligned: list = field(default_factory=list)
    # How an untouched vector register reads: "entry" (initial_reg), "upper-zero", "zero".
    vector_entry: str = "entry"

    # -- registers -----------------------------------------------------------
    def _reg(self, r: Reg, ins: Instr, as_pointer: bool = False):
        if r.name not in self.regs and r.name in self.pointers:
            self.regs[r.name] = Pointer(self.pointers[r.name])
        if r.name not in self.regs:
            self.regs[r.name] = Pointer(r.name) if as_pointer else self.initial_reg(r.name)
        v = self.regs[r.name]
        if not as_pointer and isinstance(v, Pointer):
            raise UnsupportedError(f"{_where(ins)}{r} holds a pointer ({v.region}+{v.offset}) but is used as data")
        return v

    # -- memory --------------------------------------------------------------
    def address(self, m: Mem, ins: Instr) -> tuple[str, int]:
        if m.index is not None or m.base is None:
            raise UnsupportedError(f"{_where(ins)}memory access {m} must be a pointer register plus a constant")
        p = self._reg(m.base, ins, as_pointer=True)
        if not isinstance(p, Pointer):
            raise UnsupportedError(f"{_where(ins)}{m.base} holds data but is used as an address")
        return (p.region, p.offset + m.disp)

    def _check_overlap(self, key: tuple[str, int], ins: Instr) -> None:
        region, off = key
        for d in (-3, -2, -1, 1, 2, 3):
            if (region, off + d) in self.mem:
                raise UnsupportedError(
                    f"{_where(ins)}accesses {region}+{off} and {region}+{off + d} partially overlap"
                )

    def load(self, key: tuple[str, int], ins: Instr):
        if key not in self.mem:
            self._check_overlap(key, ins)
            self.mem[key] = Pointer(self.pointers[key]) if key in self.pointers else self.initial_mem(*key)
        return self.mem[key]

    def store(self, key: tuple[str, int], value, ins: Instr) -> None:
        if key not in self.mem:
            self._check_overlap(key, ins)
        self.mem[key] = value

    # -- operands ------------------------------------------------------------
    def read(self, op: Operand, ins: Instr):
        if isinstance(op, Imm):
            return self.domain.const(op.value)
        if isinstance(op, Reg):
            if op == CL:
                return self._reg(Reg("ecx"), ins)  # the domain masks counts to 5 bits
            return self._reg(op, ins)
        v = self.load(self.address(op, ins), ins)
        if isinstance(v, Pointer):
            raise UnsupportedError(f"{_where(ins)}{op} holds a pointer but is used as data")
        return v

    def location(self, op: Operand, ins: Instr) -> Location:
        if isinstance(op, Reg):
            return ("reg", op.name)
        if isinstance(op, Mem):
            return ("mem", *self.address(op, ins))
        raise UnsupportedError(f"{_where(ins)}cannot write to {op}")

    def write(self, loc: Location, value, ins: Instr) -> None:
        if loc[0] == "reg":
            self.regs[loc[1]] = value
        elif isinstance(value, tuple):      # a vector store: consecutive words
            for j, v in enumerate(value):
                self.store((loc[1], loc[2] + 4 * j), v, ins)
        else:
            self.store((loc[1], loc[2]), value, ins)

    def get(self, loc: Location):
        """Current value at a location (reading initial values if untouched)."""
        if loc[0] == "reg":
            if loc[1] not in self.regs and _is_vector(loc[1]):
                return self._fresh_vector(loc[1])
            if loc[1] not in self.regs:
                return self._entry_pointer(loc[1]) or self.initial_reg(loc[1])
            return self.regs[loc[1]]
        key = (loc[1], loc[2])
        if key in self.mem:
            return self.mem[key]
        return Pointer(self.pointers[key]) if key in self.pointers else self.initial_mem(*key)

    # -- execution -----------------------------------------------------------
    def _pointer_op(self, ins: Instr):
        """Pointer arithmetic and moves; None when ``ins`` is a data operation."""
        m, ops = ins.mnemonic, ins.operands
        if m == "lea" and ops[0].base is not None and ops[0].index is None:
            base = self.regs.get(ops[0].base.name, self._entry_pointer(ops[0].base.name))
            if isinstance(base, Pointer):
                p = self._reg(ops[0].base, ins, as_pointer=True)
                return Pointer(p.region, p.offset + ops[0].disp)
        if m == "mov" and isinstance(ops[0], Mem) and isinstance(ops[1], Reg):
            v = self.load(self.address(ops[0], ins), ins)
            if isinstance(v, Pointer):
                return v
        if m == "mov" and isinstance(ops[0], Reg):   # to a register, or spilled to memory
            src = self.regs.get(ops[0].name, self._entry_pointer(ops[0].name))
            if isinstance(src, Pointer):
                return self._reg(ops[0], ins, as_pointer=True)
        if m in ("add", "sub") and isinstance(ops[1], Reg):
            dst = self.regs.get(ops[1].name, self._entry_pointer(ops[1].name))
            if isinstance(dst, Pointer):
                if not isinstance(ops[0], Imm):
                    raise UnsupportedError(f"{_where(ins)}pointer arithmetic needs an immediate")
                p = self._reg(ops[1], ins, as_pointer=True)
                v = ops[0].value if ops[0].value < (1 << 31) else ops[0].value - (1 << 32)
                return Pointer(p.region, p.offset + (v if m == "add" else -v))
        return None

    def _entry_pointer(self, name: str) -> Pointer | None:
        return Pointer(self.pointers[name]) if name in self.pointers else None

    def step(self, ins: Instr):
        """Execute one instruction; returns (location written, value written)."""
        sem = SEMANTICS.get(ins.mnemonic)
        if sem is None:
            raise UnsupportedError(f"{_where(ins)}unsupported instruction {ins.mnemonic!r}")
        if sem.vector:
            return self._vector_step(ins, sem)
        d = self.domain
        ops = ins.operands
        ptr = self._pointer_op(ins)
        if ptr is not None:
            loc = self.location(ops[-1], ins)
            self.write(loc, ptr, ins)
            return loc, ptr
        loc = self.location(ops[-1], ins)
        value = value_of(ins, d, lambda o: self.read(o, ins))
        self.write(loc, value, ins)
        return loc, value

    def run(
        self,
        program: Iterable[Instr],
        on_write: Callable[[int, Instr, Location, object], object] | None = None,
    ) -> None:
        """Run ``program``; ``on_write(i, ins, loc, value)`` may replace each written value."""
        for i, ins in enumerate(program):
            loc, value = self.step(ins)
            if on_write is not None and loc is not None and not isinstance(value, Pointer):
                new = on_write(i, ins, loc, value)
                if new is not value:
                    self.write(loc, new, ins)


    # -- vectors -------------------------------------------------------------
    def _fresh_vector(self, name: str) -> tuple:
        d = self.domain
        if self.vector_entry == "zero":
            return tuple(d.const(0) for _ in range(8))
        low = tuple(self.initial_reg(lane_name(name, j)) for j in range(4))
        if self.vector_entry == "upper-zero":
            return low + tuple(d.const(0) for _ in range(4))
        return low + tuple(self.initial_reg(lane_name(name, j)) for j in range(4, 8))

    def _vreg(self, name: str) -> tuple:
        if name not in self.regs:
            self.regs[name] = self._fresh_vector(name)
        return self.regs[name]

    def _vread(self, op: Mem, lanes: int, aligned: bool, ins: Instr):
        region, off = self.address(op, ins)
        if aligned and lanes >= 4:
            self.aligned.append((region, off, 4 * lanes))
        words = []
        for j in range(lanes):
            v = self.load((region, off + 4 * j), ins)
            if isinstance(v, Pointer):
                raise UnsupportedError(f"{_where(ins)}{region}+{off + 4 * j} holds a pointer but is used as data")
            words.append(v)
        return tuple(words)

    def _vector_step(self, ins: Instr, row):
        d = self.domain
        zero = d.const(0)
        if row.form == "zero":
            keep = 0 if ins.mnemonic == "vzeroall" else 4
            for name, v in list(self.regs.items()):
                if _is_vector(name):
                    self.regs[name] = tuple(v[:keep]) + (zero,) * (8 - keep)
            self.vector_entry = "zero" if keep == 0 else ("upper-zero" if self.vector_entry == "entry"
                                                          else self.vector_entry)
            return None, None
        dest, n, value = vector_value(ins, row, d, self._vreg,
                                      lambda m, lanes: self._vread(m, lanes, row.aligned, ins),
                                      lambda r: (self.read(r, ins), zero) if r.width == 64 else self.read(r, ins))
        if isinstance(dest, Reg) and dest.width == 64:
            # a 64-bit register holds a 32-bit data value here (its upper half 0): the upper lane must be 0
            if d.constant(value[1]) != 0:
                raise UnsupportedError(f"{_where(ins)}the upper half of {dest} would be lane 1 of the source, not "
                                       "known to be 0 (64-bit data in a general register is not modelled)")
            value = value[0]
        if isinstance(dest, Reg):
            loc = ("reg", dest.name)
        else:
            region, off = self.address(dest, ins)
            if row.aligned and n >= 4:
                self.aligned.append((region, off, 4 * n))
            loc = ("mem", region, off)
        self.write(loc, value, ins)
        return loc, value


def vector_value(ins: Instr, row, domain, vreg: Callable[[str], tuple], memory: Callable[[Mem, int], tuple],
                 scalar: Callable[[Reg], object]) -> tuple[Operand, int, object]:
    """What vector row ``row`` writes for ``ins``: ``(destination operand, lanes written, value)``.

    The one execution of a vector row, shared by ``Machine`` and the
    whole-function lifter (``lift.vectors``); only operand access differs,
    through ``vreg(name)`` (a register's 8 lanes), ``memory(op, lanes)``
    (``lanes`` consecutive words) and ``scalar(reg)`` (a 32-bit register's
    value; a 64-bit register's two lanes, low first). The value is the
    destination register's 8 lanes (a 4-lane result keeps lanes 4-7 for a
    legacy-SSE encoding, zeroes them for VEX/EVEX), a 32-bit register's
    value, a 64-bit register's two lanes, or the ``lanes written`` memory
    words. Example:
    ``paddd %xmm1, %xmm0`` with xmm0 = (a0..a7), xmm1 = (b0..b7) gives
    ``(%xmm0, 4, (a0+b0, a1+b1, a2+b2, a3+b3, a4, a5, a6, a7))``.
    """
    d = domain
    ops = ins.operands
    sh = shape(ins.mnemonic, row, operand_kinds(ins))

    def arg(op, lanes):
        if isinstance(op, Imm):
            return op.value
        if isinstance(op, Reg):
            if op.width in (128, 256):
                return vreg(op.name)[:lanes]
            return tuple(scalar(op)) if op.width == 64 else (scalar(op),)
        return memory(op, lanes)

    args = [arg(ops[k], sh.lanes[k]) for k in FORMS[row.form].args]
    try:
        result = tuple(row.fn(d, *args))
    except UnsupportedError as e:
        raise UnsupportedError(f"{_where(ins)}{e}") from None
    dest, n = ops[-1], sh.lanes[-1]
    if isinstance(dest, Reg) and dest.width in (128, 256):
        if n == 4:
            upper = vreg(dest.name)[4:] if row.enc == "sse" else (d.const(0),) * 4
            return dest, n, result[:4] + tuple(upper)
        return dest, n, result[:8]
    if isinstance(dest, Reg):
        return dest, n, result[0] if n == 1 else result[:n]
    return dest, n, result[:n]


def _is_vector(name: str) -> bool:
    return name.startswith("xmm")


def _where(ins: Instr) -> str:
    return f"line {ins.line}: {ins}: " if ins.line else f"{ins}: "
