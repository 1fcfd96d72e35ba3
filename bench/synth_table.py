"""Figures for the synthesis issue: minimal lengths of f1/f2/f3 x temporaries {0,1,2} x ISA {base,bmi1,bmi2}.

Each entry is one ``synthesize`` call (exhaustive up to --max-len, every
reported sequence proved with Z3); the table gives the proved minimal length
(or "none <= N", or "none (closed)" when no new machine state is reachable
at all), how many minimal sequences there are (canonical forms: independent
instructions in one order, temporaries renamed; "+" when the proof cap was
hit), the sequence ranked best (shortest critical path, then mean simulated
cycles), and the wall time of the call. The acceptance figure is the total
time of the entries whose minimal length is <= 4 (goal: under 60 s).

A last section runs the "into e" rediscoveries (majority as two additions
with one temporary, f1 with andn) and prints their best sequence, critical
path and simulated cycles per uarch.

Usage: python bench/synth_table.py [--inputs keep|destroy|both] [--max-len N] [--max-solutions N]
                                   [--no-rediscoveries]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from sha1opt.search.synth import synthesize
from sha1opt.views.synth import claim, cycles_text

TARGETS = ("f1", "f2", "f3")
TEMPS = (0, 1, 2)
ISAS = ("base", "bmi1", "bmi2")


def table(destroy: bool, max_len: int, max_solutions: int) -> tuple[list[str], float, float]:
    mode = "inputs may be destroyed (result in any register)" if destroy else \
        "inputs kept: b, c, d read-only (result in a temporary)"
    lines = [f"## {mode}; max-len {max_len}", "",
             f"{'target':6s} {'temps':>5s} {'isa':5s} {'minimal':>15s} {'#seq':>5s} {'path':>4s} {'s':>7s}  example"]
    short = total = 0.0
    for target in TARGETS:
        for temps in TEMPS:
            for isa in ISAS:
                t0 = time.perf_counter()
                r = synthesize(target, temps=temps, isa=isa, destroy=destroy, max_len=max_len,
                               max_solutions=max_solutions)
                dt = time.perf_counter() - t0
                total += dt
                if r.status == "found":
                    what = f"{r.length}"
                    count = f"{len(r.solutions)}{'' if r.complete else '+'}"
                    best = r.solutions[0]
                    example, path = best.text, str(best.critical_path)
                    if r.length <= 4:
                        short += dt
                elif r.status == "none":
                    what = "none (closed)" if r.closed else f"none <= {max_len}"
                    count, example, path = "0", "", "-"
                else:
                    what, count, example, path = f"unknown >{r.exhausted}", "?", r.reason, "-"
                lines.append(f"{target:6s} {temps:5d} {isa:5s} {what:>15s} {count:>5s} {path:>4s} {dt:7.2f}  {example}")
    lines += ["", f"total {total:.2f} s; entries with minimal length <= 4: {short:.2f} s", ""]
    return lines, short, total


def rediscoveries() -> list[str]:
    """The "into e" forms: majority split into two additions, f1 as two terms via andn."""
    lines = ["## into e (e += f(b,c,d)), inputs kept", ""]
    for target, temps, isa, max_len in (("f3-into-e", 1, "base", 7), ("f3-into-e", 2, "base", 7),
                                        ("f1-into-e", 1, "base", 6), ("f1-into-e", 1, "bmi1", 6),
                                        ("f2-into-e", 1, "base", 6)):
        t0 = time.perf_counter()
        r = synthesize(target, temps=temps, isa=isa, max_len=max_len, max_solutions=512)
        dt = time.perf_counter() - t0
        lines.append(f"{target} temps={temps} isa={isa}: {claim(r)} ({dt:.2f} s)")
        if r.solutions:
            best = r.solutions[0]
            lines.append(f"  best: {best.text}  (critical path {best.critical_path})")
            if best.costs:
                lines.append("  cycles: " + cycles_text(best.costs))
            by_path: dict[int, int] = {}
            for s in r.solutions:
                by_path[s.critical_path] = by_path.get(s.critical_path, 0) + 1
            lines.append("  sequences by critical path: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_path.items())))
    return lines + [""]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", choices=("keep", "destroy", "both"), default="both")
    ap.add_argument("--max-len", type=int, default=8)
    ap.add_argument("--max-solutions", type=int, default=256)
    ap.add_argument("--no-rediscoveries", action="store_true", help="Skip the into-e section.")
    args = ap.parse_args()
    print(f"# sha1opt synth table -- {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, python {platform.python_version()}")
    print("# minimal = proved minimal length (every shorter length searched exhaustively); "
          "#seq = minimal sequences, each proved; path = critical path (unit latency) of the example")
    print()
    modes = {"keep": [False], "destroy": [True], "both": [False, True]}[args.inputs]
    short = total = 0.0
    for destroy in modes:
        lines, s, t = table(destroy, args.max_len, args.max_solutions)
        print("\n".join(lines), flush=True)
        short += s
        total += t
    print(f"# all tables: {total:.2f} s; entries with minimal length <= 4: {short:.2f} s (acceptance: < 60 s)")
    if not args.no_rediscoveries:
        print()
        print("\n".join(rediscoveries()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
