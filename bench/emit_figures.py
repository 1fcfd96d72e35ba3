"""Figures for the emit/validate/bench issue.

1. Validation time of a full emitted transform (assemble, lift from machine
   code, compositional proof, native vectors), per arch, median / best of N.
2. `sha1opt bench` of the default (textbook) schedule on both arches:
   paired ratios vs OpenSSL's integer path (x86-64) and gcc -O2 C, all sizes.

Usage: python bench/emit_figures.py [--repeats N] [--pairs P]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sha1opt.emit.assembly import function_text
from sha1opt.emit.export import export
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=30)
    args = ap.parse_args()
    ok = True
    print(f"# validation of a full transform: seconds, median / best of {args.repeats}")
    for arch in ("x86_64", "i386"):
        sched = textbook(arch)
        text = function_text(sched)
        times, stages = [], None
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                v = validate(text, sched, Path(d))
                times.append(time.perf_counter() - t0)
                ok = ok and v.ok
                stages = v.checks
        per = ", ".join(f"{c.name} {c.seconds:.2f}" for c in stages)
        print(f"{arch:7s} {statistics.median(times):6.2f} / {min(times):6.2f}   ({per}); "
              f"{'all checks passed' if v.ok else 'FAILED: ' + v.failure.detail}")
    exe = str(Path(sys.executable).with_name("sha1opt"))
    with tempfile.TemporaryDirectory() as d:
        for arch in ("x86_64", "i386"):
            out = Path(d) / f"textbook-{arch}.S"
            ok = ok and export(textbook(arch), out).ok
            print(f"\n# sha1opt bench textbook-{arch}.S --pairs {args.pairs}")
            paths = "integer,ssse3,avx2,default" if arch == "x86_64" else "none"
            proc = subprocess.run([exe, "bench", str(out), "--pairs", str(args.pairs), "--openssl", paths],
                                  capture_output=True, text=True)
            print(proc.stdout.rstrip())
            ok = ok and proc.returncode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
