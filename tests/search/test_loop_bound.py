"""The block loop's lower bound (search/bound.py ``loop_bound``) against the loop the table judges.

Proved here: on every model and arch the bound is at most ``block_loop_cycles`` (the steady-state block
loop, ``simulate(body[loop_start:] + LOOP_CONTROL, loop=True)``) of the default block and of the best
block of a small store of other recipes' whole blocks; its issue-width part is the iteration's fused
slots over the width with no ramp-up term (k8 x86-64: the in-place block has exactly those slots and
runs at the bound, gap 0); on i386, whose loop reloads a..e from memory, no register chain is carried.
And the regression of issue 11: the block loop used to be measured over 3 iterations ((E2 - E0) / 2
of the latest completions), which read the blocks the search kept below the rate every iteration
obeys -- the lead's best skylake x86-64 block at 283.5 against its bound 284.25 (284.65 over 20
iterations), and the three stop-18 table blocks that sat below their bounds (skylake x86-64 279.0 <
284.25, zen1 x86-64 287.5 < 288.25, zen3 i386 244.0 < 245.0); the measure is now 6 iterations after a
warm-up of 3 (``simulator.loop_window``). The residue of that window (a finite span can read below
the rate by the latest completion's jitter over it, and the re-search under it kept a skylake x86-64
block it read at 283.0 < 284.25) is closed by the resource floor (stop 20, ``cost/floor.py``): an
out-of-order loop figure is never below the body's fused slots over the issue width or its busiest
unit set's time, and the skylake blocks, bound by the issue width, read at or above 284.25.
"""

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from sha1opt.semantics.att import parse_text
from sha1opt.search.blocks import best_block
from sha1opt.search.bound import loop_bound
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import loop_window, simulate
from sha1opt.search.objective import block_loop_cycles, block_loop_items, model_version
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.store import Store

MODELS = sorted(p.stem for p in (Path(__file__).parents[2] / "corpus" / "uarch").glob("*.toml"))
PAIRS = [(u, a) for u in MODELS for a in ("i386", "x86_64") if a == "i386" or load_model(u).arch == "x86_64"]
RECIPES = [replace(TEXTBOOK, wsrc="inplace"), replace(TEXTBOOK, f2="cd"), replace(TEXTBOOK, wsrc="late"),
           replace(TEXTBOOK, kw="add"), replace(TEXTBOOK, wsrc="inplace", rol5="inplace")]
DATA = Path(__file__).parent / "data"


@cache
def _bound(uarch: str, arch: str) -> float:
    """``loop_bound`` of one pair, computed once per process (0.2-2 s each; two tests read every pair)."""
    return loop_bound(load_model(uarch), arch).cycles


def test_the_pairs_are_every_model_and_arch():
    assert len(PAIRS) == 28      # 17 models: 11 of x86-64 CPUs (both arches), 6 i386-only


@pytest.mark.parametrize("uarch,arch", PAIRS)
def test_the_loop_bound_is_at_most_the_default_block_loop(uarch, arch):
    assert _bound(uarch, arch) <= block_loop_cycles(textbook(arch), load_model(uarch))


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """A store holding, for every model and arch, the whole blocks of a few recipes (proved rows)."""
    db = tmp_path_factory.mktemp("store") / "r.sqlite"
    store = Store(db)
    for uarch, arch in PAIRS:
        version = model_version(load_model(uarch), 0, 79)
        for seed, recipe in enumerate(RECIPES):
            real = realize(Candidate(0, 79, arch, recipe))
            if real is None:             # the recipe needs more temporaries than the arch has
                continue
            store.put(uarch=uarch, arch=arch, first=0, last=79, model_version=version, cycles=1000.0 - seed,
                      recipe=recipe.key(), offsets=(), code="\n".join(map(str, real.code)), evaluations=1,
                      seconds=1.0, seed=seed, proved=True)
    return db


@pytest.mark.parametrize("uarch,arch", PAIRS)
def test_the_loop_bound_is_at_most_the_best_stored_block_loop(small_store, uarch, arch):
    sched, _ = best_block(uarch, arch, small_store)
    assert _bound(uarch, arch) <= block_loop_cycles(sched, load_model(uarch))


def test_the_issue_width_part_is_the_iterations_slots_with_no_ramp_up_term():
    # k8 x86-64: the in-place block (W and rol5 in place) under the index loop control
    # (search.space.loop_control) has exactly the fewest slots the space allows (1112 fused uops at 3 a
    # clock), and the simulated loop runs at that rate: gap 0.
    model = load_model("k8")
    recipe = replace(TEXTBOOK, wsrc="inplace", rol5="inplace")
    sched = block_schedule([realize(Candidate(0, 79, "x86_64", recipe)).code], "x86_64", "x", loop="index")
    bound = loop_bound(model, "x86_64")
    uops = simulate(block_loop_items(sched), model).uops
    assert bound.issue_width == uops / model.issue_width == 1112 / 3
    assert bound.cycles == block_loop_cycles(sched, model)


@pytest.mark.parametrize("uarch", ["skylake", "zen5", "p4"])
def test_no_register_chain_is_carried_around_the_i386_loop(uarch):
    # i386 reloads a..e from the state in memory at each iteration's start; x86-64 carries them in registers.
    model = load_model(uarch)
    assert loop_bound(model, "i386").critical_path == 0.0
    if model.arch == "x86_64":
        assert loop_bound(model, "x86_64").critical_path > 100


def test_the_zen5_x86_64_loop_is_bound_by_its_carried_chain():
    # 80 rounds of rol(a,5)-then-add at 1 clock each, plus the f chain and the feed-forward add: 161 > 150 ports.
    bound = loop_bound(load_model("zen5"), "x86_64")
    assert bound.binding == "critical path" and bound.cycles == 161.0


def _data_block(name: str, arch: str):
    return block_schedule([parse_text((DATA / name).read_text(), arch)], arch, "x")


# The blocks kept as data: the lead's best skylake x86-64 block, and the stop-18 table's three blocks
# that the 3-iteration measure put below their bound (file, model, arch, that measure's figure).
DATA_BLOCKS = [("skylake_x86_64_best_block.s", "skylake", "x86_64", 283.5),
               ("skylake_x86_64_stop18_best_block.s", "skylake", "x86_64", 279.0),
               ("zen1_x86_64_stop18_best_block.s", "zen1", "x86_64", 287.5),
               ("zen3_i386_stop18_best_block.s", "zen3", "i386", 244.0)]


def test_regression_three_iteration_loop_measure_dipped_below_the_bound():
    # The lead's best skylake x86-64 block: 3 iterations measured it at 283.5 < 284.25 (the bound);
    # measured over 6 iterations after a warm-up of 3 it runs at 284.83, at or above the bound.
    sched = _data_block("skylake_x86_64_best_block.s", "x86_64")
    model = load_model("skylake")
    assert loop_bound(model, "x86_64").cycles <= block_loop_cycles(sched, model)


@pytest.mark.parametrize("name,uarch,arch,old", DATA_BLOCKS)
def test_every_kept_block_loop_is_at_or_above_its_bound(name, uarch, arch, old):
    # Each block the old measure read below its bound (``old``) is now at or above the bound. (``old`` was
    # below the bound of its day; the bound has since dropped where the space grew -- rol5=inplace, the
    # index loop control -- so only the second half is still the rule.)
    model = load_model(uarch)
    bound = loop_bound(model, arch).cycles
    assert bound <= block_loop_cycles(_data_block(name, arch), model)


def test_the_leads_best_skylake_x86_64_block_runs_at_or_above_the_bound_over_many_iterations():
    # The same block as the regression above, its loop body repeated 4 times (so loop=True measures
    # 24 iterations after 12 of warm-up): the rate is above the bound (284.25) over a long span too.
    text = (DATA / "skylake_x86_64_best_block.s").read_text()
    sched = block_schedule([parse_text(text, "x86_64")], "x86_64", "x")
    model = load_model("skylake")
    body = block_loop_items(sched)
    assert loop_bound(model, "x86_64").cycles <= simulate(body * 4, model, loop=True).cycles / 4


def test_a_whole_block_loop_is_measured_over_six_iterations_after_three_of_warm_up():
    # Long bodies: 9 iterations run, (E8 - E2) / 6; short ones keep their many iterations (4 -> 64).
    model = load_model("zen3")
    sched = textbook("x86_64")
    sim = simulate(block_loop_items(sched), model, loop=True)
    assert (loop_window(sim.instructions), sim.iterations) == ((3, 6), 9)
    assert loop_window(4) == (40, 24) and simulate(parse_text("roll $5, %eax", "x86_64"), model, loop=True).iterations == 64


def test_regression_the_six_iteration_window_read_a_searched_block_below_the_bound():
    # The residue of issue 11: the 6-iteration window read this searched block at 283.0 < 284.25 (a
    # strict xfail until stop 20). The loop figure is now at least the body's resource floor
    # (cost/floor.py), here its issue-width floor 284.25, and the window itself reads 285.17.
    model = load_model("skylake")
    sched = _data_block("skylake_x86_64_window6_best_block.s", "x86_64")
    assert loop_bound(model, "x86_64").cycles <= block_loop_cycles(sched, model)


def test_the_block_searched_under_the_six_iteration_measure_runs_above_the_bound_over_a_longer_span():
    # The same block, its loop body repeated 4 times (so loop=True measures 24 iterations after 12):
    # 285.125, above the bound -- the dip is the window's, not the bound's.
    model = load_model("skylake")
    sched = _data_block("skylake_x86_64_window6_best_block.s", "x86_64")
    body = block_loop_items(sched)
    assert loop_bound(model, "x86_64").cycles <= simulate(body * 4, model, loop=True).cycles / 4
