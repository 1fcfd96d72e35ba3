"""Vector (SSE2 .. AVX-512VL) and SHA-NI rows of the one semantics table, written over 32-bit lanes.

Representation (the invariant everything here keeps): a vector value is a
tuple of 32-bit *lanes*, lane 0 holding bits 31:0 -- an xmm value has 4
lanes, a ymm value 8 -- and each lane is a value of the existing 32-bit
domains (a Z3 bit-vector, a numpy ``uint32`` array, an IR term). So the Z3,
numpy and term domains need no new op: every vector operation below is
written once with ``d.apply`` of the IR ops (``add xor and or not shl shr rol
bswap``) and *constant* lane selection. Byte-level operations are 32-bit
shifts, masks and ors of lanes: byte k of lane j is ``(x_j >> 8k) & 0xff``;
16-bit-word operations mask the bits that cross between a lane's two words
(``psrlw $8``: ``(x_j >> 8) & 0x00ff00ff``), and ``packuswb``'s saturation is
computed with the same ops, exactly, for every input. The byte and word
value functions live in ``vector_bytes.py``; this module holds the rows.

Worked example: ``psrldq $1, %xmm0`` with xmm0 = (x0, x1, x2, x3) gives
``((x0 >> 8) | (x1 << 24), (x1 >> 8) | (x2 << 24), (x2 >> 8) | (x3 << 24), x3 >> 8)``
(no masks are needed: the shifts already clear the other bytes), and
``pshufb`` with OpenSSL's byte-swap mask ``0x0c0d0e0f_08090a0b_04050607_00010203``
gives ``(bswap(x0), bswap(x1), bswap(x2), bswap(x3))``.

Registers: the machine keeps one location per vector register, named by its
xmm name (``"xmm3"``), always holding 8 lanes (the whole ymm register);
``%xmm3`` reads lanes 0-3, ``%ymm3`` all 8. Writes to an xmm destination:
legacy-SSE encodings (``enc="sse"``) keep lanes 4-7, VEX and EVEX encodings
zero them; so ``vzeroupper``, ``vzeroall``, ``vinserti128``, ``vextracti128``
(to an xmm register), ``vbroadcasti128``, ``vperm2i128`` and ``vpermq`` are
exact. On ymm, the byte and dword shuffles work in each 128-bit half on its
own (``vpshufb``, ``vpalignr``, ``vpsrldq``/``vpslldq``, ``vpshufd``,
``vpunpck*``: ``_halves``); ``vpermq`` and ``vperm2i128`` cross the halves. ZMM bits 511:256 and the registers xmm16-31 are not modelled
(EVEX forms on them are refused by the register parser). On entry, lane j of
register r is ``initial_reg(lane_name(r, j))`` (``"xmm3.2"``).

Memory: a vector operand is 4 or 8 consecutive 32-bit words of a region
(``machine.py``'s model), starting at the operand's address; ``movd``,
``pinsrd``, ``pextrd`` and ``vpbroadcastd`` access 1 word, ``movq``, ``pinsrq`` and ``pextrq`` 2,
``vinserti128``, ``vextracti128`` and ``vbroadcasti128`` 4.
Alignment is a *precondition*, not a refusal: rows with ``aligned=True``
(``movdqa``/``movaps``/``vmovdqa``, and every legacy-SSE 128-bit memory
source, SDM vol. 1 §4.1.1 "alignment of 128-bit operands") fault on a
misaligned address rather than compute another value, and the machine
records each such access in ``Machine.aligned`` for whoever knows the
regions' base addresses (the object-file front end) to discharge.

Forms (``FORMS``) give each operand's kind, in AT&T order, and which operands
feed the value function (``args``, in its argument order). Kind letters:
``v`` vector register of the operation's width (xmm, or ymm where the row has
a 256-bit form), ``m`` memory of that width, ``x`` an xmm register, ``h``
16 bytes of memory, ``d`` 4 bytes, ``q`` 8 bytes, ``r`` a 32-bit general
register, ``g`` a 64-bit general register (two lanes: bits 31:0, 63:32),
``i`` an immediate. A value function receives vector operands as lane tuples
(a 32-bit register or a ``d`` word as a 1-tuple, a 64-bit register or a
``q`` word pair as a 2-tuple) and immediates as Python ints, and returns the
destination's lanes.

General registers (``movd``/``movq``/``vmovd``/``vmovq``, ``pextrq``/``pinsrq`` and their VEX forms):
a 32-bit general register is one lane; a 64-bit one is two, and each
interpreter supplies them as its model of the register has them (the
straight-line ``Machine`` holds 32-bit data, so its 64-bit registers read
(value, 0) and take a result only when the upper lane is known to be 0; the
lifter also moves the halves of a callee-saved register's entry value, so
``movq %rbx, %xmm0 ... movq %xmm0, %rbx`` restores it). Rows that only
select and move lanes (``VectorRow.moves``) are the ones such halves may go
through.

Refused by name, never approximated: a ``pshufb``/``vpshufb`` whose mask is
not a known constant (``Domain.constant``: OpenSSL loads its masks from
``.rodata``, which the front end reads as constants); shifts by an xmm count;
masking (``{%k1}``), embedded broadcast, zmm and xmm16-31; 64-bit general
registers whose upper half the interpreter does not know (``Machine``:
``movq %xmm0, %rax`` from a lane 1 not known 0); every mnemonic not in
``VECTOR_ROWS`` (``vpaddq``, ``vpermd``, ``vpsrlq``...).

ISA: ``widths`` maps each operand width (128, 256) to the CPUID feature that
form needs (``vpaddd``: AVX on xmm, AVX2 on ymm); features are not a line
but a partial order, see ``features.ISA_INCLUDES``. A row that needs a second,
unrelated feature at every width names it in ``also``: ``vaesenc`` is VEX
(AVX) *and* AES-NI, ``features_for(128) == {"avx", "aes"}`` (a CPU may have
either without the other). No vector row reads or writes the arithmetic
flags.

AES-NI (``aesenc``, ``aesenclast`` and their VEX forms; xmm only -- the
256-bit VAES forms are refused by having no 256 width): the rows' value
functions are ``aes.py``'s, over the IR's AES ops, which Z3 reads as
uninterpreted functions (``ir.UNINTERPRETED_IN_Z3``).

Sources: Intel SDM vol. 2 (order no. 325383), each instruction's
"Operation" section: vol. 2B §4.3 for MOVD/MOVQ/MOVDQA/MOVDQU/MOVAPS/MOVUPS (and VMOVUPS),
PADDD/PSUBD/PAND/PANDN/POR/PXOR, PSHUFB, PSHUFD, PALIGNR, PSRLD/PSLLD, PSRLW/PSLLW,
PSRLDQ/PSLLDQ, PACKUSWB, PUNPCKLBW/PUNPCKHBW/PUNPCKLWD/PUNPCKHWD,
PUNPCKLDQ/PUNPCKHDQ/PUNPCKLQDQ/PUNPCKHQDQ, PEXTRD/PINSRD/PEXTRQ/PINSRQ,
VMOVD/VMOVQ, VPEXTRD/VPINSRD/VPEXTRQ/VPINSRQ, SHLD/SHRD, and
SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2 (whose pseudocode ``sha_ni.py``
transcribes line by line); vol. 2C §5.1 for VINSERTI128, VEXTRACTI128,
VBROADCASTI128, VPERM2I128, VPERMQ, VPBROADCASTD, VPROLD, VPTERNLOGD,
VZEROUPPER, VZEROALL; vol. 2C (chapter 5, V-Z) XORPS/VXORPS; vol. 2A §3.2
AESENC/VAESENC and AESENCLAST/VAESENCLAST (FIPS-197 for the AES round, ``aes.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from sha1opt.semantics.aes import aesenc, aesenclast
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.ir import MASK32
from sha1opt.semantics.sha_ni import sha1msg1, sha1msg2, sha1nexte, sha1rnds4
from sha1opt.semantics.vector_bytes import apply as _op
from sha1opt.semantics.vector_bytes import byte_shift as _byte_shift, halves as _halves
from sha1opt.semantics.vector_bytes import packuswb as _packuswb, palignr as _palignr, pshufb as _pshufb
from sha1opt.semantics.vector_bytes import unpack as _unpack, word_shift as _word_shift

Enc = Literal["sse", "vex", "evex"]
LANES = {128: 4, 256: 8}
REGISTERS = 16          # xmm0-15 (i386: xmm0-7)


def lane_name(register: str, lane: int) -> str:
    """The entry variable of lane ``lane`` of vector register ``register``: ``"xmm3.2"``."""
    return f"{register}.{lane}"


@dataclass(frozen=True, slots=True)
class Form:
    kinds: tuple[str, ...]      # allowed kind letters per operand, AT&T order
    args: tuple[int, ...]       # operand indices feeding the value function, in its order
    reads_dest: bool = False    # the destination's old value is an argument


FORMS: dict[str, Form] = {
    "move":      Form(("vm", "vm"), (0,)),                     # movdqa src, dst
    "binary":    Form(("vm", "v"), (1, 0), True),              # paddd src, dst: dst = f(dst, src)
    "binary_imm": Form(("i", "vm", "v"), (2, 1, 0), True),     # palignr $n, src, dst
    "unary_imm": Form(("i", "vm", "v"), (1, 0)),               # pshufd $n, src, dst: dst = f(src, n)
    "shift_reg": Form(("i", "v", "v"), (1, 0)),                # vpsrld $n, src, dst (register source)
    "shift":     Form(("i", "v"), (1, 0), True),               # psrld $n, dst
    "vex3":      Form(("vm", "v", "v"), (1, 0)),               # vpaddd src2, src1, dst: f(src1, src2)
    "vex3_imm":  Form(("i", "vm", "v", "v"), (2, 1, 0)),       # vpalignr $n, src2, src1, dst
    "insert":    Form(("i", "xh", "v", "v"), (2, 1, 0)),       # vinserti128 $n, x/m128, src1, dst
    "extract128": Form(("i", "v", "xh"), (1, 0)),              # vextracti128 $n, ymm, x/m128
    "broadcast128": Form(("h", "v"), (0,)),                    # vbroadcasti128 m128, ymm
    "ternary":   Form(("i", "vm", "v", "v"), (3, 2, 1, 0), True),  # vpternlogd $n, src3, src2, dst
    "broadcast": Form(("xd", "v"), (0,)),                      # vpbroadcastd x/m32, dst
    "movd":      Form(("xrd", "xrd"), (0,)),                   # exactly one xmm operand
    "movq":      Form(("xqg", "xqg"), (0,)),                   # xmm/m64/r64 -> xmm/m64/r64, an xmm among them
    "extract":   Form(("i", "x", "rd"), (1, 0)),               # pextrd $n, xmm, r32/m32
    "insert32":  Form(("i", "rd", "x"), (2, 1, 0), True),      # pinsrd $n, r32/m32, xmm
    "extract64": Form(("i", "x", "gq"), (1, 0)),               # pextrq $n, xmm, r64/m64
    "insert64":  Form(("i", "gq", "x"), (2, 1, 0), True),      # pinsrq $n, r64/m64, xmm
    "vinsert32": Form(("i", "rd", "x", "x"), (2, 1, 0)),       # vpinsrd $n, r32/m32, xmm src1, xmm dst
    "vinsert64": Form(("i", "gq", "x", "x"), (2, 1, 0)),       # vpinsrq $n, r64/m64, xmm src1, xmm dst
    "zero":      Form((), ()),                                 # vzeroupper / vzeroall
}


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One vector row of ``x86.SEMANTICS``; same columns as ``x86.Semantics`` plus the vector ones.

    ``isa`` is the feature of the narrowest form (what ``x86.required_isa``
    starts from); ``widths`` lists ``(operand width, feature)`` per width the
    row takes. Example: ``VECTOR_ROWS["vpaddd"]`` has ``form="vex3"``,
    ``widths=((128, "avx"), (256, "avx2"))``, ``enc="vex"``: ``vpaddd %ymm1,
    %ymm2, %ymm3`` is ``ymm3 = ymm2 + ymm1`` lane by lane and needs AVX2;
    ``VECTOR_ROWS["vaesenc"]`` has ``widths=((128, "avx"),)``, ``also=("aes",)``.
    """

    form: str
    fn: Callable
    widths: tuple[tuple[int, str], ...]
    enc: Enc
    aligned: bool = False          # a memory operand of 16/32 bytes must be aligned to its size
    writes_flags: bool = False
    also: tuple[str, ...] = ()     # features every width needs besides its own (vaesenc: "aes")

    @property
    def moves(self) -> bool:
        """The value function only selects and moves its inputs' lanes (or writes constant lanes): a
        lane that is not a data value (a callee-saved register's half, in the lifter) may go through."""
        return self.form in _MOVING_FORMS or self.fn in _MOVING_FUNCTIONS

    @property
    def isa(self) -> str:
        return self.widths[0][1]

    @property
    def vector(self) -> bool:
        return True

    @property
    def reads_dest(self) -> bool:
        return FORMS[self.form].reads_dest

    def isa_for(self, width: int) -> str:
        return dict(self.widths)[width]

    def features_for(self, width: int) -> frozenset[str]:
        """Every feature the form of ``width`` needs: its width's and ``also`` (``vaesenc``: avx and aes)."""
        return frozenset((self.isa_for(width), *self.also))


@dataclass(frozen=True, slots=True)
class Shape:
    """How one instruction's operands are accessed: lanes per operand (0 = immediate)."""

    width: int                   # the operation's width in bits (128 or 256)
    lanes: tuple[int, ...]       # 32-bit lanes read or written per operand


def shape(mnemonic: str, row: VectorRow, kinds: tuple[str, ...]) -> Shape:
    """Match operand kinds (``"i" "x" "y" "r" "m"``, one per operand) to the row's form, or refuse.

    Example: ``shape("vinserti128", row, ("i", "m", "y", "y"))`` is
    ``Shape(256, (0, 4, 8, 8))``: the memory source is 16 bytes.
    """
    form = FORMS[row.form]

    def bad(why: str) -> UnsupportedError:
        return UnsupportedError(f"{mnemonic}: {why}")

    if len(kinds) != len(form.kinds):
        raise bad(f"takes {len(form.kinds)} operands, got {len(kinds)}")
    if row.form in ("shift", "shift_reg") and kinds[0] != "i":
        raise bad("the count must be an immediate (the xmm-count form is not modelled)")
    regs = {k for k, want in zip(kinds, form.kinds) if k in "xy" and "v" in want}
    if len(regs) > 1:
        raise bad("vector operands must all be xmm or all ymm")
    width = 256 if regs == {"y"} else 128
    if width not in dict(row.widths):
        raise bad(f"has no {'ymm' if width == 256 else 'xmm'} form")
    n = LANES[width]
    lanes = []
    for k, want in zip(kinds, form.kinds):
        if k == "i" and "i" in want:
            lanes.append(0)
        elif k in "xy" and "v" in want:
            lanes.append(n)
        elif k == "x" and "x" in want:
            lanes.append(4)
        elif k == "r" and "r" in want:
            lanes.append(1)
        elif k == "g" and "g" in want:
            lanes.append(2)
        elif k == "m" and any(c in want for c in "mhdq"):
            lanes.append(n if "m" in want else {"h": 4, "d": 1, "q": 2}[next(c for c in want if c in "hdq")])
        else:
            raise bad(f"operand kinds {''.join(kinds)} do not fit {' '.join(form.kinds)} "
                      "(v: vector register, m: memory, x: xmm, r: 32-bit register, g: 64-bit register, "
                      "i: immediate)")
    if kinds.count("m") > 1:
        raise bad("at most one memory operand")
    if row.form == "movd" and kinds.count("x") != 1:
        raise bad("moves between one xmm register and a 32-bit register or memory")
    if row.form == "movq" and "x" not in kinds:
        raise bad("moves to or from an xmm register")
    return Shape(width, tuple(lanes))


# --- lane helpers ---------------------------------------------------------------

def _lanewise(op):
    return lambda d, x, y: tuple(_op(d, op, a, b) for a, b in zip(x, y))


def _andn(d, x, y):     # pandn src, dst: dst = ~dst & src
    return tuple(_op(d, "and", _op(d, "not", a), b) for a, b in zip(x, y))


def _shift_lanes(op):
    def run(d, x, n):
        if n > 31:
            return tuple(d.const(0) for _ in x)
        return tuple(_op(d, op, a, d.const(n)) if n else a for a in x)
    return run


@_halves
def _pshufd(d, x, n):
    return tuple(x[(n >> (2 * j)) & 3] for j in range(4))


@_halves
def _punpcklqdq(d, x, y):
    return (x[0], x[1], y[0], y[1])


@_halves
def _punpckldq(d, x, y):
    return (x[0], y[0], x[1], y[1])


@_halves
def _punpckhqdq(d, x, y):
    return (x[2], x[3], y[2], y[3])


@_halves
def _punpckhdq(d, x, y):
    return (x[2], y[2], x[3], y[3])


def _vinserti128(d, src1, x, n):
    return (x + src1[4:]) if n & 1 == 0 else (src1[:4] + x)


def _vextracti128(d, x, n):
    return x[4:8] if n & 1 else x[:4]


def _broadcast128(d, x):
    return x + x


def _vpermq(d, x, n):           # qword j of the result is qword (n >> 2j) & 3 of the source (not per lane)
    return tuple(x[2 * ((n >> (2 * (j // 2))) & 3) + j % 2] for j in range(8))


def _vperm2i128(d, src1, src2, n):
    pick = (src1[:4], src1[4:], src2[:4], src2[4:])
    zero = tuple(d.const(0) for _ in range(4))
    lo = zero if n & 0x08 else pick[n & 3]
    hi = zero if n & 0x80 else pick[(n >> 4) & 3]
    return lo + hi


def _vprold(d, x, n):
    k = n & 31
    return tuple(_op(d, "rol", a, d.const(k)) if k else a for a in x)


class _Const:
    """All-zeros or all-ones, kept symbolic while a boolean function is built (compared by identity)."""

    def __init__(self, value: int) -> None:
        self.value = value


_ZERO, _ONES = _Const(0), _Const(MASK32)


def _boolean(d, table: int, inputs):
    """A boolean function of ``len(inputs)`` inputs, bit for bit, from its truth table.

    Bit ``i`` of ``table`` is the result where input k (0 = most significant)
    is bit ``len-1-k`` of ``i``, as VPTERNLOGD indexes imm8 by
    ``(a << 2) | (b << 1) | c``. Built by Shannon expansion on the first
    input, with the and/or/xor/not shortcuts that keep e.g. 0x96 as
    ``a ^ (b ^ c)``. Returns a domain value, or ``_ZERO`` / ``_ONES``.
    """
    n = len(inputs)
    full = (1 << (1 << n)) - 1
    table &= full
    if table == 0:
        return _ZERO
    if table == full:
        return _ONES
    half = 1 << (n - 1)
    low = (1 << half) - 1
    f1, f0 = table >> half, table & low
    a, rest = inputs[0], inputs[1:]
    if f1 == f0:
        return _boolean(d, f0, rest)
    e0, e1 = _boolean(d, f0, rest), _boolean(d, f1, rest)
    if f1 == f0 ^ low:                         # a ? ~g : g  ==  a ^ g
        if e0 is _ZERO:
            return a
        return _op(d, "not", a) if e0 is _ONES else _op(d, "xor", a, e0)
    if f0 == 0:                                # e1 is not constant here
        return _op(d, "and", a, e1)
    if f1 == 0:
        return _op(d, "and", _op(d, "not", a), e0)
    if f1 == low:
        return _op(d, "or", a, e0)
    if f0 == low:
        return _op(d, "or", _op(d, "not", a), e1)
    return _op(d, "or", _op(d, "and", a, e1), _op(d, "and", _op(d, "not", a), e0))


def _value(d, e):
    return d.const(e.value) if isinstance(e, _Const) else e


def _vpternlogd(d, a, b, c, n):
    return tuple(_value(d, _boolean(d, n, (x, y, z))) for x, y, z in zip(a, b, c))


def _broadcast(d, x):
    return (x[0],) * 8      # the machine keeps as many lanes as the destination has


def _movd(d, x):
    return (x[0],) + tuple(d.const(0) for _ in range(3))


def _movq(d, x):
    return (x[0], x[1], d.const(0), d.const(0))


def _pextrd(d, x, n):
    return (x[n & 3],)


def _pinsrd(d, dst, v, n):     # dst: the lanes v goes into (pinsrd's destination, vpinsrd's first source)
    k = n & 3
    return tuple(v[0] if j == k else dst[j] for j in range(4))


def _pextrq(d, x, n):
    k = 2 * (n & 1)
    return (x[k], x[k + 1])


def _pinsrq(d, dst, v, n):
    k = 2 * (n & 1)
    return tuple(v[j - k] if k <= j < k + 2 else dst[j] for j in range(4))


def _zero(d):      # vzeroupper / vzeroall act on every register; the machine does it
    return ()


# --- the rows ---------------------------------------------------------------------

_SSE2 = ((128, "sse2"),)
_SSSE3 = ((128, "ssse3"),)
_AVX_AVX2 = ((128, "avx"), (256, "avx2"))
_AVX_BOTH = ((128, "avx"), (256, "avx"))
_VL = ((128, "avx512vl"), (256, "avx512vl"))
_SHA = ((128, "sha"),)
_AES = ((128, "aes"),)


def _move(d, x):
    return x


_ADD, _SUB, _XOR, _OR, _AND, _GTS = (_lanewise(op) for op in ("add", "sub", "xor", "or", "and", "gts"))
_SRL, _SLL = _shift_lanes("shr"), _shift_lanes("shl")
_SRLDQ, _SLLDQ = _byte_shift(True), _byte_shift(False)
_SRLW, _SLLW = _word_shift("shr"), _word_shift("shl")

VECTOR_ROWS: dict[str, VectorRow] = {
    # SSE2 / SSSE3 / SSE4.1 (legacy encodings: an xmm write keeps ymm lanes 4-7)
    "movdqa":     VectorRow("move", _move, _SSE2, "sse", aligned=True),
    "movdqu":     VectorRow("move", _move, _SSE2, "sse"),
    "movaps":     VectorRow("move", _move, ((128, "sse"),), "sse", aligned=True),
    "movups":     VectorRow("move", _move, ((128, "sse"),), "sse"),
    "xorps":      VectorRow("binary", _XOR, ((128, "sse"),), "sse", aligned=True),   # the bits of pxor
    "movd":       VectorRow("movd", _movd, _SSE2, "sse"),
    "movq":       VectorRow("movq", _movq, _SSE2, "sse"),
    "paddd":      VectorRow("binary", _ADD, _SSE2, "sse", aligned=True),
    "psubd":      VectorRow("binary", _SUB, _SSE2, "sse", aligned=True),
    "pcmpgtd":    VectorRow("binary", _GTS, _SSE2, "sse", aligned=True),     # dst = dst > src (signed)
    "pxor":       VectorRow("binary", _XOR, _SSE2, "sse", aligned=True),
    "por":        VectorRow("binary", _OR, _SSE2, "sse", aligned=True),
    "pand":       VectorRow("binary", _AND, _SSE2, "sse", aligned=True),
    "pandn":      VectorRow("binary", _andn, _SSE2, "sse", aligned=True),
    "pshufb":     VectorRow("binary", _pshufb, _SSSE3, "sse", aligned=True),
    "psrld":      VectorRow("shift", _SRL, _SSE2, "sse"),
    "pslld":      VectorRow("shift", _SLL, _SSE2, "sse"),
    "psrlw":      VectorRow("shift", _SRLW, _SSE2, "sse"),
    "psllw":      VectorRow("shift", _SLLW, _SSE2, "sse"),
    "psrldq":     VectorRow("shift", _SRLDQ, _SSE2, "sse"),
    "pslldq":     VectorRow("shift", _SLLDQ, _SSE2, "sse"),
    "palignr":    VectorRow("binary_imm", _palignr, _SSSE3, "sse", aligned=True),
    "pshufd":     VectorRow("unary_imm", _pshufd, _SSE2, "sse", aligned=True),
    "punpcklqdq": VectorRow("binary", _punpcklqdq, _SSE2, "sse", aligned=True),
    "punpckhqdq": VectorRow("binary", _punpckhqdq, _SSE2, "sse", aligned=True),
    "punpckldq":  VectorRow("binary", _punpckldq, _SSE2, "sse", aligned=True),   # gcc -m64's state store
    "punpckhdq":  VectorRow("binary", _punpckhdq, _SSE2, "sse", aligned=True),
    "packuswb":   VectorRow("binary", _packuswb, _SSE2, "sse", aligned=True),   # gcc's vectorized byte loads
    "punpcklbw":  VectorRow("binary", _unpack(1, False), _SSE2, "sse", aligned=True),
    "punpckhbw":  VectorRow("binary", _unpack(1, True), _SSE2, "sse", aligned=True),
    "punpcklwd":  VectorRow("binary", _unpack(2, False), _SSE2, "sse", aligned=True),
    "punpckhwd":  VectorRow("binary", _unpack(2, True), _SSE2, "sse", aligned=True),
    "pextrd":     VectorRow("extract", _pextrd, ((128, "sse4.1"),), "sse"),
    "pinsrd":     VectorRow("insert32", _pinsrd, ((128, "sse4.1"),), "sse"),
    "pextrq":     VectorRow("extract64", _pextrq, ((128, "sse4.1"),), "sse"),
    "pinsrq":     VectorRow("insert64", _pinsrq, ((128, "sse4.1"),), "sse"),
    # AVX / AVX2 (VEX: an xmm write zeroes ymm lanes 4-7)
    "vmovdqa":    VectorRow("move", _move, _AVX_BOTH, "vex", aligned=True),
    "vmovdqu":    VectorRow("move", _move, _AVX_BOTH, "vex"),
    "vmovups":    VectorRow("move", _move, _AVX_BOTH, "vex"),     # OpenSSL's stitched AES-CBC + SHA-1 (AVX)
    "vmovd":      VectorRow("movd", _movd, ((128, "avx"),), "vex"),
    "vmovq":      VectorRow("movq", _movq, ((128, "avx"),), "vex"),
    "vpextrd":    VectorRow("extract", _pextrd, ((128, "avx"),), "vex"),
    "vpinsrd":    VectorRow("vinsert32", _pinsrd, ((128, "avx"),), "vex"),
    "vpextrq":    VectorRow("extract64", _pextrq, ((128, "avx"),), "vex"),
    "vpinsrq":    VectorRow("vinsert64", _pinsrq, ((128, "avx"),), "vex"),
    "vpaddd":     VectorRow("vex3", _ADD, _AVX_AVX2, "vex"),
    "vpsubd":     VectorRow("vex3", _SUB, _AVX_AVX2, "vex"),
    "vpcmpgtd":   VectorRow("vex3", _GTS, _AVX_AVX2, "vex"),
    "vpxor":      VectorRow("vex3", _XOR, _AVX_AVX2, "vex"),
    "vxorps":     VectorRow("vex3", _XOR, _AVX_BOTH, "vex"),
    "vpor":       VectorRow("vex3", _OR, _AVX_AVX2, "vex"),
    "vpand":      VectorRow("vex3", _AND, _AVX_AVX2, "vex"),
    "vpandn":     VectorRow("vex3", _andn, _AVX_AVX2, "vex"),
    "vpshufb":    VectorRow("vex3", _pshufb, _AVX_AVX2, "vex"),
    "vpsrld":     VectorRow("shift_reg", _SRL, _AVX_AVX2, "vex"),
    "vpslld":     VectorRow("shift_reg", _SLL, _AVX_AVX2, "vex"),
    "vpsrlw":     VectorRow("shift_reg", _SRLW, _AVX_AVX2, "vex"),
    "vpsllw":     VectorRow("shift_reg", _SLLW, _AVX_AVX2, "vex"),
    "vpsrldq":    VectorRow("shift_reg", _SRLDQ, _AVX_AVX2, "vex"),
    "vpslldq":    VectorRow("shift_reg", _SLLDQ, _AVX_AVX2, "vex"),
    "vpalignr":   VectorRow("vex3_imm", _palignr, _AVX_AVX2, "vex"),
    "vpshufd":    VectorRow("unary_imm", _pshufd, _AVX_AVX2, "vex"),
    "vpunpcklqdq": VectorRow("vex3", _punpcklqdq, _AVX_AVX2, "vex"),
    "vpunpckhqdq": VectorRow("vex3", _punpckhqdq, _AVX_AVX2, "vex"),
    "vpunpckldq": VectorRow("vex3", _punpckldq, _AVX_AVX2, "vex"),
    "vpunpckhdq": VectorRow("vex3", _punpckhdq, _AVX_AVX2, "vex"),
    "vextracti128": VectorRow("extract128", _vextracti128, ((256, "avx2"),), "vex"),
    "vbroadcasti128": VectorRow("broadcast128", _broadcast128, ((256, "avx2"),), "vex"),
    "vpermq":     VectorRow("unary_imm", _vpermq, ((256, "avx2"),), "vex"),
    "vinserti128": VectorRow("insert", _vinserti128, ((256, "avx2"),), "vex"),
    "vperm2i128": VectorRow("vex3_imm", _vperm2i128, ((256, "avx2"),), "vex"),
    "vpbroadcastd": VectorRow("broadcast", _broadcast, ((128, "avx2"), (256, "avx2")), "vex"),
    "vzeroupper": VectorRow("zero", _zero, ((128, "avx"),), "vex"),
    "vzeroall":   VectorRow("zero", _zero, ((128, "avx"),), "vex"),
    # AVX-512VL on xmm/ymm (EVEX: upper lanes zeroed like VEX)
    "vprold":     VectorRow("unary_imm", _vprold, _VL, "evex"),
    "vpternlogd": VectorRow("ternary", _vpternlogd, _VL, "evex"),
    # SHA-NI (legacy encoding, xmm only)
    "sha1rnds4":  VectorRow("binary_imm", sha1rnds4, _SHA, "sse", aligned=True),
    "sha1nexte":  VectorRow("binary", sha1nexte, _SHA, "sse", aligned=True),
    "sha1msg1":   VectorRow("binary", sha1msg1, _SHA, "sse", aligned=True),
    "sha1msg2":   VectorRow("binary", sha1msg2, _SHA, "sse", aligned=True),
    # AES-NI (xmm only; the VEX forms need AVX and AES-NI, the 256-bit VAES forms are not modelled)
    "aesenc":     VectorRow("binary", aesenc, _AES, "sse", aligned=True),
    "aesenclast": VectorRow("binary", aesenclast, _AES, "sse", aligned=True),
    "vaesenc":    VectorRow("vex3", aesenc, ((128, "avx"),), "vex", also=("aes",)),
    "vaesenclast": VectorRow("vex3", aesenclast, ((128, "avx"),), "vex", also=("aes",)),
}

# Forms and value functions that only move lanes (``VectorRow.moves``).
_MOVING_FORMS = frozenset({"move", "movd", "movq", "extract", "insert32", "extract64", "insert64", "vinsert32",
                           "vinsert64", "insert", "broadcast", "extract128", "broadcast128"})
_MOVING_FUNCTIONS = frozenset({_pshufd, _punpcklqdq, _punpckldq, _punpckhqdq, _punpckhdq, _vperm2i128, _vpermq})
