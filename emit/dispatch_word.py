"""The capability word of a dispatching export: one bit per x86 feature, filled once by cpuid/xgetbv.

The dispatching ``sha1_block_data_order`` (``dispatch_text``) never runs ``cpuid``: it reads the
32-bit word ``WORD_SYMBOL`` (``sha1opt_ia32cap``, in ``.data``, global hidden) and jumps to the
first path whose feature mask it covers -- as OpenSSL's reads ``OPENSSL_ia32cap_P``. The word is
written once, before ``main``, by ``INIT_SYMBOL`` (``sha1opt_cpu_init``), an ELF constructor
(a pointer in ``.init_array``; ``init_text``). Bit ``FEATURE_BITS[f]`` is set when the CPU has
feature ``f`` (an ``features.ISA_INCLUDES`` key) *and*, for the AVX family, the OS saves its state
(``xgetbv``: XCR0 bits 1-2 for AVX/AVX2, bits 1-2 and 5-7 for AVX-512, which EVEX code needs even
on xmm registers). A word of 0 (a call from a constructor that ran before ours, or a harness
without ``.init_array``) takes the path that needs nothing.

Invariant: ``mask_of(features)`` covers the inclusion closure (``features.ISA_INCLUDES``), so a path
needing ``{"avx", "bmi2"}`` tests the bits of sse, sse2, ssse3, sse4.1, avx, bmi1 and bmi2 -- a
word covers a path's mask exactly when every instruction of the path runs on that CPU, and path Q
is reached before P for every word that takes P exactly when ``mask_of(Q) & ~mask_of(P) == 0``.
Forcing a path (the harness, ``emit.confirm`` ``symbols``) writes ``mask_of`` of its features.

Example: ``mask_of({"sha", "ssse3"})`` is ``0x20f`` (sse, sse2, ssse3, sha);
``features_of(0x20f)`` gives back ``{"sse", "sse2", "ssse3", "sha"}``.
"""

from __future__ import annotations

from typing import Iterable

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.features import ISA_INCLUDES
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.host_cpu import AVX512F, CPUID_BITS, OSXSAVE, XCR0_AVX, XCR0_AVX512

WORD_SYMBOL = "sha1opt_ia32cap"
INIT_SYMBOL = "sha1opt_cpu_init"

# bit of each feature in the word (the values are part of the file format: never renumber)
FEATURE_BITS: dict[str, int] = {"sse": 0, "sse2": 1, "ssse3": 2, "sse4.1": 3, "avx": 4, "avx2": 5,
                                "avx512vl": 6, "bmi1": 7, "bmi2": 8, "sha": 9, "aes": 10}

# (cpuid leaf, register, bit) of each feature, and the OS-state masks: the one table, shared with
# ``host_cpu`` (which decodes the same leaves for the running CPU); the OS checks are in ``init_text``


class WordError(Sha1optError):
    """A feature the word has no bit for."""


def mask_of(features: Iterable[str]) -> int:
    """The bits a word must have for code needing ``features`` (their closure; ``base`` needs none)."""
    mask = 0
    for f in features:
        if f == "base":
            continue
        if f not in ISA_INCLUDES:
            raise WordError(f"unknown feature {f!r}")
        for g in ISA_INCLUDES[f] - {"base"}:
            if g not in FEATURE_BITS:
                raise WordError(f"the capability word has no bit for {g!r}")
            mask |= 1 << FEATURE_BITS[g]
    return mask


def features_of(word: int) -> frozenset[str]:
    """The features a word says the CPU has."""
    return frozenset(f for f, b in FEATURE_BITS.items() if word >> b & 1)


def word_from_cpu_flags(flags: set[str]) -> int:
    """The word ``init_text`` should compute on a Linux host with these ``/proc/cpuinfo`` flags
    (Linux lists an AVX flag only when it enables the state, as the xgetbv check asks)."""
    names = {"sse": "sse", "sse2": "sse2", "ssse3": "ssse3", "sse4.1": "sse4_1", "avx": "avx", "avx2": "avx2",
             "bmi1": "bmi1", "bmi2": "bmi2", "sha": "sha_ni", "aes": "aes"}
    word = sum(1 << FEATURE_BITS[f] for f, n in names.items() if n in flags)
    if {"avx512f", "avx512vl"} <= flags:
        word |= 1 << FEATURE_BITS["avx512vl"]
    return word


def _collect(leaf: int, reg: str, dst: str, out: list[str]) -> None:
    """Instructions OR-ing into ``dst`` the word bit of every feature cpuid ``leaf`` reports in ``reg``."""
    for f, (lf, r, bit) in CPUID_BITS.items():
        if lf != leaf or r != reg or f in ("avx", "avx2", "avx512vl"):
            continue
        out += [f"bt ${bit}, %{reg}", f"jnc .Lcap_no_{f.replace('.', '_')}",
                f"or ${1 << FEATURE_BITS[f]:#x}, {dst}", f".Lcap_no_{f.replace('.', '_')}:"]


def init_text(arch: Arch) -> str:
    """GNU-as (ELF) text of the constructor, the word and the ``.init_array`` entry.

    Leaf 1 gives the SSE family, AES-NI and AVX (only with OSXSAVE and XCR0 & 6 == 6), leaf 7 (when the
    maximum leaf reaches it) BMI, SHA, AVX2 (with the AVX state) and AVX-512VL (with AVX-512F and
    XCR0 & 0xe6 == 0xe6). The word is built in ``%edi``/``%esi`` and stored once. i386: cpuid
    itself is checked first (EFLAGS.ID toggles), %ebx, %esi, %edi (callee-saved) are kept, and the
    word is stored PC-relative (call/pop, as ``dispatch_text.WORD_READ_I386`` reads it): no text
    relocation when the object goes into a shared library.
    """
    if arch not in ("x86_64", "i386"):
        raise WordError(f"unknown arch {arch!r}")
    acc, avx = "%esi", "%edi"        # the word; bit 0: the OS saves AVX state, bit 1: AVX-512 state
    word = f"{WORD_SYMBOL}(%rip)" if arch == "x86_64" else WORD_SYMBOL
    body: list[str] = []
    if arch == "i386":
        body += ["push %ebx", "push %esi", "push %edi",
                 "pushfl", "pop %eax", "mov %eax, %ecx", "xor $0x200000, %eax", "push %eax", "popfl",
                 "pushfl", "pop %eax", "push %ecx", "popfl", "xor %ecx, %eax", "bt $21, %eax",
                 "jnc .Lcap_store_none"]
    else:
        body += ["push %rbx"]
    body += ["xor %esi, %esi", "xor %edi, %edi", "xor %eax, %eax", "cpuid", "mov %eax, %r8d"
             if arch == "x86_64" else "push %eax",
             "mov $1, %eax", "xor %ecx, %ecx", "cpuid"]
    _collect(1, "edx", acc, body)
    _collect(1, "ecx", acc, body)
    body += [f"bt ${OSXSAVE[2]}, %ecx", "jnc .Lcap_leaf7",
             f"bt ${CPUID_BITS['avx'][2]}, %ecx", "setc %al", "movzbl %al, %ebx",     # ebx: the CPU has AVX
             "xor %ecx, %ecx", "xgetbv",
             "mov %eax, %ecx", f"and ${XCR0_AVX:#x}, %ecx", f"cmp ${XCR0_AVX:#x}, %ecx", "jne .Lcap_leaf7",
             "or $1, %edi",
             "mov %eax, %ecx", f"and ${XCR0_AVX512:#x}, %ecx", f"cmp ${XCR0_AVX512:#x}, %ecx", "jne .Lcap_avx",
             "or $2, %edi",
             ".Lcap_avx:", "test %ebx, %ebx", "jz .Lcap_leaf7",
             f"or ${1 << FEATURE_BITS['avx']:#x}, {acc}",
             ".Lcap_leaf7:"]
    body += ["cmp $7, %r8d" if arch == "x86_64" else "cmpl $7, (%esp)", "jb .Lcap_store",
             "mov $7, %eax", "xor %ecx, %ecx", "cpuid"]
    _collect(7, "ebx", acc, body)
    body += [f"test $1, {avx}", "jz .Lcap_store",
             f"test ${1 << FEATURE_BITS['avx']:#x}, {acc}", "jz .Lcap_store",
             f"bt ${CPUID_BITS['avx2'][2]}, %ebx", "jnc .Lcap_no_avx2",
             f"or ${1 << FEATURE_BITS['avx2']:#x}, {acc}", ".Lcap_no_avx2:",
             f"test $2, {avx}", "jz .Lcap_store",
             f"bt ${AVX512F[2]}, %ebx", "jnc .Lcap_store",
             f"bt ${CPUID_BITS['avx512vl'][2]}, %ebx", "jnc .Lcap_store",
             f"or ${1 << FEATURE_BITS['avx512vl']:#x}, {acc}",
             ".Lcap_store:"]
    if arch == "i386":
        # position-independent stores (call/pop, PC-relative): no text relocation in a shared library
        body += ["add $4, %esp", ".Lcap_store_word:", "call .Lcap_pic", ".Lcap_pic:", "pop %ecx",
                 f"mov {acc}, {word}-.Lcap_pic(%ecx)", "pop %edi", "pop %esi", "pop %ebx", "ret",
                 ".Lcap_store_none:", f"xor {acc}, {acc}", "jmp .Lcap_store_word"]
    else:
        body += [f"mov {acc}, {word}", "pop %rbx", "ret"]
    ptr = ".quad" if arch == "x86_64" else ".long"
    align = 3 if arch == "x86_64" else 2
    out = ["\t.data", f"\t.globl {WORD_SYMBOL}", f"\t.hidden {WORD_SYMBOL}", f"\t.type {WORD_SYMBOL}, @object",
           "\t.p2align 2", f"{WORD_SYMBOL}:", "\t.long 0", f"\t.size {WORD_SYMBOL}, 4",
           "\t.text", f"\t.type {INIT_SYMBOL}, @function", "\t.p2align 4", f"{INIT_SYMBOL}:"]
    out += [ln if ln.endswith(":") else "\t" + ln for ln in body]
    out += [f"\t.size {INIT_SYMBOL}, .-{INIT_SYMBOL}",
            '\t.section .init_array,"aw"', f"\t.p2align {align}", f"\t{ptr} {INIT_SYMBOL}"]
    return "\n".join(out) + "\n"
