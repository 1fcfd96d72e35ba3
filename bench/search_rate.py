"""Search speed: evaluations per second of the scalar and hybrid searches, at a fixed evaluation count.

Runs, in this process, the searches' own evaluation loops with a fixed budget and seed (so two
versions of the engine do exactly the same evaluations) and prints seconds and evaluations per
second (of this process's CPU time: on a shared machine wall time says more about the load) for each:

  scalar  ``anneal.anneal`` over rounds FIRST..LAST on a model, the key's objective
          (``objective.objective``: the block loop for 0-79, context rounds each side otherwise);
  hybrid  ``engines.hybrid.search_hybrid`` (grid then annealing) with ``--hybrid-evals``.

The measures the process keeps (``measure.forget_measures``) and the models' Simulators are emptied
before each run, so every repeat pays the same. Compare versions by running this script from two
worktrees interleaved (the machine may be shared: quote medians of several repeats, as ratios).

Usage: python bench/search_rate.py [--uarch zen3] [--rounds 0-79] [--evals 60] [--hybrid-evals 20]
       [--profile FILE]   (--profile: write a cProfile of one run of each search to FILE)
"""

from __future__ import annotations

import argparse
import cProfile
import sys
import time

from sha1opt.search.cost import load_model
from sha1opt.search.cost.simulator import simulator_for
from sha1opt.search.engines.anneal import anneal
from sha1opt.search.engines.hybrid import search_hybrid
from sha1opt.search.measure import forget_measures
from sha1opt.search.objective import objective
from sha1opt.search.space.candidate import Candidate
from sha1opt.search.space.recipe import TEXTBOOK


def scalar_run(model, first: int, last: int, arch: str, evals: int) -> int:
    obj = objective(model, first, last, arch)
    res = anneal(Candidate(first, last, arch, TEXTBOOK), obj.cost, isa=model.isa, seed=0, evaluations=evals)
    return res.evaluations


def hybrid_run(model, evals: int) -> int:
    res = search_hybrid(model, evaluations=evals, seed=0, time_limit=1e9)
    return res.evaluations


def fresh(model) -> None:
    forget_measures()
    simulator_for(model).clear()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uarch", default="zen3")
    ap.add_argument("--rounds", default="0-79")
    ap.add_argument("--arch", default="x86_64")
    ap.add_argument("--evals", type=int, default=60)
    ap.add_argument("--hybrid-evals", type=int, default=0, help="0: no hybrid run")
    ap.add_argument("--profile", default=None)
    args = ap.parse_args()
    model = load_model(args.uarch)
    first, last = (int(x) for x in args.rounds.split("-"))
    runs = [("scalar", lambda: scalar_run(model, first, last, args.arch, args.evals))]
    if args.hybrid_evals:
        runs.append(("hybrid", lambda: hybrid_run(model, args.hybrid_evals)))
    for name, fn in runs:
        fresh(model)
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
        t0, c0 = time.perf_counter(), time.process_time()
        n = fn()
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        if args.profile:
            prof.disable()
            prof.dump_stats(f"{args.profile}.{name}")
        print(f"{name} {args.uarch} {args.rounds} {args.arch}: {n} evaluations in {dt:.2f} s ({cpu:.2f} s CPU), "
              f"{n / cpu:.1f}/s of CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
