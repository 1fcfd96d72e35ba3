"""The dispatching export's constructor run natively: the capability word it writes on this CPU.

``probe_word(obj, arch, workdir)`` links the object with a freestanding ``_start`` (no libc) that
calls every ``.init_array`` entry the static link collects (``__init_array_start`` ..
``__init_array_end``, as a C runtime does before ``main``), then writes the 4 bytes of
``dispatch_word.WORD_SYMBOL`` to stdout and exits. So what is checked is the ELF constructor as a
program would run it -- the ``.init_array`` entry, cpuid, xgetbv -- not a direct call.

The answer is a value: the word, or a ``ProbeFailure`` with the reason (a crash, a short write,
a non-x86 host). Example: on this host (SHA-NI, AVX-512VL, BMI2) the word is ``0x3ff``.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.x86 import Arch
from sha1opt.emit.dispatch_word import WORD_SYMBOL
from sha1opt.emit.toolchain import NATIVE_LIMITS, ToolchainError, assemble, host_is_x86_64, link_static, run_child

START = {
    "x86_64": f"""\t.text
\t.globl _start
_start:
\tlea __init_array_start(%rip), %rbx
\tlea __init_array_end(%rip), %r12
1:\tcmp %r12, %rbx
\tjae 2f
\tcall *(%rbx)
\tadd $8, %rbx
\tjmp 1b
2:\tmov $1, %eax
\tmov $1, %edi
\tlea {WORD_SYMBOL}(%rip), %rsi
\tmov $4, %edx
\tsyscall
\tmov $60, %eax
\txor %edi, %edi
\tsyscall
\t.section .note.GNU-stack,"",@progbits
""",
    "i386": f"""\t.text
\t.globl _start
_start:
\tand $-16, %esp
\tmov $__init_array_start, %esi
\tmov $__init_array_end, %edi
1:\tcmp %edi, %esi
\tjae 2f
\tcall *(%esi)
\tadd $4, %esi
\tjmp 1b
2:\tmov $4, %eax
\tmov $1, %ebx
\tmov ${WORD_SYMBOL}, %ecx
\tmov $4, %edx
\tint $0x80
\tmov $1, %eax
\txor %ebx, %ebx
\tint $0x80
\t.section .note.GNU-stack,"",@progbits
""",
}


@dataclass(frozen=True)
class ProbeFailure:
    reason: str


def probe_word(obj: Path, arch: Arch, workdir: Path) -> int | ProbeFailure:
    """The word the object's constructor writes on this CPU (module docstring)."""
    if not host_is_x86_64():
        return ProbeFailure("native runs need an x86-64 host")
    try:
        start = assemble(START[arch], arch, workdir, f"probe_start_{arch}")
        exe = link_static([start, obj], arch, workdir / f"probe_{arch}", "linking the constructor probe")
        proc = run_child([str(exe)], "the constructor probe", NATIVE_LIMITS)
    except ToolchainError as e:
        return ProbeFailure(str(e))
    if proc.returncode != 0:
        why = f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else \
            f"exit status {proc.returncode}"
        return ProbeFailure(f"the constructor probe: {why}")
    if len(proc.stdout) != 4:
        return ProbeFailure(f"the constructor probe wrote {len(proc.stdout)} bytes, not 4")
    return int.from_bytes(proc.stdout, "little")
