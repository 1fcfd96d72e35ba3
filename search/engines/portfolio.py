"""The worker portfolio: annealing runs from several starts with seeds ``seed, seed+1, ...``.

One worker runs in this process; more run as spawned processes, each with
its own model, simulator and (if it proves) its own Z3 context. Workers never
print: improvements come back through a queue and ``on_improve``. A stop
request (``should_stop``, Ctrl-C in the CLI) is passed to every worker,
which returns its best so far; the portfolio's result is the best of all.

Example: ``run_portfolio(Job("p4", start, "base", 0, 10**9, 30.0), starts,
workers=2, ...)`` anneals from ``start`` with seed 0 and from ``starts[1]``
with seed 1 for 30 s each, and returns the cheaper of the two bests.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.anneal import anneal
from sha1opt.search.objective import range_cost
from sha1opt.search.space.candidate import Candidate


@dataclass(frozen=True)
class Job:
    """One annealing run, picklable: everything a worker process needs to rebuild its objective."""

    uarch: str
    start: Candidate
    isa: str
    seed: int
    evaluations: int
    seconds: float


@dataclass
class PortfolioResult:
    best: Candidate
    best_cost: float
    evaluations: int
    reason: str                      # "budget", "deadline", "interrupted"
    failures: list[str] = field(default_factory=list)


def _worker(job: Job, stop, out) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and tells us via `stop`
    s = job.start
    cost = range_cost(load_model(job.uarch), s.first, s.last, s.arch)
    try:
        res = anneal(s, cost, isa=job.isa, seed=job.seed, evaluations=job.evaluations,
                     deadline=time.monotonic() + job.seconds, should_stop=stop.is_set,
                     on_improve=lambda c, v: out.put(("improve", job.seed, v)))
        out.put(("done", job.seed, res))
    except Exception as e:  # reported to the parent, never swallowed
        out.put(("error", job.seed, f"{type(e).__name__}: {e}"))


def run_portfolio(job: Job, starts: list[Candidate], best_cost: float, cost: Callable[[list], float], *,
                  workers: int, should_stop: Callable[[], bool],
                  on_improve: Callable[[float, int], None]) -> PortfolioResult:
    """Anneal from ``job.start`` (worker 0) and ``starts[k % len]`` (worker k); the best of all and why it stopped."""
    best = PortfolioResult(job.start, best_cost, 0, "deadline")
    if workers == 1:
        res = anneal(job.start, cost, isa=job.isa, seed=job.seed, evaluations=job.evaluations,
                     deadline=time.monotonic() + job.seconds - 0.3, should_stop=should_stop,
                     on_improve=lambda c, v: on_improve(v, 0))
        best.evaluations, best.reason = res.evaluations, res.reason
        if res.best_cost < best.best_cost:
            best.best, best.best_cost = res.best, res.best_cost
        return best
    ctx = mp.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    procs = []
    for k in range(workers):
        j = replace(job, start=job.start if k == 0 else starts[k % len(starts)], seed=job.seed + k,
                    seconds=job.seconds - 2.0)
        p = ctx.Process(target=_worker, args=(j, stop, out), daemon=True)
        p.start()
        procs.append(p)
    done = 0
    while done < workers:
        if should_stop() and not stop.is_set():
            stop.set()
        try:
            kind, who, payload = out.get(timeout=0.2)
        except queue.Empty:
            if not any(p.is_alive() for p in procs) and out.empty():
                break
            continue
        if kind == "improve":
            on_improve(min(best.best_cost, payload), who)
        elif kind == "done":
            done += 1
            best.evaluations += payload.evaluations
            best.reason = payload.reason
            if payload.best_cost < best.best_cost:
                best.best, best.best_cost = payload.best, payload.best_cost
        else:
            done += 1
            best.failures.append(f"worker {who} failed: {payload}")
    for p in procs:
        p.join(timeout=5)
    return best
