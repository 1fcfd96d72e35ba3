"""The ``index`` loop control exported (search/space/loop_control.py, emit/assembly.py): proved whole, priced as lifted.

Proved here: the x86-64 in-place block under ``index`` (data read as ``d(%rsi,%r15)`` from its end, the
count ``%r15`` going -64n..0, ``add $64, %r15; jnz``) is proved from its object by the whole-function
prover -- the block of iteration k located by the count's step when no data pointer moves
(``lift.induction.block_offset``) -- and passes the vectors; the lifted exported loop is exactly what
``measure.block_loop_items`` prices (1172 macro-ops on k8); and the prover refuses the same function
when its loads do not use the index (every iteration would hash block 0) or the count steps half a block.
"""

import re
from dataclasses import replace

import pytest

from sha1opt.analyze import cost_items, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.emit.export import header_lines
from sha1opt.emit.validate import validate
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.measure import block_loop_items
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.loop_control import control_items
from sha1opt.search.space.recipe import TEXTBOOK


@pytest.fixture(scope="module")
def indexed():
    code = realize(Candidate(0, 79, "x86_64", replace(TEXTBOOK, wsrc="inplace"))).code
    return block_schedule([code], "x86_64", "inplace", loop="index")


def test_the_index_loop_is_proved_whole_and_priced_as_lifted(indexed, tmp_path):
    path = tmp_path / "index.S"
    path.write_text(function_text(indexed))
    proof = prove_object(path).proof
    assert proof.proved, proof.summary()
    items = cost_items(proof.loop_trace)
    control = control_items(indexed)                 # the row's items are what the lifter reads after the body
    assert [i.mnemonic for i in items[-2:]] == [i.mnemonic for i in control] == ["add", "jne"]
    assert items[-2].operands == control[0].operands
    model = load_model("k8")
    ours = simulate(block_loop_items(indexed), model, loop=True)
    lifted = simulate(items, model, loop=True)
    assert (ours.uops, ours.cycles) == (lifted.uops, lifted.cycles) == (1172, 1172 / 3)


def test_the_header_names_the_loop_control(indexed):
    assert "loop control: index (data indexed from its end by a count up to zero (add/jnz))" in \
        header_lines(indexed, "k8", "-", "-", "-")


@pytest.mark.parametrize("break_it,why", [
    (lambda t: re.sub(r"\((%rsi),%r15\)", r"(\1)", t), "loads without the index: block 0 every iteration"),
    (lambda t: t.replace("add $64, %r15", "add $32, %r15"), "the count steps half a block"),
])
def test_a_broken_index_loop_is_not_proved(indexed, tmp_path, break_it, why):
    text = break_it(function_text(indexed))
    assert text != function_text(indexed)
    v = validate(text, indexed, tmp_path, native=False)
    prove = next(c for c in v.checks if c.name == "prove")
    assert not prove.ok, why
    assert not any(c.name == "vectors" for c in v.checks)        # never run
