"""Validate and export a hybrid block's function: assemble, lift, prove the whole function, run natively.

``validate_hybrid(text, block, workdir)`` runs the checks every sha1opt
export gets (``validate.validate``), in order, stopping at the first
failure (nothing runs natively before the last check):

1. ``assemble`` -- GNU as.
2. ``lift``     -- the object's machine code decoded (``semantics.lift``).
3. ``prove``    -- the *whole function* proved from that machine code
                   (``lift.function.prove_function``, contract nblocks >= 0):
                   nblocks = 0 a no-op; the block loop -- the constants and,
                   with read-ahead, the state and block 0's W+K set up once
                   before it, the loop-head invariant with the next block's
                   W+K as head terms -- computes H := compress(H, block k) for
                   every nblocks; callee-saved registers, the stack pointer
                   and every exit checked. Nothing of ``block`` is trusted:
                   the proof reads only the object.
4. ``vectors``  -- the native harness (``validate.run_vectors``): FIPS / CAVP
                   / random messages at many sizes and alignments, random
                   states, guard pages, canaries, callee-saved registers.

``export_hybrid`` writes the file only when all pass, through
``export.export_text`` as every export (the final text re-assembled through
cpp must give the validated object; atomic write). Example:
``export_hybrid(build(HybridParams(isa="avx512vl", ahead=True)), "h.S")``
gives the checks assemble, lift, prove, vectors, all ok on an x86-64 host.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Callable

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.emit.export import Exportable, ExportResult, export_text, file_header
from sha1opt.emit.hybrid_frame import function_text as x64_function_text
from sha1opt.emit.hybrid_i386_frame import function_text as i386_function_text
from sha1opt.emit.validate import Validation, validate

# each arch's frame around a hybrid block: (block, flavor, header lines) -> the whole function
FRAME_TEXT: dict[Arch, Callable[..., str]] = {"x86_64": x64_function_text, "i386": i386_function_text}


def function_text(block: HybridBlock, flavor: str = "elf", header: list[str] | None = None) -> str:
    """The whole function of ``block`` in its arch's frame (``FRAME_TEXT``: ``hybrid_frame`` or
    ``hybrid_i386_frame``)."""
    return FRAME_TEXT[block.params.arch](block, flavor, header)


PROOF_SCOPE = "whole function proved from its machine code (every nblocks >= 0, loop invariant, exits, ABI)"


def validate_hybrid(text: str, block: HybridBlock, workdir: Path, native: bool = True) -> Validation:
    """The checks of the module docstring on ``text`` (``hybrid_frame.function_text`` of ``block``)."""
    return validate(text, block.schedule(), workdir, native=native)


def predicted(block: HybridBlock, uarch: str | None) -> str:
    """The header's prediction: the block-loop measure (``search.measure``: the loop with its loop control,
    the setup run once per call not counted), or why there is none."""
    if uarch is None:
        return "no uarch given"
    sim = block_cost(block, load_model(uarch))
    return (f"{sim.cycles:.0f} cycles/block, {sim.cycles_per_byte:.2f} cycles/byte on {uarch} "
            f"(bottleneck: {sim.bottleneck}; the block loop, setup not counted)")


def header_lines(block: HybridBlock, uarch: str | None, prediction: str, proof: str, command: str) -> list[str]:
    return file_header(block.params.arch, uarch, f"schedule: {block.params.key()}", [f"cost model: {prediction}"], proof,
                       command)


def hybrid_exportable(block: HybridBlock, *, uarch: str | None = None, command: str = "",
                      native: bool = True) -> Exportable:
    """``block``'s function as ``export.export_text`` writes it: ``function_text`` under ``header_lines`` (the
    prediction made once), checked by ``validate_hybrid``, the proof line led by ``PROOF_SCOPE``."""
    prediction = cache(lambda: predicted(block, uarch))
    return Exportable(
        block.params.arch,
        lambda proof, flavor: function_text(block, flavor, header_lines(block, uarch, prediction(), proof, command)),
        lambda text, work_dir: validate_hybrid(text, block, work_dir, native=native),
        lambda v: f"{PROOF_SCOPE}. {v.summary()}")


def export_hybrid(block: HybridBlock, path: str | Path, *, flavor: str = "elf", uarch: str | None = None,
                  command: str = "", native: bool = True) -> ExportResult:
    """Validate ``block``'s function and write it to ``path``, or write nothing and say why."""
    return export_text(hybrid_exportable(block, uarch=uarch, command=command, native=native), path, flavor)
