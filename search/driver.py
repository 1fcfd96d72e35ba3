"""``search_ranges`` / ``search_range``: whole searches for (uarch, arch, round range) keys, as ``Report``s.

Stages, each a function below; the engines' work runs as tasks on one Dask
cluster (``engines/cluster.py``, ``engines/portfolio.py``), everything that
touches the store or proves runs here, in the driver:

1. ``_setup``: load the uarch model; its ISA level (BMI1/BMI2) bounds the
   recipes; the objective is the range's cycles inside the block
   (``objective.objective``: the range between default rounds, or, for
   rounds 0-79, the block loop in steady state); the default (textbook) schedule and the
   caller's peer (``reference``) under the same model. Meanwhile the cluster
   starts in the background.
2. ``_starts`` / ``_extra_starts``: the default schedule, the stored best
   (``resume``), other CPUs' proved winners, good recipes for the ISA and, on
   in-order models, the greedy engine's model-clocked orders (``engines/greedy.py``).
3. A templates task per key: the exact engine (``engines/exact.py``) on the
   steady-state round template of each round kind (its CP-SAT certificate
   is reported); its schedules join the starts.
4. ``workers`` annealing tasks per key from the cheapest of those starts
   (run r from the r-th cheapest) with seeds ``seed, seed+1, ...``;
   improvements stream back with their candidates.
5. ``_finish``: as soon as a key's runs end (or on a stop request, from what
   they reported so far) its best candidate is proved (Z3, round cut points)
   inside a whole block; only a proved result is stored and reported.

Example: ``search_range("p4", 40, 59, time_limit=60, workers=2)`` starts a
local cluster of two processes, anneals twice, from the cheapest start and
from the second cheapest, and returns the proved, stored Report (153 cycles here).
Nothing here prints; progress comes back through ``progress(event)``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace, field
from pathlib import Path
from typing import Callable

from sha1opt.semantics.block import describe_failure, prove_block
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch, Instr
from sha1opt.search.blocks import STANDARD_RANGES, capped_best, stale_rows, stored_elsewhere
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.engines.anneal import NO_BUDGET
from sha1opt.search.engines.cluster import Cluster
from sha1opt.search.engines.greedy import greedy_starts
from sha1opt.search.engines.portfolio import (POLL, Counted, Improved, Job, Portfolio, RunDone, TemplateJob,
                                              TemplatesDone)
from sha1opt.search.measure import block_loop_cycles
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.robust import FINALISTS, RobustPool, robust_pool
from sha1opt.search.objective import Reference, model_version, objective, reference_cycles
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.engines.hybrid import HybridSearch, scalar_isa_for, search_hybrid
from sha1opt.search.family_rows import Stored, put_hybrid, stored_hybrid
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, isa_rank, recipes_for
from sha1opt.search.store import Store

__all__ = ["HybridReport", "Report", "STANDARD_RANGES", "default_arch", "known_hybrid_block", "prove_in_block",
           "scalar_best", "search_hybrid_block", "search_range", "search_ranges", "stored_search"]

W_AHEAD = (1, 2, 3)    # the W-ahead starts: the W chain's offset in every round (see _extra_starts)


def default_arch(uarch: str) -> Arch:
    """The architecture a model's CPU is searched for by default (``arch`` in its corpus/uarch TOML)."""
    return load_model(uarch).arch


@dataclass
class Report:
    uarch: str
    arch: Arch
    first: int
    last: int
    cycles: float                   # predicted cycles the range adds inside the block (context subtracted;
                                    # rounds 0-79: the block loop's cycles per iteration, objective.objective)
    textbook_cycles: float
    gcc_cycles: float | None        # the reference's cycles for the same rounds (None if unavailable)
    gcc_note: str
    template: list                  # exact-engine results per round kind (see exact.py)
    candidate: Candidate
    code: list[Instr]
    proof: str                      # "proved (...)" or why not
    proved: bool
    stored: str                     # where the result went, or why not
    evaluations: int
    seconds: float
    stop_reason: str
    workers: int
    seed: int
    notes: list[str] = field(default_factory=list)
    cluster: str = ""               # where the tasks ran ("local cluster of 2 worker processes", an address)
    robust: RobustPool | None = None    # ``search --robust``: the final candidates on the model's ensemble
    robust_proof: str = ""          # the robust pick's block proof when it is not the nominal optimum

    @property
    def rounds(self) -> int:
        return self.last - self.first + 1

    @property
    def cycles_per_round(self) -> float:
        return self.cycles / self.rounds

    @property
    def cycles_per_byte(self) -> float:
        return self.cycles_per_round * 80 / 64


def prove_in_block(code: list[Instr], first: int, last: int, arch: Arch) -> tuple[bool, str]:
    """Plug the range's code into textbook code for the other rounds and prove the block."""
    parts = []
    if first > 0:
        parts.append(realize(Candidate(0, first - 1, arch, TEXTBOOK)).code)
    parts.append(code)
    if last < 79:
        parts.append(realize(Candidate(last + 1, 79, arch, TEXTBOOK)).code)
    sched = block_schedule(parts, arch, "search-check")
    res = prove_block(sched.body, sched.inputs, sched.outputs, sched.pointers)
    if res.ok:
        return True, f"proved: whole block with rounds {first}-{last} from the search ({res.cuts} cuts, {res.solver_calls} Z3 calls)"
    return False, f"NOT proved: {describe_failure(res)}"


@dataclass
class _Setup:
    uarch: str
    arch: Arch
    first: int
    last: int
    model: Model
    isa: str
    cost: Callable[[list], float]
    context_only: float
    version: str


def _setup(uarch: str, first: int, last: int, arch: Arch | None, workers: int, cap: str | None = None) -> _Setup:
    if not 0 <= first <= last <= 79:
        raise Sha1optError(f"round range {first}-{last} is not within 0-79")
    if workers < 1:
        raise Sha1optError("workers must be at least 1")
    model = load_model(uarch)
    arch = arch or default_arch(uarch)
    if arch not in model.arches:
        raise Sha1optError(f"{model.name} is a 32-bit CPU's model: it runs only i386 code, not {arch}")
    obj = objective(model, first, last, arch)
    return _Setup(uarch, arch, first, last, model, scalar_isa_for(model, cap), obj.cost, obj.context,
                  model_version(model, first, last))


def _starts(s: _Setup, store: Store, stored_row, resume: bool, notes: list[str], extras: bool = True
            ) -> list[Candidate]:
    """Every feasible starting candidate the driver knows before the exact engine (textbook first).

    ``extras=False``: only the default schedule and the resumed row (the rest: ``_extra_starts``).
    """
    starts = [Candidate(s.first, s.last, s.arch, TEXTBOOK)]
    if resume and stored_row is not None and isa_rank(Recipe.parse(stored_row.recipe).isa()) <= isa_rank(s.isa):
        starts.insert(0, Candidate(s.first, s.last, s.arch, Recipe.parse(stored_row.recipe), stored_row.offsets))
        notes.append(f"resumed from the stored result ({stored_row.cycles:.1f} cycles)")
    if extras:
        starts += _extra_starts(s, store)
    return [c for c in starts if realize(c) is not None]


def _extra_starts(s: _Setup, store: Store, should_stop: Callable[[], bool] = lambda: False) -> list[Candidate]:
    """Starts beyond the default and the resumed row: other CPUs' winners, good recipes for the ISA."""
    starts: list[Candidate] = []
    # Other CPUs' winners for the same range and arch are starting points too
    # (a schedule good on one uarch is often a fair start on its neighbour).
    starts += [real.candidate for real, _ in stored_elsewhere(store.rows(), s.uarch, s.arch, s.first, s.last, s.isa)]
    # This CPU's own rows for the key under other model versions (made before the model or the
    # objective changed): proved code, so a fair start -- re-costed here, their stored cycles unused.
    starts += [real.candidate for real, _ in stale_rows(store.rows(), s.uarch, s.arch, s.first, s.last, s.isa,
                                                         s.version)]
    # Good recipes for this ISA as extra starting points (selection matters most), each also with
    # its message schedule formed 1-3 groups ahead in every round (a software-pipelined W, as
    # OpenSSL's integer code runs it: one stretch of the annealer's moves, taken at once).
    # Each also with a rotated in place by 5 (``rol5=inplace``: one mov less a round where it applies).
    extra = [r for r in recipes_for(s.isa) if r.rol5 == ("rorx" if s.isa == "bmi2" else "mov-rol")][:8]
    for r in extra:
        c = Candidate(s.first, s.last, s.arch, r)
        starts += [c] + [c.with_offsets({(t, "W"): k for t in range(s.first, s.last + 1)}) for k in W_AHEAD]
        starts += [Candidate(s.first, s.last, s.arch, replace(r, rol5="inplace"))]
    # In-order models: orders built by the model's own clock on floating registers.
    starts += greedy_starts(s.model, s.first, s.last, s.arch, should_stop=should_stop)
    return [c for c in starts if realize(c) is not None]


def _prove_and_store(s: _Setup, store: Store, stored_row, best: Candidate, best_cost: float, n_eval: int,
                     seed: int, t_start: float, notes: list[str]) -> tuple[list[Instr], bool, str, str]:
    real = realize(best)
    proved, proof = prove_in_block(real.code, s.first, s.last, s.arch)
    if not proved:
        return real.code, False, proof, "not stored (not proved)"
    was = store.put(uarch=s.uarch, arch=s.arch, first=s.first, last=s.last, model_version=s.version,
                    cycles=best_cost, recipe=best.recipe.key(), offsets=best.offsets,
                    code="\n".join(map(str, real.code)), evaluations=n_eval,
                    seconds=time.monotonic() - t_start, seed=seed, proved=True)
    if was:
        stored = f"stored in {store.path}"
    else:   # the stored row (maybe another run's, stored while this one searched) is as good or better
        stored = f"kept the better stored result in {store.path} ({was.cycles:.1f} cycles)"
        if was.cycles < best_cost:
            notes.append("the stored result is better than this run's")
    return real.code, True, proof, stored


@dataclass
class _Key:
    """One key's search in progress: its starts, each run's best so far, and the driver's notes."""

    index: int
    s: _Setup
    stored_row: object
    textbook_cycles: float
    ref: tuple[float | None, str]
    starts: list[Candidate]
    notes: list[str]
    template: list = field(default_factory=list)
    template_seconds: float = 0.0
    runs: int = 0                                      # annealing runs submitted
    best: dict[int, tuple[float, Candidate]] = field(default_factory=dict)   # run -> best so far
    evaluations: dict[int, int] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    annealing: bool = False
    report: Report | None = None
    costs: dict[Candidate, float] = field(default_factory=dict)

    def cost_of(self, c: Candidate) -> float:
        if c not in self.costs:
            self.costs[c] = self.s.cost(realize(c).code)
        return self.costs[c]

    def start_best(self) -> tuple[float, Candidate]:
        c = min(self.starts, key=self.cost_of)
        return self.cost_of(c), c

    def result(self) -> tuple[float, Candidate]:
        """The cheapest of the best start and every run's best; ties go to the start, then the lower run."""
        cost, cand = self.start_best()
        for run in sorted(self.best):
            if self.best[run][0] < cost:
                cost, cand = self.best[run]
        return cost, cand


def _run_jobs(k: _Key, runs: int, seed: int, evaluations: int, seconds: float) -> list[Job]:
    """Run r anneals from the r-th cheapest distinct start (``starts`` ranked by the objective; ties in
    list order, so the default first) with ``seed + r`` -- cycling when there are fewer starts than runs.

    Example: two runs, starts costing [389.5 (default), 376.5, 377.5]: run 0 from the 376.5 one,
    run 1 from the 377.5 one (before, run 1 took ``starts[1]`` whatever it cost).
    """
    ranked = sorted(dict.fromkeys(k.starts), key=k.cost_of)
    return [Job(k.index, r, k.s.uarch, ranked[r % len(ranked)], k.s.isa, seed + r, evaluations, seconds)
            for r in range(runs)]


def _finalists(k: _Key, best: Candidate) -> list[tuple[str, Candidate]]:
    """The key's final candidates for ``search.robust``: its best, every run's best, then the cheapest starts."""
    out = [("nominal optimum", best)] + [(f"run {r}'s best", k.best[r][1]) for r in sorted(k.best)]
    return out + [("start", c) for c in sorted(dict.fromkeys(k.starts), key=k.cost_of)[:FINALISTS]]


def _robust(k: _Key, best: Candidate) -> tuple[RobustPool, str]:
    """The robust pick among the key's finalists, and its block proof when it is not the nominal optimum."""
    s = k.s
    pool = robust_pool(s.model, s.first, s.last, s.arch, _finalists(k, best))
    if pool.kept_nominal:
        return pool, ""
    return pool, prove_in_block(realize(pool.robust.candidate).code, s.first, s.last, s.arch)[1]


def _finish(k: _Key, store: Store, *, seed: int, workers: int, where: str, interrupted: bool,
            t_start: float, robust: bool = False) -> Report:
    """Prove the key's best and store it if proved; with ``robust`` (not after an interruption) the robust
    pick among its final candidates (``search.robust``); the key's Report."""
    s = k.s
    best_cost, best_c = k.result()
    n_eval = sum(k.evaluations.values())
    if interrupted:
        reason = "interrupted"
    elif not k.runs:
        reason = "deadline"
    else:
        reason = "deadline" if "deadline" in k.reasons.values() else "budget"
    best_cost -= s.context_only           # the range's own cycles inside the block
    code, proved, proof, stored = _prove_and_store(s, store, k.stored_row, best_c, best_cost, n_eval, seed,
                                                   t_start, k.notes)
    pool, robust_proof = _robust(k, best_c) if robust and not interrupted else (None, "")
    if robust and interrupted:
        k.notes.append("interrupted: the final candidates were not priced on the ensemble (no robust pick)")
    return Report(s.uarch, s.arch, s.first, s.last, best_cost, k.textbook_cycles, k.ref[0], k.ref[1], k.template,
                  best_c, code, proof, proved, stored, n_eval, time.monotonic() - t_start, reason, workers, seed,
                  k.notes, where, pool, robust_proof)


def search_ranges(keys: list[tuple[str, Arch | None, int, int]], *, time_limit: float = 60.0,
                  workers: int | None = None, cluster: str | None = None, seed: int = 0,
                  db: str | Path | None = None, resume: bool = False, evaluations: int = NO_BUDGET,
                  should_stop: Callable[[], bool] = lambda: False, progress: Callable[[dict], None] | None = None,
                  use_exact: bool = True,
                  reference: Reference | Callable[[Model, Arch], Reference] | None = None,
                  isa: str | None = None, robust: bool = False) -> list[Report]:
    """Search every (uarch, arch, first, last) key on one Dask cluster; one proved, stored Report per key.

    ``reference`` is the peer each key's result is compared with: one ``Reference``, or a function
    of (model, arch) giving it (``emit.peers.gcc_reference``: gcc -O2 -mtune=<that CPU>), called
    once per distinct (uarch, arch).

    ``cluster`` is a scheduler address (``tcp://host:8786``); without it a local cluster of
    ``workers`` processes is started and ended here. ``workers`` is also the number of annealing
    runs per key (seeds ``seed ..``); on a given cluster it defaults to the cluster's worker count.
    ``time_limit`` is per key: 15 % for the exact engine, the rest for the runs, each counted from
    when its task starts (for a single key, less the cluster's start-up: the limit is then the wall time). Every key is proved and stored by this
    process as soon as its runs end. ``isa`` caps the recipes (``search.space.hybrid_caps`` levels;
    None: the model's own ISA, as before). On a stop request (``should_stop``) every key still open is
    finished at once from the best its runs reported so far (the default schedule is a start, so
    there is always a proved result to store). ``robust``: each Report also carries its final candidates
    priced on the model's uncertainty ensemble and the robust pick among them (``search.robust``; the
    nominal optimum is what is stored).
    """
    t_start = time.monotonic()
    if workers is not None and workers < 1:
        raise Sha1optError("workers must be at least 1")
    setups = [_setup(u, f, l, a, 1, isa) for u, a, f, l in keys]
    emit = progress or (lambda e: None)
    open_keys: list[_Key] = []
    where, runs = "no cluster (stopped before the search started)", workers or 1
    # The cluster starts in the background while this process does its own set-up.
    pool = Cluster(cluster, workers or 1) if not should_stop() else None
    peers: dict[tuple, Reference | None] = {}

    def peer(s: _Setup) -> Reference | None:
        if not callable(reference):
            return reference
        if (s.uarch, s.arch) not in peers:
            peers[(s.uarch, s.arch)] = reference(s.model, s.arch)
        return peers[(s.uarch, s.arch)]

    store = Store(db)
    try:
        for i, s in enumerate(setups):
            notes: list[str] = []
            stored_row = store.get(s.uarch, s.arch, s.first, s.last, s.version)
            textbook_cycles = s.cost(realize(Candidate(s.first, s.last, s.arch, TEXTBOOK)).code) - s.context_only
            k = _Key(i, s, stored_row, textbook_cycles, reference_cycles(peer(s), s.model, s.first, s.last),
                     _starts(s, store, stored_row, resume, notes, extras=False), notes)
            open_keys.append(k)
            emit({"event": "start", "key": i, "best": k.start_best()[0] - s.context_only,
                  "textbook": textbook_cycles, "keys": len(setups)})
        # The other starts cost seconds of set-up: a stop request is looked at between keys.
        for k in open_keys:
            if pool is None or should_stop():
                break
            k.starts += _extra_starts(k.s, store, should_stop)
            emit({"event": "improve", "key": k.index, "best": k.start_best()[0] - k.s.context_only,
                  "worker": None})
        if pool is not None:
            where = f"{pool.where} (stopped while it started)"
        while pool is not None and not should_stop() and not pool.ready(0.1):
            pass
        if pool is not None and not should_stop():
            where, runs = pool.where, workers or pool.workers
            _run(open_keys, Portfolio(pool), t_start=t_start, time_limit=time_limit, runs=runs, seed=seed,
                 evaluations=evaluations, use_exact=use_exact, should_stop=should_stop, emit=emit,
                 finish=lambda k: _finish(k, store, seed=seed, workers=runs, where=where, interrupted=False,
                                          t_start=t_start, robust=robust))
        # The cluster closes (its workers end) while this process proves and stores what is left.
        closer = threading.Thread(target=pool.close, daemon=True) if pool is not None else None
        if closer is not None:
            closer.start()
        for k in open_keys:
            if k.report is None:
                k.report = _finish(k, store, seed=seed, workers=runs, where=where, interrupted=should_stop(),
                                   t_start=t_start, robust=robust)
                emit({"event": "done", "key": k.index, "best": k.report.cycles})
    finally:
        if pool is not None:
            pool.close()
        store.close()
    return [k.report for k in open_keys]


def _run(keys: list[_Key], pf: Portfolio, *, t_start: float, time_limit: float, runs: int, seed: int,
         evaluations: int, use_exact: bool, should_stop, emit, finish) -> None:
    """Drive the keys' tasks on ``pf`` until every key is finished or a stop is requested."""
    # One range: the time limit is the run's wall time, so the cluster's start-up comes out of it.
    # Many ranges share one start-up: each range gets its whole limit, counted from its own tasks.
    startup = time.monotonic() - t_start if len(keys) == 1 else 0.0
    by_index = {k.index: k for k in keys}
    # A cluster that lost every worker never finishes: give up long after any honest schedule would end.
    rounds_of_tasks = -(-len(keys) * runs // max(1, pf.workers))
    give_up = time.monotonic() + 3 * time_limit * (rounds_of_tasks + 1) + 60

    def begin_annealing(k: _Key) -> None:
        seconds = time_limit - startup - k.template_seconds - 0.3
        k.annealing = True
        if seconds > 0.5:
            k.runs = runs
            pf.submit_runs(_run_jobs(k, runs, seed, evaluations, seconds))

    try:
        for k in keys:
            if use_exact:
                # With an evaluation budget the whole search is a function of its inputs: the exact
                # engine then budgets CP-SAT's deterministic time instead of the clock.
                pf.submit_templates(TemplateJob(k.index, k.s.uarch, k.s.arch, k.s.first, k.s.last, k.s.isa,
                                                max(1.0, 0.15 * time_limit), evaluations < NO_BUDGET))
            else:
                begin_annealing(k)
        while not should_stop():
            for m in pf.poll(0.1):
                k = by_index[m.key]
                if isinstance(m, TemplatesDone):
                    k.template, k.template_seconds = m.templates, m.seconds
                    at = 1 + next(i for i, c in enumerate(k.starts) if c.recipe == TEXTBOOK and not c.offsets)
                    k.starts[at:at] = [t.candidate for t in m.templates
                                       if t.candidate is not None and realize(t.candidate) is not None]
                    emit({"event": "improve", "key": k.index, "best": k.start_best()[0] - k.s.context_only,
                          "worker": None})
                    begin_annealing(k)
                elif isinstance(m, Improved):
                    if m.run not in k.best or m.cost < k.best[m.run][0]:
                        k.best[m.run] = (m.cost, m.candidate)
                    k.evaluations[m.run] = max(k.evaluations.get(m.run, 0), m.evaluations)
                    emit({"event": "improve", "key": k.index, "best": k.result()[0] - k.s.context_only,
                          "worker": m.run})
                elif isinstance(m, Counted):
                    k.evaluations[m.run] = max(k.evaluations.get(m.run, 0), m.evaluations)
                elif isinstance(m, RunDone):
                    r = m.result
                    if m.run not in k.best or r.best_cost <= k.best[m.run][0]:
                        k.best[m.run] = (r.best_cost, r.best)
                    k.evaluations[m.run], k.reasons[m.run] = r.evaluations, r.reason
                else:   # TaskFailed
                    if m.run is None:
                        k.notes.append(f"exact engine failed: {m.message}")
                        begin_annealing(k)
                    else:
                        k.notes.append(f"run {m.run} failed: {m.message}")
                        k.reasons[m.run] = "failed"
            for k in keys:
                if k.report is None and k.annealing and len(k.reasons) == k.runs:
                    k.report = finish(k)
                    emit({"event": "done", "key": k.index, "best": k.report.cycles})
            if all(k.report is not None for k in keys):
                return
            if time.monotonic() > give_up:
                for k in keys:
                    if k.report is None:
                        k.notes.append("the cluster did not finish its tasks in time (no workers left?): "
                                       "finished from what the runs reported")
                break
        # Stopped: every run returns its best within ``POLL`` s; give them that long, then go on
        # with what they streamed (a run whose worker is gone has already sent its improvements).
        pf.stop()
        end = time.monotonic() + 3 * POLL + 0.2
        while pf.pending and time.monotonic() < end:
            for m in pf.poll(0.05):
                if isinstance(m, Counted):
                    k = by_index[m.key]
                    k.evaluations[m.run] = max(k.evaluations.get(m.run, 0), m.evaluations)
                elif isinstance(m, (RunDone, Improved)):
                    k = by_index[m.key]
                    cost, cand = (m.result.best_cost, m.result.best) if isinstance(m, RunDone) else (m.cost, m.candidate)
                    if m.run not in k.best or cost < k.best[m.run][0]:
                        k.best[m.run] = (cost, cand)
                    if isinstance(m, RunDone):
                        k.evaluations[m.run] = m.result.evaluations
    finally:
        pf.close()


def search_range(uarch: str, first: int, last: int, *, arch: Arch | None = None, time_limit: float = 60.0,
                 workers: int | None = None, cluster: str | None = None, seed: int = 0,
                 db: str | Path | None = None, resume: bool = False, evaluations: int = NO_BUDGET,
                 should_stop: Callable[[], bool] = lambda: False, progress: Callable[[dict], None] | None = None,
                 use_exact: bool = True, reference: Reference | None = None, robust: bool = False) -> Report:
    """Search rounds first..last for ``uarch``; the best proved result is stored in ``db`` and reported."""
    return search_ranges([(uarch, arch, first, last)], time_limit=time_limit, workers=workers, cluster=cluster,
                         seed=seed, db=db, resume=resume, evaluations=evaluations, should_stop=should_stop,
                         progress=progress, use_exact=use_exact, reference=reference, robust=robust)[0]


# --- the hybrid family (vector message schedule + scalar rounds; search/space/hybrid.py) ----------------

@dataclass(frozen=True)
class HybridReport:
    """A hybrid search on one model, its block proof, and the scalar best it is ranked against."""

    uarch: str
    cap: str | None
    search: HybridSearch
    scalar_cycles: float            # best scalar whole block under the same model, per block, steady state
    scalar_source: str
    proof: str
    proved: bool

    @property
    def hybrid_wins(self) -> bool:
        """Whether the proved hybrid block is predicted no dearer than the scalar best (a tie goes to the
        hybrid: its message schedule leaves the integer units the model found idle)."""
        return self.proved and self.search.cycles <= self.scalar_cycles

    @property
    def winner(self) -> str:
        """The family ``hybrid_wins`` picks, as printed: "hybrid" or "scalar"."""
        return "hybrid" if self.hybrid_wins else "scalar"

    @property
    def ok(self) -> bool:
        """No failure: the block found proved, or none was found (the search's reason says why)."""
        return self.proved or self.search.params is None

    @property
    def ratio(self) -> float:
        """Predicted hybrid / scalar cycles (< 1: the hybrid is cheaper)."""
        return self.search.cycles / self.scalar_cycles


def scalar_best(uarch: str, db: str | Path | None = None, cap: str | None = None):
    """(x86-64 scalar best block Schedule, predicted cycles per block in steady state, where it came from).

    ``blocks.capped_best``: the stored best (``blocks.best_block``), or the default schedule when that
    block needs a feature the cap does not allow.
    """
    best = capped_best(uarch, "x86_64", cap, db)
    where = (f"default schedule (the stored best needs more than --isa {cap})" if best.refused
             else "; ".join(best.sources))
    return best.schedule, block_loop_cycles(best.schedule, load_model(uarch)), where


def search_hybrid_block(uarch: str, *, cap: str | None = None, evaluations: int = 400, seed: int = 0,
                        time_limit: float = 60.0, should_stop: Callable[[], bool] = lambda: False,
                        db: str | Path | None = None, progress: ProgressFn = ignore) -> HybridReport:
    """Search the hybrid family on ``uarch`` (``engines.hybrid.search_hybrid``), prove the winner
    (``hybrid_proof.prove_hybrid``: an Unknown is not a proof), store it when proved (``family_rows``: kept
    if better than the stored row of the key) and rank it against ``scalar_best``;
    ``progress`` gets the search's ``Progress`` values, then ``Progress("proving the block", 0)``."""
    model = load_model(uarch)
    found = search_hybrid(model, cap=cap, evaluations=evaluations, seed=seed, time_limit=time_limit,
                          should_stop=should_stop, progress=progress)
    _, scalar_cycles, where = scalar_best(uarch, db, cap)
    if found.block is None:
        return HybridReport(uarch, cap, found, scalar_cycles, where, f"nothing to prove: {found.reason}", False)
    progress(Progress("proving the block", 0))
    res = prove_hybrid(found.block)
    if res.ok:
        proof = f"block proved ({res.cuts} cuts, {res.solver_calls} Z3 calls; lane-by-lane cuts)"
        put_hybrid(db, model, cap, found.block, found.cycles, evaluations=found.evaluations, seconds=found.seconds,
                   seed=seed, proved=True)
    else:
        proof = f"NOT proved: {describe_failure(res)}"
    return HybridReport(uarch, cap, found, scalar_cycles, where, proof, res.ok)


def stored_search(model: Model, stored: Stored) -> HybridSearch:
    """A stored hybrid row as the search result it was (``reason`` "stored"; its figure the stored one)."""
    p = stored.params
    return HybridSearch(model.name, p, stored.block, stored.cycles, stored.cycles / 64, "", stored.cycles,
                        stored.row.evaluations, stored.row.seconds, "stored", (p,))


def known_hybrid_block(uarch: str, *, cap: str | None, db: str | Path | None = None, evaluations: int = 400,
                       seed: int = 0, progress: ProgressFn = ignore) -> HybridReport:
    """The stored proved x86-64 hybrid block for (``uarch``, ``cap``) ranked against ``scalar_best``; only when
    there is none, ``search_hybrid_block`` (which stores what it proves)."""
    model = load_model(uarch)
    stored = stored_hybrid(db, model, "x86_64", cap)
    if stored is None:
        return search_hybrid_block(uarch, cap=cap, evaluations=evaluations, seed=seed, db=db, progress=progress)
    _, scalar_cycles, where = scalar_best(uarch, db, cap)
    return HybridReport(uarch, cap, stored_search(model, stored), scalar_cycles, where,
                        f"block proved (stored result, {stored.row.evaluations} evaluations)", True)
