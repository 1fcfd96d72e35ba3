"""``export --dispatch``: validate the dispatching function -- every path proved whole, every path run -- then write it.

``validate_dispatch(text, paths, arch, workdir)`` runs, in order, stopping at the first failure
(nothing runs natively before ``prove`` passed):

1. ``assemble``    -- gcc -c through cpp (as a user's build, and as ``export.write_checked``
                      re-assembles the final text).
2. ``lift``        -- the machine code of the entry, of every path function and of the
                      constructor decoded (``semantics.lift``), no undecodable byte; the one
                      ``.init_array`` entry points at the constructor.
3. ``prove``       -- the *whole* function from the object (``lift.function.prove_function``, the
                      prover ``prove --object`` runs): every dispatch path under its condition on
                      the bytes of ``sha1opt_ia32cap`` (read as an input, like OpenSSL's
                      ``OPENSSL_ia32cap_P``), nblocks = 0 a no-op and the loop for every nblocks;
                      and every path function is reached by a proved loop path (a path the
                      dispatch can never take fails here).
4. ``constructor`` -- the constructor run as a program runs it (``dispatch_probe``): the word it
                      writes must equal what ``/proc/cpuinfo`` says (``word_from_cpu_flags``);
                      the detail names the path this CPU takes.
5. ``vectors``     -- for every path, the word forced to that path's mask (``emit.confirm``'s
                      ``symbols``, which presets a word the object defines) and the whole vector
                      set run (``validate.run_vectors``: every size and alignment the harness
                      covers). A path this CPU cannot run is listed as not run, never as passed;
                      the fallback always runs.

``export_dispatch(plan, path)`` writes the file only when all pass, through
``export.export_text`` (header check, the written text must assemble to the validated object,
atomic write). ELF only (the constructor is an ``.init_array`` entry).
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.assembly import SYMBOL
from sha1opt.emit.confirm import Unavailable, harness_for
from sha1opt.emit.dispatch_plan import DispatchPlan
from sha1opt.emit.dispatch_probe import probe_word
from sha1opt.emit.dispatch_text import PathCode, dispatch_function_text
from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.dispatch_word import FEATURE_BITS, INIT_SYMBOL, WORD_SYMBOL, features_of, word_from_cpu_flags
from sha1opt.emit.export import Exportable, ExportResult, export_text, file_header
from sha1opt.emit.image import read_object
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import compile_preprocessed, cpu_flags, host_is_x86_64
from sha1opt.emit.validate import Validation, lift_functions, prove_export, run_vectors


class DispatchExportError(Sha1optError):
    """Misuse: a flavor the dispatching export cannot write."""


def taken(paths: list[PathCode], word: int) -> PathCode:
    """The path the dispatch takes for ``word``: the first whose mask the word covers."""
    return next(p for p in paths if p.mask & ~word == 0)


def _features(word: int) -> str:
    return ", ".join(sorted(features_of(word))) or "none"


def validate_dispatch(text: str, paths: list[PathCode], arch: Arch, workdir: Path, native: bool = True) -> Validation:
    """The checks of the module docstring on ``text`` (``dispatch_text.dispatch_function_text`` of ``paths``)."""
    v = Validation()
    got: dict = {}

    def do_assemble():
        v.obj = compile_preprocessed(text, arch, workdir, "dispatch")
        return True, f"{arch} object assembled (gcc -c, through cpp)"

    def do_lift():
        obj = read_object(v.obj)
        fns = lift_functions(obj, [SYMBOL, *(p.symbol for p in paths), INIT_SYMBOL])
        if isinstance(fns, str):
            return False, fns
        count = sum(len(fn.instructions) for fn in fns)
        init = list(obj.relocs.get(".init_array", {}).values())
        ctor = obj.find_function(INIT_SYMBOL)
        if len(init) != 1 or not (init[0].symbol == INIT_SYMBOL or (
                init[0].section == ctor.section and init[0].target + init[0].addend == ctor.value)):
            return False, f".init_array does not hold exactly the constructor {INIT_SYMBOL}"
        got["obj"] = obj
        return True, (f"{count} instructions decoded from machine code ({SYMBOL}, {len(paths)} paths, "
                      f"{INIT_SYMBOL}); .init_array holds {INIT_SYMBOL}")

    def do_prove():
        ok, detail = prove_export(v, got["obj"], arch)
        if not ok:
            return ok, detail
        reached = {p.label for p in v.proof.paths if p.kind == "loop" and p.outcome == "proved"}
        missing = [p.name for p in paths if p.symbol not in reached]
        if missing:
            return False, f"path {missing[0]} is never reached by the dispatch (no proved loop path ends in it)"
        return True, (f"{detail}; {len(paths)} dispatch paths ({', '.join(p.name for p in paths)}), each under its "
                      f"condition on {WORD_SYMBOL}")

    def do_constructor():
        word = probe_word(v.obj, arch, workdir)
        if not isinstance(word, int):
            return False, word.reason
        got["word"] = word
        want = word_from_cpu_flags(cpu_flags())
        if word != want:
            return False, (f"the constructor wrote {word:#x} ({_features(word)}); /proc/cpuinfo says {want:#x} "
                           f"({_features(want)})")
        return True, (f"{INIT_SYMBOL} (run from .init_array) wrote {WORD_SYMBOL} = {word:#x} ({_features(word)}), "
                      f"as /proc/cpuinfo says: this CPU takes path {taken(paths, word).name}")

    def do_vectors():
        uo = load_object(v.obj, workdir, arch)
        word = got["word"]
        ran, skipped = [], []
        for p in paths:
            # the constructor's word and the one predicate of what runs here (SHA1OPT_CPU_LACKS included)
            lacks = sorted(set(features_of(p.mask & ~word)) | set(lacking(p.features)))
            if lacks:
                skipped.append(f"{p.name} ({lacks_text(lacks)})")
                continue
            forced = workdir / f"forced_{p.name}"
            forced.mkdir(exist_ok=True)
            harness = harness_for(uo, SYMBOL, forced, symbols={WORD_SYMBOL: p.mask.to_bytes(4, "little")})
            if isinstance(harness, Unavailable):
                return False, f"path {p.name}: {harness.reason}"
            ok, detail = run_vectors(harness)
            if not ok:
                return False, f"path {p.name} ({WORD_SYMBOL} = {p.mask:#x}): {detail}"
            ran.append(f"{p.name} ({WORD_SYMBOL} = {p.mask:#x})")
        head = f"every path forced and run: {'; '.join(ran)}: {detail}"
        return True, head + (f"; not run here: {'; '.join(skipped)}" if skipped else "")

    for name, fn in (("assemble", do_assemble), ("lift", do_lift), ("prove", do_prove)):
        if not v.run_check(name, fn):
            return v
    if native:
        if not host_is_x86_64():
            v.run_check("constructor", lambda: (False, "native runs need an x86-64 host (native=False skips them)"))
            return v
        if v.run_check("constructor", do_constructor):
            v.run_check("vectors", do_vectors)
    return v


def header_lines(plan: DispatchPlan, proof: str, command: str) -> list[str]:
    bits = ", ".join(f"{b}: {f}" for f, b in FEATURE_BITS.items())
    middle = [f"path {k + 1}: {c.describe()}; mask {c.code.mask:#x}" for k, c in enumerate(plan.paths)]
    middle += [f"left out: {d}" for d in plan.dropped]
    middle.append(f"capability word: {WORD_SYMBOL} (32 bits, .data; bits {bits}), written once by {INIT_SYMBOL} "
                  f"(.init_array constructor: cpuid, xgetbv for the OS's AVX/AVX-512 state); 0 before it runs: the last path")
    return file_header(plan.arch, plan.uarch, f"dispatching: {len(plan.paths)} paths, the first whose features the CPU "
                       f"has runs", middle, proof, command)


def dispatch_exportable(plan: DispatchPlan, *, command: str = "", native: bool = True) -> Exportable:
    """The dispatching function of ``plan`` as ``export.export_text`` writes it (ELF only: ``flavor`` is not
    read): ``dispatch_function_text`` under ``header_lines``, checked by ``validate_dispatch``."""
    codes = plan.codes()
    return Exportable(
        plan.arch,
        lambda proof, flavor: dispatch_function_text(plan.arch, codes, header_lines(plan, proof, command)),
        lambda text, work_dir: validate_dispatch(text, codes, plan.arch, work_dir, native=native),
        lambda v: v.summary(("prove", "constructor", "vectors")))


def export_dispatch(plan: DispatchPlan, path: str | Path, *, flavor: str = "elf", command: str = "",
                    native: bool = True) -> ExportResult:
    """Validate the dispatching function of ``plan`` and write it to ``path``, or write nothing and say why."""
    if flavor != "elf":
        raise DispatchExportError("the dispatching function is written for ELF only (its constructor is an "
                                  ".init_array entry)")
    return export_text(dispatch_exportable(plan, command=command, native=native), path, flavor)
