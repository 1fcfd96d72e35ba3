"""Check the search table's close calls over a longer loop window than the search's own measure.

The block loop figure (``search/cost/simulator.py`` ``loop_window``) is 6 iterations end to end after
3 of warm-up: cheap enough for the search's thousands of evaluations, but an aperiodic schedule's
window can read a little below its steady-state rate, and a search keeps what the window flatters
(issue 11). This script prices, for the pairs named, ours (the best stored block, exported), OpenSSL's
integer loop (Debian's libcrypto.a) and the loop bound under the search's window and under a long
one (``--warm`` iterations of warm-up, ``--span`` measured; default 10 and 30), so a table row whose
claim rests on a fraction of a percent (a tie, a gap to the bound below zero) can be read against the
rate the loop settles to.

Invariant: both windows price the same exported code with the same model; only the window differs.
The first window's figures equal ``bench/search_acceptance.py table``'s for the same store (a
self-check printed beside them). Example (stop 19 store): skylake/x86_64 ours 282.83 cycles per
iteration under (3, 6), below its bound 284.25; 284.63 under (10, 30), above it.

Usage: python bench/loop_window_check.py --db STORE [--pairs core2/i386,skylake/x86_64] [--warm 10]
       [--span 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sha1opt.emit.export import export
from sha1opt.search.blocks import best_block
from sha1opt.search.bound import loop_bound
from sha1opt.search.cost import simulator
from sha1opt.search.cost.model import load_model

from sha1opt.semantics.errors import Sha1optError

from search_acceptance import OPENSSL, arches, load, loop_cpb

CLOSE_CALLS = "core2/i386,skylake/x86_64,zen3/i386,zen1/x86_64,zen3/x86_64,zen5/i386,zen5/x86_64,k8/x86_64"


def price(pairs: list[tuple[str, str]], db: str, warm: int, span: int, work: Path) -> dict:
    """(ours, OpenSSL) cycles per block-loop iteration per pair, with a whole block measured over
    ``span`` iterations after ``warm`` of warm-up."""
    saved = simulator.LONG_WARM_UP, simulator.LONG_SPAN
    simulator.LONG_WARM_UP, simulator.LONG_SPAN = warm, span
    try:
        out = {}
        for u, arch in pairs:
            path = work / f"{u}-{arch}.S"
            if not path.exists():
                sched, _ = best_block(u, arch, db)
                res = export(sched, path, uarch=u)
                if not res.ok:
                    raise SystemExit(f"{u}/{arch}: export refused: {res.validation.failure.detail}")
            lib, member = OPENSSL[arch]
            ours = loop_cpb(path, [u])[u] * 64
            ossl = loop_cpb(lib, [u], member=member, function="sha1_block_data_order", arch=arch)[u] * 64
            out[(u, arch)] = (ours, ossl)
        return out
    finally:
        simulator.LONG_WARM_UP, simulator.LONG_SPAN = saved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="results store (the table's)")
    ap.add_argument("--pairs", default=CLOSE_CALLS, help="comma list of model/arch")
    ap.add_argument("--warm", type=int, default=10)
    ap.add_argument("--span", type=int, default=30)
    a = ap.parse_args()
    if a.warm < 1 or a.span < 1:
        print(f"--warm {a.warm} --span {a.span}: both must be at least 1 (the span is measured from the end "
              "of a warm-up iteration)", file=sys.stderr)
        return 2
    if not Path(a.db).is_file():
        print(f"{a.db}: no such store", file=sys.stderr)
        return 2
    pairs = []
    for p in filter(None, a.pairs.split(",")):
        u, _, arch = p.partition("/")
        try:
            runs = arches(load_model(u))
        except Sha1optError as e:
            print(f"--pairs {p}: {e}", file=sys.stderr)
            return 2
        if arch not in runs:
            print(f"--pairs {p}: write model/arch with arch one of {', '.join(runs)} (the arches {u}'s CPU runs)",
                  file=sys.stderr)
            return 2
        pairs.append((u, arch))
    t0 = time.monotonic()
    print(f"# bench/loop_window_check.py --db {a.db}; {load()}")
    with tempfile.TemporaryDirectory() as d:
        short = price(pairs, a.db, simulator.LONG_WARM_UP, simulator.LONG_SPAN, Path(d))
        long = price(pairs, a.db, a.warm, a.span, Path(d))
    w0 = f"({simulator.LONG_WARM_UP},{simulator.LONG_SPAN})"
    w1 = f"({a.warm},{a.span})"
    print(f"{'pair':<18} {'bound':>8} | {'ours ' + w0:>12} {'OpenSSL':>8} {'gap':>7} | "
          f"{'ours ' + w1:>13} {'OpenSSL':>8} {'gap':>7} | ours <= OpenSSL")
    for (u, arch) in pairs:
        b = loop_bound(load_model(u), arch).cycles
        (o0, s0), (o1, s1) = short[(u, arch)], long[(u, arch)]
        print(f"{u + '/' + arch:<18} {b:8.2f} | {o0:12.2f} {s0:8.2f} {100 * (o0 - b) / b:+6.1f}% | "
              f"{o1:13.2f} {s1:8.2f} {100 * (o1 - b) / b:+6.1f}% | "
              f"{'yes' if o0 <= s0 + 1e-9 else 'NO'} / {'yes' if o1 <= s1 + 1e-9 else 'NO'}")
    print(f"# {time.monotonic() - t0:.0f} s; {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
