"""Figures for issue 14, i386: the i386 hybrid export against OpenSSL's 32-bit SSSE3, AVX and integer paths.

For each ``--isa`` level in ``--levels`` (default ssse3, avx), the block ``sha1opt export --arch i386
--uarch U --isa LEVEL`` writes (``emit.families.export_choice``: the i386 hybrid search, seed 0,
the export's budget, proved) is validated as export does and timed on this host against gcc -O2
-m32 C and OpenSSL's sha1-586 paths from Debian's ``libssl-dev:i386`` ``libcrypto.a``, each path
forced through the ``OPENSSL_ia32cap_P`` words (``emit.hybrid_bench_i386``), at 16 KiB and 1 MiB
per call, interleaved pairs in one process per peer. Ratios are ours / peer of TSC ticks per byte:
median [p10, p90]; the load average is printed beside every block.

``--variant LEVEL:LEAD:EVERY`` (repeatable) also times the export's block of LEVEL with its ``lead`` and
``every`` replaced (a check of the cost model's interleaving choice on this host).

``--tune N`` also times, per level, the block ``export --arch i386 --uarch U --isa LEVEL --tune N``
writes (``emit.tuning``: the search's N best distinct candidates validated, timed against the
model's first choice on this host, the fastest kept; its per-candidate lines printed), when it
differs from the untuned export's block (refused, with one line, when U is not this CPU's model).

Invariant: nothing is timed that was not validated first (a ``BenchRefusal`` is one ``refused``
line and a non-zero exit), and the table's columns are bench/pair_table.py's, the same as
bench/simd.py's (the block column here is ``i386 LEVEL``, 16 wide). Example row:
``i386 ssse3       OpenSSL ssse3       16384   0.950  0.940  0.960   0.948    1.900    2.000``.

``--uarch`` defaults to this CPU's model (``--uarch host``, ``emit.host_cpu``); a block needing a feature
this CPU lacks (``host_cpu.lacking``, ``SHA1OPT_CPU_LACKS`` honoured) is listed, not run. The banner names
this CPU (brand, vendor, family, model) and its model.

Usage: nice -n -10 python bench/simd_i386.py [--uarch host] [--levels ssse3,avx] [--pairs 40]
           [--paths integer,ssse3,avx] [--variant ssse3:2:1] [--tune N] [--db PATH] [--out bench/results/simd_i386.txt]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from pair_table import banner, header, load, openssl_paths, report_lines

from sha1opt.emit.bench import BenchRefusal
from sha1opt.emit.hybrid_bench_i386 import bench_hybrid_i386
from sha1opt.emit.families import export_choice
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.hybrid_export import function_text
from sha1opt.emit.host_cpu import host, host_refusal, lacking, lacks_text, uarch_name
from sha1opt.emit.tuning import describe, tune
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import features
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.semantics.errors import Sha1optError

SIZES = (16384, 1 << 20)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uarch", default="host", help="the model whose export is timed here (default: this CPU's)")
    ap.add_argument("--levels", default="ssse3,avx")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--db", default=None)
    ap.add_argument("--paths", default="integer,ssse3,avx")
    ap.add_argument("--out", default=None, help="also write the output to this file")
    ap.add_argument("--variant", action="append", default=[], help="LEVEL:LEAD:EVERY (module docstring)")
    ap.add_argument("--tune", type=int, default=None, help="also the `export --tune N` block per level")
    args = ap.parse_args()
    try:
        args.uarch = uarch_name(args.uarch)
    except Sha1optError as e:                      # an unknown model, or this CPU in no row of cpus.toml
        ap.error(f"--uarch: {e}")
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    ok = True
    say(banner("bench/simd_i386.py"))
    say(f"# ours: `sha1opt export --arch i386 --uarch {args.uarch} --isa LEVEL`; peers: gcc -O2 -m32 C and "
        f"OpenSSL sha1-586 (libcrypto.a, path forced by OPENSSL_ia32cap_P); {args.pairs} interleaved pairs per size")
    say(header(16))
    model = load_model(args.uarch)
    runs = [(level, None) for level in args.levels.split(",")]
    runs += [(v.split(":")[0], (int(v.split(":")[1]), int(v.split(":")[2]))) for v in args.variant]
    runs += [(level, "tune") for level in args.levels.split(",") if args.tune]
    for level, variant in runs:
        choice = export_choice(args.uarch, "i386", level, args.db)
        if choice.family is not HYBRID:
            say(f"# --isa {level}: export writes scalar code ({'; '.join(choice.notes)}): not measured here")
            continue
        block = choice.code
        if variant == "tune":
            why = host_refusal(args.uarch, host())
            if why:
                say(f"# --isa {level} --tune {args.tune}: refused: {why}")
                continue
            t = tune(args.uarch, "i386", level, args.tune)
            for line in describe(t):
                say(f"# --isa {level} --tune {args.tune}: {line}")
            best = t.best.choice
            if best.family is not HYBRID:
                say(f"# --isa {level} --tune {args.tune}: the measured best is not a hybrid block: not timed here")
                continue
            if function_text(best.code) == function_text(block):
                say(f"# --isa {level} --tune {args.tune}: the tuned block is the export's: not timed again")
                continue
            block, level = best.code, f"{level}/tuned"
            proof = "tuning validated it first (block proof, whole function from the object, vectors)"
        elif variant is not None:
            block = build_i386(replace(block.params, lead=variant[0], every=variant[1], placement="every"))
            say(f"# variant of the --isa {level} export: lead {variant[0]}, every {variant[1]}")
            level = f"{level}/{variant[0]}/{variant[1]}"
        if variant != "tune":
            proof = ("the export's block proof does not cover a variant: see 'validated first'" if variant else
                     choice.notes[0].split("; ")[1] if "; " in choice.notes[0] else choice.notes[0])
        say(f"# --isa {level}: {block.params.key()}; {block_cost(block, model).cycles_per_byte:.2f} c/B predicted "
            f"on {args.uarch}; {proof}")
        missing = lacking(features(block))
        if missing:
            say(f"i386 {level:11s} not run: {lacks_text(missing)}")
            continue
        rep = bench_hybrid_i386(block, sizes=SIZES, pairs=args.pairs, openssl_paths=openssl_paths(args.paths))
        for line in report_lines(f"i386 {level:11s}", 16, rep):
            say(line)
        if isinstance(rep, BenchRefusal):
            ok = False
            continue
        for note in rep.notes:
            say(f"{'':16s} {note}")
    say(f"# done; {load()}")
    say("# ratio = ours / peer in TSC ticks per byte (< 1: ours is faster); min/min = ratio of the fastest runs; "
        "the measured object is proved as a whole function from its machine code and run on the vectors first")
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Sha1optError as e:               # bad input (e.g. a --db that does not exist): one line, no traceback
        print(f"simd_i386.py: {e}", file=sys.stderr)
        sys.exit(2)
