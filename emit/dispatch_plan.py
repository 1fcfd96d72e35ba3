"""Which paths a dispatching export holds, and in which order the running CPU tries them.

``plan_dispatch(uarch, arch, db)`` collects candidates: the scalar best for the model
(``blocks.best_block``; the textbook schedule without a model), then for every ``--isa`` level
the model's CPU has (``model_levels``) what ``export --isa LEVEL`` would write
(``hybrid_choice.export_choice``: a hybrid block -- x86-64's or i386's -- or the SHA-NI function;
a level whose choice is scalar code adds nothing), and, when the scalar best needs a feature
(BMI2's ``rorx``), the best scalar code under ``--isa base`` as the fallback; likewise, when the
SHA-NI function needs more than ``SHANI_BASE`` (goldencove's AVX-512 ``sha1msg2`` form), the best
SHA-NI function without it (``shani_sse``) for the SHA-NI CPUs without AVX-512. Each candidate is
priced on the model by the one block-loop measure (``search.measure``: each family's loop with its loop
control; scalar: ``block_loop_cycles``; hybrid: ``engines.hybrid.block_cost``; SHA-NI:
``engines.shani.block_cycles``).

``order_paths(candidates)`` is the policy, a pure function: sort by predicted cycles/byte, ties
(and every candidate without a model) by ``PREFERENCE`` (shani > shani_sse > avx512 > avx2 > avx >
ssse3 > scalar > base); then drop every candidate an earlier one *shadows* -- Q before P with
``mask(Q) ⊆ mask(P)``: every CPU that could run P takes Q first, so P would never run (a path
predicted slower than one needing less is dropped, e.g. SSSE3 slower than the scalar fallback).
The list ends at the first path that needs nothing, which every CPU takes.

Example: without a model on x86-64 the order is shani, avx512, avx, ssse3, scalar (avx2 is the
avx block again -- the hybrid family has no AVX2-only dialect -- and is not repeated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.search.blocks import best_block
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.measure import block_loop_cycles
from sha1opt.search.engines.shani import has_shani
from sha1opt.search.family_rows import SHANI_NO_AVX, known_shani
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.frame import Schedule
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.space.hybrid_caps import CAPS, allows
from sha1opt.search.space.shani import ShaniParams, unit_code
from sha1opt.emit.assembly import function_text
from sha1opt.emit.dispatch_text import PathCode, hybrid_path_text
from sha1opt.search.progress import ProgressFn, ignore
from sha1opt.emit.hybrid_choice import SHANI_EVALUATIONS, export_choice
from sha1opt.emit.shani_frame import shani_function_text

PREFERENCE = ("shani", "shani_sse", "avx512", "avx2", "avx", "ssse3", "scalar", "base")
# what a SHA-NI block may use and still run on every SHA-NI CPU (Goldmont, Zen 1-3, Ice Lake ... have no AVX-512)
SHANI_BASE = frozenset({"sse", "sse2", "ssse3", "sse4.1", "sha"})
VECTOR_LEVELS = ("ssse3", "avx", "avx2", "avx512", "shani")
# x86 feature -> the model's ``vector_isa`` spelling
MODEL_SPELLING = {"ssse3": "ssse3", "avx": "avx", "avx2": "avx2", "avx512vl": "avx512vl", "sha": "sha"}


@dataclass(frozen=True)
class Candidate:
    code: PathCode
    kind: str                          # "scalar" | "hybrid" | "shani"
    what: str                          # the schedule, hybrid key or SHA-NI parameters
    cycles_per_byte: float | None      # predicted on the model (None: no model)
    payload: Schedule | HybridBlock | ShaniParams | None = None    # what its family's export takes

    @property
    def name(self) -> str:
        return self.code.name

    def describe(self) -> str:
        cost = f"{self.cycles_per_byte:.2f} c/B predicted" if self.cycles_per_byte is not None else "no model"
        return f"{self.name}: {self.kind} {self.what} ({cost}; needs {', '.join(sorted(self.code.features)) or 'nothing'})"


@dataclass(frozen=True)
class DispatchPlan:
    arch: Arch
    uarch: str | None
    paths: tuple[Candidate, ...]       # preference order; the last needs nothing
    dropped: tuple[str, ...] = ()      # candidates left out, and why
    notes: tuple[str, ...] = field(default_factory=tuple)

    def codes(self) -> list[PathCode]:
        return [c.code for c in self.paths]


def _has(model: Model, feature: str) -> bool:
    if feature in ("bmi1", "bmi2"):
        return model.has_isa(feature)
    return model.has_vector(MODEL_SPELLING[feature])


def model_levels(model: Model | None, arch: Arch) -> tuple[str, ...]:
    """The vector ``--isa`` levels the model's CPU has (every one without a model), on either arch (the
    hybrid family has an i386 form, ``search.space.hybrid_i386``)."""
    return tuple(lv for lv in VECTOR_LEVELS if model is None or
                 (has_shani(model) if lv == "shani" else all(_has(model, f) for f in CAPS[lv])))


def order_paths(cands: list[Candidate]) -> tuple[list[Candidate], list[str]]:
    """The policy of the module docstring: (paths in preference order, why each other one was dropped)."""
    ranked = sorted(cands, key=lambda c: (c.cycles_per_byte if c.cycles_per_byte is not None else 0.0,
                                          PREFERENCE.index(c.name)))
    kept: list[Candidate] = []
    dropped: list[str] = []
    for c in ranked:
        first = next((q for q in kept if q.code.mask & ~c.code.mask == 0), None)
        if first is not None:
            why = "the same code" if first.code.text == c.code.text else "never reached"
            dropped.append(f"{c.name}: {why} -- {first.name} runs on every CPU that runs it and comes first"
                           + (f" ({first.cycles_per_byte:.2f} vs {c.cycles_per_byte:.2f} c/B predicted)"
                              if c.cycles_per_byte is not None and first.cycles_per_byte is not None else ""))
            continue
        kept.append(c)
    return kept, dropped


def _scalar_candidate(name: str, sched: Schedule, model: Model | None, what: str) -> Candidate:
    cpb = block_loop_cycles(sched, model) / 64 if model else None
    return Candidate(PathCode(name, isa_set(sched.body), function_text(sched)), "scalar", what, cpb, sched)


def _scalar_candidates(uarch: str | None, arch: Arch, model: Model | None, db) -> tuple[list[Candidate], list[str]]:
    """The scalar best for the model, and the best under ``--isa base`` when that one needs a feature;
    the notes say where each round range came from (``rounds 0-19: ...``)."""
    if model is None:
        sched, sources = textbook(arch), ["default schedule (no --uarch)"]
        notes = []
    else:
        sched, sources = best_block(uarch, arch, db)
        notes = [f"rounds {line}" for line in sources]
    cands = [_scalar_candidate("scalar", sched, model, "; ".join(sources))]
    if cands[0].code.features:
        base = export_choice(uarch, arch, "base", db)
        cands.append(_scalar_candidate("base", base.schedule, model, "best under --isa base"))
    return cands, notes


def level_candidate(uarch: str | None, arch: Arch, level: str, model: Model | None, db=None,
                    progress: ProgressFn = ignore) -> tuple[Candidate | None, list[str]]:
    """What ``export --isa level`` would write, as a candidate (None when that is scalar code), and its notes."""
    choice = export_choice(uarch, arch, level, db, progress)
    notes = [f"--isa {level}: {n}" for n in choice.notes]
    if choice.shani is not None:
        code = shani_function_text(arch, choice.shani)
        cpb = choice.cycles / 64 if model else None
        return Candidate(PathCode(level, isa_set(unit_code(choice.shani, arch)), code), "shani",
                         choice.shani.describe(), cpb, choice.shani), notes
    if choice.block is not None:
        block = choice.block
        cpb = choice.cycles / 64 if model else None
        return Candidate(PathCode(level, isa_set(list(block.code())), hybrid_path_text(block)),
                         "hybrid", block.params.key(), cpb, block), notes
    return None, notes + [f"--isa {level}: scalar code wins (no vector path)"]


def shani_base_candidate(model: Model, arch: Arch, db=None) -> tuple[Candidate | None, list[str]]:
    """The best proved SHA-NI block using nothing beyond ``SHANI_BASE`` (the ``shani_sse`` path), for a plan
    whose SHA-NI path needs more (e.g. goldencove's AVX-512 ``sha1msg2`` form): without it a CPU with
    SHA-NI but no AVX-512 would fall through to a hybrid path."""
    rep = known_shani(model, arch, SHANI_EVALUATIONS, db, SHANI_NO_AVX)
    line = f"shani_sse: SHA-NI {rep.params.describe()}: {rep.cycles_per_byte:.2f} c/B predicted; block {rep.proof}"
    if not rep.proved:
        return None, [line, "shani_sse: the block did not prove: not exported"]
    code = PathCode("shani_sse", isa_set(unit_code(rep.params, arch)), shani_function_text(arch, rep.params))
    return Candidate(code, "shani", rep.params.describe(), rep.cycles_per_byte, rep.params), [line]


def _fits(cap: str | None, features) -> bool:
    return cap is None or all(allows(cap, f) for f in features)


def plan_dispatch(uarch: str | None, arch: Arch, db: str | Path | None = None, cap: str | None = None,
                  progress: ProgressFn = ignore) -> DispatchPlan:
    """The paths of the dispatching export for ``uarch`` on ``arch`` (module docstring); ``cap``
    (an ``--isa`` level) leaves out every path needing more."""
    model = load_model(uarch) if uarch else None
    scalar, notes = _scalar_candidates(uarch, arch, model, db)
    cands = [c for c in scalar if _fits(cap, c.code.features)]
    seen: set[str] = set()
    for level in model_levels(model, arch):
        if not _fits(cap, CAPS[level] if level != "shani" else {"sha"}):
            continue
        cand, more = level_candidate(uarch, arch, level, model, db, progress)
        notes += more
        if cand is not None and cand.kind == "hybrid":
            if cand.what in seen:
                notes.append(f"--isa {level}: the hybrid block of a lower level again")
                continue
            seen.add(cand.what)
        if cand is not None:
            cands.append(cand)
        if cand is not None and cand.kind == "shani" and model is not None and cand.code.features - SHANI_BASE:
            base, more = shani_base_candidate(model, arch, db)
            notes += more
            if base is not None:
                cands.append(base)
    kept, dropped = order_paths(cands)
    return DispatchPlan(arch, uarch, tuple(kept), tuple(dropped), tuple(notes))


def best_path(uarch: str, arch: Arch, db: str | Path | None = None,
              progress: ProgressFn = ignore) -> tuple[Candidate, list[str]]:
    """The predicted-best single path for the model (what plain ``export --uarch`` writes), and the notes.

    The path the dispatching export would run on the model's CPU, found with fewer searches: the
    scalar best, the hybrid search at the model's highest vector level below SHA-NI (its dialects
    include every lower level's) and the SHA-NI search, ranked by ``order_paths``.
    """
    model = load_model(uarch)
    scalar, notes = _scalar_candidates(uarch, arch, model, db)
    cands = scalar[:1]
    levels = model_levels(model, arch)
    for level in [lv for lv in levels if lv != "shani"][-1:] + [lv for lv in levels if lv == "shani"]:
        cand, more = level_candidate(uarch, arch, level, model, db, progress)
        notes += more
        if cand is not None:
            cands.append(cand)
    kept, _ = order_paths(cands)
    notes += [f"candidate {c.describe()}" for c in sorted(cands, key=lambda c: c.cycles_per_byte or 0.0)]
    return kept[0], notes
