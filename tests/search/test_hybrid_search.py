"""ISA caps (search/space/hybrid_caps.py), the hybrid engine (search/engines/hybrid.py) and the driver's wiring."""

import math
from dataclasses import replace

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import _setup, search_hybrid_block
from sha1opt.search.measure import block_items, hybrid_loop_items
from sha1opt.search.engines.hybrid import (POLISH, SHIFT_STEPS, TOP_FORMS, block_cost, build_on, dialects_for,
                                           first_forms, polish_shifts, scalar_isa_for, scalars_for, search_hybrid,
                                           slots_of)
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_merge import Slots
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.hybrid_forms import FORMS
from sha1opt.semantics.block import describe_failure
from sha1opt.search.store import Store
from sha1opt.search.space.hybrid_caps import LEVELS, allows, scalar_level, vector_dialects
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.opaque import Opaque
from sha1opt.semantics.x86 import Instr

# the core2 searches below share the process's measures (``search.measure.block_loop``): one worker runs them
pytestmark = pytest.mark.xdist_group("hybrid_core2")


@pytest.mark.parametrize("level,feature,want", [
    ("avx2", "bmi2", True), ("avx2", "ssse3", True), ("avx", "bmi2", False), ("avx", "avx2", False),
    ("ssse3", "bmi1", False), ("base", "ssse3", False), ("avx512", "avx512vl", True), ("shani", "sha", True),
    ("avx512", "sha", False), ("bmi2", "bmi1", True)])
def test_caps_are_cpu_families(level, feature, want):
    assert allows(level, feature) is want


def test_scalar_level_and_dialects_of_each_cap():
    assert [scalar_level(level) for level in LEVELS] == ["base", "bmi2", "base", "base", "bmi2", "bmi2", "bmi2"]
    assert vector_dialects("avx2", "x86_64") == ("ssse3k", "ssse3", "avx", "avx2x2")
    assert vector_dialects("avx2") == ("ssse3k", "ssse3", "avx", "avx2x2")
    assert vector_dialects("avx2", "i386") == ("ssse3k", "ssse3", "avx") and vector_dialects("base") == ()


def test_an_unknown_level_is_refused():
    with pytest.raises(Sha1optError, match="unknown ISA level"):
        allows("avx3", "avx")


def test_the_models_cpu_bounds_the_dialects():
    assert dialects_for(load_model("core2"), None) == ("ssse3k", "ssse3")
    assert dialects_for(load_model("skylake"), "avx512") == ("ssse3k", "ssse3", "avx", "avx2x2")
    assert dialects_for(load_model("skylake"), "avx512", "i386") == ("ssse3k", "ssse3", "avx")
    assert dialects_for(load_model("zen5"), None) == ("ssse3k", "ssse3", "avx", "avx2x2", "avx512vl", "avx512vlx2")
    assert dialects_for(load_model("zen5"), "bmi2") == ()


def test_the_scalar_recipe_isa_is_the_models_lowered_to_the_cap():
    sky = load_model("skylake")
    assert scalar_isa_for(sky, None) == sky.isa and scalar_isa_for(sky, "avx") == "base"


def test_vector_rows_are_priced_as_vector_items():
    items = block_items(build(HybridParams(isa="avx")).body)
    vec = [it for it in items if isinstance(it, Opaque)]
    assert vec and all(it.kind == "vector" for it in vec)
    assert all(isinstance(it, Instr) for it in items if not isinstance(it, Opaque))


def test_a_model_without_the_dialect_refuses_the_block():
    with pytest.raises(Exception, match="AVX"):
        block_cost(build(HybridParams(isa="avx")), load_model("core2"))


def test_grid_only_search_is_deterministic_and_says_why_it_stopped():
    # (the second search reads the first one's measures: the simulator's own determinism is
    # tests/search/test_space_snapshot.py's)
    a = search_hybrid(load_model("core2"), evaluations=0)
    b = search_hybrid(load_model("core2"), evaluations=0)
    assert a.params == b.params and a.cycles == b.cycles and a.reason == "grid" and a.params.isa == "ssse3k"
    assert math.isfinite(a.cycles) and a.cycles == a.grid_best


def test_annealing_never_ends_worse_than_the_grid():
    r = search_hybrid(load_model("core2"), evaluations=6, seed=3)
    m = load_model("core2")
    isa, dialects = scalar_isa_for(m, None), len(dialects_for(m, None))
    families = 3 * len(first_forms(isa))          # (no read-ahead, ahead rol1, ahead rol2) x the first forms
    forms = (len(scalars_for(isa)) - len(first_forms(isa))) * dialects      # then the other forms x dialect
    interleavings = TOP_FORMS * 3 * (5 + 1)       # the best forms x lead x (every x5, slots)
    grid = families * dialects + forms + interleavings + len(scalars_for(isa))    # then every form again
    assert r.cycles <= r.grid_best and r.reason == "budget" and grid + 6 <= r.evaluations <= grid + 6 + POLISH * 6
    assert any(p.shifts for p in r.ranked)        # the release polish ran after the annealing


def test_the_release_polish_never_ends_worse_keeps_its_budget_and_stops_when_a_sweep_keeps_nothing():
    """polish_shifts (engines/hybrid.py): coordinate descent on HybridParams.shifts, strict improvements only."""
    m = load_model("nehalem")
    start = HybridParams(isa="ssse3k", lead=3, every=2, ahead=True, recurrence="rol2", scalar="lazy-chain")
    scores = {}

    def evaluate(p):
        scores[p] = scores.get(p) or block_cost(build(p), m).cycles
        return scores[p]
    best, k, reason = polish_shifts(start, evaluate, evaluations=150, deadline=math.inf, should_stop=lambda: False,
                                    reason="budget")
    assert k == 150 and reason == "budget" and evaluate(best) < evaluate(start) and best.shifts   # 340 -> 333
    assert all(replace(p, shifts=()) == start for p in scores)          # it moves the shifts and nothing else
    flat, k, _ = polish_shifts(start, lambda p: 100.0, evaluations=1000, deadline=math.inf,
                               should_stop=lambda: False, reason="budget")
    assert flat == start and k == 16 * len(SHIFT_STEPS)                  # one sweep that kept nothing
    assert polish_shifts(start, evaluate, evaluations=40, deadline=math.inf, should_stop=lambda: True,
                         reason="budget")[1:] == (0, "interrupted")


def test_the_polish_moves_only_groups_released_among_the_rounds():
    """A two-block row with read-ahead runs the next pair's groups 4..9 during block 2 (hybrid_pair.SPLIT): a shift
    of theirs would change nothing, so HybridParams refuses it and the polish never spends a point on it."""
    pair = HybridParams(isa="avx512vlx2", ahead=True, recurrence="rol2", scalar="rotate-bmi-early-keep")
    with pytest.raises(Sha1optError, match="group 5 is not released among the rounds"):
        replace(pair, shifts=((5, 1),))
    tried = []
    _, k, _ = polish_shifts(pair, lambda p: tried.append(p) or 100.0, evaluations=1000, deadline=math.inf,
                            should_stop=lambda: False, reason="budget")
    assert k == 10 * len(SHIFT_STEPS) and {g for p in tried for g, _ in p.shifts} == set(range(10, 20))


def test_a_stop_request_is_reported():
    r = search_hybrid(load_model("core2"), evaluations=50, should_stop=lambda: True)
    assert r.reason == "interrupted" and r.evaluations == 1 and r.block is not None


def test_no_dialect_is_a_value_not_an_error():
    r = search_hybrid(load_model("zen5"), cap="bmi2")
    assert r.params is None and "no vector dialect" in r.reason


def test_the_driver_proves_and_ranks_the_winner(tmp_path):
    Store(tmp_path / "r.sqlite").close()      # an empty store: the scalar best is the default schedule
    r = search_hybrid_block("core2", evaluations=0, db=tmp_path / "r.sqlite")
    assert r.proved and r.proof.startswith("block proved") and r.winner == "hybrid" and r.ratio < 1


def test_no_cap_keeps_the_scalar_search_setup_unchanged():
    assert _setup("skylake", 0, 19, None, 1).isa == load_model("skylake").isa
    assert _setup("skylake", 0, 19, None, 1, "avx").isa == "base"


def test_cli_search_isa_runs_the_hybrid_family(tmp_path):
    r = CliRunner().invoke(main, ["search", "--uarch", "core2", "--rounds", "0-79", "--isa", "ssse3",
                                  "--time-limit", "3", "--evaluations", "2", "--workers", "1",
                                  "--db", str(tmp_path / "r.sqlite")], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "core2 (x86_64) hybrid block, --isa ssse3" in r.output and "proof: block proved" in r.output


def test_slots_come_from_the_models_port_data():
    assert slots_of(load_model("skylake")) == Slots(4, 1, 0, 3)     # p6 scalar only, p0/p1/p5 shared
    assert slots_of(load_model("zen5")) == Slots(8, 6, 4, 0)        # separate integer and FP pipes


@pytest.mark.parametrize("uarch,isa", [("skylake", "avx"), ("zen5", "avx512vl"), ("core2", "ssse3")])
def test_the_slots_placement_proves(uarch, isa):
    block = build_on(HybridParams(isa=isa, placement="slots"), load_model(uarch))
    res = prove_hybrid(block)
    assert res.ok, describe_failure(res)


def test_slots_placement_without_slots_is_misuse():
    with pytest.raises(Sha1optError, match="needs the model"):
        build(HybridParams(placement="slots"))


def test_the_rotating_bmi_rounds_are_offered_only_with_bmi2():
    assert first_forms("bmi2") == ("recipe", "rotate", "rotate-bmi", "rotate-bmi-lean", "rotate-bmi-mix")
    x86_64 = {n: f for n, f in FORMS.items() if "x86_64" in f.arches}      # (lazy-bmi: i386 only)
    assert set(scalars_for("bmi2")) == {"recipe"} | set(x86_64)
    assert scalars_for("base") == ("recipe",) + tuple(n for n, f in x86_64.items() if not f.bmi)
    assert "rotate-early2-keep" in scalars_for("base") and "pin-early" in scalars_for("base")


def test_block_cost_prices_the_path_every_block_but_the_last_takes():
    block = build(HybridParams(isa="avx512vl", ahead=True))
    items = hybrid_loop_items(block)
    # body; decq count; jz tail (not taken); main; add $64, %rsi; jmp loop -- the loop control included
    n = len(block.body)
    assert [getattr(i, "mnemonic", None) for i in items[n:n + 2]] == ["decq", "je"]
    assert [i.mnemonic for i in items[-2:]] == ["add", "jmp"]
    assert len(items) == len(block.body) + len(block.main) + 4 and block.main != block.tail
    assert block_cost(block, load_model("goldencove")).instructions == len(items)
