"""The values of the whole-function executor: addresses, integers, entry values, and refusals.

* ``Ptr(region, off)`` -- an address; ``off`` is a z3 bit-vector over the
  symbols ``n``, ``k`` and alignment unknowns;
* ``Int(v)`` -- an integer (a count, a loaded capability word), exact z3
  bit-vector arithmetic;
* ``Opq(name)`` -- an entry value that may only be moved (callee-saved
  registers, the return address); ``DataPair`` (two data words) and
  ``Choice`` (one of two addresses) are moved the same way;
* anything else is a data value of the executor's domain.

``Refused`` is a path's end at something not modelled (its message names the
instruction, address and line; its ``category`` says what kind of thing,
``CATEGORIES``); ``Violation`` one that breaks the contract (a write outside
the allowed memory, a return elsewhere than to the caller), category
``"contract"``. Every raise site gives its category: whoever decides on a
refusal reads the field, never the message.
``memory_key(off)`` splits an offset into (symbolic part, constant) so that
``data + 64*k + 12`` and ``data + 64*k + 16`` are 4 bytes apart.

Example: ``memory_key(BitVec("k", 64) * 64 + 12) == ("(bvmul #x...40 k)", 12)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import z3

from sha1opt.semantics.lift.decode import Decoded

MASK32 = 0xFFFFFFFF


# The region of an object a known function returns (``calls.Known``, ``string or null`` / ``pointer or null``: a
# path for the non-null pointer): not the caller's state, data or stack, never null, never written. A read-only
# string's region (getenv's) names the call and its count after ``STRING_MARK`` (``result:getenv@0x25#1``): its
# bytes read as unknowns of their own, the same at each read on the path (``memory``); any other's contents are
# not modelled. strchr's result points into its argument: a read-only string's region at an unknown offset.
RESULT_REGION = "result:"
STRING_MARK = "#"


def read_only_string(region: str) -> bool:
    """Whether ``region`` is a read-only string a known function returned (getenv's: ``result:getenv@0x25#1``):
    input the environment gives, never written, whose bytes the proof never relies on -- the one kind of object
    read at a computed offset (``memory``) and walked by a summarized loop (``summary``)."""
    return region.startswith(RESULT_REGION) and STRING_MARK in region


@dataclass(frozen=True)
class Ptr:
    region: str
    off: z3.BitVecRef


@dataclass(frozen=True)
class Int:
    v: z3.BitVecRef


@dataclass(frozen=True)
class Opq:
    name: str


@dataclass(frozen=True, eq=False)
class DataPair(Opq):
    """Two 32-bit data values in one 64-bit general register: (``lo``, ``hi``), bits 0-31 and 32-63, exact.

    gcc's vectorized copies move message words two at a time through a general
    register (``movq %xmm2, %rsi; mov %rsi, %rcx; movq %rcx, %xmm1``, or
    ``mov 0x10(%rsi), %rcx``). Such a value is only moved: as an ``Opq`` (its
    name holds "[") every rule that refuses computing on an opaque value
    refuses it; it is taken apart exactly where the bits are known -- into a
    vector register (two lanes), stored (two words), read as 32 bits (``lo``).
    Example: ``mov (%rsi), %rcx`` with %rsi = data gives ``DataPair(.., m0, m1)``;
    ``mov %ecx, %eax`` then reads m0."""

    lo: object = None
    hi: object = None


@dataclass(frozen=True, eq=False)
class Choice(Opq):
    """One of two addresses by a condition the path does not decide: ``then`` where ``cond`` holds, else
    ``other`` -- what a ``cmov`` between two pointers gives under the multi-buffer contract, where forking on
    every message's count would give 3^8 paths an iteration (``streams``).

    Such a value is only moved: as an ``Opq`` whose name holds "[" it is refused as an address and in any
    arithmetic; whoever knows more of the path condition takes it apart (``chosen``). Example: ``cmp
    (%rbx),%ecx; cmovge %rbp,%r8`` with %ecx = 1, %rbp the table and %r8 = msg0 + 64 gives ``Choice(1 >= c0,
    table, msg0 + 64)``; under ``c0 >= 2`` it is msg0 + 64."""

    cond: object = None
    then: object = None
    other: object = None

    # (one choice is itself only: ``Opq``'s equality compares names, and every choice has the same one)
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def chosen(v, decides):
    """``v`` with every ``Choice`` in it taken apart where ``decides(cond)`` (True, False, or None: undecided) says
    which arm holds; None where some choice is undecided."""
    while isinstance(v, Choice):
        d = decides(v.cond)
        if d is None:
            return None
        v = v.then if d else v.other
    return v


Category = Literal["untracked value", "instruction", "address", "control flow", "loop shape", "contract", "limit"]
# Why the executor (or the loop proof) stopped a path, one word for each kind of raise site:
CATEGORIES: dict[str, str] = {
    "untracked value": "the path mixes kinds of values: a pointer or count used as data, data used as an address, "
                       "a count or (the flags of a data instruction) a branch condition, a slot read at an offset "
                       "or size other than it was written, flags of no instruction -- what a wrong register, "
                       "displacement or operator precedence produces, so the code may be wrong",
    "instruction": "an instruction, operand form or condition code the semantics does not model",
    "address": "an address or memory region the executor does not model (relocated, PC-relative, absolute, a "
               "computed offset into the state or a section, an alignment it cannot prove)",
    "control flow": "control the executor does not follow (indirect or external calls and jumps, a computed "
                    "return, code outside the object, a branch on data or undefined flags)",
    "loop shape": "a loop the induction does not model (a step of no whole number of blocks <= MAX_BLOCKS)",
    "contract": "the path breaks the contract (a write outside its memory, a return elsewhere): a counterexample",
    "limit": "the path is longer than the step limit: unknown",
}


class Refused(Exception):
    """The path reached something the executor does not model; ``str`` names it, ``category`` classifies it.

    Example: ``Refused(d, "scaled pointer", "untracked value")`` at ``imul $4, %rsi`` reads
    ``scaled pointer at 0x12 (line 40) (`imul $4, %rsi`)``.
    """

    def __init__(self, d: Decoded | None, why: str, category: Category) -> None:
        at = f" at {d.where()} (`{d.text}`)" if d is not None else ""
        super().__init__(f"{why}{at}")
        self.decoded = d
        self.category: Category = category


class Violation(Refused):
    """The path breaks the contract: writes outside its memory, or returns somewhere other than the caller."""

    def __init__(self, d: Decoded | None, why: str) -> None:
        super().__init__(d, why, "contract")


@dataclass
class Flags:
    zf: z3.BoolRef | None
    sf: z3.BoolRef | None
    cf: z3.BoolRef | None
    of: z3.BoolRef | None
    data: bool = False          # flags of data: not modelled, a branch on them ends the path
    computed: bool = False      # (data) the flags of a data instruction (add, xor, ...), not a cmp/test of data


def stack_base(bits: int) -> z3.BitVecRef:
    """The entry stack pointer's address (``Ptr("stack", 0)``): one z3 constant, what stack alignments are about."""
    return z3.BitVec("stack_base", bits)


def trailing_bytes(bits: int) -> z3.BitVecRef:
    """The bytes of a byte-length argument past its whole blocks (``bytes = 64*n + r``, 0 <= r < 64): one z3
    constant, the same in every path of a proof (the contract's axiom bounds it)."""
    return z3.BitVec("r", bits)


def is_data(v) -> bool:
    return not isinstance(v, (Ptr, Int, Opq))


_SPLIT: dict[int, tuple] = {}


def memory_key(off: z3.BitVecRef) -> tuple[str, int]:
    """Canonical key of an offset: (symbolic part, constant part); cached per z3 AST."""
    hit = _SPLIT.get(off.get_id())
    if hit is not None and hit[0].eq(off):
        return hit[1]
    out = _split_uncached(off)
    if len(_SPLIT) > 200_000:
        _SPLIT.clear()
    _SPLIT[off.get_id()] = (off, out)
    return out


def _split_uncached(off: z3.BitVecRef) -> tuple[str, int]:
    s = z3.simplify(off)
    if z3.is_bv_value(s):
        return "", signed(s.as_long(), s.size())
    if z3.is_app_of(s, z3.Z3_OP_BADD):
        kids = s.children()
        const = [c for c in kids if z3.is_bv_value(c)]
        rest = [c for c in kids if not z3.is_bv_value(c)]
        if len(const) == 1:
            v = const[0].as_long()
            bits = s.size()
            v = v - (1 << bits) if v >> (bits - 1) else v
            return " + ".join(sorted(r.sexpr() for r in rest)), v
    return s.sexpr(), 0


def signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


