"""``prove --asm``: straight-line code proved from the machine code its text assembles to.

``prove_snippet(path, out_reg, expr, mapping)`` assembles ``path`` with the
system toolchain (``emit.objfile.load_object``: ``gcc -c -g``, ``.S``
through cpp, argument lists and limits of ``emit.toolchain``), decodes the
object's code section (``semantics.lift.snippet.snippet_code``) and proves
the register the decoded instructions leave in ``out_reg`` equal to
``expr`` (``semantics.prove.prove_program``). There is no other way from
text to a proof: what is proved is what the assembler produced, so
``.rept``, ``.if``, macros and ``#define`` count exactly as they do on the CPU.

Example: ``mov %ebx,%eax; .rept 2; add %ecx,%eax; .endr`` against
``b+c`` (b=ebx, c=ecx) is a ``Counterexample`` (the code computes b + 2c);
against ``b+c+c`` it is ``Proved``. A refusal (an
instruction outside the table, a jump, a symbol) raises
``UnsupportedError`` with one line naming the file, line and address.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sha1opt.semantics.lift.snippet import snippet_code
from sha1opt.semantics.prove import Outcome, prove_program
from sha1opt.semantics.x86 import Arch, Instr
from sha1opt.emit.objfile import load_object


def snippet_program(path: str | Path, arch: Arch = "x86_64") -> list[Instr]:
    """The straight-line instructions ``path`` assembles to (assembled in a temporary directory)."""
    with tempfile.TemporaryDirectory(prefix="sha1opt-asm-") as tmp:
        uo = load_object(path, Path(tmp), arch=arch)
        return snippet_code(uo.obj, str(path))


def prove_snippet(path: str | Path, out_reg: str, expr: str, mapping: dict[str, str], *, arch: Arch = "x86_64",
                  timeout: float = 10.0) -> Outcome:
    """Prove that the code ``path`` assembles to leaves ``expr`` in ``out_reg`` (see the module docstring)."""
    return prove_program(snippet_program(path, arch), out_reg, expr, mapping, timeout)
