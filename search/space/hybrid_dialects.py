"""The hybrid family's vector dialects as data: one row per dialect, and the vector ops spelled by a row.

A dialect is how the hybrid block's vector stream (the W schedule in xmm,
``hybrid``) is written. Everything that differs between dialects is a field
of its ``Dialect`` row; the code that builds the W groups (``hybrid``,
``hybrid_w8``, ``hybrid_i386``) and the frames (``emit.hybrid_frame``,
``emit.hybrid_i386_frame``, ``emit.dispatch_text``) read the row and never
compare a dialect's name:

* ``feature`` -- the x86 feature the stream needs (``x86.required_isa``'s
  spelling, also the model's ``vector_isa`` spelling): which ``--isa`` caps
  allow the dialect (``hybrid_caps.vector_dialects``) and which models run it;
* ``three_operand`` -- VEX/EVEX ``vOP src, src2, dst``; else the legacy SSE
  two-operand form, with a ``movdqa src2, dst`` copy first when ``dst`` is not
  ``src2`` (``binop``, ``imm_op``, ``imm_binop``);
* ``rotate`` -- ``vprold $n`` for rol n; else shift, shift, or through a
  temporary (``rol``);
* ``ternlog`` -- ``vpternlogd $0x96`` for a three-way xor (the group code
  takes the shorter form and its own order when it is set);
* ``store`` -- the ring store's mnemonic (unaligned forms: ``hybrid_regs``);
* ``vzeroupper`` -- whether the function's exit clears the upper state
  (VEX/EVEX code does, so the caller's legacy SSE code pays no transition);
* ``blocks`` -- blocks per loop iteration: 1 (the schedule of one block in
  xmm), or 2 (``hybrid_pair``: two blocks' schedules in the two 128-bit
  halves of ymm registers, as OpenSSL's and libgcrypt's AVX2 paths; x86-64
  only, ``hybrid.pair_refusal``);
* ``k_copy`` -- a legacy-SSE K addition copies K and adds W (``add_k``:
  ``movdqa K, T; paddd W, T``) instead of copying W, with K in a table on
  the stack (i386: ``hybrid_i386``'s; x86-64: ``hybrid.k_in_memory``, read
  with ``movdqu``), so the copy is a load and not a vector ALU uop (one
  fewer per group: 20 a block -- nehalem prices OpenSSL's SSSE3 loop, which
  does the same, 333 cycles, and the register row's best 339; a CPU whose
  loads are dearer, Atom's port 0, prefers the plain row);
* ``shl1_add`` -- rol 1's left shift as ``paddd x, x`` (an add: every vector
  ALU port) instead of ``pslld $1`` (the shift port: Core 2's and Nehalem's
  p0, which the rol2 shifts and ``psrld`` also need).

Invariants: ``DIALECTS`` is ordered lowest first (a cap's highest allowed
dialect is its last); a row's name is ``HybridParams.isa`` and the store's
spelling, so it is never renamed; a new row is one entry here (``register``)
and nothing else changes -- ``tests/search/test_dialect_row.py`` adds one and
searches, proves and exports it.

Example: ``rol(dialect("ssse3"), 1, x, x, b)`` is ``movdqa x, b; psrld $31, b;
pslld $1, x; por b, x``; on ``avx`` it is ``vpsrld $31, x, b; vpslld $1, x, x;
vpor b, x, x``; on ``avx512vl`` ``vprold $1, x, x``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Reg


@dataclass(frozen=True)
class Dialect:
    """One row of the dialect table (module docstring)."""

    name: str                 # HybridParams.isa, the key's ``isa=`` and the store's spelling
    feature: str              # the x86 feature the vector stream needs
    three_operand: bool       # VEX/EVEX three-operand forms (else legacy SSE two-operand)
    rotate: bool              # vprold for rol (else shift/shift/or)
    ternlog: bool             # vpternlogd $0x96 for a three-way xor
    store: str                # the W+K ring store
    vzeroupper: bool          # vzeroupper before the function returns
    blocks: int = 1           # blocks per loop iteration: 2 = ymm, a block in each 128-bit half (``hybrid_pair``)
    k_copy: bool = False      # K copied, W added (``add_k``): a load of the K table on the stack
    shl1_add: bool = False    # rol 1's left shift as paddd x, x (``rol``)

    @property
    def arches(self) -> tuple[str, ...]:
        """The arches the dialect's blocks are built for: a two-block row needs x86-64's 16 vector registers and
        the frame's block-2 pointer (``hybrid_pair``)."""
        return ("x86_64",) if self.blocks > 1 else ("x86_64", "i386")

    def mnemonic(self, legacy: str) -> str:
        """The dialect's spelling of a legacy SSE mnemonic: ``pxor`` -> ``vpxor`` in three-operand dialects."""
        return "v" + legacy if self.three_operand else legacy


DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    # (ssse3k before ssse3: a cap's top row, what export writes without a model, stays the plain one)
    Dialect("ssse3k", "ssse3", three_operand=False, rotate=False, ternlog=False, store="movdqu", vzeroupper=False,
            k_copy=True, shl1_add=True),
    Dialect("ssse3", "ssse3", three_operand=False, rotate=False, ternlog=False, store="movdqu", vzeroupper=False),
    Dialect("avx", "avx", three_operand=True, rotate=False, ternlog=False, store="vmovdqu", vzeroupper=True),
    Dialect("avx2x2", "avx2", three_operand=True, rotate=False, ternlog=False, store="vmovdqu", vzeroupper=True,
            blocks=2),
    Dialect("avx512vl", "avx512vl", three_operand=True, rotate=True, ternlog=True, store="vmovdqu", vzeroupper=True),
    Dialect("avx512vlx2", "avx512vl", three_operand=True, rotate=True, ternlog=True, store="vmovdqu",
            vzeroupper=True, blocks=2),
)}


def dialects() -> tuple[Dialect, ...]:
    """Every row, lowest first (read at call time: a row ``register``-ed later is included)."""
    return tuple(DIALECTS.values())


def dialect_names() -> tuple[str, ...]:
    return tuple(DIALECTS)


def dialect(name: str) -> Dialect:
    """The row named ``name``, or ``Sha1optError`` naming the known ones."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise Sha1optError(f"unknown hybrid ISA {name!r} (known: {', '.join(DIALECTS)})") from None


def register(row: Dialect) -> None:
    """Add a dialect as the highest row (a test's throwaway row; a new dialect is a literal row above)."""
    if row.name in DIALECTS:
        raise Sha1optError(f"dialect {row.name!r} is already a row")
    if row.ternlog and not row.three_operand:
        raise Sha1optError("vpternlogd has no two-operand form")
    if row.blocks not in (1, 2) or (row.blocks == 2 and not row.three_operand):
        raise Sha1optError("a dialect hashes 1 block an iteration, or 2 in ymm (a VEX/EVEX row)")
    if row.k_copy and row.three_operand:
        raise Sha1optError("k_copy is a legacy-SSE choice: VEX/EVEX adds K from memory in one instruction")
    DIALECTS[row.name] = row


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def binop(d: Dialect, legacy: str, src, src2: Reg, dst: Reg) -> list[Instr]:
    """``dst = src2 OP src``: ``vOP src, src2, dst``, or ``[movdqa src2, dst;] OP src, dst``."""
    if d.three_operand:
        return [_i(d.mnemonic(legacy), src, src2, dst)]
    return ([] if src2 == dst else [_i("movdqa", src2, dst)]) + [_i(legacy, src, dst)]


def add_k(d: Dialect, k, w: Reg, dst: Reg) -> list[Instr]:
    """``dst = w + K`` (``binop``'s ``paddd``); a ``k_copy`` row copies K first: ``movdqa k, dst; paddd w, dst``."""
    if d.k_copy and w != dst:
        return [_i("movdqa", k, dst), _i("paddd", w, dst)]
    return binop(d, "paddd", k, w, dst)


def imm_op(d: Dialect, legacy: str, n: int, src: Reg, dst: Reg) -> list[Instr]:
    """``dst = src OP $n`` (shifts): ``vOP $n, src, dst``, or ``[movdqa src, dst;] OP $n, dst``."""
    if d.three_operand:
        return [_i(d.mnemonic(legacy), Imm(n), src, dst)]
    return ([] if src == dst else [_i("movdqa", src, dst)]) + [_i(legacy, Imm(n), dst)]


def imm_binop(d: Dialect, legacy: str, n: int, src, src2: Reg, dst: Reg) -> list[Instr]:
    """``dst = OP $n of (src2 : src)`` (``palignr``): ``vOP $n, src, src2, dst``, or ``[movdqa src2, dst;] OP $n,
    src, dst``."""
    if d.three_operand:
        return [_i(d.mnemonic(legacy), Imm(n), src, src2, dst)]
    return ([] if src2 == dst else [_i("movdqa", src2, dst)]) + [_i(legacy, Imm(n), src, dst)]


def rol(d: Dialect, n: int, src: Reg, dst: Reg, temp: Reg) -> list[Instr]:
    """``dst = rol n of src`` lane by lane: ``vprold``, or shift right into ``temp``, shift left (``shl1_add``:
    by 1 as ``paddd``), or."""
    if d.rotate:
        return [_i("vprold", Imm(n), src, dst)]
    left = binop(d, "paddd", src, src, dst) if n == 1 and d.shl1_add else imm_op(d, "pslld", n, src, dst)
    return imm_op(d, "psrld", 32 - n, src, temp) + left + binop(d, "por", temp, dst, dst)


def ternlog(d: Dialect, src, src2: Reg, dst: Reg) -> list[Instr]:
    """``dst ^= src ^ src2`` in one ``vpternlogd $0x96`` (only a ``ternlog`` row has it)."""
    if not d.ternlog:
        raise Sha1optError(f"dialect {d.name} has no vpternlogd")
    return [_i("vpternlogd", Imm(0x96), src, src2, dst)]


def load(d: Dialect, src, dst: Reg) -> list[Instr]:
    """An unaligned 16-byte load."""
    return [_i(d.mnemonic("movdqu"), src, dst)]


def store(d: Dialect, src: Reg, dst) -> list[Instr]:
    """A W+K ring (or history) store."""
    return [_i(d.store, src, dst)]
