"""Figures for issue 14 (first slice): the hybrid family -- vector message schedule + scalar rounds.

1. Predicted, per model with SSSE3 or better: the hybrid search's best block
   (``driver.search_hybrid_block``: grid + annealing, seed 0, proved) against
   the scalar best under the same model (``blocks.best_block`` from the
   results store, default schedule where none is stored), cycles/byte of
   the per-block body in steady state.
2. Measured on this host: hybrid exports (the zen5-model winner under
   ``--isa avx512``, and the same parameters in each dialect) against
   OpenSSL's integer, SSSE3 and AVX2 paths and gcc -O2 C, 16 KiB and 1 MiB
   per call, interleaved pairs in one process per OpenSSL path
   (``emit.hybrid_bench``; each object validated first: assembled, lifted
   back equal to the generated code, setup + block proved, native vectors).
   Ratios are ours / peer of TSC ticks per byte: median [p10, p90].

Usage: nice -n -10 python bench/simd.py [--pairs 40] [--evaluations 150] [--db PATH]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import replace

from sha1opt.emit.hybrid_bench import bench_hybrid
from sha1opt.emit.bench import BenchRefusal
from sha1opt.search.driver import search_hybrid_block
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import build_on
from sha1opt.search.space.hybrid import ISAS

MODELS = ("core2", "nehalem", "skylake", "zen1", "zen3", "zen5")
SIZES = (16384, 1 << 20)
PATHS = ("integer", "ssse3", "avx2")


def _cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--evaluations", type=int, default=150)
    ap.add_argument("--db", default=None)
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    ok = True
    print(f"# bench/simd.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; host: {_cpu()}; "
          f"nice {os.nice(0)}; {_load()}")
    print(f"\n# 1. predicted cycles/byte (per-block body, steady state): hybrid search (grid + "
          f"{args.evaluations} annealing moves, seed 0) vs the scalar best under the same model")
    print(f"{'model':8s} {'hybrid':>7s} {'scalar':>7s} {'ratio':>6s}  dialect/lead/every  stop      proof; scalar source")
    winner = None
    for m in args.models.split(","):
        r = search_hybrid_block(m, cap=None, evaluations=args.evaluations, seed=0, db=args.db)
        s = r.search
        if s.params is None:
            print(f"{m:8s} {'-':>7s} {r.scalar_cycles / 64:7.2f} {'-':>6s}  {s.reason}")
            continue
        ok = ok and r.proved
        p = s.params
        print(f"{m:8s} {s.cycles_per_byte:7.2f} {r.scalar_cycles / 64:7.2f} {r.ratio:6.3f}  "
              f"{p.isa + '/' + str(p.lead) + '/' + (str(p.every) if p.placement == 'every' else 'slots'):18s} {s.reason:9s} {'proved' if r.proved else r.proof}; "
              f"{r.scalar_source}")
        if m == "zen5":
            winner = r
    if winner is None:
        winner = search_hybrid_block("zen5", cap="avx512", evaluations=args.evaluations, seed=0, db=args.db)
    base = winner.search.params
    print(f"\n# 2. measured on this host, {args.pairs} interleaved pairs per size; parameters of the zen5 "
          f"winner ({base.key()}, {len(base.offsets)} offsets) in each dialect")
    print(f"{'dialect':9s} {'peer':16s} {'bytes':>8s} {'median':>7s} {'p10':>6s} {'p90':>6s} "
          f"{'ours t/B':>8s} {'peer t/B':>8s}")
    for isa in ISAS:
        block = build_on(replace(base, isa=isa), load_model(winner.uarch))
        rep = bench_hybrid(block, sizes=SIZES, pairs=args.pairs, openssl_paths=PATHS)
        if isinstance(rep, BenchRefusal):
            print(f"{isa:9s} refused: {rep.reason}")
            ok = False
            continue
        for st in rep.stats:
            print(f"{isa:9s} {st.peer:16s} {st.size:8d} {st.ratio_median:7.3f} {st.ratio_p10:6.3f} "
                  f"{st.ratio_p90:6.3f} {st.ours_ticks_per_byte:8.3f} {st.peer_ticks_per_byte:8.3f}")
        print(f"{'':9s} validated first: {', '.join(rep.validated)}; TSC {rep.tsc_hz / 1e9:.3f} GHz")
    print(f"\n# done; {_load()}")
    print("# ratio = ours / peer in TSC ticks per byte (< 1: ours is faster); the loop and frame of each "
          "export are checked and run natively, the block (setup + one block) is proved, the function is not")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
