"""Which families ``export --tune`` draws candidates from (``emit.families.tune_families``, ``emit.tuning.pool``).

Rule: ``--isa`` is a cap. A family is in the tuning pool when the model's CPU has the family's code at the cap or
at a level below it that the family admits, and it is asked at the highest such level (``emit.family.family_level``);
the dispatcher's per-level fact ``Family.model_has`` stays exact.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from sha1opt.emit import family_hybrid
from sha1opt.emit.families import tune_families
from sha1opt.emit.family import family_level
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.family_shani import SHANI
from sha1opt.emit.tuning import pool
from sha1opt.search.cost.model import load_model


def test_regression_tune_at_a_cap_above_the_models_isa_dropped_the_hybrid_family():
    """On a Zen 4 (AuthenticAMD family 25 model 17; its model was then zen3, the nearest, which has no AVX-512),
    bench/measured_selection.py's ``export --uarch host --isa avx512 --tune 3`` timed four scalar candidates
    and no hybrid one, and exported scalar code at 1.344x OpenSSL's AVX2 path (16 KiB): the pool asked
    ``HYBRID.model_has(zen3, "avx512")`` (the whole cap) instead of whether zen3 has hybrid code under it."""
    zen3 = load_model("zen3")
    assert not HYBRID.model_has(zen3, "avx512")              # exact: no avx512 dispatch path for zen3
    assert family_level(HYBRID, zen3, "avx512") == family_level(HYBRID, zen3, "shani") == "avx2"
    assert family_level(SCALAR, zen3, "avx512") == "avx512"
    assert tune_families(zen3, "avx512") == ((SCALAR, "avx512"), (HYBRID, "avx2"))
    assert tune_families(zen3, "shani") == ((SCALAR, "shani"), (HYBRID, "avx2"), (SHANI, "shani"))


def test_a_model_without_any_level_of_a_family_gets_none_of_its_candidates():
    """p6 (Pentium Pro to III) has no SSSE3, the hybrid family's lowest level: under any cap only scalar code."""
    p6 = load_model("p6")
    assert family_level(HYBRID, p6, "shani") is None
    assert tune_families(p6, "avx512") == ((SCALAR, "avx512"),)


def test_the_pool_asks_the_hybrid_family_at_the_models_level_under_the_cap(monkeypatch):
    """``tuning.pool`` at ``--isa avx512`` on zen3: the hybrid default and the hybrid engine at ``avx2`` (the
    second run of the regression above died pricing the cap's AVX-512 default block on zen3: "vpternlogd ...
    needs AVX512VL, which zen3 does not have"); every entry priced on zen3."""
    calls = []

    def engine(model, *, cap, evaluations, seed):
        calls.append((model.name, cap))
        return SimpleNamespace(ranked=(), params=None)

    monkeypatch.setitem(family_hybrid.ARCHES, "x86_64",
                        dataclasses.replace(family_hybrid.ARCHES["x86_64"], engine=engine))
    entries = pool("zen3", "x86_64", "avx512", 1)
    assert calls == [("zen3", "avx2")]
    hybrid = [e for e in entries if e.choice.family is HYBRID]
    assert len(hybrid) == 1 and hybrid[0].default and hybrid[0].predicted > 0
