"""x86 instructions: operands, instructions, and THE semantics table.

The modelled subset is what SHA-1 code uses: the integer instructions at
32-bit operand size ``mov add sub and or xor not andn rol ror rorx shl shr
shld shrd lea bswap``, each with register, immediate and memory operands
where x86 allows them, and the SSE2 .. AVX-512VL, SHA-NI and AES-NI rows of
``vector.py`` (registered into the same table, below). Operands are in AT&T
order (sources first, destination last), as GNU as spells them.

Semantics are ONE table, ``SEMANTICS``, of small pure functions keyed by
mnemonic. Each function receives a ``domain.Domain`` and the operand values
and returns the destination value, so the same function drives the Z3, numpy
and term interpreters (``machine.py``). A mnemonic that is not in the table is
refused by name (``UnsupportedError``), never approximated.

Flags policy (stated once, here): every instruction in the table may clobber
the arithmetic flags and none reads them; flags are not modelled. Round code
never reads flags, so an instruction that does (``adc sbb cmov* set* j*``) is
outside the table and refused.

Registers: the eight i386 names ``eax ebx ecx edx esi edi ebp esp``; x86-64
adds ``r8d``..``r15d``. The 64-bit names (``rax``, ``r8``...) name the same
register when it holds a *pointer* (the stack pointer, the data pointer);
data values are always 32-bit. A register is identified by its 32-bit name
(``Reg.name``); ``Reg.width`` records how the source spelled it. Vector
registers are named by their xmm name (``Reg("xmm3", 128)`` is ``%xmm3``,
``Reg("xmm3", 256)`` is ``%ymm3``: one register, two widths); i386 has
xmm0-7, x86-64 xmm0-15 (xmm16-31 and zmm are EVEX-only and not modelled).

ISA features (``features``: a partial order, ``ISA_INCLUDES``): an
instruction needs ``required_features(ins)`` -- one feature, or two where its
row says so (``vaesenc``: AVX and AES-NI; ``required_isa`` is the one feature
and refuses such rows by name); a piece of code needs ``isa_set(code)``, the
minimal features whose inclusions cover every instruction (``{"avx2",
"bmi2"}`` for OpenSSL's AVX2 path, ``{"avx", "aes"}`` for a ``vaesenc``);
``isa_of`` is the one feature covering the code, refused when there is none
(code that needs two unrelated features).
"""

from __future__ import annotations

import re

from dataclasses import dataclass, replace
from typing import Callable, Literal

from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.features import ISA, includes
from sha1opt.semantics.vector import FORMS as VECTOR_FORMS
from sha1opt.semantics.vector import VECTOR_ROWS, VectorRow, shape

Arch = Literal["i386", "x86_64"]
ARCHES: tuple[Arch, ...] = ("i386", "x86_64")

I386_REGS = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp")
X64_EXTRA = tuple(f"r{i}d" for i in range(8, 16))
# A 64-bit register's name -> the name of its low 32 bits (``Reg`` names a register by its 32-bit
# name and a width), and back: "rax" <-> "eax", "r8" <-> "r8d".
R64_TO_R32 = {"rax": "eax", "rbx": "ebx", "rcx": "ecx", "rdx": "edx", "rsi": "esi",
              "rdi": "edi", "rbp": "ebp", "rsp": "esp", **{f"r{i}": f"r{i}d" for i in range(8, 16)}}
R32_TO_R64 = {v: k for k, v in R64_TO_R32.items()}

# Registers free for data (round values and temporaries): all but the stack
# pointer. i386: 7 (a..e plus two temporaries), x86-64: 15.
DATA_REGS: dict[str, tuple[str, ...]] = {
    "i386": tuple(r for r in I386_REGS if r != "esp"),
    "x86_64": tuple(r for r in I386_REGS if r != "esp") + X64_EXTRA,
}


def register(spelling: str, arch: Arch) -> "Reg":
    """The register named ``spelling`` (without ``%``) on ``arch``, or refuse it."""
    s = spelling.lower()
    if s == "cl":
        return CL
    v = _VECTOR_REG.fullmatch(s)
    if v:
        n = int(v.group(2))
        if v.group(1) == "z" or n >= 16:
            raise UnsupportedError(f"register %{s} is EVEX-only (zmm, xmm16-31) and not modelled")
        if arch == "i386" and n >= 8:
            raise UnsupportedError(f"register %{s} does not exist on i386")
        return Reg(f"xmm{n}", 256 if v.group(1) == "y" else 128)
    if s in I386_REGS or s in X64_EXTRA:
        if arch == "i386" and s in X64_EXTRA:
            raise UnsupportedError(f"register %{s} does not exist on i386")
        return Reg(s, 32)
    if s in R64_TO_R32:
        if arch == "i386":
            raise UnsupportedError(f"64-bit register %{s} does not exist on i386")
        return Reg(R64_TO_R32[s], 64)
    raise UnsupportedError(f"unsupported register %{s} (only 32-bit data, 64-bit pointer and xmm/ymm registers "
                           "are modelled)")


_VECTOR_REG = re.compile(r"([xyz])mm(\d+)")


# The low byte and low word of each general register, by its 32-bit name ("eax" -> %al / %ax, "r8d" ->
# %r8b / %r8w); and the four high bytes (%ah ...), by their own names, -> the register they are part of.
BYTE_NAMES = {"eax": "al", "ebx": "bl", "ecx": "cl", "edx": "dl", "esi": "sil", "edi": "dil", "ebp": "bpl",
              "esp": "spl", **{f"r{i}d": f"r{i}b" for i in range(8, 16)}}
WORD_NAMES = {**{r: r[1:] for r in I386_REGS}, **{f"r{i}d": f"r{i}w" for i in range(8, 16)}}
HIGH_BYTES = {"ah": "eax", "bh": "ebx", "ch": "ecx", "dh": "edx"}


@dataclass(frozen=True, slots=True)
class Reg:
    """A register: its canonical name and the width the source spelled it at.

    Widths: 32 and 64 (a pointer, spelled %rax-style) for the general
    registers, 128 / 256 for xmm / ymm (one register, named by its xmm
    name), 8 for %cl (the shift count). Only these reach an interpreter
    (``register`` refuses the rest). An opaque item (``semantics.opaque``)
    names any register: 8 and 16 for the low byte and word of a general
    register (``Reg("esi", 8)`` is %sil), 512 for zmm, and 0 for a
    register the tables do not model, named as written (``Reg("rip", 0)``,
    ``Reg("ah", 0)``, ``Reg("k1", 0)``).
    """

    name: str        # canonical name: "eax", "r9d", "esp"; "xmm3" for %xmm3 and %ymm3
    width: int = 32  # see the class docstring

    def __str__(self) -> str:
        if self.width == 32:
            return "%" + self.name
        if self.width == 64:
            return "%" + R32_TO_R64[self.name]
        if self.width == 128 or self.width == 0:
            return "%" + self.name
        if self.width == 256:
            return "%y" + self.name[1:]
        if self.width == 512:
            return "%z" + self.name[1:]
        return "%" + (BYTE_NAMES if self.width == 8 else WORD_NAMES)[self.name]


@dataclass(frozen=True, slots=True)
class Imm:
    value: int

    def __str__(self) -> str:
        return f"${self.value:#x}" if abs(self.value) > 9 else f"${self.value}"


@dataclass(frozen=True, slots=True)
class Mem:
    """``disp(base, index, scale)``: an address, 32-bit access when used as memory."""

    base: Reg | None
    index: Reg | None = None
    scale: int = 1
    disp: int = 0

    def __str__(self) -> str:
        # Frame offsets read best in decimal, constants like K in hex.
        v = self.disp
        d = "" if v == 0 else (str(v) if abs(v) < 256 else (f"{v:#x}" if v > 0 else f"-{-v:#x}"))
        if self.base is None and self.index is None:
            return d or "0"
        inner = str(self.base) if self.base else ""
        if self.index is not None:
            inner += f",{self.index}" + (f",{self.scale}" if self.scale != 1 else "")
        return f"{d}({inner})"


Operand = Reg | Imm | Mem

CL = Reg("ecx", 8)  # the shift-count register; reads the low 5 bits of ecx


@dataclass(frozen=True, slots=True)
class Instr:
    """One instruction: mnemonic without size suffix, operands in AT&T order."""

    mnemonic: str
    operands: tuple[Operand, ...]
    line: int = 0  # 1-based source line, 0 when built in code

    def __str__(self) -> str:
        if not self.operands:
            return self.mnemonic
        return f"{self.mnemonic} " + ", ".join(map(str, self.operands))

    @property
    def dest(self) -> Operand:
        return self.operands[-1]


# --- the semantics table ---------------------------------------------------
#
# Forms say which operand shapes a mnemonic takes and how the machine feeds
# the function; the function itself is pure: (domain, *values) -> value.
#
#   "binary":  op src, dst      dst = f(dst, src)   src: reg|imm|mem, dst: reg|mem
#   "shift":   op cnt, dst      dst = f(dst, cnt)   cnt: imm|%cl; 1-operand form = count 1
#   "unary":   op dst           dst = f(dst)
#   "move":    op src, dst      dst = f(src)
#   "lea":     op mem, reg      reg = f(base, index, disp)  (address arithmetic, no access)
#   "andn":    op s2, s1, dst   dst = f(s1, s2) = ~s1 & s2   s2: reg|mem (AT&T order)
#   "rorx":    op imm, src, dst dst = f(src, imm)            src: reg|mem
#   "double":  op cnt, src, dst dst = f(dst, src, cnt)       cnt: imm|%cl, src: reg, dst: reg|mem
#
# Vector rows (``vector.VectorRow``) have their own forms, ``vector.FORMS``.

Form = Literal["binary", "shift", "unary", "move", "lea", "andn", "rorx", "double"]


@dataclass(frozen=True, slots=True)
class Semantics:
    """One row of the table: how a mnemonic reads, writes and computes.

    ``form`` fixes the operand shapes and which operands are read (see the
    table above); ``fn`` is the pure value function; ``isa`` is the lowest
    ISA level that has the instruction; ``writes_flags`` says whether it
    changes the arithmetic flags (nothing in the table reads them, but a
    cost model must order flag writers: P4 does not rename them).

    Example: ``SEMANTICS["andn"]`` is ``Semantics("andn", fn, isa="bmi1",
    writes_flags=True)``: ``andn %ecx, %ebx, %eax`` reads ebx and ecx,
    writes eax and the flags, and needs BMI1.
    """

    form: Form
    fn: Callable
    isa: ISA = "base"
    writes_flags: bool = True

    @property
    def reads_dest(self) -> bool:
        """Whether the last operand is read as well as written (``add``: yes, ``mov``: no)."""
        return self.form in ("binary", "shift", "unary", "double")

    @property
    def vector(self) -> bool:
        """False: a scalar row (``vector.VectorRow`` says True)."""
        return False


def _lea(d, base, index_scaled, disp):
    acc = disp
    if base is not None:
        acc = d.apply("add", base, acc)
    if index_scaled is not None:
        acc = d.apply("add", acc, index_scaled)
    return acc


def _shld(d, x, y, n):
    """``shld n, y, x``: x shifted left by n (mod 32), filled from the top of y."""
    k = d.constant(n)
    if k is not None:
        k &= 31
        return x if k == 0 else d.apply("or", d.apply("shl", x, d.const(k)), d.apply("shr", y, d.const(32 - k)))
    # A variable count: (y >> 1) >> (31 - n) is y >> (32 - n) for n in 1..31, and 0 for n = 0.
    fill = d.apply("shr", d.apply("shr", y, d.const(1)), d.apply("sub", d.const(31), n))
    return d.apply("or", d.apply("shl", x, n), fill)


def _shrd(d, x, y, n):
    """``shrd n, y, x``: x shifted right by n (mod 32), filled from the bottom of y."""
    k = d.constant(n)
    if k is not None:
        k &= 31
        return x if k == 0 else d.apply("or", d.apply("shr", x, d.const(k)), d.apply("shl", y, d.const(32 - k)))
    fill = d.apply("shl", d.apply("shl", y, d.const(1)), d.apply("sub", d.const(31), n))
    return d.apply("or", d.apply("shr", x, n), fill)


SEMANTICS: dict[str, Semantics | VectorRow] = {
    "mov":   Semantics("move",   lambda d, s: s, writes_flags=False),
    "add":   Semantics("binary", lambda d, x, y: d.apply("add", x, y)),
    "sub":   Semantics("binary", lambda d, x, y: d.apply("sub", x, y)),
    "and":   Semantics("binary", lambda d, x, y: d.apply("and", x, y)),
    "or":    Semantics("binary", lambda d, x, y: d.apply("or", x, y)),
    "xor":   Semantics("binary", lambda d, x, y: d.apply("xor", x, y)),
    "not":   Semantics("unary",  lambda d, x: d.apply("not", x), writes_flags=False),
    "bswap": Semantics("unary",  lambda d, x: d.apply("bswap", x), writes_flags=False),
    "rol":   Semantics("shift",  lambda d, x, n: d.apply("rol", x, n)),
    "ror":   Semantics("shift",  lambda d, x, n: d.apply("ror", x, n)),
    "shl":   Semantics("shift",  lambda d, x, n: d.apply("shl", x, n)),
    "shr":   Semantics("shift",  lambda d, x, n: d.apply("shr", x, n)),
    "lea":   Semantics("lea",    _lea, writes_flags=False),
    "andn":  Semantics("andn",   lambda d, s1, s2: d.apply("and", d.apply("not", s1), s2), isa="bmi1"),
    "rorx":  Semantics("rorx",   lambda d, x, n: d.apply("ror", x, n), isa="bmi2", writes_flags=False),
    "shld":  Semantics("double", _shld),
    "shrd":  Semantics("double", _shrd),
}

SEMANTICS.update(VECTOR_ROWS)  # <<< the vector and SHA-NI rows (semantics/vector.py) join the one table here

# GNU as accepts these spellings for the same operation.
ALIASES = {"sal": "shl"}

# Suffixes: 'l' (32-bit) everywhere; 'q' only for pointer arithmetic on
# 64-bit registers (``addq $64, %rsi``, ``leaq``, ``movq``).
_SUFFIXABLE = {m for m, sem in SEMANTICS.items() if not sem.vector} | set(ALIASES)

def split_mnemonic(word: str) -> tuple[str, str]:
    """``"roll"`` -> ``("rol", "l")``; ``"xor"`` -> ``("xor", "")``; unknown -> refuse."""
    w = word.lower()
    if w in SEMANTICS:
        return w, ""
    if w in ALIASES:
        return ALIASES[w], ""
    if w[-1:] in ("l", "q") and w[:-1] in _SUFFIXABLE:
        base = ALIASES.get(w[:-1], w[:-1])
        return base, w[-1]
    raise UnsupportedError(f"unsupported instruction {word!r}")


def check_operands(ins: Instr) -> None:
    """Refuse operand shapes the form does not allow (x86's own encoding rules)."""
    sem = SEMANTICS[ins.mnemonic]
    ops = ins.operands
    if sem.vector:
        shape(ins.mnemonic, sem, operand_kinds(ins))
        return
    kinds = tuple(type(o).__name__ for o in ops)
    for k, o in enumerate(ops):
        # %cl is the only 8-bit register modelled: the count of a shift.
        if o == CL and not (sem.form in ("shift", "double") and k == 0 and len(ops) == len(_ARGUMENTS[sem.form])):
            raise UnsupportedError(f"{ins.mnemonic}: %cl is only modelled as a shift count")
        if isinstance(o, Reg) and o.width in (128, 256):
            raise UnsupportedError(f"{ins.mnemonic}: takes no vector register (got {o})")

    def bad(why: str) -> UnsupportedError:
        return UnsupportedError(f"{ins.mnemonic}: {why} (got {', '.join(map(str, ops)) or 'no operands'})")

    f = sem.form
    if f in ("binary", "move"):
        if len(ops) != 2:
            raise bad("takes 2 operands")
        if isinstance(ops[1], Imm):
            raise bad("destination cannot be an immediate")
        if kinds == ("Mem", "Mem"):
            raise bad("at most one memory operand")
    elif f == "shift":
        if len(ops) not in (1, 2):
            raise bad("takes a count and a destination")
        if isinstance(ops[-1], Imm):
            raise bad("destination cannot be an immediate")
        if len(ops) == 2 and not (isinstance(ops[0], Imm) or ops[0] == CL):
            raise bad("count must be an immediate or %cl")
    elif f == "unary":
        if len(ops) != 1 or isinstance(ops[0], Imm):
            raise bad("takes one register or memory operand")
        if ins.mnemonic == "bswap" and not isinstance(ops[0], Reg):
            raise bad("operand must be a register")
    elif f == "lea":
        if len(ops) != 2 or not isinstance(ops[0], Mem) or not isinstance(ops[1], Reg):
            raise bad("takes an address and a register")
    elif f == "andn":
        if len(ops) != 3 or isinstance(ops[0], Imm) or not isinstance(ops[1], Reg) or not isinstance(ops[2], Reg):
            raise bad("takes src2 (reg/mem), src1 (reg), dst (reg)")
    elif f == "rorx":
        if len(ops) != 3 or not isinstance(ops[0], Imm) or isinstance(ops[1], Imm) or not isinstance(ops[2], Reg):
            raise bad("takes an immediate, a reg/mem source and a register destination")
    elif f == "double":
        if len(ops) != 3 or not (isinstance(ops[0], Imm) or ops[0] == CL) or not isinstance(ops[1], Reg) \
                or isinstance(ops[2], Imm):
            raise bad("takes a count (immediate or %cl), a register source and a reg/mem destination")


def operand_kinds(ins: Instr) -> tuple[str, ...]:
    """One letter per operand: ``i`` immediate, ``m`` memory, ``x``/``y`` xmm/ymm, ``r`` 32-bit,
    ``g`` 64-bit, ``c`` %cl (``vinserti128 $1, 16(%rsi), %ymm3, %ymm3`` -> ``("i", "m", "y", "y")``)."""
    def kind(o):
        if isinstance(o, Imm):
            return "i"
        if isinstance(o, Mem):
            return "m"
        return {8: "c", 32: "r", 64: "g", 128: "x", 256: "y"}[o.width]
    return tuple(kind(o) for o in ins.operands)


@dataclass(frozen=True, slots=True)
class Effects:
    """What one instruction reads and writes, derived from its table row only.

    Invariant: every module that needs operand effects (ordering, register
    allocation, the cost model, synthesis) asks ``effects``; none derives
    them from operand positions itself.

    Example: ``add 4(%rsp), %eax`` -> ``data=("eax",)``, ``address=("esp",)``,
    ``writes=("eax",)``, ``mem_read=Mem(rsp, disp=4)``, ``mem_write=None``,
    ``flags=True``. ``lea 5(%eax,%ebx), %ecx`` -> ``data=()``,
    ``address=("eax", "ebx")`` (lea reads its inputs as an address, but
    touches no memory), ``writes=("ecx",)``, ``flags=False``.
    ``movdqa %xmm1, %xmm2`` -> ``data=("xmm1", "xmm2")``, ``merges=("xmm2",)``:
    xmm2 is read only for the ymm lanes 4-7 the legacy-SSE write keeps.
    """

    data: tuple[str, ...]        # registers read as data values, in operand order
    address: tuple[str, ...]     # registers read to form an address (lea's inputs too)
    writes: tuple[str, ...]      # registers written (32-bit names)
    mem_read: Mem | None         # the memory operand when it is loaded from
    mem_write: Mem | None        # the memory operand when it is stored to
    flags: bool                  # the arithmetic flags are written
    merges: tuple[str, ...] = ()  # of ``data``: read only for the lanes the write keeps (not an operand)

    @property
    def registers_read(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.data + self.address))


def effects(ins: Instr) -> Effects:
    """The operand effects of ``ins`` (see ``Effects``); unknown mnemonics are refused."""
    sem = SEMANTICS.get(ins.mnemonic)
    if sem is None:
        raise UnsupportedError(f"unsupported instruction {ins.mnemonic!r}")
    if sem.vector:
        return _vector_effects(ins, sem)
    ops = ins.operands
    last = len(ops) - 1
    data: list[str] = []
    addr: list[str] = []
    mem = None
    for k, o in enumerate(ops):
        if isinstance(o, Reg):
            if k != last or sem.reads_dest:
                data.append(o.name)
        elif isinstance(o, Mem):
            addr.extend(r.name for r in (o.base, o.index) if r is not None)
            if sem.form != "lea":
                mem = o
    dest = ops[last] if ops else None
    writes_mem = mem is not None and dest is mem
    reads_mem = mem is not None and (not writes_mem or sem.reads_dest)
    return Effects(tuple(dict.fromkeys(data)), tuple(dict.fromkeys(addr)),
                   (dest.name,) if isinstance(dest, Reg) else (),
                   mem if reads_mem else None, mem if writes_mem else None, sem.writes_flags)


VECTOR_REGISTERS = tuple(f"xmm{i}" for i in range(16))


def _vector_effects(ins: Instr, row: VectorRow) -> Effects:
    """Vector rows: a legacy-SSE write to an xmm register also reads it (ymm lanes 4-7 are kept);
    ``vzeroupper`` reads and writes every vector register (lanes 0-3 are kept), ``vzeroall`` writes
    them; those reads are ``merges``. A vector memory operand (``mem_read`` / ``mem_write``) covers
    4 or 8 words from its address."""
    if row.form == "zero":
        every = VECTOR_REGISTERS
        kept = () if ins.mnemonic == "vzeroall" else every
        return Effects(kept, (), every, None, None, False, kept)
    ops = ins.operands
    last = len(ops) - 1
    dest = ops[last]
    data: list[str] = []
    addr: list[str] = []
    mem = None
    merge = row.enc == "sse" and isinstance(dest, Reg) and dest.width == 128
    for k, o in enumerate(ops):
        if isinstance(o, Reg) and (k != last or row.reads_dest or merge):
            data.append(o.name)
        elif isinstance(o, Mem):
            addr.extend(r.name for r in (o.base, o.index) if r is not None)
            mem = o
    writes_mem = mem is not None and dest is mem
    operands = {o.name for o in ops[:last] if isinstance(o, Reg)}
    merges = (dest.name,) if merge and not row.reads_dest and dest.name not in operands else ()
    return Effects(tuple(dict.fromkeys(data)), tuple(dict.fromkeys(addr)),
                   (dest.name,) if isinstance(dest, Reg) else (),
                   None if writes_mem else mem, mem if writes_mem else None, row.writes_flags, merges)


# Which operands feed the value function, in its argument order, per form
# (the table at the top of the section); lea is fed its address parts
# instead. Index -1 is the destination; None is the implicit count 1.
_ARGUMENTS: dict[str, tuple[int | None, ...]] = {
    "binary": (-1, 0), "shift": (-1, 0), "unary": (-1,), "move": (0,), "andn": (1, 0), "rorx": (1, 0),
    "double": (-1, 1, 0),
}


def value_of(ins: Instr, domain, read: Callable[[Operand], object]):
    """The value ``ins`` writes to its destination, over ``domain``, with ``read(operand)`` giving inputs.

    The one place that feeds a row's value function: every interpreter (``machine.Machine``,
    the lifter's executor) supplies only how an operand is read. ``lea`` is fed
    ``(base, index << log2(scale), disp)`` from its address; everything else ``arguments(ins)``.
    Example: ``lea 4(%eax,%ebx,2), %ecx`` -> ``fn(d, eax, ebx << 1, 4)``.
    """
    sem = SEMANTICS[ins.mnemonic]
    if sem.form == "lea":
        m: Mem = ins.operands[0]
        base = read(m.base) if m.base is not None else None
        index = None
        if m.index is not None:
            index = read(m.index)
            if m.scale != 1:
                index = domain.apply("shl", index, domain.const(m.scale.bit_length() - 1))
        return sem.fn(domain, base, index, domain.const(m.disp & 0xFFFFFFFF))
    return sem.fn(domain, *(read(o) for o in arguments(ins)))


def arguments(ins: Instr) -> tuple[Operand, ...]:
    """The operands ``SEMANTICS[ins.mnemonic].fn`` takes after the domain, in its argument order.

    Example: ``sub %ebx, %eax`` -> ``(%eax, %ebx)`` (``eax - ebx``); ``shl %eax``
    -> ``(%eax, $1)``; ``andn %ecx, %ebx, %eax`` -> ``(%ebx, %ecx)``
    (``~ebx & ecx``). ``lea`` is fed ``(base, index * scale, disp)`` from its
    address, not operands, and is refused here. The destination is always
    the last operand. Vector rows take their form's ``args`` (``vector.FORMS``):
    ``palignr $8, %xmm1, %xmm0`` -> ``(%xmm0, %xmm1, $8)``.
    """
    sem = SEMANTICS.get(ins.mnemonic)
    if sem is None or sem.form == "lea":
        raise UnsupportedError(f"{ins.mnemonic!r} has no operand arguments")
    ops = ins.operands
    if sem.vector:
        return tuple(ops[k] for k in VECTOR_FORMS[sem.form].args)
    if sem.form == "shift" and len(ops) == 1:
        return (ops[0], Imm(1))
    return tuple(ops[k] for k in _ARGUMENTS[sem.form])


def required_features(ins: Instr) -> frozenset[str]:
    """Every feature ``ins`` needs: ``{"base"}``, ``{"bmi2"}``; ``vpaddd`` on ymm ``{"avx2"}``; ``vaesenc``
    ``{"avx", "aes"}`` (a row's ``also``)."""
    sem = SEMANTICS.get(ins.mnemonic)
    if sem is None:
        raise UnsupportedError(f"unsupported instruction {ins.mnemonic!r}")
    if sem.vector and sem.form != "zero":
        return sem.features_for(shape(ins.mnemonic, sem, operand_kinds(ins)).width)
    return frozenset((sem.isa,))


def required_isa(ins: Instr) -> ISA:
    """The one feature ``ins`` needs (``"base"``, ``"bmi2"``; ``vpaddd`` on xmm ``"avx"``, on ymm ``"avx2"``);
    an instruction needing two (``vaesenc``) is refused by name: ask ``required_features``."""
    need = required_features(ins)
    if len(need) > 1:
        raise UnsupportedError(f"{ins.mnemonic} needs {' and '.join(sorted(need))}, not one feature")
    return next(iter(need))  # type: ignore[return-value]


def isa_set(code) -> frozenset[str]:
    """The minimal features that together run every instruction of ``code`` (empty: base only).

    Example: ``rorx`` + ``vpaddd %ymm1, %ymm2, %ymm3`` + ``pshufb`` -> ``{"bmi2", "avx2"}``
    (AVX2 includes SSSE3).
    """
    need = {f for ins in code if isinstance(ins, Instr) for f in required_features(ins)} - {"base"}
    return frozenset(f for f in need if not any(g != f and includes(g, f) for g in need))


def isa_of(code) -> ISA:
    """The one feature that runs every instruction of ``code`` (``"base"`` for base code).

    On scalar code this is the lowest level of ``features.ISA_LEVELS``; code that needs two
    unrelated features (SHA-NI and AVX2, BMI2 and SSSE3) has no single one and is
    refused: ask ``isa_set``.
    """
    need = isa_set(code)
    if not need:
        return "base"
    if len(need) > 1:
        raise UnsupportedError(f"code needs the unrelated ISA features {', '.join(sorted(need))}; use isa_set")
    return next(iter(need))


def reads(ins: Instr) -> set[str]:
    """Registers (32-bit names) the instruction reads, addresses included."""
    return set(effects(ins).registers_read)


def writes(ins: Instr) -> set[str]:
    """Registers the instruction writes (flags are not registers here)."""
    return set(effects(ins).writes)


def rename(ins: Instr, mapping: dict[str, str]) -> Instr:
    """``ins`` with registers renamed by 32-bit name (widths and everything else kept).

    Example: ``rename(add %esi, %eax, {"esi": "r8d"})`` is ``add %r8d, %eax``;
    address registers are renamed too (``4(%rsi)`` -> ``4(%r8)``).
    """
    def fix(o):
        if isinstance(o, Reg) and o.name in mapping:
            return Reg(mapping[o.name], o.width)
        if isinstance(o, Mem):
            return replace(o, base=fix(o.base) if o.base else None, index=fix(o.index) if o.index else None)
        return o
    return replace(ins, operands=tuple(fix(o) for o in ins.operands))
