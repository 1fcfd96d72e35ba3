"""Paired-ratio timing of a hybrid block's function against OpenSSL's paths and gcc -O2 C.

The same measurement as ``emit.bench.bench`` (interleaved pairs in one
process per OpenSSL path, ratios ours/peer of ticks per byte, median and
p10/p90) straight from a ``HybridBlock``: the function is rendered from the
block, validated by ``hybrid_export.validate_hybrid`` (assemble, lift, the
whole function proved from its machine code, native vectors -- what export
checks) and only that validated object is linked into the timing program.
What fails validation is a ``BenchRefusal`` and nothing runs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.emit.bench import SIZES, BenchRefusal, BenchReport, _build_x86_64, _stats
from sha1opt.emit.host_cpu import host, lacking
from sha1opt.emit.hybrid_export import validate_hybrid
from sha1opt.emit.hybrid_frame import function_text
from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto, openssl_path_note
from sha1opt.emit.timing import run_program


def bench_hybrid(block: HybridBlock, *, sizes=SIZES, pairs: int = 30, min_bytes: int = 1 << 20,
                 openssl_paths=("integer", "ssse3", "avx2"), time_limit: float = BENCH_SECONDS
                 ) -> BenchReport | BenchRefusal:
    """Validate ``block``'s function, then time it against gcc -O2 C and each OpenSSL path asked."""
    if pairs < 2:
        raise Sha1optError("pairs must be at least 2")
    unknown = [p for p in openssl_paths if p not in OPENSSL_PATHS]
    if unknown:
        raise Sha1optError(f"unknown OpenSSL path {unknown[0]!r} (known: {', '.join(OPENSSL_PATHS)})")
    with tempfile.TemporaryDirectory(prefix="sha1opt-hybrid-bench-") as work:
        work_dir = Path(work)
        v = validate_hybrid(function_text(block), block, work_dir)
        if not v.ok:
            return BenchRefusal(v)
        missing = lacking(v.features or ())
        if missing:                      # never timed natively on a CPU without its features
            return BenchRefusal(v, missing)
        exe = _build_x86_64(v.obj, work_dir)
        lib = libcrypto()
        cpu, skipped, paths = host(), [], []
        for path in openssl_paths if lib else []:
            timed, note = openssl_path_note(path, cpu)
            skipped += [note] if note else []
            paths += [path] if timed else []
        report = None
        if not paths:
            t = run_program(exe, sizes, pairs, min_bytes, time_limit=time_limit)
            report = BenchReport("x86_64", t.tsc_hz, pairs, _stats(t.records, t.peers, sizes, pairs,
                                                                   {0: "ours", 1: "gcc -O2 C"}))
            report.notes.append("libcrypto not found: OpenSSL peers skipped" if not lib else "no OpenSSL path asked")
        for path in paths:
            mask = OPENSSL_PATHS[path]
            t = run_program(exe, sizes, pairs, min_bytes, {"OPENSSL_ia32cap": mask} if mask else {}, lib,
                            time_limit=time_limit)
            st = _stats(t.records, t.peers, sizes, pairs, {1: "gcc -O2 C", 2: f"OpenSSL {path}"})
            if report is None:
                report = BenchReport("x86_64", t.tsc_hz, pairs, st)
            else:
                report.stats += [s for s in st if s.peer.startswith("OpenSSL")]
            report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}")
        report.notes += skipped
        report.validated = tuple(c.name for c in v.checks)
    return report
