"""Value domains: where the ops of the term IR and the x86 table get their meaning.

A domain turns the IR's op names (``ir.ARITY``) into operations on its own
values. Three domains exist, and *everything* that computes -- the term
evaluator, the x86 semantics table, the SHA-1 spec -- is written once against
this interface:

* ``Z3Domain``    -- symbolic 32-bit bit-vectors in one ``z3.Context``
                     (each prover / worker owns its own context);
* ``NumpyDomain`` -- ``uint32`` arrays of ``lanes`` random states at once:
                     the test-case prefilter, thousands of states per call;
* ``TermDomain``  -- builds IR terms (symbolic execution into the DAG).

Invariant: for every op, all three agree bit for bit on every input
(``tests/test_semantics.py`` checks it on random states) -- except the ops of
``ir.UNINTERPRETED_IN_Z3`` (AES-NI's rounds) in Z3, which reads them as
uninterpreted functions: numpy and terms stay exact for them, and a Z3 proof
over them holds for AES because it holds for every function (see
``Z3Domain``). Shift and rotate
counts are masked to 5 bits, as x86 does (``ir.py``). ``constant(x)`` says
whether a value is a known constant (a Z3 literal, a ``const`` term, numpy
lanes that all hold one value): the vector rows need it where x86 itself
only takes constants (``pshufb``'s mask, see ``vector.py``).
"""

from __future__ import annotations

import numpy as np
import z3

from sha1opt.semantics.aes import keyless_lane
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import ARITY, MASK32, UNINTERPRETED_IN_Z3, Builder, Term


class Domain:
    """Interface: ``const``, ``var`` and ``apply(op, *args)`` over one value type."""

    name = "abstract"

    def const(self, value: int):  # pragma: no cover - interface
        raise NotImplementedError

    def constant(self, x) -> int | None:  # pragma: no cover - interface
        """``x``'s value when it is the same known constant in every state, else None."""
        raise NotImplementedError

    def apply(self, op: str, *args):
        fn = getattr(self, "op_" + op, None)
        if fn is None or ARITY.get(op) != len(args):
            raise Sha1optError(f"domain {self.name} has no op {op!r}/{len(args)}")
        return fn(*args)


class Z3Domain(Domain):
    """32-bit Z3 bit-vectors in a private context; the AES ops are uninterpreted functions.

    Each op of ``ir.UNINTERPRETED_IN_Z3`` is a ``z3.Function`` of four 32-bit
    lanes to one, named after the op and declared in this domain's context
    (Z3 identifies a declaration by name and sort, so every domain on one
    context shares it). Why: exact AES would bit-blast 16 S-boxes per round
    and no query would finish; and a proof that ``lhs == rhs`` holds for
    *every* function holds for AES in particular, so proofs stay sound.
    The other direction does not hold: a model (a "counterexample") may pick
    a function AES is not, so it is a candidate that only running the code
    (numpy, natively) confirms -- ``prove.Prover`` does exactly that. Example:
    ``aesr0(a ^ b, c, d, e) ^ k == aesr0(b ^ a, c, d, e) ^ k`` is proved (the
    arguments are equal); ``aesl0(0, 0, 0, 0) == 0x63636363`` is true of AES
    (SubBytes(0) is 0x63 in every byte) but not proved: Z3's model of the
    difference gives ``aesl0`` another value there, a candidate numpy refutes.
    """

    name = "z3"

    def __init__(self, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx if ctx is not None else z3.Context()
        self._functions: dict[str, z3.FuncDeclRef] = {}

    def _uninterpreted(self, op: str, lanes):
        fn = self._functions.get(op)
        if fn is None:
            if op not in UNINTERPRETED_IN_Z3:  # pragma: no cover - misuse
                raise Sha1optError(f"{op!r} is not read as uninterpreted")
            bv = z3.BitVecSort(32, self.ctx)
            fn = self._functions[op] = z3.Function(op, bv, bv, bv, bv, bv)
        return fn(*lanes)

    def const(self, value: int):
        return z3.BitVecVal(value & MASK32, 32, self.ctx)

    def var(self, name: str):
        return z3.BitVec(name, 32, self.ctx)

    def constant(self, x) -> int | None:
        return x.as_long() if z3.is_bv_value(x) else None

    @staticmethod
    def _count(n):
        """A rotate/shift count: a Python int when it is a literal (nicer terms)."""
        if z3.is_bv_value(n):
            return n.as_long() & 31
        return n & 31

    def op_add(self, x, y): return x + y
    def op_sub(self, x, y): return x - y
    def op_and(self, x, y): return x & y
    def op_or(self, x, y): return x | y
    def op_xor(self, x, y): return x ^ y
    def op_not(self, x): return ~x
    def op_neg(self, x): return -x

    def op_shl(self, x, n):
        k = self._count(n)
        return x << (self.const(k) if isinstance(k, int) else k)

    def op_shr(self, x, n):
        k = self._count(n)
        return z3.LShR(x, self.const(k) if isinstance(k, int) else k)

    def op_rol(self, x, n):
        k = self._count(n)
        if isinstance(k, int):
            return z3.RotateLeft(x, k) if k else x
        return z3.RotateLeft(x, k)

    def op_ror(self, x, n):
        k = self._count(n)
        if isinstance(k, int):
            return z3.RotateRight(x, k) if k else x
        return z3.RotateRight(x, k)

    def op_bswap(self, x):
        return z3.Concat(*(z3.Extract(8 * i + 7, 8 * i, x) for i in range(4)))

    def op_gts(self, x, y):
        return z3.If(x > y, self.const(0xFFFFFFFF), self.const(0))

    def op_aesr0(self, *s): return self._uninterpreted("aesr0", s)
    def op_aesr1(self, *s): return self._uninterpreted("aesr1", s)
    def op_aesr2(self, *s): return self._uninterpreted("aesr2", s)
    def op_aesr3(self, *s): return self._uninterpreted("aesr3", s)
    def op_aesl0(self, *s): return self._uninterpreted("aesl0", s)
    def op_aesl1(self, *s): return self._uninterpreted("aesl1", s)
    def op_aesl2(self, *s): return self._uninterpreted("aesl2", s)
    def op_aesl3(self, *s): return self._uninterpreted("aesl3", s)


class NumpyDomain(Domain):
    """``uint32`` arrays of shape ``(lanes,)``; arithmetic wraps mod 2**32."""

    name = "numpy"

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes

    def const(self, value: int):
        return np.full(self.lanes, value & MASK32, dtype=np.uint32)

    def constant(self, x) -> int | None:
        # Concrete lanes: a constant is a value every lane (state) shares.
        return int(x[0]) if len(x) and bool(np.all(x == x[0])) else None

    @staticmethod
    def _k(n):
        return n & np.uint32(31)

    def op_add(self, x, y): return x + y
    def op_sub(self, x, y): return x - y
    def op_and(self, x, y): return x & y
    def op_or(self, x, y): return x | y
    def op_xor(self, x, y): return x ^ y
    def op_not(self, x): return ~x
    def op_neg(self, x): return np.uint32(0) - x
    def op_shl(self, x, n): return x << self._k(n)
    def op_shr(self, x, n): return x >> self._k(n)

    def op_rol(self, x, n):
        k = self._k(n)
        # (32 - k) & 31 keeps the right shift in range when k == 0 (then x|x).
        return (x << k) | (x >> ((np.uint32(32) - k) & np.uint32(31)))

    def op_ror(self, x, n):
        k = self._k(n)
        return (x >> k) | (x << ((np.uint32(32) - k) & np.uint32(31)))

    def op_bswap(self, x):
        return x.byteswap()

    def op_gts(self, x, y):
        return np.where(x.view(np.int32) > y.view(np.int32), np.uint32(0xFFFFFFFF), np.uint32(0)).astype(np.uint32)

    # AES-NI's keyless rounds, exact (``aes.keyless_lane``: each op computes its own column)
    def op_aesr0(self, *s): return keyless_lane(s, 0, True)
    def op_aesr1(self, *s): return keyless_lane(s, 1, True)
    def op_aesr2(self, *s): return keyless_lane(s, 2, True)
    def op_aesr3(self, *s): return keyless_lane(s, 3, True)
    def op_aesl0(self, *s): return keyless_lane(s, 0, False)
    def op_aesl1(self, *s): return keyless_lane(s, 1, False)
    def op_aesl2(self, *s): return keyless_lane(s, 2, False)
    def op_aesl3(self, *s): return keyless_lane(s, 3, False)


class TermDomain(Domain):
    """Builds terms: running x86 code here yields the formula it computes."""

    name = "term"

    def __init__(self, builder: Builder | None = None) -> None:
        self.builder = builder if builder is not None else Builder()

    def const(self, value: int) -> Term:
        return self.builder.const(value)

    def var(self, name: str) -> Term:
        return self.builder.var(name)

    def constant(self, x: Term) -> int | None:
        n = x.node
        return n.payload if n.op == "const" else None  # type: ignore[return-value]

    def apply(self, op: str, *args) -> Term:
        return self.builder.node(op, args)
