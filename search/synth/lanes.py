"""Lanes: the abstraction the enumerator runs on, packed so numpy evaluates millions of states at once.

A ``Lane`` is one assignment of the input variables plus a width ``w``: the
lane observes the low ``w`` bits of every register. Lanes are packed into
``uint64`` words (``Layout``) and ``PackedDomain`` implements the IR's ops on
the packed cells (SWAR add/sub as in Hacker's Delight, 2nd ed., section
2-18; masked shifts), so the one x86 semantics table (``x86.SEMANTICS``, run
by ``machine.Machine``) evaluates an instruction on every lane of every
state in one numpy call.

Why narrow lanes are exact. ``w < 32`` is allowed only when every op of the
vocabulary is a *T-function* (Klimov and Shamir, CHES 2002: bit k of a
result depends only on bits <= k of the operands -- add sub and or xor not
andn, lea with scale 1, shl; ``T_FUNCTION_MNEMONICS``); then truncating to w
bits commutes with every instruction. Rotates, right shifts and bswap force
``w = 32``. The abstraction of a machine state is the tuple of its
registers' cells; ``alpha(i(S)) = i(alpha(S))`` for every instruction i of
the vocabulary.

Example: ``Layout([Lane((0,), 1), Lane((0,), 3)]).pack([0xF, 0x3])`` is the
one word ``0b0111``: lane 0 at bit 0 (the low bit of 0xF), lane 1 at bits
1..3 (0b011); ``PackedDomain.op_add`` on such words adds each cell modulo
its own width, never carrying from lane 0 into lane 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sha1opt.semantics.domain import Domain, NumpyDomain
from sha1opt.semantics.errors import Sha1optError, UnsupportedError
from sha1opt.semantics.ir import MASK32

U64 = np.uint64

# Ops whose result bit k depends only on operand bits <= k; narrow lanes are
# exact for them (see the module docstring).
T_FUNCTION_MNEMONICS = frozenset({"mov", "add", "sub", "and", "or", "xor", "not", "andn", "lea", "shl"})


@dataclass(frozen=True)
class Lane:
    """One test input (a 32-bit value per variable, in ``Space.variables`` order), seen ``width`` bits wide."""

    inputs: tuple[int, ...]
    width: int

    def __post_init__(self) -> None:
        if not 1 <= self.width <= 32:
            raise Sha1optError(f"lane width {self.width} is outside 1..32")


class Layout:
    """Packs lanes into uint64 words: lane i occupies ``width`` bits at ``offset[i]`` of ``word[i]``.

    Invariant: no cell straddles a word, so SWAR arithmetic never carries
    from one lane into the next.
    """

    def __init__(self, lanes: Sequence[Lane]) -> None:
        if not lanes:
            raise Sha1optError("a layout needs at least one lane")
        self.lanes = tuple(lanes)
        self.word: list[int] = []
        self.offset: list[int] = []
        w, pos = 0, 0
        for lane in self.lanes:
            if pos + lane.width > 64:
                w, pos = w + 1, 0
            self.word.append(w)
            self.offset.append(pos)
            pos += lane.width
        self.nwords = w + 1
        self.cell = self._mask(lambda lane: (1 << lane.width) - 1)
        self.high = self._mask(lambda lane: 1 << (lane.width - 1))
        self.low = self.cell & ~self.high
        self.full_width = all(lane.width == 32 for lane in self.lanes)

    def _mask(self, per_lane) -> np.ndarray:
        out = [0] * self.nwords
        for i, lane in enumerate(self.lanes):
            out[self.word[i]] |= per_lane(lane) << self.offset[i]
        return np.array(out, dtype=U64)

    def mask_bits(self, lo: int, hi: int) -> np.ndarray:
        """Per cell, bits lo..hi-1 of the cell (clipped to its width)."""
        def bits(lane: Lane) -> int:
            a, b = min(lo, lane.width), min(hi, lane.width)
            return ((1 << b) - (1 << a)) if b > a else 0
        return self._mask(bits)

    def pack(self, values: Sequence[int]) -> np.ndarray:
        """One value per lane -> words (each value truncated to its lane's width)."""
        out = [0] * self.nwords
        for i, (lane, v) in enumerate(zip(self.lanes, values)):
            out[self.word[i]] |= (int(v) & ((1 << lane.width) - 1)) << self.offset[i]
        return np.array(out, dtype=U64)

    def unpack(self, words: np.ndarray) -> list[int]:
        ws = [int(x) for x in np.asarray(words).reshape(-1)]
        return [(ws[self.word[i]] >> self.offset[i]) & ((1 << lane.width) - 1)
                for i, lane in enumerate(self.lanes)]


class PackedDomain(Domain):
    """The IR's ops on packed lane cells (arrays ``(..., nwords)`` of uint64); agrees with ``NumpyDomain``
    on every lane's low ``width`` bits (``tests/test_synth.py`` checks each op).

    Shift and rotate counts must be constants made by ``const`` (the
    vocabulary only has immediate counts); rotates, ``shr`` and ``bswap``
    need 32-bit lanes.
    """

    name = "packed"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._consts: dict[int, np.ndarray] = {}
        self._const_of_id: dict[int, int] = {}
        self._masks: dict[tuple[int, int], np.ndarray] = {}

    def const(self, value: int) -> np.ndarray:
        value &= MASK32
        arr = self._consts.get(value)
        if arr is None:
            arr = self.layout.pack([value] * len(self.layout.lanes))
            self._consts[value] = arr
            self._const_of_id[id(arr)] = value
        return arr

    def _count(self, n) -> int:
        v = self._const_of_id.get(id(n))
        if v is None:
            raise UnsupportedError("packed domain: shift and rotate counts must be immediates")
        return v & 31

    def _bits(self, lo: int, hi: int) -> np.ndarray:
        key = (lo, hi)
        if key not in self._masks:
            self._masks[key] = self.layout.mask_bits(lo, hi)
        return self._masks[key]

    def _need_full(self, op: str) -> None:
        if not self.layout.full_width:
            raise UnsupportedError(f"packed domain: {op} needs 32-bit lanes")

    def op_add(self, x, y):
        lo, hi = self.layout.low, self.layout.high
        return ((x & lo) + (y & lo)) ^ ((x ^ y) & hi)

    def op_sub(self, x, y):
        lo, hi = self.layout.low, self.layout.high
        return (((x | hi) - (y & lo)) ^ ((x ^ ~y) & hi)) & self.layout.cell

    def op_and(self, x, y): return x & y
    def op_or(self, x, y): return x | y
    def op_xor(self, x, y): return x ^ y
    def op_not(self, x): return x ^ self.layout.cell

    def op_neg(self, x):
        return self.op_sub(np.zeros_like(self.layout.cell), x)

    def op_shl(self, x, n):
        k = self._count(n)
        return (x << U64(k)) & self._bits(k, 32) if k else x

    def op_shr(self, x, n):
        self._need_full("shr")
        k = self._count(n)
        return (x >> U64(k)) & self._bits(0, 32 - k) if k else x

    def op_rol(self, x, n):
        self._need_full("rol")
        k = self._count(n)
        if k == 0:
            return x
        return ((x << U64(k)) & self._bits(k, 32)) | ((x >> U64(32 - k)) & self._bits(0, k))

    def op_ror(self, x, n):
        return self.op_rol(x, self.const((32 - self._count(n)) & 31))

    def op_bswap(self, x):
        self._need_full("bswap")
        b0, b1 = self._bits(0, 8), self._bits(8, 16)
        return ((x & b0) << U64(24)) | ((x & b1) << U64(8)) | ((x >> U64(8)) & b1) | ((x >> U64(24)) & b0)


class LaneEval(Domain):
    """The target's value in every lane: Python lists of exact 32-bit values, computed by ``NumpyDomain``."""

    name = "lanes"

    def const(self, value):
        return value

    def apply(self, op, *args):
        n = max(len(a) for a in args if isinstance(a, list))
        arrs = [np.array(a, dtype=np.uint32) if isinstance(a, list) else np.full(n, a, dtype=np.uint32)
                for a in args]
        return [int(x) for x in NumpyDomain(n).apply(op, *arrs)]
