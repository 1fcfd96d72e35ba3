"""Figures for the foundation issue: prover wall times on this machine.

Measures, each over REPEATS runs (median and best reported, seconds):
  1. `sha1opt prove --corpus` as a user runs it (a fresh process: import,
     load, prove every identity);
  2. one f-identity through the library (`f3-or-form-is-sum`);
  3. the compositional proof of the textbook 80-round block (x86-64, i386).

Usage: python bench/foundation.py [--repeats N]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.block import prove_block
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.prove import Proved, Prover, prove_exprs
from sha1opt.semantics.sha1 import range_spec


def timed(fn, repeats):
    times, last = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        last = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), last


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--monolithic-timeout", type=float, default=30.0,
                    help="budget for the contrast run: the same block as ONE query (0 skips it)")
    args = ap.parse_args()
    exe = str(Path(sys.executable).with_name("sha1opt"))
    print(f"# sha1opt foundation figures -- {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"# {args.repeats} repeats; seconds; median / best")

    med, best, proc = timed(lambda: subprocess.run([exe, "prove", "--corpus"], capture_output=True, text=True), args.repeats)
    summary = proc.stdout.strip().splitlines()[-1]
    print(f"sha1opt prove --corpus (whole process)      {med:7.3f} / {best:7.3f}   exit {proc.returncode}: {summary}")

    med, best, out = timed(lambda: prove_exprs("(b&c)|(d&(b|c))", "(b&c)+(d&(b^c))"), args.repeats)
    print(f"one f-identity (f3 or-form == sum form)     {med:7.3f} / {best:7.3f}   {type(out).__name__}")

    ok = proc.returncode == 0 and isinstance(out, Proved)
    for arch in ("x86_64", "i386"):
        sched = textbook(arch)
        med, best, res = timed(lambda: prove_block(sched.body, sched.inputs, sched.outputs, sched.pointers),
                               args.repeats)
        print(f"80-round textbook block, {arch:6s} (compositional) {med:7.3f} / {best:7.3f}   "
              f"{type(res.outcome).__name__}, {len(sched.body)} instructions, {res.cuts} cuts, {res.solver_calls} solver calls")
        ok = ok and res.ok
    if args.monolithic_timeout > 0:
        # The contrast: the whole block as one Z3 query (no cut points).
        from sha1opt.semantics.domain import TermDomain
        from sha1opt.semantics.machine import Machine

        sched = textbook("x86_64")
        b = Builder()
        spec = range_spec(b)
        m = Machine(TermDomain(b), initial_reg=lambda r: b.var("%" + r),
                    initial_mem=lambda reg, off: b.var(next((n for n, loc in sched.inputs.items()
                                                            if loc == ("mem", reg, off)), f"{reg}[{off}]")),
                    pointers=sched.pointers)
        m.run(sched.body)
        got = m.get(sched.outputs["h0"])
        want = spec.outputs["h0"]
        # Express the spec's h0 over inputs only (substitute the cut definitions).
        from sha1opt.semantics.ir import evaluate
        from sha1opt.semantics.domain import TermDomain as TD
        env = {n: b.var(n) for n in spec.inputs}
        for d in spec.definitions:
            env[d.name] = evaluate([d.term], TD(b), env)[0]
        want_flat = evaluate([want], TD(b), env)[0]
        t0 = time.perf_counter()
        out = Prover(timeout=args.monolithic_timeout).check(got, want_flat)
        print(f"same block, x86_64, ONE monolithic query    {time.perf_counter() - t0:7.3f}             "
              f"{type(out).__name__}" + (f" ({out.reason})" if hasattr(out, "reason") else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
