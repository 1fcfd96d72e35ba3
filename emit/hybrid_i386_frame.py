"""GNU-as text of a whole i386 ``sha1_block_data_order`` around an i386 ``HybridBlock`` (cdecl).

    void sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks);

Frame (``search.space.hybrid_i386``'s layout): ``nblocks == 0`` returns at once; ebp, ebx, esi and
edi are pushed; the entry ``%esp`` (after the pushes) is kept in ``%ebp``, ``FRAME`` bytes are
allocated and ``%esp`` is realigned with ``and $-64`` -- the K table's legacy-SSE memory operands
need 16-byte alignment, and the whole-function prover knows the stack aligned only after such a
realignment (the caller's alignment is not trusted). The three arguments (at 20, 24 and 28 past
``%ebp``) go to the state, data and count slots (64, 68, 72), ``%ebp`` to ``SAVED_ESP`` (76). Then
the setup (the K table and the mask in xmm7) runs once, then the block loop::

    loop: body ; addl $64, 68(%esp) ; decl 72(%esp) ; jnz loop

or, with read-ahead (``params.ahead``: the setup also loads a..e and block 0's W+K 0..15, which stay
in their registers and the ring from block to block)::

    loop: body ; decl 72(%esp) ; jz tail ; main ; addl $64, 68(%esp) ; jmp loop
    tail: tail

and the exit: ``vzeroupper`` for the VEX/EVEX dialects, ``mov 76(%esp), %esp``, the pops, ``ret``.
xmm registers are caller-saved under the i386 System V ABI, so none is saved. The loop-head
invariant the whole-function prover reads off the object: the K table and xmm7 the constants, the
data slot advanced by 64 per block, the count slot one less. Example: ``function_text(block)`` of
``build_i386(HybridParams(isa="ssse3", arch="i386"))`` assembles with ``gcc -m32 -c``.
"""

from __future__ import annotations

from sha1opt.search.space.frame import I386_COUNT_SLOT, I386_DATA_SLOT, I386_STATE_SLOT
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.space.hybrid_i386 import FRAME_BYTES, SAVED_ESP
from sha1opt.semantics.errors import Sha1optError
from sha1opt.emit.assembly import FLAVORS, I386_SAVED, SYMBOL, format_instr, function_opening

ARGS = 4 * len(I386_SAVED) + 4      # the first argument past the saved %esp: the pushes and the return address


def frame_prologue() -> list[str]:
    """The instructions between the pushes and the setup (module docstring)."""
    out = ["mov %esp, %ebp", f"sub ${FRAME_BYTES}, %esp", "and $-64, %esp", f"mov %ebp, {SAVED_ESP}(%esp)"]
    for slot, arg in ((I386_STATE_SLOT, 0), (I386_DATA_SLOT, 4), (I386_COUNT_SLOT, 8)):
        out += [f"mov {ARGS + arg}(%ebp), %eax", f"mov %eax, {slot}(%esp)"]
    return out


def frame_epilogue(vzeroupper: bool) -> list[str]:
    return (["vzeroupper"] if vzeroupper else []) + [f"mov {SAVED_ESP}(%esp), %esp"]


def loop_lines(block: HybridBlock, loop: str = ".Lsha1_loop", tail: str = ".Lsha1_tail") -> list[str]:
    """The setup, then the block loop (module docstring)."""
    if block.params.arch != "i386":
        raise Sha1optError("the i386 frame takes an i386 block")
    ahead = block.params.ahead
    what = "; the state into a..e and block 0's W+K 0..15" if ahead else ""
    out = [f"\t/* setup: K_0..K_3 into the table at 80..143(%esp), the byte-swap mask into %xmm7{what} "
           f"(hybrid {block.params.key()}) */"]
    out += ["\t" + format_instr(i, "i386") for i in block.setup]
    out += ["\t.p2align 4", f"{loop}:"]
    out += ["\t" + format_instr(i, "i386") for i in block.body]
    if not ahead:
        return out + [f"\taddl $64, {I386_DATA_SLOT}(%esp)", f"\tdecl {I386_COUNT_SLOT}(%esp)", f"\tjnz {loop}"]
    out += [f"\tdecl {I386_COUNT_SLOT}(%esp)", f"\tjz {tail}",
            "\t/* not the last block: the last rounds with the next block's W+K 0..15 read ahead */"]
    out += ["\t" + format_instr(i, "i386") for i in block.main]
    out += [f"\taddl $64, {I386_DATA_SLOT}(%esp)", f"\tjmp {loop}", f"{tail}:",
            "\t/* the last block: the same rounds, nothing read ahead */"]
    return out + ["\t" + format_instr(i, "i386") for i in block.tail]


def body_lines(block: HybridBlock, loop: str, done: str, tail: str) -> list[str]:
    """Everything after the function's label: the nblocks test, the frame, the loop, the exit."""
    out = ["\tcmpl $0, 12(%esp)", f"\tje {done}"]
    out += [f"\tpush {r}" for r in I386_SAVED]
    out += ["\t" + t for t in frame_prologue()]
    out += loop_lines(block, loop, tail)
    out += ["\t" + t for t in frame_epilogue(block.params.dialect.vzeroupper)]
    out += [f"\tpop {r}" for r in reversed(I386_SAVED)]
    return out + [f"{done}:", "\tret"]


def function_text(block: HybridBlock, flavor: str = "elf", header: list[str] | None = None) -> str:
    """The whole function; ``header`` lines go into a leading comment via ``comment_text``."""
    if flavor not in FLAVORS:
        raise Sha1optError(f"unknown flavor {flavor!r} (known: {', '.join(FLAVORS)})")
    sym = ("_" if flavor == "macho" else "") + SYMBOL
    prefix = "L" if flavor == "macho" else ".L"
    out = function_opening(sym, flavor, header) + body_lines(block, f"{prefix}sha1_loop", f"{prefix}sha1_done",
                                                             f"{prefix}sha1_tail")
    if flavor == "elf":
        out.append(f"\t.size {sym}, .-{sym}")
        out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"
