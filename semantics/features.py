"""ISA features: which instruction-set extensions a CPU with a given one also has, a partial order.

A feature names a CPUID extension (``sse2``, ``avx2``, ``bmi2``, ``sha`` ...)
or ``base`` (the i386/x86-64 integer set). ``ISA_INCLUDES[f]`` is the set of
features a CPU with ``f`` has, itself included: gas's ``.arch .f`` and the
CPUID dependencies agree that AVX2 includes AVX, SSE4.1, SSSE3, SSE2, while
SHA-NI and AES-NI include only SSE2 -- neither is "above" AVX2, and AVX2 is
not above them, so the features are a partial order, not a line.
``ISA_LEVELS`` is the scalar chain ``base < bmi1 < bmi2`` the search ranks
recipes on. What an instruction or a piece of code needs is the semantics
table's to say (``x86.required_features``, ``x86.isa_set``).

Invariant: every value of ``ISA_INCLUDES`` holds its key and ``base``.
Example: ``includes("avx2", "ssse3")`` and not ``includes("sha", "avx")``.
"""

from __future__ import annotations

from typing import Literal

ISA = Literal["base", "bmi1", "bmi2", "sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "avx512vl", "sha", "aes"]
ISA_LEVELS: tuple[ISA, ...] = ("base", "bmi1", "bmi2")  # the scalar chain: each includes the ones before it


def _chain(*features: str) -> dict[str, frozenset[str]]:
    return {f: frozenset(("base",) + features[:k + 1]) for k, f in enumerate(features)}


# Feature -> every feature a CPU with it has (itself included). Intel SDM vol. 2's
# CPUID columns and gas's ``.arch`` agree on these inclusions; SHA-NI and AES-NI sit
# beside the AVX line, on SSE2 only.
ISA_INCLUDES: dict[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    **_chain("bmi1", "bmi2"),
    **_chain("sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "avx512vl"),
    "sha": frozenset({"base", "sse", "sse2", "sha"}),
    "aes": frozenset({"base", "sse", "sse2", "aes"}),
}


def includes(have: str, need: str) -> bool:
    """Whether a CPU with feature ``have`` runs an instruction needing ``need`` (``includes("avx2", "ssse3")``)."""
    return need in ISA_INCLUDES[have]
