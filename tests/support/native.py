"""Run straight-line snippets on the real CPU, to check the semantics table against it.

``SnippetRunner`` assembles each snippet into its own function of one shared
library (x86-64 host) and calls it through ctypes with a register file and a
64-byte memory buffer. Register convention inside a snippet: the data
registers ``TEST_REGS`` hold inputs and outputs; ``%rsi`` points at the
buffer (use ``disp(%rsi)`` for memory operands); ``%rsp`` is not touched.

32-bit operations behave identically in 64-bit mode (the upper half of a
written 64-bit register is zeroed and never read here), so the i386 subset
is checked by the same runs.

With ``vectors=True`` (needs AVX) each snippet also gets the 16 ymm
registers: loaded before it and saved after it, through memory with
``vmovdqu``, from / to ``VECTOR_WORDS`` 32-bit words (register k, lane j at
word ``8 * k + j``). The memory buffer is always 64-byte aligned, so
``movdqa``-style accesses at multiples of 16 (32 for ymm) are aligned.
"""

from __future__ import annotations

import ctypes
import tempfile
from pathlib import Path

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import DATA_REGS
from sha1opt.emit.toolchain import ToolchainError, assemble, host_is_x86_64, link_shared

TEST_REGS = tuple(r for r in DATA_REGS["x86_64"] if r != "esi")  # %rsi is the buffer
BUFFER_WORDS = 16
VECTOR_REGS = 16
VECTOR_WORDS = 8 * VECTOR_REGS


class SnippetError(Sha1optError):
    """Misuse of ``SnippetRunner``: a memory buffer of the wrong size."""


_R64 = {"eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx", "edi": "rdi", "ebp": "rbp"}


def _harness(fn: str, snippet: str, vectors: bool = False) -> str:
    """One function ``fn(uint32_t regs[len(TEST_REGS)], uint32_t *buf[, uint32_t ymm[VECTOR_WORDS]])``."""
    lines = [f".globl {fn}", f".type {fn}, @function", f"{fn}:"]
    saved = ["%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"]
    lines += [f"  push {r}" for r in saved]
    if vectors:
        lines.append("  push %rdx")
        lines += [f"  vmovdqu {32 * k}(%rdx), %ymm{k}" for k in range(VECTOR_REGS)]
    lines += ["  push %rdi", "  mov %rdi, %rax"]
    # Load every test register but eax from regs[], eax last (it holds the pointer).
    for i, r in enumerate(TEST_REGS):
        if r != "eax":
            lines.append(f"  mov {4 * i}(%rax), %{r}")
    lines.append(f"  mov {4 * TEST_REGS.index('eax')}(%rax), %eax")
    lines += ["  " + ln for ln in snippet.splitlines() if ln.strip()]
    lines += ["  push %rax", "  mov 8(%rsp), %rax"]
    for i, r in enumerate(TEST_REGS):
        if r != "eax":
            lines.append(f"  mov %{r}, {4 * i}(%rax)")
    lines += ["  pop %rcx", f"  mov %ecx, {4 * TEST_REGS.index('eax')}(%rax)", "  add $8, %rsp"]
    if vectors:
        lines.append("  pop %rdx")
        lines += [f"  vmovdqu %ymm{k}, {32 * k}(%rdx)" for k in range(VECTOR_REGS)]
        lines.append("  vzeroupper")
    lines += [f"  pop {r}" for r in reversed(saved)]
    lines += ["  ret", f".size {fn}, .-{fn}", ""]
    return "\n".join(lines)


class SnippetRunner:
    """Builds all snippets into one library; ``run(k, regs, buf)`` executes snippet k."""

    def __init__(self, snippets: list[str], vectors: bool = False) -> None:
        if not host_is_x86_64():
            raise ToolchainError("native runs need an x86-64 host")
        self._vectors = vectors
        self._tmp = tempfile.TemporaryDirectory(prefix="sha1opt-native-")
        work = Path(self._tmp.name)
        source = ".text\n" + "\n".join(_harness(f"snippet_{k}", s, vectors) for k, s in enumerate(snippets))
        source += '\n.section .note.GNU-stack,"",@progbits\n'
        obj = assemble(source, "x86_64", work, "snippets")
        lib = link_shared([obj], work / "snippets.so")
        self._lib = ctypes.CDLL(str(lib))
        self._fns = []
        for k in range(len(snippets)):
            f = getattr(self._lib, f"snippet_{k}")
            f.restype = None
            f.argtypes = [ctypes.c_void_p] * (3 if vectors else 2)
            self._fns.append(f)

    def run(self, k: int, regs: dict[str, int], buf: list[int]) -> tuple[dict[str, int], list[int]]:
        r = np.array([regs.get(name, 0) for name in TEST_REGS], dtype=np.uint32)
        m = _aligned(buf, BUFFER_WORDS, "buffer")
        if self._vectors:
            raise SnippetError("this runner was built with vectors=True: use run_vectors")
        self._fns[k](r.ctypes.data, m.ctypes.data)
        return {name: int(v) for name, v in zip(TEST_REGS, r)}, [int(v) for v in m]

    def run_vectors(self, k: int, regs: dict[str, int], buf: list[int],
                    ymm: list[int]) -> tuple[dict[str, int], list[int], list[int]]:
        """Like ``run``, with the ymm registers in and out (``VECTOR_WORDS`` words)."""
        if not self._vectors:
            raise SnippetError("this runner was built without vectors=True")
        r = np.array([regs.get(name, 0) for name in TEST_REGS], dtype=np.uint32)
        m = _aligned(buf, BUFFER_WORDS, "buffer")
        v = _aligned(ymm, VECTOR_WORDS, "vector file")
        self._fns[k](r.ctypes.data, m.ctypes.data, v.ctypes.data)
        return {name: int(x) for name, x in zip(TEST_REGS, r)}, [int(x) for x in m], [int(x) for x in v]

    def close(self) -> None:
        self._tmp.cleanup()


def _aligned(words: list[int], n: int, what: str) -> np.ndarray:
    """A 64-byte aligned ``uint32`` copy of ``words`` (which must have ``n`` of them)."""
    src = np.array(words, dtype=np.uint32)
    if src.shape != (n,):
        raise SnippetError(f"{what} must have {n} words, not {src.size}")
    raw = np.zeros(n + 16, dtype=np.uint32)
    start = (-raw.ctypes.data % 64) // 4
    out = raw[start:start + n]
    out[:] = src
    return out
