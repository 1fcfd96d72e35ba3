"""GNU-as text of a complete ``sha1_block_data_order`` around a ``Schedule``'s body.

    void sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks);

x86-64 (SysV): ``%rdi`` state, ``%rsi`` data, ``%rdx`` nblocks; rbx, rbp and
r12-r15 are saved and restored; the frame lives below the pushes (no red
zone is used: the frame is allocated with ``sub`` before any store). The
loop control is the schedule's row of ``search.space.loop_control``
(``Schedule.loop``): ``count`` keeps the block count in the frame at
``FRAME_BYTES`` so the body may use every data register; ``index`` reads the
data as ``d(%rsi,%r15)`` from its end with a count up to zero in a
temporary the body leaves free (``add $64, %r15; jnz``).

i386 (cdecl): arguments on the stack; ebx, esi, edi and ebp saved; the frame
holds the W ring (0..63), the state pointer (64), the data pointer (68),
the block count (72) and the spill slots (76..88), ``I386_FRAME_BYTES`` in
all, matching ``search.space.frame``'s frame contract.

Both: ``nblocks == 0`` returns before touching anything; ``data`` may be
unaligned (x86 loads need no alignment); one block per loop iteration. The
body's first ``Schedule.loop_start`` instructions (the loads of a..e) come
before the loop label: each iteration leaves the new state in those
registers, so the next one starts from them.
``flavor="macho"`` prefixes the symbol with ``_`` and drops ELF-only
directives (``.type``, ``.size``, ``.note.GNU-stack``); the instructions
are identical to the ELF flavor, which is what gets assembled and proved
here (GNU as on this host targets ELF).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from sha1opt.search.space.frame import (FRAME_BYTES, I386_COUNT_SLOT, I386_DATA_SLOT, I386_FRAME_BYTES,
                                        I386_STATE_SLOT, Schedule)
from sha1opt.search.space.loop_control import advance_lines, entry_lines, loop_body
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch, Instr, Mem, Reg

SYMBOL = "sha1_block_data_order"
FLAVORS = ("elf", "macho")
X64_SAVED = ("%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15")
I386_SAVED = ("%ebp", "%ebx", "%esi", "%edi")
X64_FRAME = FRAME_BYTES["x86_64"] + 8          # W ring + block count


def guess_arch(text: str) -> Arch:
    """x86_64 when AT&T ``text`` names a 64-bit register (%rax, %rsi, %r8...), else i386.

    ``guess_arch("mov %rsi, %rax")`` is ``"x86_64"``; ``guess_arch("mov 4(%esp), %eax")`` is ``"i386"``.
    """
    return "x86_64" if re.search(r"%r(?:[abcd]x|[sd]i|[sb]p|\d+)\b", text) else "i386"


def format_instr(ins: Instr, arch: str) -> str:
    """One instruction in GNU as syntax.

    A size suffix is added when no register fixes the operand size
    (``addl $64, 68(%esp)``); on x86-64 the address registers of a data
    ``lea`` are spelled 64-bit (``lea K(%rax,%r8), %eax``) -- the low 32 bits
    of the sum are the same and no address-size prefix is needed.
    """
    ops = list(ins.operands)
    if arch == "x86_64" and ins.mnemonic == "lea":
        m = ops[0]
        ops[0] = replace(m, base=Reg(m.base.name, 64) if m.base else None,
                         index=Reg(m.index.name, 64) if m.index else None)
    mnemonic = ins.mnemonic
    if not any(isinstance(o, Reg) for o in ops) and any(isinstance(o, Mem) for o in ops):
        mnemonic += "l"
    return f"{mnemonic} {', '.join(map(str, ops))}" if ops else mnemonic


def comment_text(text: str) -> str:
    r"""``text`` made safe inside one line of a ``/* */`` block comment, readable and reversible.

    Nothing in it can end the comment or start a line: ``\`` becomes ``\\``,
    ``*/`` becomes ``*\/`` (and ``/*`` becomes ``/\*``), and every character
    outside printable ASCII -- a newline, a tab, a NUL, any non-ASCII letter --
    becomes ``\xNN`` / ``\uNNNN`` / ``\UNNNNNNNN``. Example: the path
    ``x*/`` + newline + ``.section .init_array`` becomes the one line
    ``x*\/\x0a.section .init_array``.
    """
    out = []
    for ch in text.replace("\\", "\\\\").replace("*/", "*\\/").replace("/*", "/\\*"):
        c = ord(ch)
        if 0x20 <= c < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}")
    return "".join(out)


def header_problem(text: str) -> str | None:
    """Why the leading comment of an emitted ``text`` is not a plain header, or None.

    A plain header is ``/*``, lines `` * <printable ASCII without */ or /*>``,
    `` */``, and then the first directive (a tab and ``.text``); a text with
    no header starts with that directive.
    """
    lines = text.split("\n")
    if not lines or lines[0] != "/*":
        return None if lines and lines[0] == "\t.text" else "text does not start with the header or .text"
    end = next((k for k, ln in enumerate(lines) if ln == " */"), None)
    if end is None or end + 1 >= len(lines) or lines[end + 1] != "\t.text":
        return "the header comment is not followed by .text"
    for ln in lines[1:end]:
        if not (ln == " *" or ln.startswith(" * ")) or "*/" in ln or "/*" in ln or \
                any(not 0x20 <= ord(c) < 0x7F for c in ln):
            return f"header line {comment_text(ln)[:60]!r} is not plain comment text"
    return None


def function_opening(sym: str, flavor: str, header: list[str] | None) -> list[str]:
    """The lines every exported function starts with: ``header`` as a ``/* */`` comment (each line through
    ``comment_text``), then ``.text``, ``.globl sym``, ELF's ``.type``, ``.p2align 4`` and the label."""
    # Block comments only: a '#' line would be a preprocessor directive when
    # the .S file goes through cpp (gcc -c file.S).
    out: list[str] = []
    if header:
        out.append("/*")
        out += [f" * {comment_text(line)}".rstrip() for line in header]
        out.append(" */")
    out += ["\t.text", f"\t.globl {sym}"]
    if flavor == "elf":
        out.append(f"\t.type {sym}, @function")
    out += ["\t.p2align 4", f"{sym}:"]
    return out


def _x64_entry(done: str) -> list[str]:
    return ["test %rdx, %rdx", f"jz {done}", *(f"push {r}" for r in X64_SAVED), f"sub ${X64_FRAME}, %rsp"]


def _x64_release() -> list[str]:
    return [f"add ${X64_FRAME}, %rsp", *(f"pop {r}" for r in reversed(X64_SAVED))]


def _i386_entry(done: str) -> list[str]:
    args = I386_FRAME_BYTES + 4 * len(I386_SAVED) + 4      # past the frame, the saves and the return address
    out = ["cmpl $0, 12(%esp)", f"je {done}", *(f"push {r}" for r in I386_SAVED), f"sub ${I386_FRAME_BYTES}, %esp"]
    for slot, arg in ((I386_STATE_SLOT, 0), (I386_DATA_SLOT, 4), (I386_COUNT_SLOT, 8)):
        out += [f"mov {args + arg}(%esp), %eax", f"mov %eax, {slot}(%esp)"]
    return out


def _i386_release() -> list[str]:
    return [f"add ${I386_FRAME_BYTES}, %esp", *(f"pop {r}" for r in reversed(I386_SAVED))]


@dataclass(frozen=True)
class Frame:
    """One arch's frame around the body (module docstring): the lines before the body, given the label
    ``nblocks == 0`` jumps to, and the lines releasing it after the loop. The loop control between them
    (what it adds to the entry, the lines after the body) is the schedule's row of
    ``search.space.loop_control`` (``Schedule.loop``)."""

    entry: Callable[[str], list[str]]
    release: Callable[[], list[str]]


FRAMES: dict[Arch, Frame] = {"x86_64": Frame(_x64_entry, _x64_release), "i386": Frame(_i386_entry, _i386_release)}


def function_text(schedule: Schedule, flavor: str = "elf", header: list[str] | None = None) -> str:
    """The whole function; ``header`` lines go into a leading ``/* */`` comment through ``comment_text``."""
    if flavor not in FLAVORS:
        raise Sha1optError(f"unknown flavor {flavor!r} (known: {', '.join(FLAVORS)})")
    arch = schedule.arch
    sym = ("_" if flavor == "macho" else "") + SYMBOL
    loop = "Lsha1_loop" if flavor == "macho" else ".Lsha1_loop"
    done = "Lsha1_done" if flavor == "macho" else ".Lsha1_done"
    out = function_opening(sym, flavor, header)
    ins = lambda text: out.append("\t" + text)  # noqa: E731
    if arch not in FRAMES:
        raise Sha1optError(f"unknown arch {arch!r}")
    frame = FRAMES[arch]
    for t in frame.entry(done) + entry_lines(schedule):
        ins(t)
    starts = {s: t for t, s in enumerate(schedule.round_starts[:80])}
    for k, i in enumerate(loop_body(schedule)):
        if k == schedule.loop_start:
            out.append(f"{loop}:")
        if k in starts:
            out.append(f"\t/* round {starts[k]} */")
        elif len(schedule.round_starts) > 80 and k == schedule.round_starts[80]:
            out.append("\t/* feed-forward into state */")
        ins(format_instr(i, arch))
    for t in advance_lines(schedule, loop) + frame.release():
        ins(t)
    out.append(f"{done}:")
    ins("ret")
    if flavor == "elf":
        out.append(f"\t.size {sym}, .-{sym}")
        out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"
