"""Validate and export a hybrid block's function: assemble, lift, compare, prove the block, run natively.

``validate_hybrid(text, block, workdir)`` runs, in order, stopping at the
first failure (nothing runs natively before the last check):

1. ``assemble`` -- GNU as.
2. ``lift``     -- the object's machine code decoded (``semantics.lift.decode``);
                   every frame instruction must be ``hybrid_frame``'s, in
                   order (prologue, "advance data by 64, count down, branch
                   back to the body", epilogue, the nblocks == 0 exit to the
                   ``ret``); the setup and the loop body are read back into
                   ``x86.Instr`` through the AT&T parser and must be exactly
                   ``block.setup`` and ``block.body``; the body must not
                   write a setup constant register (``hybrid.setup_invariant``).
3. ``prove``    -- the *lifted* setup followed by one lifted body equals the
                   SHA-1 compression function (``hybrid_proof.prove_unit``,
                   lane-by-lane cuts). What this does not prove: the loop
                   itself (the setup hoisted out of it, ``nblocks``
                   iterations, the frame); that rests on the checked facts
                   of step 2 and on step 4 until the whole-function prover
                   reads vector state.
4. ``vectors``  -- the native harness (``validate.run_vectors``): FIPS / CAVP
                   / random messages at many sizes and alignments, random
                   states, guard pages, canaries, callee-saved registers.

``export_hybrid`` writes the file only when all pass, as ``export.export``
does for scalar schedules (the final text re-assembled through cpp must give
the validated object; atomic write). Its header says "block proved", never
that the function is.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sha1opt import __version__
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import HybridBlock, setup_invariant
from sha1opt.search.space.hybrid_proof import prove_unit
from sha1opt.semantics.att import parse_statement
from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.x86 import Instr
from sha1opt.emit.assembly import SYMBOL, X64_SAVED, format_instr
from sha1opt.emit.export import ExportResult, write_checked
from sha1opt.emit.harness import BlockHarness
from sha1opt.emit.hybrid_frame import COUNT, FRAME, function_text
from sha1opt.emit.toolchain import assemble, host_is_x86_64
from sha1opt.emit.validate import Validation, _timed, run_vectors

PROOF_SCOPE = ("block proved (setup + one block = SHA-1 compression, 80 rounds, W schedule, feed-forward); "
               "the loop and frame are not proved (checked: lifted code = generated code, the body writes "
               "no setup constant; run natively)")


def _parse(d) -> Instr:
    ins = parse_statement(d.text, "x86_64", d.address)
    if ins is None:
        raise Sha1optError(f"+{d.address:#x}: {d.text} is not an instruction")
    return ins


def _same(a, b) -> bool:
    """Instruction for instruction the same, as GNU as text (so ``lea``'s address registers compare as spelled)."""
    return len(a) == len(b) and all(format_instr(x, "x86_64") == format_instr(y, "x86_64") for x, y in zip(a, b))


@dataclass
class Lifted:
    setup: list[Instr]
    body: list[Instr]


def frame_texts(vex: bool) -> tuple[list[str], list[str], list[str]]:
    """The AT&T texts (as the decoder spells them) of the frame: before the setup, the loop control, after the loop."""
    before = ["testq %rdx, %rdx", "je"] + [f"pushq {r}" for r in X64_SAVED] + [
        f"subq ${FRAME:#x}, %rsp", f"movq %rdx, {COUNT:#x}(%rsp)"]
    control = ["addq $0x40, %rsi", f"decq {COUNT:#x}(%rsp)", "jne"]
    after = (["vzeroupper"] if vex else []) + [f"addq ${FRAME:#x}, %rsp"] + [f"popq {r}" for r in reversed(X64_SAVED)]
    return before, control, after + ["retq"]


def lift(obj: Path, vex: bool) -> Lifted:
    """The setup and loop body of the object's ``sha1_block_data_order``, decoded from its machine code.

    Every other instruction must be ``hybrid_frame``'s, in order: the prologue, the loop control
    (``jne`` back to the first body instruction) and the epilogue (``je`` at entry to the ``ret``).
    """
    o = ObjectFile.parse(obj.read_bytes())
    ds = list(decode_function(o, o.find_function(SYMBOL)).instructions.values())
    bad = next((d for d in ds if d.text.startswith("(bad)")), None)
    if bad is not None:
        raise Sha1optError(f"undecodable bytes at {SYMBOL}+{bad.address:#x}")
    texts = [d.text if d.mnemonic not in ("je", "jne") else d.mnemonic for d in ds]
    before, control, after = frame_texts(vex)
    if texts[:len(before)] != before:
        raise Sha1optError(f"the prologue is not hybrid_frame's: {texts[:len(before)]}")
    if len(ds) < len(before) + len(control) + len(after) or texts[-len(after):] != after:
        raise Sha1optError(f"the epilogue is not hybrid_frame's: {texts[-len(after):]}")
    branch = len(ds) - len(after) - 1
    if texts[branch - 2:branch + 1] != control:
        raise Sha1optError(f"unexpected loop control: {texts[branch - 2:branch + 1]}")
    heads = [k for k, d in enumerate(ds) if d.address == ds[branch].target]
    if not heads or ds[1].target != ds[-1].address:
        raise Sha1optError("the loop branch or the nblocks == 0 exit goes elsewhere")
    head = heads[0]
    setup = [_parse(d) for d in ds[len(before):head] if not d.mnemonic.startswith("nop")]
    body = [_parse(d) for d in ds[head:branch - 2]]
    return Lifted(setup, body)


def validate_hybrid(text: str, block: HybridBlock, workdir: Path, native: bool = True) -> Validation:
    """The checks of the module docstring on ``text`` (``hybrid_frame.function_text`` of ``block``)."""
    v = Validation()
    got: dict = {}

    def do_assemble():
        v.obj = assemble(text, "x86_64", workdir, "hybrid")
        return True, "x86_64 object assembled"

    def do_lift():
        lifted = lift(v.obj, block.params.isa != "ssse3")
        if not _same(lifted.setup, block.setup):
            return False, "the lifted setup is not the generated setup"
        if not _same(lifted.body, block.body):
            return False, "the lifted loop body is not the generated body"
        why = setup_invariant(HybridBlock(block.params, tuple(lifted.setup), tuple(lifted.body), 0, 0))
        if why:
            return False, why
        got["lifted"] = lifted
        return True, (f"{len(lifted.setup)} setup + {len(lifted.body)} body instructions lifted from machine code, "
                      f"equal to the generated ones; the body writes no setup constant")

    def do_prove():
        lifted = got["lifted"]
        res = prove_unit(lifted.setup + lifted.body)
        v.proof = res
        if not res.ok:
            return False, describe_failure(res)
        return True, (f"lifted setup + block = SHA-1 compression (80 rounds, W schedule, feed-forward): "
                      f"{res.cuts} cuts, {res.solver_calls} solver calls; the loop is not proved")

    def do_vectors():
        if not host_is_x86_64():
            return False, "native run needs an x86-64 host (use native=False to skip explicitly)"
        return run_vectors(BlockHarness(v.obj, "x86_64", workdir))

    for name, fn in (("assemble", do_assemble), ("lift", do_lift), ("prove", do_prove)):
        if not _timed(v, name, fn):
            return v
    if native:
        _timed(v, "vectors", do_vectors)
    return v


def predicted(block: HybridBlock, uarch: str | None) -> str:
    if uarch is None:
        return "no uarch given"
    sim = block_cost(block, load_model(uarch))
    return (f"{sim.cycles:.0f} cycles/block, {sim.cycles_per_byte:.2f} cycles/byte on {uarch} "
            f"(bottleneck: {sim.bottleneck}; per-block body, setup not counted)")


def header_lines(block: HybridBlock, uarch: str | None, prediction: str, proof: str, command: str) -> list[str]:
    return [
        "sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks)",
        f"generated by sha1opt {__version__} on {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"arch: x86_64   uarch: {uarch or 'none'}   schedule: {block.params.key()}",
        f"cost model: {prediction}",
        f"proof: {proof}",
        f"command: {command}",
    ]


def export_hybrid(block: HybridBlock, path: str | Path, *, flavor: str = "elf", uarch: str | None = None,
                  command: str = "", native: bool = True) -> ExportResult:
    """Validate ``block``'s function and write it to ``path``, or write nothing and say why."""
    path = Path(path)
    if not path.parent.is_dir():
        raise Sha1optError(f"{path.parent}: no such directory")
    prediction = predicted(block, uarch)
    with tempfile.TemporaryDirectory(prefix="sha1opt-hybrid-") as work:
        work_dir = Path(work)
        draft = function_text(block, "elf", header_lines(block, uarch, prediction, "pending", command))
        v = validate_hybrid(draft, block, work_dir, native=native)
        if not v.ok:
            return ExportResult(None, v)
        checks = "; ".join(f"{c.name}: {c.detail}" for c in v.checks if c.name in ("prove", "vectors"))
        final = function_text(block, flavor, header_lines(block, uarch, prediction, f"{PROOF_SCOPE}. {checks}",
                                                          command))
        return write_checked(path, final, "x86_64", v, work_dir, flavor)
