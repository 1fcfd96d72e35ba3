"""GNU-as text of a dispatching ``sha1_block_data_order``: one entry, several proved paths, a capability word.

Layout (ELF; ``dispatch_function_text(arch, paths, header)``)::

    sha1_block_data_order:                      (global; reads the word, no cpuid)
        mov sha1opt_ia32cap(%rip), %eax ; not %eax  (i386: ``WORD_READ_I386``, position-independent)
        test $mask(P1), %eax ; jz sha1opt_block_P1  (every bit of P1's mask set in the word)
        ...
        jmp sha1opt_block_<fallback>            (the last path needs no feature)
    sha1opt_block_<name>: ...                   (one local function per path, in preference order)
    sha1opt_cpu_init + sha1opt_ia32cap + .init_array   (``dispatch_word.init_text``)

The first path whose mask the word covers runs, so ``paths`` must be in preference order and end
with a path needing nothing (``DispatchError`` otherwise). Each path function is the exported
function of its family with its symbol and ``.L`` labels renamed -- the scalar one
(``assembly.function_text``) and the SHA-NI one (``shani_frame.shani_function_text``) as they are;
a hybrid block (``search.space.hybrid``) in ``hybrid_path_text``'s frame, which realigns the stack
(``and $-64, %rsp``, the entry ``%rsp`` kept above the W+K ring and the count, at ``hybrid_frame.frame_bytes``) so the W+K ring's aligned
stores are proved aligned without trusting the caller's alignment. The word is 0 until the
constructor runs: then the fallback runs.

The word is read position-independently on both arches, so the object links into a shared library
without a text relocation: ``%rip``-relative on x86-64; on i386 the call/pop form OpenSSL's 32-bit
code uses (``call 1f; 1: pop %eax; mov sha1opt_ia32cap-1b(%eax), %eax``: an ``R_386_PC32`` the
linker resolves, the word being hidden). The i386 hybrid path is ``emit.hybrid_i386_frame``'s
function as it is (its frame realigns already).

Example: paths (shani, scalar) on x86-64 give ``test $0x20f, %eax ; jz sha1opt_block_shani ;
jmp sha1opt_block_scalar``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.emit.assembly import SYMBOL, X64_SAVED, comment_text
from sha1opt.emit.dispatch_word import WORD_SYMBOL, init_text, mask_of
from sha1opt.emit.hybrid_frame import count_at, frame_bytes, loop_lines
from sha1opt.emit.hybrid_i386_frame import function_text as i386_function_text

# the entry %rsp is kept at ``frame_bytes(block)(%rsp)``, above the W+K ring or area, the count (and a k_copy
# row's K table: ``hybrid_frame.K_FRAME``); the frame
# takes 8 bytes more below the pushes before the realignment
GNU_STACK = '\t.section .note.GNU-stack,"",@progbits\n'


class DispatchError(Sha1optError):
    """Paths that cannot make a dispatching function (no fallback, a repeated name)."""


@dataclass(frozen=True)
class PathCode:
    """One path of the dispatch: its name (``sha1opt_block_<name>``), the features its code needs and
    the GNU-as text of a whole ``sha1_block_data_order`` for it (no header)."""

    name: str
    features: frozenset[str]
    text: str

    @property
    def symbol(self) -> str:
        return f"sha1opt_block_{self.name}"

    @property
    def mask(self) -> int:
        return mask_of(self.features)


# The i386 entry's read of the word: call/pop, then PC-relative (module docstring).
WORD_READ_I386 = ("call .Lsha1_pic", ".Lsha1_pic:", "pop %eax", f"mov {WORD_SYMBOL}-.Lsha1_pic(%eax), %eax")
# each arch's read of the word into %eax
WORD_READ: dict[Arch, tuple[str, ...]] = {"x86_64": (f"mov {WORD_SYMBOL}(%rip), %eax",), "i386": WORD_READ_I386}


def hybrid_path_text(block: HybridBlock) -> str:
    """``block`` in its arch's path frame (``PATH_TEXT``), as a whole ``sha1_block_data_order`` text."""
    return PATH_TEXT[block.params.arch](block)


def x64_path_text(block: HybridBlock) -> str:
    """An x86-64 ``block`` in a realigning frame (module docstring), as a whole ``sha1_block_data_order`` text."""
    out = ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", "\t.p2align 4", f"{SYMBOL}:"]

    def ins(text: str) -> None:
        out.append("\t" + text)

    ins("test %rdx, %rdx")
    ins("jz .Lsha1_done")
    for r in X64_SAVED:
        ins(f"push {r}")
    ins("mov %rsp, %rax")
    saved = frame_bytes(block)
    ins(f"sub ${saved + 8}, %rsp")
    ins("and $-64, %rsp")
    ins(f"mov %rax, {saved}(%rsp)")
    ins(f"mov %rdx, {count_at(block)}(%rsp)")
    out += loop_lines(block, count=f"{count_at(block)}(%rsp)")
    if block.params.dialect.vzeroupper:
        ins("vzeroupper")
    ins(f"mov {saved}(%rsp), %rsp")
    for r in reversed(X64_SAVED):
        ins(f"pop {r}")
    out.append(".Lsha1_done:")
    ins("ret")
    out.append(f"\t.size {SYMBOL}, .-{SYMBOL}")
    return "\n".join(out) + "\n" + GNU_STACK


# each arch's path frame around a hybrid block (the i386 frame is the export's own)
PATH_TEXT: dict[Arch, Callable[[HybridBlock], str]] = {"x86_64": x64_path_text, "i386": i386_function_text}


def renamed(text: str, name: str) -> str:
    """A whole-function text (no header) as the local function ``sha1opt_block_<name>``: the ``.globl``
    dropped, the symbol and every ``.L`` label renamed, the GNU-stack note dropped (the file has one)."""
    if not text.startswith("\t.text\n"):
        raise DispatchError("a path text must start with .text (no header)")
    sym = f"sha1opt_block_{name}"
    text = text.replace(f"\t.globl {SYMBOL}\n", "").replace(GNU_STACK, "")
    text = re.sub(rf"\b{SYMBOL}\b", sym, text)
    return re.sub(r"\.L(\w+)", rf".L\1_{name}", text)


def dispatcher_text(arch: Arch, paths: list[PathCode]) -> str:
    """The entry: read the word, jump to the first path whose mask it covers (module docstring)."""
    if not paths or paths[-1].mask:
        raise DispatchError("the last path must need no feature (the fallback when the word is 0)")
    if len({p.name for p in paths}) != len(paths):
        raise DispatchError("two paths with one name")
    out = ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", "\t.p2align 4", f"{SYMBOL}:"]
    if len(paths) > 1:
        out += [ln if ln.endswith(":") else "\t" + ln for ln in WORD_READ[arch]] + ["\tnot %eax"]
        for p in paths[:-1]:
            out += [f"\t/* {comment_text(p.name)}: {', '.join(sorted(p.features))} */",
                    f"\ttest ${p.mask:#x}, %eax", f"\tjz {p.symbol}"]
    out += [f"\tjmp {paths[-1].symbol}", f"\t.size {SYMBOL}, .-{SYMBOL}"]
    return "\n".join(out) + "\n"


def dispatch_function_text(arch: Arch, paths: list[PathCode], header: list[str] | None = None) -> str:
    """The whole file (module docstring); ``header`` lines go into a leading comment via ``comment_text``."""
    out = ""
    if header:
        out = "/*\n" + "".join(f" * {comment_text(line)}".rstrip() + "\n" for line in header) + " */\n"
    out += dispatcher_text(arch, paths)
    for p in paths:
        out += f"\t/* path {comment_text(p.name)} */\n" + renamed(p.text, p.name)
    return out + init_text(arch) + GNU_STACK
