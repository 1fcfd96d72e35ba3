"""Figures for the hybrid family's scalar-round forms (issue 14): predicted, proved, and measured on this host.

1. Every form of ``search.space.hybrid_forms.FORMS`` on one model at one
   interleaving (default: this CPU's model, ``--uarch host``, its highest
   dialect this CPU runs, lead 1, every 4, read-ahead, rol2 -- on goldencove
   the neighbourhood ``export --uarch goldencove --isa avx512`` searches): predicted cycles/byte of the steady-state block loop, and the
   block proof (``hybrid_proof.prove_hybrid``, setup + one block = the
   80-round compression function). Every form must prove.
2. With ``--measure NAMES``: those forms' blocks at the same interleaving,
   timed against OpenSSL's AVX2 path (``emit.hybrid_bench``: each object
   validated first as export does -- assembled, lifted, the whole function
   proved from its machine code, native vectors -- then interleaved pairs
   in one process), 16 KiB and 1 MiB per call, ``--reps`` rounds over the
   list so that load swings fall on every form. Ratios are ours / OpenSSL of
   TSC ticks per byte: median [p10, p90] and the ratio of the fastest runs
   (min/min; the two vCPUs share one core, and a busy sibling slows both
   codes unequally, so the fastest runs are the quiet-core figure). A block
   needing a feature this CPU lacks (``host_cpu.lacking``) is listed, not run;
   the header names this CPU (brand, vendor, family, model).

Usage: nice -n -10 python bench/forms.py [--uarch host] [--isa DIALECT] [--lead 1] [--every 4]
       [--measure rotate-bmi,rotate-bmi-early-keep,pin-bmi-early] [--pairs 40] [--reps 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from sha1opt.emit.bench import BenchRefusal
from sha1opt.emit.hybrid_bench import bench_hybrid
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost, build_on
from sha1opt.emit.host_cpu import host, lacking, lacks_text, uarch_name
from sha1opt.search.space.hybrid import HybridParams, features
from sha1opt.search.space.hybrid_dialects import dialect, dialect_names
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.space.hybrid_forms import FORMS
from sha1opt.search.space.hybrid_proof import prove_hybrid


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uarch", default="host", help="the model (default: this CPU's)")
    ap.add_argument("--isa", default=None, choices=dialect_names(), help="the dialect (default: the model's highest this CPU runs)")
    ap.add_argument("--lead", type=int, default=1)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--measure", default="")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    try:
        args.uarch = uarch_name(args.uarch)
    except Sha1optError as e:                      # an unknown model, or this CPU in no row of cpus.toml
        ap.error(f"--uarch: {e}")
    model = load_model(args.uarch)
    if args.isa is None:
        runs = [d for d in dialect_names() if model.has_vector(dialect(d).feature) and not lacking((dialect(d).feature,))]
        if not runs:
            ap.error(f"--isa: {args.uarch} has no vector dialect this CPU runs ({', '.join(dialect_names())})")
        args.isa = runs[-1]
    point = dict(isa=args.isa, lead=args.lead, every=args.every, ahead=True, recurrence="rol2")
    print(f"# bench/forms.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; host: {host()}; "
          f"nice {os.nice(0)}; {_load()}")
    print(f"# 1. every scalar-round form on {args.uarch} at {point}: predicted c/B, block proof")
    ok = True
    rows = []
    for name in FORMS:
        block = build_on(HybridParams(scalar=name, **point), model)
        res = prove_hybrid(block)
        ok = ok and res.ok
        rows.append((block_cost(block, model).cycles_per_byte, name, len(block.loop_body()), res.ok))
    for cpb, name, n, proved in sorted(rows):
        print(f"{name:32s} {cpb:6.3f} c/B  {n:4d} instructions/block  {'proved' if proved else 'NOT PROVED'}")
    print(f"# {sum(r[3] for r in rows)} of {len(rows)} forms proved")
    names = [x for x in args.measure.split(",") if x]
    if names:
        print(f"\n# 2. measured vs OpenSSL avx2, {args.pairs} interleaved pairs per size, "
              f"{args.reps} rounds over the forms")
        print(f"{'form':32s} {'pred':>6s} {'bytes':>8s} {'median':>7s} {'p10':>6s} {'p90':>6s} {'min/min':>7s} "
              f"{'ours t/B':>8s} {'peer t/B':>8s}  load")
    for _ in range(args.reps if names else 0):
        for name in names:
            block = build_on(HybridParams(scalar=name, **point), model)
            missing = lacking(features(block))
            if missing:
                print(f"{name:32s} not run: {lacks_text(missing)}")
                continue
            rep = bench_hybrid(block, sizes=(16384, 1 << 20), pairs=args.pairs, openssl_paths=("avx2",))
            if isinstance(rep, BenchRefusal):
                print(f"{name:32s} refused: {rep.reason}")
                ok = False
                continue
            pred = block_cost(block, model).cycles_per_byte
            for st in rep.stats:
                if st.peer.endswith("avx2"):
                    print(f"{name:32s} {pred:6.3f} {st.size:8d} {st.ratio_median:7.3f} {st.ratio_p10:6.3f} "
                          f"{st.ratio_p90:6.3f} {st.ratio_of_minima:7.3f} {st.ours_ticks_per_byte:8.3f} "
                          f"{st.peer_ticks_per_byte:8.3f}  {os.getloadavg()[0]:.2f}", flush=True)
    print(f"# done; {_load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
