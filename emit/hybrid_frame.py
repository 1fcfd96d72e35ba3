"""GNU-as text of a whole ``sha1_block_data_order`` around a ``HybridBlock`` (x86-64, SysV).

    void sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks);

Frame: ``nblocks == 0`` returns at once; rbx, rbp and r12-r15 are pushed
and ``FRAME`` bytes allocated. The SysV ABI has ``%rsp`` = 8 mod 16 at
entry (the call pushed the return address onto a 16-aligned stack); six
pushes keep it 8 mod 16 and ``FRAME`` = 8 mod 16 makes it 16-aligned, so
the W+K ring at 0..63 takes aligned ``movdqa`` stores (a caller breaking
that ABI rule faults there, it cannot compute a wrong digest). The block
count lives at ``COUNT(%rsp)``. (``and $-64, %rsp`` would not need the
ABI's word, but its 64-bit immediate is outside what the lifter reads.)
No red zone is used. Then the setup
(``hybrid.constant_setup``: K and the byte-swap mask into xmm11-15) runs
once, and the loop runs the block body, ``add $64, %rsi``, ``decq
COUNT(%rsp)``, ``jnz``. The exit restores ``%rsp`` from the frame (after
``vzeroupper`` for the VEX/EVEX dialects), pops and returns. xmm registers
are caller-saved in the SysV ABI, so none is saved.

Layout of the text (what the validator relies on): the prologue lines
above, then exactly ``block.setup``, the loop label, exactly
``block.body``, the loop control, the epilogue -- ``frame_prologue`` and
``frame_epilogue`` are the only other instructions.

Each iteration computes its block's W+K for W0..W15 at the top (no reading
ahead into the next block): the loop invariant is only "xmm11-15 hold the
constants, ``%rsi`` the next block, ``COUNT(%rsp)`` the blocks left".
"""

from __future__ import annotations

from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.semantics.errors import Sha1optError
from sha1opt.emit.assembly import FLAVORS, SYMBOL, X64_SAVED, comment_text, format_instr

FRAME = 72         # ring 0..63, the block count at 64; 8 mod 16 (see the docstring)
COUNT = 64


def frame_prologue() -> list[str]:
    """The instructions between the pushes and the setup."""
    return [f"sub ${FRAME}, %rsp", f"mov %rdx, {COUNT}(%rsp)"]


def frame_epilogue(vex: bool) -> list[str]:
    return (["vzeroupper"] if vex else []) + [f"add ${FRAME}, %rsp"]


def function_text(block: HybridBlock, flavor: str = "elf", header: list[str] | None = None) -> str:
    """The whole function (module docstring); ``header`` lines go into a leading comment via ``comment_text``."""
    if flavor not in FLAVORS:
        raise Sha1optError(f"unknown flavor {flavor!r} (known: {', '.join(FLAVORS)})")
    sym = ("_" if flavor == "macho" else "") + SYMBOL
    loop = "Lsha1_loop" if flavor == "macho" else ".Lsha1_loop"
    done = "Lsha1_done" if flavor == "macho" else ".Lsha1_done"
    out: list[str] = []
    if header:
        out.append("/*")
        out += [f" * {comment_text(line)}".rstrip() for line in header]
        out.append(" */")
    out += ["\t.text", f"\t.globl {sym}"]
    if flavor == "elf":
        out.append(f"\t.type {sym}, @function")
    out += ["\t.p2align 4", f"{sym}:"]

    def ins(text: str) -> None:
        out.append("\t" + text)

    ins("test %rdx, %rdx")
    ins(f"jz {done}")
    for r in X64_SAVED:
        ins(f"push {r}")
    for text in frame_prologue():
        ins(text)
    out.append(f"\t/* setup: K and the byte-swap mask into %xmm11-%xmm15 (hybrid {block.params.key()}) */")
    for i in block.setup:
        ins(format_instr(i, "x86_64"))
    out.append("\t.p2align 4")
    out.append(f"{loop}:")
    for i in block.body:
        ins(format_instr(i, "x86_64"))
    ins("add $64, %rsi")
    ins(f"decq {COUNT}(%rsp)")
    ins(f"jnz {loop}")
    for text in frame_epilogue(block.params.isa != "ssse3"):
        ins(text)
    for r in reversed(X64_SAVED):
        ins(f"pop {r}")
    out.append(f"{done}:")
    ins("ret")
    if flavor == "elf":
        out.append(f"\t.size {sym}, .-{sym}")
        out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"
