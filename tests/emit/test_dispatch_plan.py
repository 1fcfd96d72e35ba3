"""Which paths a dispatching export holds and in which order (emit.dispatch_plan)."""

from __future__ import annotations

from dataclasses import replace

from sha1opt.emit.dispatch_plan import Candidate, candidate, model_levels, order_paths, plan_dispatch
from sha1opt.emit.family import Choice
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_shani import SHANI, SHANI_BASE
from sha1opt.emit.dispatch_text import PathCode
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.shani import best_shani
from sha1opt.search.space.shani import default_params, isa_rows_used


def cand(name, features, cpb, text=None):
    return Candidate(PathCode(name, frozenset(features), text or name), None, name, cpb)


def names(paths):
    return [c.name for c in paths]


def test_without_costs_the_preference_order_holds():
    kept, dropped = order_paths([cand("scalar", (), None), cand("ssse3", {"ssse3"}, None),
                                 cand("shani", {"sha", "sse4.1"}, None), cand("avx512", {"avx512vl"}, None)])
    assert names(kept) == ["shani", "avx512", "ssse3", "scalar"] and not dropped


def test_predicted_costs_override_the_preference_order():
    kept, _ = order_paths([cand("shani", {"sha", "sse4.1"}, 2.0), cand("avx512", {"avx512vl"}, 1.5),
                           cand("scalar", (), 4.0)])
    assert names(kept) == ["avx512", "shani", "scalar"]


def test_a_path_slower_than_one_needing_less_is_left_out():
    """SSSE3 predicted slower than the scalar fallback: every SSSE3 CPU would take the scalar path first."""
    kept, dropped = order_paths([cand("ssse3", {"ssse3"}, 4.5), cand("scalar", (), 4.0)])
    assert names(kept) == ["scalar"] and dropped and dropped[0].startswith("ssse3: never reached")


def test_a_scalar_best_needing_bmi2_keeps_a_base_fallback_after_it():
    kept, _ = order_paths([cand("scalar", {"bmi2"}, 3.9), cand("ssse3", {"ssse3"}, 3.5), cand("base", (), 4.1)])
    assert names(kept) == ["ssse3", "scalar", "base"]


def test_the_list_ends_at_the_first_path_needing_nothing():
    kept, dropped = order_paths([cand("scalar", (), 3.0), cand("avx", {"avx"}, 3.2)])
    assert names(kept) == ["scalar"] and len(dropped) == 1


def test_model_levels_follow_the_models_isa():
    assert model_levels(load_model("goldencove"), "x86_64") == ("ssse3", "avx", "avx2", "avx512", "shani")
    assert model_levels(load_model("skylake"), "x86_64") == ("ssse3", "avx", "avx2")
    assert model_levels(load_model("zen3"), "x86_64") == ("ssse3", "avx", "avx2", "shani")
    assert model_levels(load_model("k8"), "x86_64") == ()


def test_i386_gets_the_same_levels_as_x86_64():
    """The hybrid family has an i386 form (``space.hybrid_i386``): i386 is offered every vector level."""
    assert model_levels(load_model("goldencove"), "i386") == ("ssse3", "avx", "avx2", "avx512", "shani")
    assert model_levels(load_model("atom"), "i386") == ("ssse3",)
    assert model_levels(load_model("k8"), "i386") == ()


def test_the_default_plan_has_every_family_once():
    plan = plan_dispatch(None, "x86_64")
    assert names(plan.paths) == ["shani", "avx512", "avx", "ssse3", "scalar"]
    assert any("avx2: the hybrid block of a lower level again" in n for n in plan.notes)
    i386 = plan_dispatch(None, "i386")
    assert names(i386.paths) == ["shani", "avx512", "avx", "ssse3", "scalar"]
    assert all(c.choice.code.params.arch == "i386" for c in i386.paths if c.choice.family is HYBRID)


def test_a_cap_leaves_out_every_path_needing_more():
    assert names(plan_dispatch(None, "x86_64", cap="avx").paths) == ["avx", "ssse3", "scalar"]


def test_regression_sha_ni_without_avx512_fell_through_to_a_hybrid_path():
    """goldencove's SHA-NI function uses the AVX-512 ``sha1msg2`` form: a CPU with SHA-NI but no AVX-512
    (Zen 3, Goldmont) would have skipped it for a hybrid path. The plan keeps a ``shani_sse`` path that
    needs only SHANI_BASE, proved, and the order puts it before every hybrid path it shadows."""
    model = load_model("goldencove")
    avx512_form = Choice(SHANI, replace(default_params("x86_64"), msg2_form="avx512"), "x86_64")
    extra, notes = SHANI.extra_paths(avx512_form, model, None)
    assert [name for name, _, _ in extra] == ["shani_sse"]
    cand_sse = candidate("shani_sse", extra[0][1], model)
    assert cand_sse is not None and cand_sse.code.features <= SHANI_BASE and "sha" in cand_sse.code.features
    assert "proved" in notes[0]
    avx512 = cand("avx512", {"avx512vl", "bmi2"}, 3.0)
    sha = cand("shani", {"sha", "sse4.1", "avx512vl"}, 1.58)
    kept, _ = order_paths([avx512, sha, cand_sse, cand("scalar", (), 4.0)])
    assert names(kept) == ["shani", "shani_sse", "avx512", "scalar"]


def test_best_shani_without_a_feature_never_uses_it():
    rep = best_shani(load_model("goldencove"), "x86_64", 60, without=frozenset({"avx512vl", "avx"}))
    assert not set(isa_rows_used(rep.params, "x86_64").values()) & {"avx512vl", "avx"}
