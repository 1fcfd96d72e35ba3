"""What ``export --isa LEVEL`` exports: the scalar best under the cap, or a hybrid block when it wins.

``export_choice(uarch, arch, level, db)``:

* a level without a vector dialect (``base``, ``bmi2``): the scalar best
  block (``blocks.best_block``), or the default schedule when that block
  needs a feature the cap does not allow;
* a vector level on x86-64 with a model: ``driver.search_hybrid_block``
  (grid + ``EXPORT_EVALUATIONS`` annealing moves, seed 0: the same file for
  the same store) ranked against the capped scalar best; the proved winner;
* a vector level on i386 with a model: the same with the i386 block
  (``engines.hybrid_i386.search_hybrid_i386``, proved by
  ``hybrid_proof.prove_hybrid``) against the capped i386 scalar best;
* a vector level without a model: the default hybrid block of the cap's
  highest dialect (``HybridParams(isa=...)``; ``arch="i386"`` on i386);
* ``shani`` (a cap that allows SHA-NI), either arch: the SHA-NI function
  (``search.engines.shani.best_shani`` on a model that has SHA-NI, the
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
from sha1opt.search.engines.shani import best_shani, has_shani
from sha1opt.search.driver import HybridReport, default_arch, scalar_best, search_hybrid_block
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
            rep = best_shani(model, arch, SHANI_EVALUATIONS)
            line = (f"SHA-NI {rep.params.describe()}: {rep.cycles_per_byte:.2f} c/B predicted on {uarch} "
                    f"(default point {rep.default_cycles / 64:.2f}); block {rep.proof}; search stopped: "
                    f"{rep.stop_reason}")
            if rep.proved:
                return Choice(None, None, [line, "exporting the SHA-NI function"], shani=rep.params)
            choice_notes = [line, "the SHA-NI block did not prove: not exported"]
        else:
            choice_notes = [f"{uarch} has no SHA-NI: searching without it"]
    else:
        choice_notes = []
    choice = _export_choice(uarch, arch, level, db, progress)
    choice.notes[:0] = choice_notes
    return choice


def search_i386_block(uarch: str, level: str, db=None, evaluations: int = EXPORT_EVALUATIONS) -> HybridReport:
    """The i386 hybrid search on ``uarch`` under the cap (seed 0), its block proof, and the capped i386
    scalar best it is ranked against (``driver.search_hybrid_block``'s report, for i386)."""
    model = load_model(uarch)
    found = search_hybrid_i386(model, cap=level, evaluations=evaluations, seed=0)
    sched = _scalar(uarch, "i386", level, db).schedule
    scalar_cycles = block_loop_cycles(sched, model)
    where = f"i386 {sched.name}"
    if found.block is None:
        return HybridReport(uarch, level, found, scalar_cycles, where, f"nothing to prove: {found.reason}", False)
    res = prove_hybrid(found.block)
    proof = (f"block proved ({res.cuts} cuts, {res.solver_calls} Z3 calls; lane-by-lane cuts)" if res.ok
             else f"NOT proved: {describe_failure(res)}")
    return HybridReport(uarch, level, found, scalar_cycles, where, proof, res.ok)


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
        rep = search_i386_block(uarch, level, db)
    else:
        rep = search_hybrid_block(uarch, cap=level, evaluations=EXPORT_EVALUATIONS, seed=0, db=db, progress=progress)
    s = rep.search
    if s.params is None:
        choice = _scalar(uarch, arch, level, db)
        choice.notes.insert(0, f"hybrid: {s.reason}")
        return choice
    line = (f"hybrid {s.params.key()}: {s.cycles_per_byte:.2f} c/B predicted on {uarch} vs scalar best "
            f"{rep.scalar_cycles / 64:.2f} ({rep.scalar_source}); {rep.proof}; search stopped: {s.reason}")
    if rep.winner == "hybrid":
        return Choice(None, s.block, [line, "exporting the hybrid block"])
    if arch == "i386":
        choice = _scalar(uarch, arch, level, db)
        choice.notes[:0] = [line, "exporting the scalar block"]
        return choice
    sched, _, where = scalar_best(uarch, db, level)
    return Choice(sched, None, [line, f"exporting the scalar block ({where})"])
