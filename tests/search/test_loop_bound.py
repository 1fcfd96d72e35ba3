"""The block loop's lower bound (search/bound.py ``loop_bound``) against the loop the table judges.

Proved here: on every model and arch the bound is at most ``block_loop_cycles`` (the steady-state block
loop, ``simulate(body[loop_start:] + LOOP_CONTROL, loop=True)``) of the default block and of the best
block of a small store of other recipes' whole blocks; its issue-width part is the iteration's fused
slots over the width with no ramp-up term (k8 x86-64: the in-place block has exactly those slots and
runs at the bound, gap 0); on i386, whose loop reloads a..e from memory, no register chain is carried.
And the known exception, kept as a strict xfail: the lead's best skylake x86-64 block measures 283.5
against a rate bound of 284.25 -- ``loop=True`` takes the end-to-end of two iterations' latest
completions, whose lag behind the front end jitters by a few clocks, so the measure can sit a little
below a rate every iteration obeys (its allocation runs at >= 1137/4 clocks per iteration); repeated
10 times (20 iterations measured) the same block runs at 284.65, above the bound.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from sha1opt.semantics.att import parse_text
from sha1opt.search.blocks import best_block
from sha1opt.search.bound import loop_bound
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.objective import LOOP_CONTROL, block_loop_cycles, model_version
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.store import Store

MODELS = sorted(p.stem for p in (Path(__file__).parents[2] / "corpus" / "uarch").glob("*.toml"))
PAIRS = [(u, a) for u in MODELS for a in ("i386", "x86_64") if a == "i386" or load_model(u).arch == "x86_64"]
RECIPES = [replace(TEXTBOOK, wsrc="inplace"), replace(TEXTBOOK, f2="cd"), replace(TEXTBOOK, wsrc="late"),
           replace(TEXTBOOK, kw="add")]
DATA = Path(__file__).parent / "data"


def test_the_pairs_are_every_model_and_arch():
    assert len(PAIRS) == 24


@pytest.mark.parametrize("uarch,arch", PAIRS)
def test_the_loop_bound_is_at_most_the_default_block_loop(uarch, arch):
    model = load_model(uarch)
    assert loop_bound(model, arch).cycles <= block_loop_cycles(textbook(arch), model)


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
    model = load_model(uarch)
    sched, _ = best_block(uarch, arch, small_store)
    assert loop_bound(model, arch).cycles <= block_loop_cycles(sched, model)


def test_the_issue_width_part_is_the_iterations_slots_with_no_ramp_up_term():
    # k8 x86-64: the in-place block's loop iteration has exactly the fewest slots the space allows
    # (1173 fused uops at 3 a clock = 391), and the simulated loop runs at that rate: gap 0.
    model = load_model("k8")
    sched = block_schedule([realize(Candidate(0, 79, "x86_64", replace(TEXTBOOK, wsrc="inplace"))).code],
                           "x86_64", "x")
    bound = loop_bound(model, "x86_64")
    uops = simulate(list(sched.body[sched.loop_start:]) + list(LOOP_CONTROL["x86_64"]), model).uops
    assert bound.issue_width == uops / model.issue_width == 391.0
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


@pytest.mark.xfail(strict=True, reason="loop=True measures 2 iterations' latest completions end to end; "
                   "their lag behind the front end jitters, so the measure dips below the rate bound")
def test_the_loop_bound_is_at_most_the_leads_best_skylake_x86_64_block_loop():
    text = (DATA / "skylake_x86_64_best_block.s").read_text()
    sched = block_schedule([parse_text(text, "x86_64")], "x86_64", "x")
    model = load_model("skylake")
    assert loop_bound(model, "x86_64").cycles <= block_loop_cycles(sched, model)


def test_the_leads_best_skylake_x86_64_block_runs_at_or_above_the_bound_over_many_iterations():
    # The same block as the xfail above, its loop body repeated 10 times (so loop=True measures 20
    # iterations end to end): the jitter of the latest completion is spread over 20, and the rate
    # (284.65) is above the bound (284.25) -- the dip is the short measure's, not the bound's.
    text = (DATA / "skylake_x86_64_best_block.s").read_text()
    sched = block_schedule([parse_text(text, "x86_64")], "x86_64", "x")
    model = load_model("skylake")
    body = list(sched.body[sched.loop_start:]) + list(LOOP_CONTROL["x86_64"])
    assert loop_bound(model, "x86_64").cycles <= simulate(body * 10, model, loop=True).cycles / 10
