"""``search_range``: the whole search for one (uarch, arch, round range), as a ``Report``.

Stages, each a function below:

1. ``_setup``: load the uarch model; its ISA level (BMI1/BMI2) bounds the
   recipes; the objective is the range's cycles inside the block
   (``objective.range_cost``).
2. ``_baselines``: under the same model, the default (textbook) schedule for
   the range and the caller's peer (``reference``: e.g. gcc -O2
   -mtune=<cpu> of our C SHA-1, built by emit), cut at its rounds.
3. ``_starts``: the exact engine (``engines/exact.py``) on the steady-state
   round template of each round kind in the range (its CP-SAT certificate is
   reported), the stored best (``resume``), other CPUs' proved winners and
   good recipes for the ISA, as starting points.
4. ``engines.portfolio.run_portfolio``: annealing from those starts with
   seeds ``seed, seed+1, ...`` until the time limit or a stop request
   (Ctrl-C); the best so far is kept.
5. ``_prove_and_store``: the best candidate is proved (Z3, round cut points)
   inside a whole block; only a proved result is stored and reported as a
   result.

Workers never print; progress comes back through ``progress(event)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sha1opt.semantics.block import describe_failure, prove_block
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch, Instr
from sha1opt.search.blocks import STANDARD_RANGES, stored_elsewhere
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.engines.exact import solve_templates
from sha1opt.search.engines.portfolio import Job, run_portfolio
from sha1opt.search.objective import Reference, model_version, range_cost, reference_cycles
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, recipes_for
from sha1opt.search.store import Store

__all__ = ["Report", "STANDARD_RANGES", "default_arch", "prove_in_block", "search_range"]

def default_arch(uarch: str) -> Arch:
    """The architecture a model's CPU is searched for by default (``arch`` in its corpus/uarch TOML)."""
    return load_model(uarch).arch


@dataclass
class Report:
    uarch: str
    arch: Arch
    first: int
    last: int
    cycles: float                   # predicted cycles the range adds inside the block (context subtracted)
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


def _setup(uarch: str, first: int, last: int, arch: Arch | None, workers: int) -> _Setup:
    if not 0 <= first <= last <= 79:
        raise Sha1optError(f"round range {first}-{last} is not within 0-79")
    if workers < 1:
        raise Sha1optError("workers must be at least 1")
    model = load_model(uarch)
    arch = arch or default_arch(uarch)
    cost = range_cost(model, first, last, arch)
    return _Setup(uarch, arch, first, last, model, model.isa, cost, cost([]), model_version(model))


def _starts(s: _Setup, store: Store, stored_row, resume: bool, use_exact: bool, time_limit: float,
            notes: list[str]) -> tuple[list, list[Candidate]]:
    """The exact engine's template results, and every feasible starting candidate (textbook first)."""
    template = []
    starts = [Candidate(s.first, s.last, s.arch, TEXTBOOK)]
    if use_exact:
        template = solve_templates(s.model, s.arch, s.first, s.last, s.isa, time_limit=max(1.0, 0.15 * time_limit))
        starts += [t.candidate for t in template if t.candidate is not None]
    if resume and stored_row is not None:
        starts.insert(0, Candidate(s.first, s.last, s.arch, Recipe.parse(stored_row.recipe), stored_row.offsets))
        notes.append(f"resumed from the stored result ({stored_row.cycles:.1f} cycles)")
    # Other CPUs' winners for the same range and arch are starting points too
    # (a schedule good on one uarch is often a fair start on its neighbour).
    starts += [real.candidate for real, _ in stored_elsewhere(store.rows(), s.uarch, s.arch, s.first, s.last, s.isa)]
    # Good recipes for this ISA as extra starting points (selection matters most).
    extra = [r for r in recipes_for(s.isa) if r.rol5 == ("rorx" if s.isa == "bmi2" else "mov-rol")][:8]
    starts += [Candidate(s.first, s.last, s.arch, r) for r in extra]
    return template, [c for c in starts if realize(c) is not None]


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


def search_range(uarch: str, first: int, last: int, *, arch: Arch | None = None, time_limit: float = 60.0,
                 workers: int = 1, seed: int = 0, db: str | Path | None = None, resume: bool = False,
                 evaluations: int = 10**9, should_stop: Callable[[], bool] = lambda: False,
                 progress: Callable[[dict], None] | None = None, use_exact: bool = True,
                 reference: Reference | None = None) -> Report:
    """Search rounds first..last for ``uarch``; the best proved result is stored in ``db`` and reported."""
    t_start = time.monotonic()
    s = _setup(uarch, first, last, arch, workers)
    notes: list[str] = []
    emit = progress or (lambda e: None)
    textbook_cycles = s.cost(realize(Candidate(first, last, s.arch, TEXTBOOK)).code) - s.context_only
    ref_cycles, ref_note = reference_cycles(reference, s.model, first, last)

    store = Store(db)
    try:
        stored_row = store.get(uarch, s.arch, first, last, s.version)
        template, starts = _starts(s, store, stored_row, resume, use_exact, time_limit, notes)
        best_c = min(starts, key=lambda c: s.cost(realize(c).code))
        best_cost = s.cost(realize(best_c).code)
        emit({"event": "start", "best": best_cost - s.context_only, "textbook": textbook_cycles})
        n_eval, reason = 0, "deadline"
        remaining = time_limit - (time.monotonic() - t_start)
        if remaining > 0.5:
            res = run_portfolio(Job(uarch, best_c, s.isa, seed, evaluations, remaining), starts, best_cost, s.cost,
                                workers=workers, should_stop=should_stop,
                                on_improve=lambda v, who: emit({"event": "improve", "best": v - s.context_only,
                                                               "worker": who}))
            best_c, best_cost, n_eval, reason = res.best, res.best_cost, res.evaluations, res.reason
            notes += res.failures
        if should_stop():
            reason = "interrupted"
        best_cost -= s.context_only           # the range's own cycles inside the block
        code, proved, proof, stored = _prove_and_store(s, store, stored_row, best_c, best_cost, n_eval, seed,
                                                       t_start, notes)
    finally:
        store.close()
    return Report(uarch, s.arch, first, last, best_cost, textbook_cycles, ref_cycles, ref_note, template, best_c,
                  code, proof, proved, stored, n_eval, time.monotonic() - t_start, reason, workers, seed, notes)
