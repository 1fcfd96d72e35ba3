"""Simulator speed: one 80-round textbook block on every microarchitecture model.

The cost model runs inside the search loop, so one block must simulate in
well under 50 ms. For each arch and model this measures, over REPEATS runs
(median and best, milliseconds):

  cold      Simulator.simulate() with the simulator's decode cache emptied
            first (what the first candidate of a search pays);
  warm      the same body again (cached decode: what every later candidate
            sharing instructions pays), straight-line;
  loop      warm, ``loop=True`` (several iterations back to back, steady state).

Usage: python bench/simspeed.py [--repeats N]   (output: bench/results/simspeed.txt)
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

from sha1opt.search.cost import Simulator, load_model, model_names
from sha1opt.search.space.candidate import textbook

BUDGET_MS = 50.0


def timed(fn, repeats: int, before=None) -> tuple[float, float, object]:
    times, out = [], None
    for _ in range(repeats):
        if before:
            before()
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print(f"# sha1opt simulator speed -- {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"# textbook 80-round block per model; {args.repeats} repeats; milliseconds, median / best")
    print(f"# {'arch':6s} {'model':12s} {'instr':>5s}   {'cold':>13s}   {'warm':>13s}   {'loop=True':>13s}   cycles/block")
    worst = 0.0
    for arch in ("x86_64", "i386"):
        body = list(textbook(arch).body)
        for name in model_names():
            sim = Simulator(load_model(name))
            cold = timed(lambda: sim.simulate(body), args.repeats, before=sim.clear)
            warm = timed(lambda: sim.simulate(body), args.repeats)
            loop = timed(lambda: sim.simulate(body, loop=True), args.repeats)
            worst = max(worst, cold[0], warm[0], loop[0])
            print(f"  {arch:6s} {name:12s} {len(body):5d}   {cold[0]:6.1f} / {cold[1]:5.1f}   "
                  f"{warm[0]:6.1f} / {warm[1]:5.1f}   {loop[0]:6.1f} / {loop[1]:5.1f}   {loop[2].cycles:7.1f}")
    verdict = "within" if worst < BUDGET_MS else "OVER"
    print(f"# slowest median: {worst:.1f} ms -- {verdict} the {BUDGET_MS:.0f} ms budget")
    return 0 if worst < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
