"""GNU-as text of a whole ``sha1_block_data_order`` around a ``HybridBlock`` (x86-64, SysV).

    void sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks);

Frame: ``nblocks == 0`` returns at once; rbx, rbp and r12-r15 are pushed
and ``frame_bytes`` allocated (``FRAME``; a ``k_copy`` row's ``K_FRAME``). The SysV ABI has
``%rsp`` = 8 mod 16 at entry (the call pushed the return address onto a 16-aligned stack); six
pushes keep it 8 mod 16 and ``FRAME`` = 8 mod 16 makes it 16-aligned, so
the W+K ring at 0..63 is 16-aligned (its stores are the unaligned forms, each
dialect row's ``store`` in ``hybrid_dialects``, which cost the same there: the
whole-function prover knows the stack aligned only after an ``and $-N, %rsp``).
The block count lives at ``COUNT(%rsp)``. No red zone is used. Then the setup
(``hybrid.constant_setup``: K and the byte-swap mask into xmm11-15; a ``k_copy`` row's K into the table
at 80..143, ``K_FRAME``) runs
once, then the block loop (below). The exit restores ``%rsp`` from the frame (after
``vzeroupper`` where the dialect row says so: the VEX/EVEX dialects), pops and returns. xmm registers
are caller-saved in the SysV ABI, so none is saved.

Layout of the text: the prologue lines above, then ``block.setup``, the
loop label, ``block.body``, the loop control, the epilogue. Without
read-ahead each iteration computes its block's W+K for W0..W15 at the top
and the loop control is ``add $64, %rsi; decq COUNT(%rsp); jnz``. With
``params.ahead`` (OpenSSL's SSSE3/AVX loop shape) the setup also loads a..e
and block 0's W+K 0..15, and the loop forks after ``block.body``::

    loop: body ; decq COUNT(%rsp) ; jz tail ; main ; add $64, %rsi ; jmp loop
    tail: tail ; <epilogue>

``main`` computes the next block's W+K 0..15 (read from 64..127(%rsi)) during
the last rounds, so the loop-head invariant is "xmm11-15 (a ``k_copy`` row: xmm15 and the
K table) the constants, a..e the chaining value, the ring and xmm0-3 this block's W+K and W 0..15" --
what the whole-function prover reads off the object (head terms,
``semantics.lift.template``); the export proves nothing else.

A two-block dialect (``search.space.hybrid_pair``) has a 640-byte W+K area and the count above it
(``frame_bytes``, ``count_at``), and clamps its block pointers by the count (``loop_lines``): the
prover's two-block invariant (``semantics.lift.multiblock``) covers the odd tail and the last pair.
"""

from __future__ import annotations

from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.space.hybrid_regs import K_TABLE
from sha1opt.search.space.hybrid_pair import FIRST_PTR, NEXT_HIGH, NEXT_LOW, PAIR_COUNT, PAIR_FRAME, PAIR_PTR, SPLIT
from sha1opt.semantics.x86 import Reg
from sha1opt.semantics.errors import Sha1optError
from sha1opt.emit.assembly import FLAVORS, SYMBOL, X64_SAVED, format_instr, function_opening

FRAME = 72         # ring 0..63, the block count at 64; 8 mod 16 (see the docstring)
K_FRAME = K_TABLE + 64 + 8   # a k_copy row's: FRAME's, then K_0..K_3 at 80..143 (16-aligned); 152, 8 mod 16
COUNT = 64


def frame_bytes(block: HybridBlock) -> int:
    """``FRAME``; a ``k_copy`` row's ``K_FRAME`` (the K table its setup writes, ``hybrid.k_in_memory``); or a
    two-block dialect's (``hybrid_pair.PAIR_FRAME``: the 640-byte W+K area, the count)."""
    if block.blocks == 2:
        return PAIR_FRAME
    return K_FRAME if block.params.dialect.k_copy else FRAME


def count_at(block: HybridBlock) -> int:
    """Where the frame keeps the block count: ``COUNT``, or ``hybrid_pair.PAIR_COUNT`` above the W+K area."""
    return COUNT if block.blocks == 1 else PAIR_COUNT


def _q(r: Reg) -> str:
    """A register's AT&T name (``Reg("r15d", 64)`` -> ``%r15``)."""
    return str(r)


def frame_prologue(block: HybridBlock) -> list[str]:
    """The instructions between the pushes and the setup."""
    return [f"sub ${frame_bytes(block)}, %rsp", f"mov %rdx, {count_at(block)}(%rsp)"]


def frame_epilogue(block: HybridBlock) -> list[str]:
    return (["vzeroupper"] if block.params.dialect.vzeroupper else []) + [f"add ${frame_bytes(block)}, %rsp"]


def loop_lines(block: HybridBlock, loop: str = ".Lsha1_loop", tail: str = ".Lsha1_tail",
               count: str | None = None) -> list[str]:
    """The text between a frame's prologue and its epilogue: the setup, then the block loop.

    Without read-ahead: ``loop: body; add $64, %rsi; decq count; jnz loop``. With
    ``block.params.ahead``: ``loop: body; decq count; jz tail; main; add $64, %rsi; jmp loop;
    tail: tail`` (module docstring). Either way the epilogue comes next. A frame of its own (a
    dispatching export's, say) uses this with its labels and its count's operand (default
    ``count_at(block)(%rsp)``). Two blocks an iteration (``block.blocks``, ``hybrid_pair``): ``loop: lea
    64(%rsi), %r15; cmpq $1, count; cmove %rsi, %r15; body; decq count; jz tail; main; add $128, %rsi;
    decq count; jnz loop; tail:`` -- block 2's pointer is block 1's when one block is left, and the
    iteration leaves after block 1 then.
    """
    out: list[str] = []
    count = count or f"{count_at(block)}(%rsp)"

    def ins(text: str) -> None:
        out.append("\t" + text)

    pair, ahead = block.blocks == 2, block.params.ahead

    def clamp(to: Reg, base: str, disp: int, left: int, cc: str, other: str) -> None:
        # ``to = disp(base)``, or ``other`` when fewer than ``left`` blocks are left
        ins(f"lea {disp}({base}), {_q(to)}")
        ins(f"cmpq ${left}, {count}")
        ins(f"cmov{cc} {other}, {_q(to)}")
    if pair and ahead:
        out.append("\t/* the first pair: block 2's words from %rdx (= %rsi + 64; %rsi when one block is left) */")
        clamp(FIRST_PTR, "%rsi", 64, 1, "e", "%rsi")
    what = "; the state into a..e and block 0's W+K 0..15" if ahead and not pair else ""
    what = f"; the first pair's groups 0-{SPLIT - 1}" if ahead and pair else what
    where = ("K into 80..143(%rsp), the byte-swap mask into %xmm15" if block.params.dialect.k_copy
             else "K and the byte-swap mask into %xmm11-%xmm15")
    out.append(f"\t/* setup: {where}{what} (hybrid {block.params.key()}) */")
    for i in block.setup:
        ins(format_instr(i, "x86_64"))
    out.append("\t.p2align 4")
    out.append(f"{loop}:")
    if pair and ahead:
        out.append("\t/* the next pair from %r13 and %r14 (%rsi + 128, + 192, each clamped to the last block there"
                   " is; %rsi + 64 when there is no next pair: the second block's own, never one before it) */")
        low, high = _q(NEXT_LOW), _q(NEXT_HIGH)
        for text in (f"lea 64(%rsi), {low}", f"lea 128(%rsi), {high}", f"cmpq $3, {count}", f"cmovae {high}, {low}"):
            ins(text)
        clamp(NEXT_HIGH, low, 64, 4, "b", low)
    elif pair:
        out.append("\t/* two blocks: block 2's words from %r15 (= %rsi + 64; %rsi when one block is left) */")
        clamp(PAIR_PTR, "%rsi", 64, 1, "e", "%rsi")
    for i in block.body:
        ins(format_instr(i, "x86_64"))
    if block.blocks == 2:
        ins(f"decq {count}")
        ins(f"jz {tail}")
        out.append("\t/* block 2: its rounds, reading the high halves of the W+K area"
                   + (", with the next pair's first groups */" if ahead else " */"))
        for i in block.main:
            ins(format_instr(i, "x86_64"))
        ins("add $128, %rsi")
        ins(f"decq {count}")
        ins(f"jnz {loop}")
        out.append(f"{tail}:")
    elif block.params.ahead:
        ins(f"decq {count}")
        ins(f"jz {tail}")
        out.append("\t/* not the last block: the last rounds with the next block's W+K 0..15 read ahead */")
        for i in block.main:
            ins(format_instr(i, "x86_64"))
        ins("add $64, %rsi")
        ins(f"jmp {loop}")
        out.append(f"{tail}:")
        out.append("\t/* the last block: the same rounds, nothing read ahead */")
        for i in block.tail:
            ins(format_instr(i, "x86_64"))
    else:
        ins("add $64, %rsi")
        ins(f"decq {count}")
        ins(f"jnz {loop}")
    return out


def function_text(block: HybridBlock, flavor: str = "elf", header: list[str] | None = None) -> str:
    """The whole function (module docstring); ``header`` lines go into a leading comment via ``comment_text``."""
    if flavor not in FLAVORS:
        raise Sha1optError(f"unknown flavor {flavor!r} (known: {', '.join(FLAVORS)})")
    sym = ("_" if flavor == "macho" else "") + SYMBOL
    loop = "Lsha1_loop" if flavor == "macho" else ".Lsha1_loop"
    done = "Lsha1_done" if flavor == "macho" else ".Lsha1_done"
    tail = "Lsha1_tail" if flavor == "macho" else ".Lsha1_tail"
    out = function_opening(sym, flavor, header)

    def ins(text: str) -> None:
        out.append("\t" + text)

    ins("test %rdx, %rdx")
    ins(f"jz {done}")
    for r in X64_SAVED:
        ins(f"push {r}")
    for text in frame_prologue(block):
        ins(text)
    out += loop_lines(block, loop, tail)
    for text in frame_epilogue(block):
        ins(text)
    for r in reversed(X64_SAVED):
        ins(f"pop {r}")
    out.append(f"{done}:")
    ins("ret")
    if flavor == "elf":
        out.append(f"\t.size {sym}, .-{sym}")
        out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"
