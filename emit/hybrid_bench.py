"""Paired-ratio timing of a hybrid block's function against OpenSSL's paths and gcc -O2 C.

The same measurement as ``emit.bench.bench`` (interleaved pairs in one
process per OpenSSL path, ratios ours/peer of ticks per byte, median and
p10/p90, all through the timing driver ``emit.timing``) straight from a
``HybridBlock``: the function is rendered from the block, validated by
``hybrid_export.validate_hybrid`` (assemble, lift, the whole function proved
from its machine code, native vectors -- what export checks) and only that
validated object is linked into the timing program (``bench.c_program``).
What fails validation is a ``BenchRefusal`` (``bench.refusal``) and nothing
runs. Each OpenSSL path's process also times the gcc peer; the gcc row of the
report is the first such process's (with no OpenSSL path, a process of ours
and gcc alone gives both rows).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.emit.bench import SIZES, BenchRefusal, BenchReport, c_program, refusal
from sha1opt.emit.host_cpu import host
from sha1opt.emit.hybrid_export import validate_hybrid
from sha1opt.emit.hybrid_frame import function_text
from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto, openssl_path_note
from sha1opt.emit.timing import PairPlan


def bench_hybrid(block: HybridBlock, *, sizes=SIZES, pairs: int = 30, min_bytes: int = 1 << 20,
                 openssl_paths=("integer", "ssse3", "avx2"), time_limit: float = BENCH_SECONDS
                 ) -> BenchReport | BenchRefusal:
    """Validate ``block``'s function, then time it against gcc -O2 C and each OpenSSL path asked."""
    plan = PairPlan(sizes, pairs, min_bytes, time_limit, probes=True)
    unknown = [p for p in openssl_paths if p not in OPENSSL_PATHS]
    if unknown:
        raise Sha1optError(f"unknown OpenSSL path {unknown[0]!r} (known: {', '.join(OPENSSL_PATHS)})")
    with tempfile.TemporaryDirectory(prefix="sha1opt-hybrid-bench-") as work:
        work_dir = Path(work)
        v = validate_hybrid(function_text(block), block, work_dir)
        refused = refusal(v)
        if refused:
            return refused
        exe = c_program("x86_64", v.obj, work_dir)
        lib = libcrypto()
        cpu, skipped, paths = host(), [], []
        for path in openssl_paths if lib else []:
            timed, note = openssl_path_note(path, cpu)
            skipped += [note] if note else []
            paths += [path] if timed else []
        report = None
        if not paths:
            t = plan.run(exe)
            report = BenchReport("x86_64", t.tsc_hz, pairs, t.stats({0: "ours", 1: "gcc -O2 C"}))
            report.notes.append("libcrypto not found: OpenSSL peers skipped" if not lib else "no OpenSSL path asked")
        for path in paths:
            mask = OPENSSL_PATHS[path]
            t = plan.run(exe, {"OPENSSL_ia32cap": mask} if mask else {}, lib)
            if report is None:
                report = BenchReport("x86_64", t.tsc_hz, pairs, t.stats({1: "gcc -O2 C", 2: f"OpenSSL {path}"}))
            else:
                report.stats += t.stats({2: f"OpenSSL {path}"})
            report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}")
        report.notes += skipped
        report.validated = tuple(c.name for c in v.checks)
    return report
