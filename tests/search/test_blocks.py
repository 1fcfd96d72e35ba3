"""Whole blocks from the store (search/blocks.py): a stored whole block (rounds 0-79 as one range).

Proved here: a stored 0-79 row that is cheaper than every mix of per-range results becomes the
block (one source line, "0-79: ..."), and one that is dearer does not -- the regression being that
ranges searched apart reload W at each boundary (three loads per boundary on x86-64 with W kept
in registers), so the cheapest x86-64 blocks on K8 were out of reach of the mix. And every choice is
by the block loop in steady state (``block_loop_cycles``, the acceptance table's measure), not by the
body simulated once -- the regression being nehalem x86-64, whose table figure got worse (5.95 -> 6.00
c/B) after a longer search improved the once-simulated block.
"""

from dataclasses import replace

from sha1opt.analyze import cost_items, prove_object
from sha1opt.emit.export import export
from sha1opt.search.blocks import LOOP_CONTROL, best_block, block_loop_cycles
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.objective import model_version
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.store import Store

INPLACE = replace(TEXTBOOK, wsrc="inplace")


def _store_whole(db, uarch, recipe, cycles):
    """Store ``recipe``'s whole x86-64 block as ``uarch``'s 0-79 result (the stored cycles are not what
    best_block compares)."""
    real = realize(Candidate(0, 79, "x86_64", recipe))
    Store(db).put(uarch=uarch, arch="x86_64", first=0, last=79, model_version=model_version(load_model(uarch), 0, 79),
                  cycles=cycles, recipe=recipe.key(), offsets=(), code="\n".join(map(str, real.code)),
                  evaluations=1, seconds=1.0, seed=0, proved=True)
    return real.code


def test_a_cheaper_stored_whole_block_replaces_the_mix(tmp_path):
    db = tmp_path / "r.sqlite"
    code = _store_whole(db, "k8", INPLACE, 390.0)
    sched, sources = best_block("k8", "x86_64", db)
    assert sched.body == block_schedule([code], "x86_64", "x").body
    assert len(sources) == 1 and sources[0].startswith("0-79: stored result")


def test_a_dearer_stored_whole_block_leaves_the_mix(tmp_path):
    db = tmp_path / "r.sqlite"
    model = load_model("k8")
    slow = replace(TEXTBOOK, kw="add")
    code = _store_whole(db, "k8", slow, 450.0)
    sched, sources = best_block("k8", "x86_64", db)
    assert block_loop_cycles(block_schedule([code], "x86_64", "x"), model) > block_loop_cycles(sched, model)
    assert [s.split(":")[0] for s in sources] == ["0-19", "20-39", "40-59", "60-79"]


def test_best_block_chooses_by_the_steady_state_loop_not_the_body_simulated_once(tmp_path):
    # On nehalem x86-64 (no per-range rows, so the mix is the default block: 440 once, 425 per loop
    # iteration): W loaded late (wsrc=late) is cheaper once (440) but dearer as the loop (425); f2 from
    # c and d (f2=cd) is no cheaper once (442) but cheaper as the loop (423). The loop decides.
    # (Before rules.dispatch_delay the pair was wsrc=load, 403 / 388.5, against wsrc=late, 398 / 393.)
    db = tmp_path / "r.sqlite"
    model = load_model("nehalem")
    ahead = _store_whole(db, "nehalem", replace(TEXTBOOK, f2="cd"), 380.0)
    late = _store_whole(db, "core2", replace(TEXTBOOK, wsrc="late"), 380.0)
    blocks = {"ahead": block_schedule([ahead], "x86_64", "x"), "late": block_schedule([late], "x86_64", "x")}
    loop = {k: block_loop_cycles(b, model) for k, b in blocks.items()}
    once = {k: simulate(list(b.body), model).cycles for k, b in blocks.items()}
    assert loop["ahead"] < loop["late"] and once["ahead"] > once["late"]     # the two measures disagree
    sched, sources = best_block("nehalem", "x86_64", db)
    assert sched.body == blocks["ahead"].body
    assert sources == ["0-79: stored result (380.0 cycles, 1 evaluations)"]


def test_the_loop_control_is_the_exported_loops(tmp_path):
    # block_loop_cycles prices the exported loop only if LOOP_CONTROL is what the lifter reads after
    # the body in the exported file (emit/assembly.py writes it; sha1opt analyze lifts it).
    for arch in ("x86_64", "i386"):
        sched = textbook(arch)
        path = tmp_path / f"{arch}.S"
        assert export(sched, path).ok
        items = cost_items(prove_object(path).proof.loop_trace)
        tail = items[len(sched.body) - sched.loop_start:]
        assert [i.mnemonic for i in tail] == [i.mnemonic for i in LOOP_CONTROL[arch]]
        model = load_model("nehalem")
        assert block_loop_cycles(sched, model) == simulate(items, model, loop=True).cycles
