"""``export --isa shani``: the SHA-NI function, validated as every export is, then written.

``export_shani(params, arch, path, uarch=..., command=...)`` renders
``shani_frame.shani_function_text`` with a header (every line through
``assembly.comment_text``), and runs the same checks a user's ``.S`` gets
(``validate.validate_source``): gcc -c through cpp, the object check, the
machine code read back with ``semantics.lift``, the *whole function* proved
from it (``lift.function.prove_function``: nblocks = 0 a no-op, the loop
H := compress(H, block k) for every nblocks, callee-saved registers and the
stack pointer), and only then the native vectors. Nothing is written unless
every check passed; the written text must assemble to the validated object
(``image.difference``), as for the scalar export.

Example: ``export_shani(default_params("x86_64"), "x86_64", "s.S")`` gives
the checks ``assemble``, ``object``, ``lift``, ``prove`` and ``vectors``, all
ok on a host with SHA-NI, and writes ``s.S``.
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.x86 import Arch
from sha1opt.search.space.shani import ShaniParams
from sha1opt.emit.assembly import comment_text
from sha1opt.emit.export import Exportable, ExportResult, export_text, file_header
from sha1opt.emit.shani_frame import shani_function_text
from sha1opt.emit.validate import validate_source


def _header(arch: Arch, params: ShaniParams, uarch: str | None, prediction: str, proof: str,
            command: str) -> list[str]:
    lines = file_header(arch, uarch, "code: SHA-NI (sha1rnds4/sha1nexte/sha1msg1/sha1msg2)",
                        [f"parameters: {params}", f"cost model: {prediction}"], proof, command)
    return [comment_text(line) for line in lines]


def shani_exportable(params: ShaniParams, arch: Arch, *, uarch: str | None = None,
                     prediction: str = "no uarch given", command: str = "", native: bool = True) -> Exportable:
    """The SHA-NI function as ``export.export_text`` writes it: ``shani_function_text`` under ``_header``,
    checked as a user's ``.S`` is (``validate.validate_source``). ELF only: ``flavor`` is not read."""
    def check(text: str, work_dir: Path):
        draft = work_dir / "draft.S"
        draft.write_text(text)
        return validate_source(draft, arch, work_dir, native=native)

    return Exportable(
        arch,
        lambda proof, flavor: shani_function_text(arch, params, _header(arch, params, uarch, prediction, proof,
                                                                        command)),
        check)


def export_shani(params: ShaniParams, arch: Arch, path: str | Path, *, uarch: str | None = None,
                 prediction: str = "no uarch given", command: str = "", native: bool = True) -> ExportResult:
    """Validate the SHA-NI function and write it to ``path``, or write nothing and say why (module docstring)."""
    return export_text(shani_exportable(params, arch, uarch=uarch, prediction=prediction, command=command,
                                        native=native), path)
