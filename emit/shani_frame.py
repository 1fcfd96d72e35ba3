"""The SHA-NI ``sha1_block_data_order(state, data, nblocks)`` around ``search.space.shani``'s proved block.

Invariant: the function is the proved one-block unit of ``shani.parts``
(setup, block body, state store -- straight-line, proved equal to the
compression function by ``shani.prove_shani``) with the body inside a block
loop. What is not in the unit's proof is only: ``nblocks == 0`` returns at
once, the loop control (``Parts.head`` / ``Parts.tail``) advances the data
pointer by 64 and counts down, and the state -- and with ``preload`` the
next block's words -- stays in xmm registers between blocks (the body leaves
it where the setup put it, so one iteration is the unit). The export proves
the whole function from its machine code (``emit.shani_export``), loop
included; the native harness checks it (``validate_shani``) before any text
is handed out by ``validated_text``.

Layout, x86-64 (SysV: state %rdi, data %rsi, nblocks %rdx; only caller-saved
registers are used: %eax, xmm0-15)::

    test %rdx, %rdx ; jz done ; <setup> ; loop: <body> ; add $64, %rsi ; dec %rdx ; jnz loop ; <store> ; done: ret

with ``preload`` (the setup also loads block 0; the body's tail loads block i+1)::

    ... <setup> ; loop: dec %rdx ; lea 64(%rsi), %rax ; cmovne %rax, %rsi ; <body> ; jnz loop ; <store> ...

i386 (cdecl: arguments at 4/8/12(%esp); %eax state, %ecx data, %edx count,
32 bytes of stack for the saved state -- 48 with the ``avx512`` ``msg2_form``,
which keeps the byte-reversal mask there too -- xmm0-7 only)::

    mov 12(%esp), %edx ; test %edx, %edx ; jz done ; <setup> ; loop: ... ; dec %edx ; jnz loop ; <store> ; done: ret

Example: ``shani_function_text("x86_64", default_params("x86_64"))`` assembles
to one global ``sha1_block_data_order`` in ``.text``;
``validate_shani(text, "x86_64", workdir).ok`` is True on a host with SHA-NI.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.emit.harness import BlockHarness
from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.toolchain import ToolchainError, assemble, host_is_x86_64
from sha1opt.emit.validate import run_vectors
from sha1opt.search.space.shani import LOOP_LABEL, ShaniParams, parts, prove_shani, unit_code

SYMBOL = "sha1_block_data_order"


# each arch's test of nblocks (the flags ``jz`` reads): in %rdx (SysV), or its stack slot (cdecl)
NBLOCKS_TEST: dict[Arch, tuple[str, ...]] = {"x86_64": ("test %rdx, %rdx",),
                                             "i386": ("mov 12(%esp), %edx", "test %edx, %edx")}


def shani_function_text(arch: Arch, params: ShaniParams, header: list[str] | None = None) -> str:
    """GNU-as (ELF) text of the whole SHA-NI function for ``arch`` under ``params`` (module docstring)."""
    p = parts(params, arch)
    out: list[str] = []
    if header:
        out += ["/*", *[f" * {line}".rstrip() for line in header], " */"]
    out += ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", "\t.p2align 4", f"{SYMBOL}:"]
    ins = lambda text: out.append("\t" + text)  # noqa: E731
    for t in NBLOCKS_TEST[arch]:
        ins(t)
    ins("jz .Lshani_done")
    out.append("\t/* setup: byte-reversal mask, state as ABCD (lanes reversed) and E (lane 3) */")
    for t in p.setup:
        ins(p.line(t))
    out.append("\t.p2align 4")
    out.append(f"{LOOP_LABEL}:")
    for t in (*p.head, *p.body, *p.tail):
        ins(p.line(t))
    out.append("\t/* store the state */")
    for t in p.finish:
        ins(p.line(t))
    out.append(".Lshani_done:")
    ins("ret")
    out.append(f"\t.size {SYMBOL}, .-{SYMBOL}")
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class ShaniValidation:
    """Proof of the unit and the native harness run of the whole function; ``ok`` only if both passed."""

    proved: bool
    proof: str
    native: bool
    native_detail: str

    @property
    def ok(self) -> bool:
        return self.proved and self.native


def validate_shani(text: str, arch: Arch, params: ShaniParams, workdir: Path) -> ShaniValidation:
    """Prove ``params``' unit, then assemble ``text`` and run the harness's vectors natively.

    Nothing runs natively unless the proof passed; a host without SHA-NI
    gives ``native=False`` with the reason (never a pass).
    """
    res = prove_shani(params, arch)
    if not res.ok:
        why = res.failure.describe() if res.failure else str(res.outcome)
        return ShaniValidation(False, f"not proved: {why}", False, "not run (unproved)")
    proof = f"proved: {res.cuts} cuts, {res.solver_calls} solver calls"
    missing = lacking(isa_set(unit_code(params, arch)) | {"sha"})
    if not host_is_x86_64() or missing:
        return ShaniValidation(True, proof, False, f"not run: {lacks_text(missing) if missing else 'not an x86-64 host'}")
    try:
        obj = assemble(text, arch, workdir, f"shani_{arch}")
        ok, detail = run_vectors(BlockHarness(obj, arch, workdir))
    except (ToolchainError, Sha1optError) as e:
        return ShaniValidation(True, proof, False, str(e))
    return ShaniValidation(True, proof, ok, detail)


def validated_text(arch: Arch, params: ShaniParams, header: list[str] | None = None) -> tuple[str, ShaniValidation]:
    """The function text and its validation; raises ``Sha1optError`` if it did not validate.

    For writers (the export): call this, then write the text; nothing
    unvalidated is ever returned.
    """
    text = shani_function_text(arch, params, header)
    with tempfile.TemporaryDirectory(prefix="sha1opt-shani-") as work:
        v = validate_shani(text, arch, params, Path(work))
    if not v.ok:
        raise Sha1optError(f"SHA-NI function for {arch} did not validate: {v.proof}; native: {v.native_detail}")
    return text, v
