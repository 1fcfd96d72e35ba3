"""What ``export --isa LEVEL`` exports: the scalar best under the cap, or a hybrid block when it wins.

``export_choice(uarch, arch, level, db)``:

* a level without a vector dialect (``base``, ``bmi2``): the scalar best
  block (``blocks.best_block``), or the default schedule when that block
  needs a feature the cap does not allow;
* a vector level on x86-64 with a model: the stored proved hybrid block for
  the model and the level (``driver.known_hybrid_block``: what ``search
  --isa LEVEL`` stored; only without a row a search -- grid +
  ``EXPORT_EVALUATIONS`` annealing moves, seed 0 -- which is stored) ranked
  against the capped scalar best; the proved winner;
* a vector level on i386 with a model: the same with the i386 block
  (``known_i386_block``: stored, else ``engines.hybrid_i386.search_hybrid_i386``
  proved by ``hybrid_proof.prove_hybrid`` and stored) against the capped
  i386 scalar best;
* a vector level without a model: the default hybrid block of the cap's
  highest dialect (``HybridParams(isa=...)``; ``arch="i386"`` on i386);
* ``shani`` (a cap that allows SHA-NI), either arch: the SHA-NI function
  (``search.family_rows.known_shani`` -- stored, else ``best_shani`` and
  stored -- on a model that has SHA-NI, the
  default point without a model), exported by ``emit.shani_export``; a
  model without SHA-NI falls through to the cases above.

The notes say which, with the predicted figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sha1opt.search.blocks import best_block
from sha1opt.search.cost.model import load_model
from sha1opt.search.measure import block_loop_cycles
from sha1opt.search.engines.hybrid_i386 import search_hybrid_i386
from sha1opt.search.engines.shani import has_shani
from sha1opt.search.driver import HybridReport, default_arch, known_hybrid_block, scalar_best, stored_search
from sha1opt.search.family_rows import known_shani, put_hybrid, stored_hybrid
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.frame import Schedule
from sha1opt.search.space.hybrid import HybridBlock, HybridParams, build
from sha1opt.search.space.hybrid_caps import allows, check_level, vector_dialects
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.shani import ShaniParams, default_params
from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.x86 import isa_set

EXPORT_EVALUATIONS = 150
SHANI_EVALUATIONS = 200


@dataclass
class Choice:
    schedule: Schedule | None          # the scalar block to export, or None
    block: HybridBlock | None          # the hybrid block to export, or None
    notes: list[str] = field(default_factory=list)
    shani: ShaniParams | None = None   # the SHA-NI function to export, or None
    cycles: float | None = None        # the hybrid block's or SHA-NI function's figure (``search.measure``), as
                                       # its search stored it; None for scalar code and without a model


def _scalar(uarch: str | None, arch: str, level: str, db) -> Choice:
    if uarch is None:
        sched = textbook(arch)
        return Choice(sched, None, [f"scalar default schedule ({arch}; --isa {level})"])
    sched, sources = best_block(uarch, arch, db)
    notes = [f"rounds {line}" for line in sources]
    if not all(allows(level, f) for f in isa_set(sched.body)):
        sched = textbook(arch)
        notes.append(f"the stored best needs more than --isa {level}: the default schedule instead")
    return Choice(sched, None, notes)


def export_choice(uarch: str | None, arch: str | None, level: str, db: str | Path | None = None,
                  progress: ProgressFn = ignore) -> Choice:
    """The code ``export --isa level`` writes (module docstring); ``progress`` hears each search step."""
    check_level(level)
    arch = arch or (default_arch(uarch) if uarch else "x86_64")
    if allows(level, "sha"):
        if uarch is None:
            return Choice(None, None, [f"SHA-NI default point ({arch}; no --uarch to search on)"],
                          shani=default_params(arch))
        model = load_model(uarch)
        if has_shani(model):
            progress(Progress(f"SHA-NI search on {uarch}", 0))
            rep = known_shani(model, arch, SHANI_EVALUATIONS, db)
            line = (f"SHA-NI {rep.params.describe()}: {rep.cycles_per_byte:.2f} c/B predicted on {uarch} "
                    f"(default point {rep.default_cycles / 64:.2f}); block {rep.proof}; search stopped: "
                    f"{rep.stop_reason}")
            if rep.proved:
                return Choice(None, None, [line, "exporting the SHA-NI function"], shani=rep.params, cycles=rep.cycles)
            choice_notes = [line, "the SHA-NI block did not prove: not exported"]
        else:
            choice_notes = [f"{uarch} has no SHA-NI: searching without it"]
    else:
        choice_notes = []
    choice = _export_choice(uarch, arch, level, db, progress)
    choice.notes[:0] = choice_notes
    return choice


def _i386_scalar(uarch: str, level: str, db, model) -> tuple[float, str]:
    sched = _scalar(uarch, "i386", level, db).schedule
    return block_loop_cycles(sched, model), f"i386 {sched.name}"


def search_i386_block(uarch: str, level: str, db=None, evaluations: int = EXPORT_EVALUATIONS,
                      seed: int = 0) -> HybridReport:
    """The i386 hybrid search on ``uarch`` under the cap, its block proof (a proved block is stored:
    ``family_rows.put_hybrid``), and the capped i386 scalar best it is ranked against
    (``driver.search_hybrid_block``'s report, for i386)."""
    model = load_model(uarch)
    found = search_hybrid_i386(model, cap=level, evaluations=evaluations, seed=seed)
    scalar_cycles, where = _i386_scalar(uarch, level, db, model)
    if found.block is None:
        return HybridReport(uarch, level, found, scalar_cycles, where, f"nothing to prove: {found.reason}", False)
    res = prove_hybrid(found.block)
    if res.ok:
        put_hybrid(db, model, level, found.block, found.cycles, evaluations=found.evaluations, seconds=found.seconds,
                   seed=seed, proved=True)
    proof = (f"block proved ({res.cuts} cuts, {res.solver_calls} Z3 calls; lane-by-lane cuts)" if res.ok
             else f"NOT proved: {describe_failure(res)}")
    return HybridReport(uarch, level, found, scalar_cycles, where, proof, res.ok)


def known_i386_block(uarch: str, level: str, db=None) -> HybridReport:
    """The stored proved i386 hybrid block for (``uarch``, ``level``); only when there is none,
    ``search_i386_block`` (export's budget, seed 0), which stores it."""
    model = load_model(uarch)
    stored = stored_hybrid(db, model, "i386", level)
    if stored is None:
        return search_i386_block(uarch, level, db)
    scalar_cycles, where = _i386_scalar(uarch, level, db, model)
    return HybridReport(uarch, level, stored_search(model, stored), scalar_cycles, where,
                        f"block proved (stored result, {stored.row.evaluations} evaluations)", True)


def _export_choice(uarch: str | None, arch: str, level: str, db, progress: ProgressFn = ignore) -> Choice:
    dialects = vector_dialects(level)
    if not dialects:
        return _scalar(uarch, arch, level, db)
    if uarch is None:
        params = HybridParams(isa=dialects[-1], arch=arch)
        block = build_i386(params) if arch == "i386" else build(params)
        return Choice(None, block, [f"hybrid default block ({dialects[-1]}{'' if arch == 'x86_64' else ', ' + arch}; "
                                  "no --uarch to search on)"])
    if arch == "i386":
        progress(Progress(f"i386 hybrid search on {uarch} (--isa {level})", 0))
        rep = known_i386_block(uarch, level, db)
    else:
        rep = known_hybrid_block(uarch, cap=level, evaluations=EXPORT_EVALUATIONS, seed=0, db=db, progress=progress)
    s = rep.search
    if s.params is None:
        choice = _scalar(uarch, arch, level, db)
        choice.notes.insert(0, f"hybrid: {s.reason}")
        return choice
    line = (f"hybrid {s.params.key()}: {s.cycles_per_byte:.2f} c/B predicted on {uarch} vs scalar best "
            f"{rep.scalar_cycles / 64:.2f} ({rep.scalar_source}); {rep.proof}; search stopped: {s.reason}")
    if rep.winner == "hybrid":
        return Choice(None, s.block, [line, "exporting the hybrid block"], cycles=s.cycles)
    if arch == "i386":
        choice = _scalar(uarch, arch, level, db)
        choice.notes[:0] = [line, "exporting the scalar block"]
        return choice
    sched, _, where = scalar_best(uarch, db, level)
    return Choice(sched, None, [line, f"exporting the scalar block ({where})"])
