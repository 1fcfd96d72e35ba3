"""The block loop's control as registry rows (search/space/loop_control.py), chosen by the model.

Proved here: the ``index`` row (x86-64: data read as ``d(%rsi,%r15)`` from its end, ``add $64, %r15;
jnz``) takes one instruction less per block than ``count`` (``add $64, %rsi; decq 64(%rsp); jnz``), so on
K8 -- no macro-fusion, 3 macro-ops a clock (Agner Fog, microarchitecture.pdf, 'AMD K8 and K10 pipeline')
-- the in-place block (OpenSSL's x86-64 integer selection, 1173 macro-ops a block with its own loop control)
runs at 1172 / 3 clocks; the whole-block objective and ``best_block`` take the cheapest usable row; a
body that leaves no temporary free cannot take ``index``; i386 has only ``count``; the body the
search-time prover proves is unchanged (only the data reads are rewritten, and only for ``index``).
"""

from dataclasses import replace

import pytest

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Reg
from sha1opt.search.blocks import best_block
from sha1opt.search.cost.model import load_model
from sha1opt.search.measure import block_loop, block_loop_cycles, block_loop_items
from sha1opt.search.objective import block_loop_cost, model_version
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.loop_control import (best_loop, control, control_items, controls_for, index_register,
                                               loop_body, usable)
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.space.regalloc import TEMPS
from sha1opt.search.store import Store

INPLACE = replace(TEXTBOOK, wsrc="inplace")


@pytest.fixture(scope="module")
def inplace():
    return block_schedule([realize(Candidate(0, 79, "x86_64", INPLACE)).code], "x86_64", "inplace")


def test_index_takes_one_macro_op_less_per_block_on_k8(inplace):
    model = load_model("k8")
    count = block_loop(block_loop_items(inplace), model)
    index = block_loop(block_loop_items(replace(inplace, loop="index")), model)
    assert (count.uops, index.uops) == (1173, 1172)
    assert index.cycles == 1172 / model.issue_width < count.cycles


def test_the_objective_and_best_block_take_the_cheapest_usable_row(inplace, tmp_path):
    model = load_model("k8")
    price = lambda s: block_loop_cycles(s, model)  # noqa: E731
    cycles, chosen = best_loop(inplace, price)
    assert chosen.loop == "index" and cycles == price(replace(inplace, loop="index"))
    assert block_loop_cost(model, "x86_64")(realize(Candidate(0, 79, "x86_64", INPLACE)).code) == cycles
    # an empty store: best_block's mix of default ranges is also priced under its best row
    db = tmp_path / "empty.sqlite"
    Store(db).close()
    sched, _ = best_block("k8", "x86_64", db)
    assert block_loop_cycles(sched, model) == best_loop(sched, price)[0]


def test_index_rewrites_only_the_data_reads_and_keeps_the_proved_body(inplace):
    reg = index_register(inplace.body, "x86_64")
    assert reg is not None and reg.name in TEMPS["x86_64"]
    body = loop_body(replace(inplace, loop="index"))
    changed = [(a, b) for a, b in zip(inplace.body, body) if a != b]
    assert len(changed) == 16                      # the 16 loads of the block's words, nothing else
    for a, b in changed:
        assert a.operands[0].base == Reg("esi", 64) and a.operands[0].index is None
        assert b.operands[0] == replace(a.operands[0], index=reg)
    assert loop_body(inplace) == inplace.body     # count: the body itself
    assert [i.mnemonic for i in control_items(replace(inplace, loop="index"))] == ["add", "jne"]


def test_a_body_using_every_temporary_cannot_take_index(inplace):
    full = replace(inplace, body=inplace.body + tuple(Instr("mov", (Reg(t), Reg(t))) for t in TEMPS["x86_64"]))
    assert index_register(full.body, "x86_64") is None
    assert not usable(control("x86_64", "index"), full)
    assert best_loop(full, lambda s: 0.0)[1].loop == "count"
    with pytest.raises(Sha1optError, match="needs a free temporary"):
        loop_body(replace(full, loop="index"))


def test_i386_has_only_count_and_unknown_rows_are_refused_by_name():
    assert [r.name for r in controls_for("i386")] == ["count"]
    assert [r.name for r in controls_for("x86_64")] == ["count", "index"]
    with pytest.raises(Sha1optError, match="unknown loop control 'index' on i386"):
        control("i386", "index")


def test_the_whole_block_key_names_the_rows(monkeypatch):
    # rows stored under the objective before the rows (count only) are not read as this objective's
    import sha1opt.search.objective as objective_module
    model = load_model("k8")
    now = model_version(model, 0, 79)
    monkeypatch.setattr(objective_module, "LOOP_CONTROLS", objective_module.LOOP_CONTROLS[:2])
    assert model_version(model, 0, 79) != now
