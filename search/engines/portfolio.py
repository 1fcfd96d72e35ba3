"""The portfolio: a search's tasks on a Dask cluster, and what streams back from them.

Two kinds of task, each a module-level function of one frozen dataclass (so
it pickles by value and runs on any worker that has sha1opt installed):

* ``templates_task(TemplateJob)`` -- the exact engine (CP-SAT) on the round
  templates of one key (uarch, arch, rounds);
* ``anneal_task(Job)`` -- one annealing run: one start, one seed, one budget.

Each task rebuilds its model and objective in its own process from names
(``load_model(job.uarch)``), never proves and never touches the results store:
the driver alone proves and writes SQLite. While a run anneals, every
improvement is sent to the driver as a Dask event on the portfolio's topic,
*with the candidate*, so the driver holds each run's best so far even if a
worker dies or the search is interrupted. ``stop()`` sets the portfolio's
``distributed.Event``; tasks look at it every ``POLL`` s and return their best.

A worker lost mid-task: the scheduler gives the task to another worker (Dask's
own resubmission). A run is a function of (start, seed, evaluations), so the
re-run ends where the lost one would have; with an evaluation budget the
result does not depend on the cluster, only on the seed and the budget.

Example: ``p = Portfolio(cluster); p.submit_runs([Job(0, 0, "p4", start, "base", 7, 5000, 60.0)])``;
``p.poll(0.1)`` then returns ``Improved(key=0, run=0, cost=..., ...)`` values
as the run finds better candidates, ``Counted`` values every second, and
finally ``RunDone(0, 0, result)``.
"""

from __future__ import annotations

import queue
import time
import uuid
from dataclasses import dataclass

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.anneal import AnnealResult, anneal
from sha1opt.search.engines.cluster import Cluster
from sha1opt.search.engines.dispatch import dispatch_move, reorders
from sha1opt.search.engines.exact import TemplateResult, solve_templates
from sha1opt.search.objective import objective
from sha1opt.search.space.candidate import Candidate
from sha1opt.search.space.recipe import Recipe

POLL = 0.1      # seconds between a task's looks at the stop event
COUNT_EVERY = 1.0   # seconds between a run's evaluation-count events


@dataclass(frozen=True)
class TemplateJob:
    """The exact engine for one key: everything a worker needs, by name."""

    key: int
    uarch: str
    arch: Arch
    first: int
    last: int
    isa: str
    seconds: float
    deterministic: bool = False      # budget in CP-SAT deterministic time (see exact.solve_templates)


@dataclass(frozen=True)
class Job:
    """One annealing run, picklable: everything a worker process needs to rebuild its objective."""

    key: int
    run: int
    uarch: str
    start: Candidate
    isa: str
    seed: int
    evaluations: int
    seconds: float


@dataclass(frozen=True)
class Improved:
    key: int
    run: int
    cost: float
    candidate: Candidate
    evaluations: int


@dataclass(frozen=True)
class Counted:
    """A run's evaluation count so far (sent every ``COUNT_EVERY`` s): an interrupted run's count is known."""

    key: int
    run: int
    evaluations: int


@dataclass(frozen=True)
class RunDone:
    key: int
    run: int
    result: AnnealResult


@dataclass(frozen=True)
class TemplatesDone:
    key: int
    templates: list[TemplateResult]
    seconds: float


@dataclass(frozen=True)
class TaskFailed:
    key: int
    run: int | None        # None: the templates task
    message: str


def encode(c: Candidate) -> dict:
    """A candidate as plain lists and strings (what Dask events carry); ``decode`` inverts it."""
    return {"first": c.first, "last": c.last, "arch": c.arch, "recipe": c.recipe.key(),
            "offsets": [[list(k), v] for k, v in c.offsets],
            "template": [[k, ii, list(s)] for k, ii, s in c.template]}


def decode(d: dict) -> Candidate:
    return Candidate(d["first"], d["last"], d["arch"], Recipe.parse(d["recipe"]),
                     tuple((tuple(k), v) for k, v in d["offsets"]),
                     tuple((k, ii, tuple(s)) for k, ii, s in d["template"]))


class _Stop:
    """The stop event as seen from a task: looked up at most every ``POLL`` s."""

    def __init__(self, name: str) -> None:
        import distributed  # lazy: see cluster.py (this runs inside a worker, where Dask is loaded anyway)
        self._event = distributed.Event(name)
        self._next = 0.0
        self._set = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if not self._set and now >= self._next:
            self._next = now + POLL
            self._set = self._event.is_set()
        return self._set


def templates_task(job: TemplateJob, stop_name: str) -> tuple[list[TemplateResult], float]:
    t0 = time.monotonic()
    res = solve_templates(load_model(job.uarch), job.arch, job.first, job.last, job.isa,
                          time_limit=job.seconds, should_stop=_Stop(stop_name), deterministic=job.deterministic)
    return res, time.monotonic() - t0


def anneal_task(job: Job, stop_name: str, topic: str) -> AnnealResult:
    import distributed  # lazy: see cluster.py
    worker = distributed.get_worker()
    s = job.start
    model = load_model(job.uarch)
    cost = objective(model, s.first, s.last, s.arch).cost
    # the dispatch-order move, on the models whose reservation station binds (engines/dispatch.py)
    reorder = dispatch_move(model) if reorders(model, s.arch) else None
    count = [0]
    next_count = [time.monotonic() + COUNT_EVERY]

    def should_stop() -> bool:
        count[0] += 1
        now = time.monotonic()
        if now >= next_count[0]:
            next_count[0] = now + COUNT_EVERY
            worker.log_event(topic, {"key": job.key, "run": job.run, "evaluations": count[0]})
        return stop()

    def improved(c: Candidate, v: float) -> None:
        worker.log_event(topic, {"key": job.key, "run": job.run, "cost": v, "candidate": encode(c),
                                 "evaluations": count[0]})

    stop = _Stop(stop_name)
    return anneal(s, cost, isa=job.isa, seed=job.seed, evaluations=job.evaluations,
                  deadline=time.monotonic() + job.seconds, should_stop=should_stop, on_improve=improved,
                  reorder=reorder)


class Portfolio:
    """The tasks of one search on ``cluster``; ``poll`` returns what came back since the last call."""

    def __init__(self, cluster: Cluster) -> None:
        import distributed  # lazy: see cluster.py
        self._client = cluster.client
        self.workers = cluster.workers
        self.name = f"sha1opt-{uuid.uuid4().hex}"
        self._stop = distributed.Event(self.name, client=self._client)
        self._events: queue.Queue = queue.Queue()
        self._client.subscribe_topic(self.name, lambda ev: self._events.put(ev[1]))
        self._futures: dict = {}

    def submit_templates(self, job: TemplateJob) -> None:
        f = self._client.submit(templates_task, job, self.name, key=f"{self.name}-templates-{job.key}", pure=False)
        self._futures[f] = (job.key, None)

    def submit_runs(self, jobs: list[Job]) -> None:
        for j in jobs:
            f = self._client.submit(anneal_task, j, self.name, self.name, key=f"{self.name}-run-{j.key}-{j.run}",
                                    pure=False)
            self._futures[f] = (j.key, j.run)

    @property
    def pending(self) -> int:
        return len(self._futures)

    def poll(self, timeout: float) -> list:
        """Improvements, finished and failed tasks since the last call; waits up to ``timeout`` s for the first."""
        out: list = []
        end = time.monotonic() + timeout
        while True:
            try:
                while True:
                    out.append(self._improved(self._events.get_nowait()))
            except queue.Empty:
                pass
            for f in [f for f in self._futures if f.done()]:
                key, run = self._futures.pop(f)
                out.append(self._finished(f, key, run))
            left = end - time.monotonic()
            if out or left <= 0:
                return out
            try:
                out.append(self._improved(self._events.get(timeout=min(left, 0.05))))
            except queue.Empty:
                pass

    @staticmethod
    def _improved(m: dict) -> Improved | Counted:
        if "candidate" not in m:
            return Counted(m["key"], m["run"], m["evaluations"])
        return Improved(m["key"], m["run"], m["cost"], decode(m["candidate"]), m["evaluations"])

    @staticmethod
    def _finished(f, key: int, run: int | None):
        if f.status != "finished":
            try:
                exc = f.exception(timeout=5)
            except Exception as e:  # noqa: BLE001 -- the failure is reported as a value, never raised
                exc = e
            return TaskFailed(key, run, f"{type(exc).__name__}: {exc}" if exc else f.status)
        value = f.result()
        if run is None:
            return TemplatesDone(key, value[0], value[1])
        return RunDone(key, run, value)

    def stop(self) -> None:
        """Ask every task to return its best so far (they look every ``POLL`` s)."""
        self._stop.set()

    def close(self) -> None:
        """Stop, cancel what is still queued and stop listening."""
        try:
            self._stop.set()
            if self._futures:
                self._client.cancel(list(self._futures))
            self._client.unsubscribe_topic(self.name)
        except Exception:  # noqa: BLE001 -- best effort on a cluster that may be gone; the cluster closes next
            pass
        self._futures.clear()

