"""The hybrid family: the W schedule in xmm (a vector dialect, a row of ``hybrid_dialects``) beside scalar rounds.

Levels: every ``--isa`` level with a dialect (``hybrid_caps.vector_dialects``:
``ssse3``, ``avx``, ``avx2``, ``avx512``; a level also allowing SHA-NI belongs
to the SHA-NI family, which falls through to this one). The dispatcher takes
one path per level the model's CPU has, named by the level; a level that
picks the same block as a lower one is not repeated.

Arch variants are rows of ``ARCHES`` (x86-64: ``space.hybrid.build``,
``engines.hybrid.search_hybrid``; i386: ``space.hybrid_i386.build_i386``,
``engines.hybrid_i386.search_hybrid_i386``), looked up by the block's arch.

Search (what ``search --isa LEVEL`` and, without a stored row, ``export``
run): the arch's engine with the cap, the winner proved
(``hybrid_proof.prove_hybrid``) and stored (``family_rows.put_hybrid``), ranked
against the capped scalar best (``HybridReport``; figures: the block-loop
measure). ``choose`` reads the stored row first (``known_hybrid_block`` /
``known_i386_block``), else searches with ``EXPORT_EVALUATIONS`` annealing moves (and up to
``engines.hybrid.POLISH`` times as many release-polish points), seed 0;
the family decides between its block and the scalar best itself (the
report ranks them), so its choice may be the scalar family's.

Example: ``HYBRID.choose(None, "i386", "avx", None, ignore)`` is the default
avx i386 block with the note ``hybrid default block (avx, i386; no --uarch to
search on)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.driver import HybridReport, known_hybrid_block, scalar_best, search_hybrid_block, stored_search
from sha1opt.search.engines.hybrid import (SCALAR_FIELDS, block_cost, build_on, dialects_for, point, scalar_isa_for,
                                           scalars_for, search_hybrid)
from sha1opt.search.engines.hybrid_i386 import build_on_i386, search_hybrid_i386
from sha1opt.search.family_rows import put_hybrid, stored_hybrid
from sha1opt.search.measure import block_loop_cycles, hybrid_loop_items
from sha1opt.search.progress import Progress, ProgressFn, ignore
from sha1opt.search.space.hybrid import LEADS, RECURRENCES, HybridBlock, HybridParams, build
from sha1opt.search.space.hybrid_caps import CAPS, vector_dialects
from sha1opt.search.space.hybrid_dialects import dialect
from sha1opt.search.space.hybrid_forms import FORMS, one_change
from sha1opt.search.space.recipe import NAMED_OPTIONS, options_for
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.emit.dispatch_text import hybrid_path_text
from sha1opt.emit.family import Choice, Family, Passed, Shown, cheapest_distinct
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.export import Exportable
from sha1opt.emit.hybrid_export import hybrid_exportable

EXPORT_EVALUATIONS = 150


def model_runs(model: Model, feature: str) -> bool:
    """Whether the model's CPU has an x86 feature (BMI in its scalar ISA, the rest in its vector ISA)."""
    return model.has_isa(feature) if feature in ("bmi1", "bmi2") else model.has_vector(feature)


def _i386_scalar(uarch: str, level: str, db, model) -> tuple[float, str]:
    sched = SCALAR.choose(uarch, "i386", level, db).code
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


def _scalar_fallback_x86_64(uarch: str, level: str, db, line: str) -> Choice:
    sched, _, where = scalar_best(uarch, db, level)
    return Choice(SCALAR, sched, "x86_64", [line, f"exporting the scalar block ({where})"])


def _scalar_fallback_i386(uarch: str, level: str, db, line: str) -> Choice:
    choice = SCALAR.choose(uarch, "i386", level, db)
    choice.notes[:0] = [line, "exporting the scalar block"]
    return choice


def _known_i386(uarch: str, level: str, db, progress: ProgressFn) -> HybridReport:
    progress(Progress(f"i386 hybrid search on {uarch} (--isa {level})", 0))
    return known_i386_block(uarch, level, db)


def _known_x86_64(uarch: str, level: str, db, progress: ProgressFn) -> HybridReport:
    return known_hybrid_block(uarch, cap=level, evaluations=EXPORT_EVALUATIONS, seed=0, db=db, progress=progress)


def _search_i386(uarch, level, *, evaluations, seed, time_limit, should_stop, db, progress) -> HybridReport:
    return search_i386_block(uarch, level, db, evaluations, seed)


def _search_x86_64(uarch, level, *, evaluations, seed, time_limit, should_stop, db, progress) -> HybridReport:
    return search_hybrid_block(uarch, cap=level, evaluations=evaluations, seed=seed, time_limit=time_limit,
                               should_stop=should_stop, db=db, progress=progress)


@dataclass(frozen=True)
class HybridArch:
    """One arch variant of the family: how its blocks are built, searched, read back and ranked."""

    build: Callable                    # (params) -> HybridBlock | None, without a model
    build_on: Callable                 # (params, model) -> HybridBlock | None (``placement="slots"``: its units)
    engine: Callable                   # the search engine: (model, *, cap, evaluations, seed) -> HybridSearch
    search: Callable                   # searched, proved, stored, ranked: -> HybridReport
    known: Callable                    # the stored row as a report, else ``search`` with export's budget
    scalar_fallback: Callable          # (uarch, level, db, line) -> the scalar Choice when the block loses
    shown: str                         # how a note names the arch after the dialect ("" for x86-64)


ARCHES: dict[str, HybridArch] = {
    "x86_64": HybridArch(build, build_on, search_hybrid, _search_x86_64, _known_x86_64, _scalar_fallback_x86_64, ""),
    "i386": HybridArch(build_i386, build_on_i386, search_hybrid_i386, _search_i386, _known_i386,
                       _scalar_fallback_i386, ", i386"),
}


MAX_EVERY = 8      # the largest ``every`` the climb offers (the engines' annealing moves stay within 1-8)
SLOTS_TO_EVERY = (2, 3, 4)    # from a ``placement="slots"`` block the climb steps to these fixed interleavings


def shape(p: HybridParams) -> tuple:
    """What makes two hybrid candidates different enough to time: all but the priority offsets and the recipe
    fields (the dialect, lead, placement, read-ahead, recurrence, scalar form -- the interleaving and the rounds)."""
    return (p.arch, p.isa, p.lead, p.every if p.placement == "every" else "slots", p.ahead, p.recurrence, p.scalar)


def structure(p: HybridParams) -> tuple[tuple, ...]:
    """The keys ``ranked`` takes candidates by, coarsest first: blocks per iteration, the dialect, read-ahead and
    the rounds' layout (the recipe's, or a ``hybrid_forms`` layout), the ``shape``.

    The models disagree with the machine most about structure: on Zen 4 (AuthenticAMD family 25 model 17)
    the zen4 model prices the one-block avx512vl block at 2.58 c/B and the two-block avx512vlx2 block at
    2.70, and the machine times them the other way round (bench/results/measured_selection_zen4.txt); on
    i386 it prices the lazy rounds 8-10 % above the recipe's (2.80-2.83 against 2.58 c/B) and the machine
    times the lazy-chain block 3 % faster than the model's first choice (0.758 against 0.781 x the textbook
    schedule, bench/results/simd_i386_zen4.txt). So the candidates a CPU times span the structures -- on
    x86-64 the rotating and pinned layouts too -- before they span the interleavings of one."""
    layout = "recipe" if p.scalar == "recipe" else FORMS[p.scalar].layout
    return ((dialect(p.isa).blocks,), (p.isa,), (p.ahead, layout), shape(p))


def build_block(params: HybridParams, model: Model | None = None) -> HybridBlock | None:
    """The block of ``params`` on its arch (on ``model``'s unit classes when given)."""
    row = ARCHES[params.arch]
    return row.build(params) if model is None else row.build_on(params, model)


class HybridFamily(Family):
    name = "hybrid"
    flavors = frozenset({"elf", "macho"})
    per_level = True
    reports = True

    def admits(self, level: str) -> bool:
        return bool(vector_dialects(level))

    def level_features(self, level: str) -> frozenset[str]:
        return CAPS[level]

    def model_has(self, model: Model, level: str) -> bool:
        return all(model_runs(model, f) for f in CAPS[level])

    def path_names(self, levels: Sequence[str]) -> tuple[str, ...]:
        return tuple(levels)

    def search(self, uarch: str, arch: Arch, level: str, *, evaluations: int, seed: int = 0,
               time_limit: float = 60.0, should_stop=lambda: False, db=None,
               progress: ProgressFn = ignore) -> HybridReport | None:
        """The hybrid block on ``arch`` under ``level``, proved and stored when proved (module docstring)."""
        if not self.admits(level):
            return None
        return ARCHES[arch].search(uarch, level, evaluations=evaluations, seed=seed, time_limit=time_limit,
                                   should_stop=should_stop, db=db, progress=progress)

    def known(self, uarch: str, arch: Arch, level: str, db=None, progress: ProgressFn = ignore) -> HybridReport:
        """The stored proved block on ``arch`` under ``level`` ranked against the capped scalar best, else the
        arch's search with export's budget (``ARCHES[arch].known``)."""
        return ARCHES[arch].known(uarch, level, db, progress)

    def shown(self, uarch: str, arch: Arch, level: str, db=None, progress: ProgressFn = ignore) -> Shown:
        """``known``'s block, ranked against the capped scalar best."""
        rep = self.known(uarch, arch, level, db, progress)
        s = rep.search
        if s.block is None:
            return Shown(self, arch, "", proof=rep.proof, missing=s.reason)
        return Shown(self, arch, s.params.key(), tuple(hybrid_loop_items(s.block)), s.cycles, rep.proof,
                     (f"scalar best {rep.scalar_cycles / 64:.2f} c/B",), blocks=s.block.blocks)

    def choose(self, uarch: str | None, arch: Arch, level: str, db=None,
               progress: ProgressFn = ignore) -> Choice | Passed:
        """The block ``export --isa level`` writes for this family, or the scalar best when that wins."""
        if uarch is None:
            # no model to price two blocks an iteration against one: the cap's top one-block row
            top = [d for d in vector_dialects(level, arch) if dialect(d).blocks == 1][-1]
            block = build_block(HybridParams(isa=top, arch=arch))
            where = top + ARCHES[arch].shown
            return Choice(self, block, arch, [f"hybrid default block ({where}; no --uarch to search on)"])
        rep = self.known(uarch, arch, level, db, progress)
        s = rep.search
        if s.params is None:
            choice = SCALAR.choose(uarch, arch, level, db)
            choice.notes.insert(0, f"hybrid: {s.reason}")
            return choice
        line = (f"hybrid {s.params.key()}: {s.cycles_per_byte:.2f} c/B predicted on {uarch} vs scalar best "
                f"{rep.scalar_cycles / 64:.2f} ({rep.scalar_source}); {rep.proof}; search stopped: {s.reason}")
        if rep.hybrid_wins:
            return Choice(self, s.block, arch, [line, "exporting the hybrid block"], cycles=s.cycles)
        return ARCHES[arch].scalar_fallback(uarch, level, db, line)

    def ranked(self, uarch: str, arch: Arch, level: str, limit: int, db=None,
               progress: ProgressFn = ignore) -> list[Choice]:
        """Up to ``limit`` blocks of the hybrid search at the level (export's budget, seed 0), the search's best
        first, then taken by ``structure``: the cheapest point of each block count not yet taken, then of each
        dialect, then of each (read-ahead, rounds layout), then of each ``shape`` -- the cheapest point of each,
        so the priority offsets and recipe fields
        the annealing tuned stay the model's; two that render the same text are one candidate.
        Example: zen4, x86_64, avx512, 3 gives the search's avx512vl block, the cheapest two-block block
        (avx512vlx2 or avx2x2), then the cheapest block of a third dialect."""
        model = load_model(uarch)
        if not self.model_has(model, level):
            return []
        progress(Progress(f"hybrid search on {uarch} (--isa {level}{ARCHES[arch].shown}) for --tune", 0))
        found = ARCHES[arch].engine(model, cap=level, evaluations=EXPORT_EVALUATIONS, seed=0)
        points = found.ranked or ((found.params,) if found.params is not None else ())
        taken: list[HybridParams] = []
        texts: set[str] = set()
        out: list[Choice] = []
        for depth in range(4):                     # blocks per iteration, dialect, rounds, shape (``structure``)
            for p in points:
                if len(out) == limit:
                    return out
                if out and any(structure(q)[depth] == structure(p)[depth] for q in taken):
                    continue
                b = ARCHES[arch].build_on(p, model)
                text = hybrid_path_text(b) if b is not None else None
                if text is not None and text not in texts:
                    taken.append(p)
                    texts.add(text)
                    out.append(Choice(self, b, arch, [p.key()]))
        return out

    def neighbours(self, choice: Choice, uarch: str, level: str) -> list[Choice]:
        """The blocks one step from ``choice``: its interleaving one step away (``lead`` +-1, ``every`` +-1,
        the rounds kept: on Zen 4 the i386 avx blocks of one rounds form measured 0.754-0.778 x the textbook
        over lead 2-3 / every 1-2, all priced 2.58 c/B, bench/results/simd_i386_zen4.txt), the same block in
        another dialect of the level with as many blocks per iteration (the i386 recipe block at lead 3 / every
        1 measured 0.781 in avx512vl and 0.764 in avx there, both priced 2.58), the same block with read-ahead
        switched (on or off: the i386 avx512vl recipe block measured 0.781 with it and 0.809 without, both
        priced 2.58), the same block with the other recurrence (rol1 or rol2, where the dialect row takes it:
        on Zen 4 the i386 avx512vl lazy-chain block at lead 2 / every 3 with read-ahead measured 0.760 x the
        textbook with rol2 and 0.723 with rol1, both priced 2.83-2.84 c/B, bench/results/simd_i386_zen4.txt,
        and a climb that started among rol2 blocks stopped there), a ``slots`` block (the model's unit-class
        placement) placed every 2, 3 or 4 scalar ops instead (``SLOTS_TO_EVERY``: on Zen 4 the model's first
        i386 choice is a slots block, and a climb from it reached no fixed interleaving, where the i386 block
        ``export --tune`` had found measured 0.720 x the textbook against the slots blocks' 0.762-0.81), or the
        blocks of its
        structure -- its dialect, interleaving, read-ahead and recurrence -- one
        choice away in their scalar rounds: a rounds form one choice away (``hybrid_forms.one_change``) that the
        level's scalar ISA takes (``engines.hybrid.scalars_for``: the ``-bmi`` forms need BMI2) and the arch has
        the registers for (``RoundsForm.arches``), or, for the recipe's rounds, one recipe field
        (``engines.hybrid.SCALAR_FIELDS``) changed to another named option that ISA has; between the recipe's
        rounds and the lazy ones (``hybrid_lazy``, the same registers) either way; cheapest on the model first,
        distinct code (``family.cheapest_distinct``).
        What ``tuning.tune``'s climb times around a measured winner: on Zen 4 (AuthenticAMD family 25 model 17)
        the zen4 model prices the avx512vlx2 forms at lead 2 / every 2 within 0.6 % of each other (2.69-2.70
        c/B), and the machine spreads them over 10 % (0.90-1.01 x OpenSSL's AVX2 path)."""
        model = load_model(uarch)
        p = choice.code.params
        isa = scalar_isa_for(model, level)
        forms = [f for f in scalars_for(isa) if f != "recipe" and choice.arch in FORMS[f].arches]
        lazy = [f for f in forms if FORMS[f].layout == "lazy"]
        if p.scalar == "recipe":
            near = [replace(p, recipe=replace(p.recipe, **{f: o})) for f in SCALAR_FIELDS for o in NAMED_OPTIONS[f]
                    if o != getattr(p.recipe, f) and o in options_for(f, isa)]
            near += [point(p, scalar=form) for form in lazy]
        else:
            near = [point(p, scalar=form) for form in one_change(p.scalar) if form in forms]
            near += [point(p, scalar="recipe")] if p.scalar in lazy else []    # (None: a two-block read-ahead)
        if p.placement == "every":          # the interleaving one step away, the rounds kept
            near += [replace(p, lead=lead) for lead in LEADS if abs(lead - p.lead) == 1]
            near += [replace(p, every=e) for e in (p.every - 1, p.every + 1) if 1 <= e <= MAX_EVERY]
        else:                               # the model's unit-class placement: the fixed interleavings beside it
            near += [replace(p, placement="every", every=e) for e in SLOTS_TO_EVERY]
        near += [point(p, isa=d) for d in dialects_for(model, level, choice.arch)
                 if d != p.isa and dialect(d).blocks == p.dialect.blocks]
        near.append(point(p, ahead=not p.ahead))
        near += [point(p, recurrence=r) for r in RECURRENCES if r != p.recurrence]
        blocks = [b for q in near if q is not None and (b := ARCHES[choice.arch].build_on(q, model)) is not None]
        return [Choice(self, b, choice.arch, [key]) for key, b in
                cheapest_distinct([(block_cost(b, model).cycles, b.params.key(), b) for b in blocks],
                                  hybrid_path_text, {hybrid_path_text(choice.code)})]

    def extra_paths(self, choice: Choice, model: Model | None, db) -> tuple[list[tuple[str, Choice, str]], list[str]]:
        return [], []

    def features(self, choice: Choice) -> frozenset[str]:
        return frozenset(isa_set(list(choice.code.code())))

    def path_text(self, choice: Choice) -> str:
        return hybrid_path_text(choice.code)

    def loop_items(self, choice: Choice) -> list:
        return hybrid_loop_items(choice.code)

    def blocks(self, choice: Choice) -> int:
        return choice.code.blocks

    def prove(self, choice: Choice) -> bool:
        return prove_hybrid(choice.code).ok

    def describe(self, choice: Choice) -> str:
        return choice.code.params.key()

    def flavor_refusal(self, flavor: str, predicted: bool) -> str | None:
        return None

    def exportable(self, choice: Choice, *, uarch: str | None, command: str, prediction: str) -> Exportable:
        return hybrid_exportable(choice.code, uarch=uarch, command=command)

    def stored(self, db, model: Model, arch: Arch, variant: str = ""):
        return stored_hybrid(db, model, arch, variant or None)


HYBRID = HybridFamily()
