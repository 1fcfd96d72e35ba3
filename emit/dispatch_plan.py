"""Which paths a dispatching export holds, and in which order the running CPU tries them.

``plan_dispatch(uarch, arch, db)`` walks the family registry (``emit.families``): the paths every
family adds once (``base_paths``: the scalar family's best for the model -- ``blocks.best_block``,
the textbook schedule without a model -- and, when that needs a feature such as BMI2's ``rorx``,
the best under ``--isa base`` as the fallback), then for every ``--isa`` level of a per-level
family the model's CPU has (``families.dispatch_levels``) what ``export --isa LEVEL`` would write
(``families.export_choice``; a level whose choice is a family without per-level paths -- scalar
code -- adds nothing) and the paths that choice brings along (``extra_paths``: the SHA-NI family's
``shani_sse`` when its block needs more than ``family_shani.SHANI_BASE``). Each candidate is priced
on the model by the one block-loop measure (``search.measure``; ``family.cycles``: what its
search stored, or its loop priced).

``order_paths(candidates)`` is the policy, a pure function: sort by predicted cycles/byte, ties
(and every candidate without a model) by ``families.preference()`` (shani > shani_sse > avx512 >
avx2 > avx > ssse3 > scalar > base: the families' path names, highest family first); then drop
every candidate an earlier one *shadows* -- Q before P with ``mask(Q) ⊆ mask(P)``: every CPU that
could run P takes Q first, so P would never run (a path predicted slower than one needing less is
dropped, e.g. SSSE3 slower than the scalar fallback). The list ends at the first path that needs
nothing, which every CPU takes. A ``Candidate`` carries its ``Choice`` (family, code, arch): the
family writes it (``choice.family.export``) and says what it needs (``features``).

Example: without a model on x86-64 the order is shani, avx512, avx, ssse3, scalar (avx2 is the
avx block again -- the hybrid family has no AVX2-only dialect -- and is not repeated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.progress import ProgressFn, ignore
from sha1opt.search.space.hybrid_caps import allows
from sha1opt.emit.dispatch_text import PathCode
from sha1opt.emit.families import FAMILIES, dispatch_levels, export_choice, family_of, preference
from sha1opt.emit.family import Choice, cycles


@dataclass(frozen=True)
class Candidate:
    code: PathCode
    choice: Choice                     # the family, its code (what its export takes) and arch
    what: str                          # the schedule's sources, hybrid key or SHA-NI parameters
    cycles_per_byte: float | None      # predicted on the model (None: no model)

    @property
    def name(self) -> str:
        return self.code.name

    @property
    def kind(self) -> str:
        """The family's name, as printed."""
        return self.choice.family.name

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


def model_levels(model: Model | None, arch: Arch) -> tuple[str, ...]:
    """The ``--isa`` levels with a path of their own the model's CPU has (every one without a model), on
    either arch (the hybrid family has an i386 form, ``search.space.hybrid_i386``)."""
    return dispatch_levels(model)


def order_paths(cands: list[Candidate]) -> tuple[list[Candidate], list[str]]:
    """The policy of the module docstring: (paths in preference order, why each other one was dropped)."""
    order = preference()
    ranked = sorted(cands, key=lambda c: (c.cycles_per_byte if c.cycles_per_byte is not None else 0.0,
                                          order.index(c.name)))
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


def candidate(name: str, choice: Choice, model: Model | None, what: str | None = None) -> Candidate:
    """The path ``name`` of ``choice``: its family's code, features and text, priced on the model."""
    fam = choice.family
    cpb = cycles(choice, model) / 64 if model else None
    code = PathCode(name, fam.features(choice), fam.path_text(choice))
    return Candidate(code, choice, fam.describe(choice) if what is None else what, cpb)


def _base_candidates(uarch: str | None, arch: Arch, model: Model | None, db) -> tuple[list[Candidate], list[str]]:
    """The paths every family adds once (``base_paths``; the scalar best and its fallback), and the notes."""
    cands: list[Candidate] = []
    notes: list[str] = []
    for fam in FAMILIES:
        if fam.per_level:
            continue
        paths, more = fam.base_paths(uarch, model, arch, db)
        cands += [candidate(name, choice, model, what) for name, choice, what in paths]
        notes += more
    return cands, notes


def level_candidate(uarch: str | None, arch: Arch, level: str, model: Model | None, db=None,
                    progress: ProgressFn = ignore) -> tuple[Candidate | None, list[str]]:
    """What ``export --isa level`` would write, as a candidate (None when that is scalar code), and its notes."""
    choice = export_choice(uarch, arch, level, db, progress)
    notes = [f"--isa {level}: {n}" for n in choice.notes]
    if not choice.family.per_level:
        return None, notes + [f"--isa {level}: scalar code wins (no vector path)"]
    return candidate(level, choice, model), notes


def _fits(cap: str | None, features) -> bool:
    return cap is None or all(allows(cap, f) for f in features)


def plan_dispatch(uarch: str | None, arch: Arch, db: str | Path | None = None, cap: str | None = None,
                  progress: ProgressFn = ignore) -> DispatchPlan:
    """The paths of the dispatching export for ``uarch`` on ``arch`` (module docstring); ``cap``
    (an ``--isa`` level) leaves out every path needing more."""
    model = load_model(uarch) if uarch else None
    base, notes = _base_candidates(uarch, arch, model, db)
    cands = [c for c in base if _fits(cap, c.code.features)]
    seen: set[str] = set()
    for level in dispatch_levels(model):
        if not _fits(cap, family_of(level).level_features(level)):
            continue
        cand, more = level_candidate(uarch, arch, level, model, db, progress)
        notes += more
        if cand is None:
            continue
        if cand.what in seen:
            notes.append(f"--isa {level}: the {cand.kind} block of a lower level again")
            continue
        seen.add(cand.what)
        cands.append(cand)
        extra, more = cand.choice.family.extra_paths(cand.choice, model, db)
        notes += more
        cands += [candidate(name, choice, model, what) for name, choice, what in extra]
    kept, dropped = order_paths(cands)
    return DispatchPlan(arch, uarch, tuple(kept), tuple(dropped), tuple(notes))


def best_path(uarch: str, arch: Arch, db: str | Path | None = None,
              progress: ProgressFn = ignore) -> tuple[Candidate, list[str]]:
    """The predicted-best path for the model (what plain ``export --uarch`` writes), and the notes.

    The path the dispatching export would run on the model's CPU, found with fewer searches: the
    scalar best and, for every other family, its highest level the model has (a hybrid level's
    dialects include every lower level's), ranked by ``order_paths``.
    """
    model = load_model(uarch)
    base, notes = _base_candidates(uarch, arch, model, db)
    cands = base[:1]
    levels = dispatch_levels(model)
    for fam in FAMILIES:
        for level in [lv for lv in levels if family_of(lv) is fam][-1:]:
            cand, more = level_candidate(uarch, arch, level, model, db, progress)
            notes += more
            if cand is not None:
                cands.append(cand)
    kept, _ = order_paths(cands)
    notes += [f"candidate {c.describe()}" for c in sorted(cands, key=lambda c: c.cycles_per_byte or 0.0)]
    return kept[0], notes
