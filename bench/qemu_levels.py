"""Which ISA levels qemu-user runs correctly, found by test: sha1opt's own functions under the full vector harness.

``corpus/emulators.toml`` says which features an emulator executes correctly; ``emit/execution.py``
uses it to run the ``vectors`` check of code this CPU lacks a feature for. This script is where the
rows come from -- by running, not from qemu's documentation. Per arch and level it builds a
representative function sha1opt exports at that level:

* scalar base: the textbook schedule (``candidate.textbook``), both arches;
* scalar bmi1+bmi2: the textbook order with ``andn`` f1 rounds and ``rorx`` rotates (``Recipe``);
* hybrid ssse3 / avx / avx512vl dialects: ``search.space.hybrid.build(HybridParams(isa=..., arch=...))``
  in their frames (``emit.hybrid_export.function_text``), both arches where the dialect exists;
* hybrid avx + bmi1/bmi2 scalar rounds: what ``--isa avx2`` exports (sha1opt has no ymm code: the
  avx2 cap takes the avx dialect with BMI rounds), so "avx2" is claimed only if it was run;
* SHA-NI: ``emit.shani_frame.shani_function_text`` with ``shani.default_params``, both arches;

assembles, lifts and proves each (``validate``/``validate_source`` with ``native=False``: the proof
from machine code), takes the features its decoded machine code needs (``Validation.features``),
and runs the full vector harness (``validate.run_vectors``: FIPS/CAVP, random messages vs hashlib,
random states vs the numpy spec, guard pages, canaries, callee-saved registers) under
``qemu-x86_64 -cpu max`` / ``qemu-i386 -cpu max``, each run under the native limits. A level passes
only when every record matches. It prints, and writes to ``bench/results/qemu_levels.txt``, the qemu
version, the host CPU, the date, one line per level and the features the passing levels cover.

Usage: python bench/qemu_levels.py [--out bench/results/qemu_levels.txt]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from sha1opt.emit.assembly import function_text as scalar_text
from sha1opt.emit.emulator import installed_version
from sha1opt.emit.harness import BlockHarness
from sha1opt.emit.host_cpu import host
from sha1opt.emit.hybrid_export import function_text as hybrid_text, validate_hybrid
from sha1opt.emit.shani_frame import shani_function_text
from sha1opt.emit.validate import run_vectors, validate, validate_source
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.recipe import Recipe
from sha1opt.search.space.shani import default_params
from sha1opt.semantics.features import includes

ROOT = Path(__file__).resolve().parent.parent
QEMU = {"x86_64": "qemu-x86_64", "i386": "qemu-i386"}
# qemu-i386 reserves the whole 4 GiB guest space up front, past the harness's 1 GiB RLIMIT_AS
# (limits.NATIVE_MEMORY): "-R 0x20000000" reserves 512 MiB (the harness needs a few MiB).
ARGV = {"x86_64": ("qemu-x86_64", "-cpu", "max"), "i386": ("qemu-i386", "-cpu", "max", "-R", "0x20000000")}
BMI = Recipe.parse("f1=f1/t2/bmi1/keep/2,rol5=rorx")


def bmi_schedule(arch):
    real = realize(Candidate(0, 79, arch, BMI))
    return block_schedule([real.code], arch, "textbook order, andn f1, rorx rotates")


def levels():
    """(arch, label, validate(workdir) -> Validation) of every representative function."""
    out = []
    for arch in ("x86_64", "i386"):
        out.append((arch, "scalar textbook", lambda w, a=arch: validate(_text(textbook(a)), textbook(a), w, native=False)))
        out.append((arch, "scalar andn/rorx", lambda w, a=arch: validate(_text(bmi_schedule(a)), bmi_schedule(a), w,
                                                                         native=False)))
        for isa in ("ssse3", "avx", "avx512vl"):
            out.append((arch, f"hybrid {isa}", lambda w, a=arch, i=isa: _hybrid(HybridParams(isa=i, arch=a), w)))
        out.append((arch, "hybrid avx + andn/rorx rounds", lambda w, a=arch: _hybrid(
            HybridParams(isa="avx", arch=a, recipe=Recipe.parse("f1=f1/t2/bmi1/keep/2,rol5=rorx")), w)))
        out.append((arch, "SHA-NI", lambda w, a=arch: _shani(a, w)))
    return out


def _text(schedule):
    return scalar_text(schedule)


def _hybrid(params, work):
    block = build(params) if params.arch == "x86_64" else build_i386(params)
    return validate_hybrid(hybrid_text(block), block, work, native=False)


def _shani(arch, work):
    src = work / "shani.S"
    src.write_text(shani_function_text(arch, default_params(arch)))
    return validate_source(src, arch, work, native=False)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/qemu_levels.txt")
    args = ap.parse_args()
    lines = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    versions = {arch: installed_version(q) for arch, q in QEMU.items()}
    if not all(versions.values()):
        print(f"qemu-user not installed ({versions}); apt-get install qemu-user", file=sys.stderr)
        return 2
    cpu = host()
    say(f"# bench/qemu_levels.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}")
    for arch, q in QEMU.items():
        say(f"# {q} version {'.'.join(map(str, versions[arch]))} (argv: {' '.join(ARGV[arch])})")
    say(f"# host CPU: {cpu} (features {', '.join(sorted(cpu.features)) if cpu else '?'})")
    say("# each level: assembled, lifted, proved from machine code (native=False), then the full vector harness "
        "under qemu")
    passed: dict[str, set[str]] = {"x86_64": set(), "i386": set()}
    failed: dict[str, set[str]] = {"x86_64": set(), "i386": set()}
    for arch, label, make in levels():
        with tempfile.TemporaryDirectory(prefix="sha1opt-qemu-") as d:
            work = Path(d)
            v = make(work)
            if not v.ok:
                say(f"{arch:6s}  {label:32s}  NOT BUILT  {v.failure.name}: {v.failure.detail}")
                continue
            feats = sorted(v.features)
            ok, detail = run_vectors(BlockHarness(v.obj, arch, work, prefix=ARGV[arch]))
            (passed if ok else failed)[arch].update(v.features)
            say(f"{arch:6s}  {label:32s}  needs {'+'.join(feats) or 'base':22s}  {'PASS' if ok else 'FAIL'}  {detail}")
    for arch in QEMU:
        good = sorted(passed[arch] - failed[arch])
        bad = sorted(f for f in failed[arch] if not any(includes(g, f) for g in good))
        say(f"# {QEMU[arch]}: levels passed: {', '.join(good) or 'none'} (and what they include); "
            f"failed: {', '.join(bad) or 'none'}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
