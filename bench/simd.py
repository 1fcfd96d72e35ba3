"""Figures for issue 14 (first slice): the hybrid family -- vector message schedule + scalar rounds.

1. Predicted, per model with SSSE3 or better: the hybrid search's best block
   (``driver.search_hybrid_block``: grid + annealing, seed 0, proved) against
   the scalar best under the same model (``blocks.best_block`` from the
   results store, default schedule where none is stored), cycles/byte of
   the per-block body in steady state.
2. Measured on this host: the block ``export --uarch U --isa avx512``
   writes (``driver.search_hybrid_block``, the export's budget) for the
   models in ``--measure`` (default: this CPU's model, ``--uarch host``;
   name others, e.g. ``zen5,goldencove``, to time their code here), with
   ``--dialects`` also each winner's parameters in the other dialects,
   against OpenSSL's integer, SSSE3 and AVX2
   paths and gcc -O2 C, 16 KiB and 1 MiB per call, interleaved pairs in one
   process per OpenSSL path (``emit.hybrid_bench``; each object validated
   first as export does: assembled, lifted, the whole function proved from
   its machine code, native vectors). Ratios are ours / peer of TSC ticks
   per byte: median [p10, p90]. A block needing a feature this CPU lacks
   (``host_cpu.lacking``, ``SHA1OPT_CPU_LACKS`` honoured) is listed, not run.
   The banner names this CPU (brand, vendor, family, model) and its model.

   With ``--tune N`` also the block ``export --uarch U --isa avx512 --tune N`` writes
   (``emit.tuning``: the search's N best distinct candidates validated, timed against the model's
   first choice on this host, the fastest kept; refused for a model that is not this CPU's), its
   per-candidate lines printed, timed in the same way beside the untuned export.

Invariant: nothing is timed that was not validated first (a ``BenchRefusal`` is one ``refused``
line and a non-zero exit), and the table's columns are bench/pair_table.py's, the same as
bench/simd_i386.py's (only the block column's width differs: 22 here). Example row:
``zen5 export            OpenSSL ssse3       16384   0.950  0.940  0.960   0.948    1.900    2.000``.

Usage: nice -n -10 python bench/simd.py [--pairs 40] [--evaluations 150] [--db PATH] [--measure host|none|U1,U2]
           [--tune N] [--paths integer,ssse3,avx2]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from pair_table import banner, header, load, openssl_paths, report_lines

from sha1opt.emit.hybrid_bench import bench_hybrid
from sha1opt.emit.bench import BenchRefusal
from sha1opt.emit.hybrid_export import function_text
from sha1opt.emit.host_cpu import host, host_refusal, lacking, lacks_text, uarch_name
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.tuning import describe, tune
from sha1opt.search.driver import search_hybrid_block
from sha1opt.search.cost.model import load_model
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.engines.hybrid import build_on
from sha1opt.search.space.hybrid import features
from sha1opt.search.space.hybrid_dialects import dialect, dialect_names

MODELS = ("core2", "nehalem", "skylake", "goldencove", "zen1", "zen3", "zen5")
SIZES = (16384, 1 << 20)
PATHS = ("integer", "ssse3", "avx2")


def _short(p) -> str:
    place = str(p.every) if p.placement == "every" else "slots"
    fam = ("ahead" if p.ahead else "") + ("+rol2" if p.recurrence == "rol2" else "")
    return f"{p.isa}/{p.lead}/{place}/{fam or 'top'}/{p.scalar}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--evaluations", type=int, default=150)
    ap.add_argument("--db", default=None)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--measure", default="host",
                    help="models whose export is timed here (default: this CPU's model; none: the predictions only)")
    ap.add_argument("--dialects", action="store_true", help="also each measured winner's parameters in each dialect")
    ap.add_argument("--tune", type=int, default=None, help="also the `export --tune N` block (module docstring)")
    ap.add_argument("--paths", default=",".join(PATHS), help="OpenSSL paths to time against")
    args = ap.parse_args()
    try:
        measure = [] if args.measure == "none" else [uarch_name(m) for m in args.measure.split(",")]
    except Sha1optError as e:                      # an unknown model, or this CPU in no row of cpus.toml
        ap.error(f"--measure: {e}")
    ok = True
    print(banner("bench/simd.py"))
    print(f"\n# 1. predicted cycles/byte (per-block body, steady state): hybrid search (grid + "
          f"{args.evaluations} annealing moves, seed 0) vs the scalar best under the same model")
    print(f"{'model':10s} {'hybrid':>7s} {'scalar':>7s} {'ratio':>6s}  {'dialect/lead/every/family':34s} "
          f"stop      proof; scalar source")
    for m in args.models.split(","):
        r = search_hybrid_block(m, cap=None, evaluations=args.evaluations, seed=0, db=args.db)
        s = r.search
        if s.params is None:
            print(f"{m:10s} {'-':>7s} {r.scalar_cycles / 64:7.2f} {'-':>6s}  {s.reason}")
            continue
        ok = ok and r.proved
        print(f"{m:10s} {s.cycles_per_byte:7.2f} {r.scalar_cycles / 64:7.2f} {r.ratio:6.3f}  {_short(s.params):34s} "
              f"{s.reason:9s} {'proved' if r.proved else r.proof}; {r.scalar_source}")
    print(f"\n# 2. measured on this host, {args.pairs} interleaved pairs per size: the hybrid block "
          f"`export --uarch U --isa avx512` writes (grid + {args.evaluations} annealing moves, seed 0)")
    print(header(22))
    blocks = []
    for m in measure:
        r = search_hybrid_block(m, cap="avx512", evaluations=args.evaluations, seed=0, db=args.db)
        p = r.search.params
        print(f"# {m} --isa avx512: {p.key()} ({len(p.offsets)} offsets); {r.search.cycles_per_byte:.2f} c/B "
              f"predicted on {m}; {r.proof}")
        blocks.append((f"{m} export", r.search.block))
        if args.tune:
            why = host_refusal(m, host())
            if why:
                print(f"# {m} --tune {args.tune}: refused: {why}")
            else:
                t = tune(m, "x86_64", "avx512", args.tune)
                for line in describe(t):
                    print(f"# {m} --tune {args.tune}: {line}")
                best = t.best.choice
                if best.family is HYBRID and function_text(best.code) != function_text(r.search.block):
                    blocks.append((f"{m} tuned", best.code))
                elif best.family is not HYBRID:
                    print(f"# {m} --tune {args.tune}: the measured best is not a hybrid block: not timed here")
        if args.dialects:
            blocks += [(f"{m} params, {isa}", build_on(replace(p, isa=isa), load_model(m))) for isa in dialect_names()
                       if isa != p.isa and "x86_64" in dialect(isa).arches]
    for name, block in blocks:
        missing = lacking(features(block))
        if missing:
            print(f"{name:22s} not run: {lacks_text(missing)}")
            continue
        rep = bench_hybrid(block, sizes=SIZES, pairs=args.pairs, openssl_paths=openssl_paths(args.paths))
        ok = ok and not isinstance(rep, BenchRefusal)
        for line in report_lines(f"{name:22s}", 22, rep):
            print(line)
    print(f"\n# done; {load()}")
    print("# ratio = ours / peer in TSC ticks per byte (< 1: ours is faster); min/min = ratio of the fastest "
          "runs; every measured object is proved as a whole function from its machine code first")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Sha1optError as e:               # bad input (e.g. a --db that does not exist): one line, no traceback
        print(f"simd.py: {e}", file=sys.stderr)
        sys.exit(2)
