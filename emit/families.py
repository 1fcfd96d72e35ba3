"""The family registry: the families of SHA-1 code in order, and the walks over them.

``FAMILIES`` is (scalar, hybrid, SHA-NI): lowest first -- each admits every
level the one before it admits a subset of, and a level belongs to the
highest family admitting it (``family_of``). Every choice between families
is a walk over this tuple, never a comparison of names (the architecture test,
``tests/test_architecture.py``, fails on one outside the family modules):

* ``export_choice(uarch, arch, level)`` -- what ``export --isa level`` writes:
  the families admitting the level, highest first, each ``choose``-ing or
  passing (``Passed``: its notes lead the next one's); the scalar family,
  admitting every level, always chooses;
* ``search_families(uarch, arch, level, ...)`` -- what ``search --isa level``
  searches beside the scalar ranges: each family's ``search`` (stored when
  proved);
* ``shown_levels()`` / ``shown_at(uarch, arch, level)`` -- what ``show --isa
  level`` takes and draws: the report of the highest family admitting the
  level that has one for the model (``Family.shown``; SHA-NI on a model
  without it: the hybrid block at the same cap);
* ``tune_families(model, level)`` -- the families (and the level each is asked at) ``export --tune`` times
  candidates of (``emit.tuning``);
* ``dispatch_levels(model)`` / ``preference()`` -- the dispatcher's levels (one
  path per level of a ``per_level`` family the model's CPU has) and the tie
  order of its path names (``emit.dispatch_plan``).

Invariant: adding a family is one entry here and one module implementing
``emit.family.Family``; nothing else names it.

Example: ``family_of("avx2")`` is ``HYBRID``; ``family_of("bmi2")`` is
``SCALAR``; ``preference()`` is ``("shani", "shani_sse", "avx512", "avx2",
"avx", "ssse3", "scalar", "base")``; ``export_choice(None, "x86_64",
"shani").family`` is ``SHANI``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model
from sha1opt.search.driver import default_arch
from sha1opt.search.progress import ProgressFn, ignore
from sha1opt.search.space.hybrid_caps import LEVELS, check_level
from sha1opt.emit.family import Choice, Family, Passed, Shown, family_level
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.family_shani import SHANI

FAMILIES: tuple[Family, ...] = (SCALAR, HYBRID, SHANI)


def family_of(level: str) -> Family:
    """The family whose code ``--isa level`` stands for: the highest admitting it."""
    check_level(level)
    return next(f for f in reversed(FAMILIES) if f.admits(level))


def levels_of(family: Family) -> tuple[str, ...]:
    """The ``--isa`` levels that are ``family``'s (``family_of``), lowest first."""
    return tuple(lv for lv in LEVELS if family_of(lv) is family)


def tune_families(model: Model, level: str) -> tuple[tuple[Family, str], ...]:
    """The families ``export --tune`` draws candidates from under ``--isa level`` (``emit.tuning.pool``), each with
    the level it is asked at: those admitting the level whose code the model's CPU has at the level or below it,
    at the highest such level (``family.family_level``), lowest family first (the scalar family always).

    Example: ``tune_families(load_model("zen3"), "avx512")`` is ``((SCALAR, "avx512"), (HYBRID, "avx2"))``."""
    check_level(level)
    pairs = ((f, family_level(f, model, level)) for f in FAMILIES if f.admits(level))
    return tuple((f, lv) for f, lv in pairs if lv is not None)


def shown_levels() -> tuple[str, ...]:
    """The levels ``show --isa`` takes: those of a family with a whole-block report (``Family.reports``)."""
    return tuple(lv for lv in LEVELS if family_of(lv).reports)


def shown_at(uarch: str, arch: Arch, level: str, db: str | Path | None = None,
             progress: ProgressFn = ignore) -> Shown | None:
    """What ``show --isa level`` draws for ``uarch`` on ``arch`` (module docstring); None: no family admitting
    the level has a report for the model."""
    check_level(level)
    for family in reversed(FAMILIES):
        if family.admits(level) and family.reports:
            got = family.shown(uarch, arch, level, db, progress)
            if got is not None:
                return got
    return None


def dispatch_levels(model: Model | None) -> tuple[str, ...]:
    """The levels the dispatcher makes a path of: every level of a ``per_level`` family, lowest first, that the
    model's CPU has (every one without a model)."""
    return tuple(lv for lv in LEVELS if family_of(lv).per_level
                 and (model is None or family_of(lv).model_has(model, lv)))


def preference() -> tuple[str, ...]:
    """Every dispatch path name, most preferred first (the families' ``path_names``, highest family first)."""
    names: list[str] = []
    for f in FAMILIES:
        names += f.path_names(levels_of(f))
    return tuple(reversed(names))


def export_choice(uarch: str | None, arch: Arch | None, level: str, db: str | Path | None = None,
                  progress: ProgressFn = ignore) -> Choice:
    """The code ``export --isa level`` writes (module docstring); ``progress`` hears each search step."""
    check_level(level)
    arch = arch or (default_arch(uarch) if uarch else "x86_64")
    notes: list[str] = []
    for family in reversed(FAMILIES):
        if not family.admits(level):
            continue
        got = family.choose(uarch, arch, level, db, progress)
        if isinstance(got, Passed):
            notes += got.notes
            continue
        got.notes[:0] = notes
        return got
    raise AssertionError("the scalar family admits every level")


def search_families(uarch: str, arch: Arch, level: str, *, evaluations: int, seed: int = 0,
                    time_limit: float = 60.0, should_stop: Callable[[], bool] = lambda: False,
                    db: str | Path | None = None, progress: ProgressFn = ignore) -> list[tuple[Family, object]]:
    """What ``search --isa level`` searches for ``uarch`` on ``arch`` beside the scalar ranges: every family's
    ``search`` (a ``HybridReport``, a ``ShaniReport``), each stored when proved; (family, report) pairs.

    Example: ``search_families("zen3", "x86_64", "shani", evaluations=300)`` gives the hybrid report (cap
    ``shani``) and the SHA-NI report, both stored; ``export --uarch zen3 --isa shani`` then reads the SHA-NI
    row and searches nothing."""
    out = []
    for family in FAMILIES:
        if should_stop():
            break
        rep = family.search(uarch, arch, level, evaluations=evaluations, seed=seed, time_limit=time_limit,
                            should_stop=should_stop, db=db, progress=progress)
        if rep is not None:
            out.append((family, rep))
    return out
