"""Two blocks per loop iteration: the hybrid schedule of a pair of blocks in the two 128-bit halves of ymm.

A two-block dialect (a ``hybrid_dialects`` row with ``blocks=2``: ``avx2x2``,
``avx512vlx2``) writes the vector stream of ``hybrid`` on ymm registers, as
OpenSSL's and libgcrypt's AVX2 paths do: the low half of every register
carries block 1's words (at ``%rsi``), the high half block 2's (at
``PAIR_PTR``, ``%r15``, which the frame sets to ``%rsi + 64``, or to ``%rsi``
itself when one block is left: the odd-block tail runs the same code with the
high half a copy, never read). Every op of the rol1 recurrence (``vpalignr``,
``vpsrldq``, ``vpslldq``, the shifts, xors and adds) works on each 128-bit
half on its own, so the recurrence of ``hybrid``'s docstring holds in each
half; the loads are ``vmovdqu 16j(%rsi), %xmmW; vinserti128 $1, 16j(%r15),
%ymmW, %ymmW``, the constants (K and the byte-swap mask) are broadcast to
both halves once in the setup (``vinserti128 $1, %xmmK, %ymmK, %ymmK``).

No ring: W+K of both blocks for all 80 rounds is stored, group g (words
4g..4g+3) as one 32-byte store at ``32g(%rsp)`` -- block 1's four words at
``32g``, block 2's at ``32g + 16`` (``pair_slot``; ``AREA`` = 640 bytes). The
iteration is::

    block 1: load a..e, groups 0-3 (loads), rounds 0-79 reading pair_slot(t, 0)
             with groups 4-19 interleaved (``hybrid.interleave``), feed-forward
    block 2: load a..e, rounds 0-79 reading pair_slot(t, 1), feed-forward

(the frame, ``emit.hybrid_frame``, leaves after block 1 when it was the last). With read-ahead
(``HybridParams.ahead``, the ``hybrid_forms`` rounds, which leave %r12-%r15 free) the schedule is
software-pipelined as OpenSSL's AVX2 loop: block 2's rounds also compute the *next* pair's groups
0..``SPLIT``-1 (``after_reads``: each group's store after block 2 read its half of those slots), loaded
through ``NEXT_LOW`` / ``NEXT_HIGH`` (``%r13`` = ``%rsi + 128``, ``%r14`` = ``%rsi + 192``, each clamped by
the count to a block that exists), and block 1's rounds the groups ``SPLIT``..19; the setup computes the
first pair's groups 0..``SPLIT``-1 (block 2 through ``FIRST_PTR``). So both blocks' rounds carry vector
work, and the rol2 recurrence (``hybrid_w8``, eight ymm registers) proves whole: the loop head holds the
pair's schedule words.
The whole-function prover proves that loop with the two-block invariant
(``semantics.lift.multiblock``: block 2's W+K on the stack after block 1's
compression are head values of the next block). The block proofs of the search
(``hybrid_proof``) prove two units, each one compression of the block at
``%rsi`` with ``PAIR_PTR = %rsi`` (both halves the same block): ``units[0]``
block 1's code, ``units[1]`` the loads, groups and block 2's rounds (reading
the high halves).

Example: ``pair_slot(5, 1)`` is ``48(%rsp)`` (group 1, block 2's half, word 1).
"""

from __future__ import annotations

from typing import Callable

from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg
from sha1opt.search.space.hybrid_dialects import Dialect, add_k, binop, store
from sha1opt.search.space.hybrid_regs import DATA, K_REGS, MASK, SP

PAIR_PTR = Reg("r15d", 64)        # block 2's data pointer (the frame's clamp); free until the rounds start
AREA = 640                         # W+K of two blocks, 80 words each
HALF = 16                          # block 2's words sit 16 bytes after block 1's in each 32-byte group
NEXT_LOW, NEXT_HIGH = Reg("r13d", 64), Reg("r14d", 64)   # with read-ahead: the next pair's two blocks
# with read-ahead: the first pair's block 2 (before the loop; the rounds overwrite %edx, so the loop head's
# invariant holds nothing of it -- in %r15 it would be a pointer the head keeps, at +64 or +0 by the count)
FIRST_PTR = Reg("edx", 64)
SPLIT = 10                         # with read-ahead: groups 0..9 of the next pair during block 2, 10..19 during 1
PAIR_COUNT = AREA                  # the frame's block count, above the area
PAIR_FRAME = AREA + 8              # the frame's bytes below the pushes: 8 mod 16 (``emit.hybrid_frame``)


def pair_slot(t: int, half: int) -> Mem:
    """The stack word holding W_t + K_t of block ``half`` (0: block 1, 1: block 2)."""
    return Mem(SP, None, 1, 32 * (t // 4) + HALF * half + 4 * (t % 4))


def _wide(op):
    return Reg(op.name, 256) if isinstance(op, Reg) and op.width == 128 else op


def widen(ins: Instr) -> Instr:
    """``ins`` on ymm: every xmm operand as the ymm register of the same number."""
    return Instr(ins.mnemonic, tuple(_wide(o) for o in ins.operands), ins.line)


def pair_setup(constants: tuple[Instr, ...]) -> tuple[Instr, ...]:
    """``constants`` (``hybrid.constant_setup``: K and the mask in the low halves), then each copied into the
    high half."""
    return constants + tuple(Instr("vinserti128", (Imm(1), r, Reg(r.name, 256), Reg(r.name, 256)))
                             for r in K_REGS + (MASK,))


def pair_load_ops(j: int, d: Dialect, w: Reg, temp: Reg, ptr: Reg = PAIR_PTR, low: Reg = DATA) -> list[Instr]:
    """Group j < 4 of both blocks: block 1's words 4j..4j+3 (``16j(low)``) in the low half, block 2's
    (``16j(ptr)``) in the high half, byte-swapped, and their W+K stored at ``pair_slot(4j, 0)``."""
    wy, ty = Reg(w.name, 256), Reg(temp.name, 256)
    out = [Instr("vmovdqu", (Mem(low, None, 1, 16 * j), w)),
           Instr("vinserti128", (Imm(1), Mem(ptr, None, 1, 16 * j), wy, wy))]
    out += [widen(i) for i in binop(d, "pshufb", MASK, w, w) + add_k(d, K_REGS[0], w, temp)]
    return out + [widen(i) for i in store(d, ty, pair_slot(4 * j, 0))]


def wide_group(ops: list[Instr], g: int) -> list[Instr]:
    """A group of ``hybrid.group_ops`` (xmm, its W+K into the ring) on ymm, its store at ``pair_slot(4g, 0)``."""
    return [Instr(i.mnemonic, tuple(pair_slot(4 * g, 0) if isinstance(o, Mem) and o.base == SP else _wide(o)
                                    for o in i.operands), i.line) for i in ops]


def retarget(code: list[Instr], rounds: list[int], half: int) -> list[Instr]:
    """The scalar rounds with each ring read (``wk_slot(t)``: ``4*(t mod 16)(%rsp)``) reading
    ``pair_slot(t, half)``: t is the round congruent to the slot nearest the op's round (an early
    addition reads a round or two ahead of the op's tag)."""
    out = []
    for ins, r in zip(code, rounds):
        ops = ins.operands
        if ins.mnemonic == "add" and ops and isinstance(ops[0], Mem) and ops[0].base == SP:
            t = r + ((ops[0].disp // 4 - r + 8) % 16 - 8)
            ins = Instr(ins.mnemonic, (pair_slot(t, half),) + ops[1:], ins.line)
        out.append(ins)
    return out


def clamp_self(ptr: Reg = PAIR_PTR) -> Instr:
    """``ptr = %rsi``: the one-block case (what the block proofs and the odd tail run)."""
    return Instr("lea", (Mem(DATA, None, 1, 0), ptr))


def merge_after_reads(rounds: list[Instr], stream: list[tuple[int, Instr]], every: int,
                      group_of: Callable[[int], int]) -> list[Instr]:
    """Merge ``stream`` (the next block's ``(group, op)`` in order) into ``rounds``: one op after every ``every``
    ops of ``rounds``; an op storing group g waits for the rounds' last ``add`` reading a stack slot of group g
    (``group_of(displacement)``), so the rounds read their own W+K there. The one merge of read-ahead:
    ``hybrid.read_ahead`` (one block, 16-byte groups) and ``after_reads`` (a pair's block 2, 32-byte groups)."""
    last: dict[int, int] = {}
    for p, ins in enumerate(rounds):
        m = ins.operands[0] if ins.mnemonic == "add" and ins.operands else None
        if isinstance(m, Mem) and m.base == SP:
            last[group_of(m.disp)] = p

    def ready(q: int, p: int) -> bool:
        g, ins = stream[q]
        return not isinstance(ins.operands[-1], Mem) or last.get(g, -1) <= p

    out: list[Instr] = []
    q = since = 0
    for p, ins in enumerate(rounds):
        out.append(ins)
        since += 1
        if since >= every and q < len(stream) and ready(q, p):
            out.append(stream[q][1])
            q += 1
            since = 0
    return out + [ins for _, ins in stream[q:]]


def after_reads(scalar: list[Instr], stream: list[tuple[int, Instr]], every: int) -> list[Instr]:
    """Merge ``stream`` (the next pair's ``(group, op)`` in order) into block 2's rounds ``scalar``
    (``merge_after_reads``): a store of group g waits for block 2's last read of ``pair_slot(4g..4g+3, 1)``.
    Example: with ``every=1`` the store of group 0 lands after round 3's ``add`` of slot 3 and everything
    before it one op per round op."""
    return merge_after_reads(scalar, stream, every, lambda disp: disp // 32)


def pair_parts(d: Dialect, ahead: bool, every: int, constants: tuple[Instr, ...], load: list[Instr],
               groups: dict[int, list[Instr]], first: list[Instr], second: list[Instr], epi: list[Instr],
               merge, w_regs: tuple[Reg, ...], temp: Reg):
    """(setup, body, main, units, vector ops) of a two-block block (module docstring): ``groups`` the ymm
    groups 4..19 (``wide_group``), ``first``/``second`` the rounds reading each half (``retarget``),
    ``merge(rounds, groups)`` the interleaver of block 1's rounds (``hybrid.interleave``).

    With ``ahead`` the next pair's groups 0..``SPLIT``-1 run during block 2's rounds (``after_reads``,
    loads from ``NEXT_LOW`` / ``NEXT_HIGH``), groups ``SPLIT``..19 during block 1's; the setup computes the
    first pair's groups 0..``SPLIT``-1."""
    head = [ins for j in range(4) for ins in pair_load_ops(j, d, w_regs[j], temp, FIRST_PTR if ahead else PAIR_PTR)]
    setup = pair_setup(constants)
    nvec = len(head) + sum(len(v) for v in groups.values())
    if not ahead:
        body = tuple(load + head + merge(first, groups) + epi)
        main = tuple(load + second + epi)
        schedule = tuple(load + head + [ins for g in range(4, 20) for ins in groups[g]] + second + epi)
        return setup, body, main, (setup + (clamp_self(),) + body, setup + (clamp_self(),) + schedule), nvec
    early = head + [ins for g in range(4, SPLIT) for ins in groups[g]]
    late = {g: (groups[g] if g >= SPLIT else []) for g in range(4, 20)}
    stream = [(j, ins) for j in range(4) for ins in pair_load_ops(j, d, w_regs[j], temp, NEXT_HIGH, NEXT_LOW)]
    stream += [(g, ins) for g in range(4, SPLIT) for ins in groups[g]]
    body = tuple(load + merge(first, late) + epi)
    main = tuple(load + after_reads(second, stream, every) + epi)
    pre = setup + (clamp_self(FIRST_PTR),) + tuple(early)
    units = (pre + body, pre + tuple(ins for g in range(SPLIT, 20) for ins in groups[g])
             + (clamp_self(NEXT_LOW), clamp_self(NEXT_HIGH)) + main)
    return setup + tuple(early), body, main, units, nvec
