"""Which paths a dispatching export holds and in which order (emit.dispatch_plan)."""

from __future__ import annotations

from sha1opt.emit.dispatch_plan import Candidate, model_levels, order_paths, plan_dispatch
from sha1opt.emit.dispatch_text import PathCode
from sha1opt.search.cost.model import load_model


def cand(name, features, cpb, text=None):
    return Candidate(PathCode(name, frozenset(features), text or name), "test", name, cpb)


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
    assert all(c.payload.params.arch == "i386" for c in i386.paths if c.kind == "hybrid")


def test_a_cap_leaves_out_every_path_needing_more():
    assert names(plan_dispatch(None, "x86_64", cap="avx").paths) == ["avx", "ssse3", "scalar"]
