"""SHA-NI: sha1opt's exported SHA-NI function vs OpenSSL's SHA-NI (shaext) path, on this host.

Issue 14's done-means: ``export --uarch zen5`` (SHA-NI allowed) vs OpenSSL's
SHA-NI path, median ratio <= 1.00. This script:

1. searches the SHA-NI block for every model with SHA-NI (zen1, zen3, zen5;
   ``search.engines.shani.best_shani``, both arches) and prints the predicted
   cycles per block and c/B, the proof and the stop reason;
2. builds zen5's x86-64 function (``emit.shani_frame.validated_text``: the
   unit proved, the whole function run through the native harness -- nothing
   is timed before that) and times it in one process against OpenSSL's
   libcrypto (``SHA1_Update``) on its SHA-NI path -- OpenSSL's default on this
   host, which has SHA-NI (``OPENSSL_ia32cap`` unset; ``emit.peers.OPENSSL_PATHS``)
   -- and, as context, its AVX2 path (SHA extensions masked off), and gcc -O2 C,
   at 16 KiB and 1 MiB per call, ``--pairs`` interleaved pairs (order rotating),
   each call repeated to 1 MiB; per-pair ratios ours/peer of TSC ticks per byte:
   median, p10, p90.

Usage: nice -n -10 python bench/shani.py [--pairs 41]   (output: bench/results/shani.txt)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto
from sha1opt.emit.shani_frame import host_has_shani, validated_text
from sha1opt.emit.timing import hosted_program, run_program
from sha1opt.emit.toolchain import assemble, compile_source, csrc
from sha1opt.search.cost import load_model, model_names
from sha1opt.search.engines.shani import best_shani, has_shani

SIZES = (16384, 1 << 20)
MIN_BYTES = 1 << 20
PATHS = ("default", "avx2")       # default = SHA-NI (shaext) on a host with SHA-NI


def ratio_rows(records: np.ndarray, npeers: int, pairs: int, names: dict[int, str]) -> list[str]:
    rows = []
    per_size = npeers * pairs
    for s_idx, size in enumerate(SIZES):
        block = records[s_idx * per_size:(s_idx + 1) * per_size]
        tpb: dict[int, list[float]] = {p: [] for p in range(npeers)}
        for peer, ticks, nbytes in block:
            tpb[int(peer)].append(ticks / nbytes)
        ours = np.array(tpb[0])
        for p in range(1, npeers):
            r = ours / np.array(tpb[p])
            rows.append(f"  {size:>8} B  vs {names[p]:<22} median {np.median(r):.3f}  p10 {np.percentile(r, 10):.3f}"
                        f"  p90 {np.percentile(r, 90):.3f}   (ours {np.median(ours):.3f}, peer "
                        f"{np.median(tpb[p]):.3f} TSC ticks/B, {len(r)} pairs)")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=41)
    ap.add_argument("--budget", type=int, default=60)
    args = ap.parse_args()
    out = [f"# bench/shani.py on {platform.node()} ({platform.machine()}), load: {os.getloadavg()}",
           "", "## search (predicted, per model with SHA-NI)"]
    reports = {}
    for name in model_names():
        model = load_model(name)
        if not has_shani(model):
            continue
        for arch in ("x86_64", "i386"):
            r = best_shani(model, arch, budget=args.budget)
            reports[(name, arch)] = r
            out.append(f"  {name:<6} {arch:<6} {r.cycles:6.1f} cycles/block = {r.cycles_per_byte:.3f} c/B "
                       f"(default point {r.default_cycles:.1f}); {r.legal} legal of {r.evaluations} evaluated; "
                       f"stop: {r.stop_reason}; {r.proof}")
            out.append(f"         {r.params.describe()}")
    if not host_has_shani():
        out.append("\nthis host has no SHA-NI: no timing")
        print("\n".join(out))
        return 1
    zen5 = reports[("zen5", "x86_64")]
    text, v = validated_text("x86_64", zen5.params, header=["sha1opt SHA-NI, zen5", zen5.params.describe()])
    out += ["", "## timing (x86-64, zen5's point)", f"  validated: {v.proof}; native: {v.native_detail}"]
    lib = libcrypto()
    if lib is None:
        out.append("  libcrypto not found: no OpenSSL peers")
        print("\n".join(out))
        return 1
    with tempfile.TemporaryDirectory(prefix="sha1opt-bench-shani-") as work:
        w = Path(work)
        obj = assemble(text, "x86_64", w, "shani")
        ref = compile_source(csrc("sha1_ref.c"), "x86_64", w / "ref64.o", "compiling the C peer", ("-O2",))
        exe = hosted_program([ref, obj], w, "bench_shani")
        for path in PATHS:
            mask = OPENSSL_PATHS[path]
            t = run_program(exe, SIZES, args.pairs, MIN_BYTES, {"OPENSSL_ia32cap": mask} if mask else {}, lib)
            label = "SHA-NI (default)" if path == "default" else path
            out.append(f"  OpenSSL {label}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}, TSC {t.tsc_hz / 1e9:.3f} GHz")
            names = {1: "gcc -O2 C", 2: f"OpenSSL {label}"}
            rows = ratio_rows(t.records, t.peers, args.pairs, names)
            out += rows if path == "default" else [r for r in rows if "OpenSSL" in r]
    out.append(f"\nload after: {os.getloadavg()}")
    text_out = "\n".join(out) + "\n"
    print(text_out, end="")
    res = Path(__file__).parent / "results" / "shani.txt"
    res.write_text(text_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
