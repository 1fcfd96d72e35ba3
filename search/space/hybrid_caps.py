"""ISA caps: the ``--isa LEVEL`` a user gives search and export, as the features code may use.

A level names a CPU family, not one extension, so it is a *set* of features
(``features.ISA_INCLUDES`` closes each under inclusion): ``avx`` is Sandy Bridge
(AVX, no BMI), ``avx2`` Haswell (AVX2 with BMI1/BMI2), ``avx512`` AVX-512VL
with BMI2, ``shani`` everything plus SHA-NI -- the x86-64 psABI's v2/v3/v4
levels read the same way. Code fits a cap when every feature it needs is
included by one of the cap's.

Examples: ``allows("avx2", "bmi2")`` and ``allows("avx2", "ssse3")`` are
True, ``allows("avx", "bmi2")`` is False; ``scalar_level("avx512")`` is
``"bmi2"``; ``vector_dialects("avx2", "x86_64")`` is ``("ssse3k", "ssse3", "avx", "avx2x2")``
(``ssse3k``: K loaded from a table on the stack; ``avx2x2``: two blocks in ymm, x86-64 only);
``vector_dialects("avx2", "i386")`` is ``("ssse3k", "ssse3", "avx")``.
"""

from __future__ import annotations

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.features import ISA_LEVELS, includes
from sha1opt.search.space.hybrid_dialects import dialects

LEVELS = ("base", "bmi2", "ssse3", "avx", "avx2", "avx512", "shani")
CAPS: dict[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    "bmi2": frozenset({"bmi2"}),
    "ssse3": frozenset({"ssse3"}),
    "avx": frozenset({"avx"}),
    "avx2": frozenset({"avx2", "bmi2"}),
    "avx512": frozenset({"avx512vl", "bmi2"}),
    "shani": frozenset({"avx512vl", "bmi2", "sha"}),
}


def check_level(level: str) -> str:
    if level not in CAPS:
        raise Sha1optError(f"unknown ISA level {level!r} (known: {', '.join(LEVELS)})")
    return level


def allows(level: str, feature: str) -> bool:
    """Whether code needing ``feature`` (an ``x86.required_isa`` value) fits the cap ``level``."""
    return feature == "base" or any(includes(c, feature) for c in CAPS[check_level(level)])


def scalar_level(level: str) -> str:
    """The highest ``features.ISA_LEVELS`` entry (the scalar chain) the cap allows."""
    return next(s for s in reversed(ISA_LEVELS) if allows(level, s))


def vector_dialects(level: str, arch: str | None = None) -> tuple[str, ...]:
    """The hybrid family's dialects (rows of ``hybrid_dialects``) the cap allows, lowest first; with ``arch``,
    only those built for it (``Dialect.arches``)."""
    return tuple(d.name for d in dialects() if allows(level, d.feature) and (arch is None or arch in d.arches))
