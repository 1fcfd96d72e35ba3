"""``rol5=inplace`` (search/space/recipe.py): a rotated by 5 in place, the next round's copy of b taken before.

Proved here: OpenSSL's SSSE3 rounds' form (sha1-x86_64.pl: ``rol $5, a``, then ``ror $7`` of the next
round's b; identity ``rol5-then-ror7-is-rol30``) drops one ``mov`` per round whose next round's f starts from
a copy of b (f2 ``bc``/``bd``, f3: rounds 19-78, 60 of them); the block it makes is proved SHA-1 by the
search-time prover; a range's last round keeps ``mov-rol`` (its next round is another range's); the block
is cheaper on core2, whose ALU ports bind (mov r,r is an ALU uop there: no move elimination, Agner Fog,
microarchitecture.pdf, 'Intel Core 2 and Nehalem pipeline'). (The loop bound with this option:
tests/search/test_loop_bound.py, whose stores hold its block on every model.)
"""

from dataclasses import replace

import pytest

from sha1opt.semantics.block import prove_block
from sha1opt.search.cost.model import load_model
from sha1opt.search.measure import block_loop_cycles
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.recipe import TEXTBOOK, hoists_copy, range_ops

INPLACE5 = replace(TEXTBOOK, rol5="inplace")


def _block(recipe):
    return block_schedule([realize(Candidate(0, 79, "x86_64", recipe)).code], "x86_64", recipe.key())


@pytest.fixture(scope="module")
def blocks():
    return _block(TEXTBOOK), _block(INPLACE5)


def test_one_mov_less_per_round_before_an_f2_or_f3_round(blocks):
    text, inpl = blocks
    assert [t for t in range(80) if hoists_copy(t, INPLACE5, 79)] == list(range(19, 79))
    movs = lambda s: sum(1 for i in s.body if i.mnemonic == "mov" and all(type(o).__name__ == "Reg"  # noqa: E731
                                                                      for o in i.operands))
    assert movs(text) - movs(inpl) == 60 and len(text.body) - len(inpl.body) == 60
    assert sum(1 for i in inpl.body if i.mnemonic == "ror" and i.operands[0].value == 7) == 60


def test_the_block_is_proved_sha1(blocks):
    _, inpl = blocks
    assert prove_block(inpl.body, inpl.inputs, inpl.outputs, inpl.pointers).ok


def test_a_ranges_last_round_keeps_mov_rol():
    ops = range_ops(20, 39, INPLACE5, "x86_64")
    last = [op.ins.mnemonic for op in ops if op.round == 39 and op.chain == "a5"]
    assert last == ["mov", "rol", "add"] and not hoists_copy(39, INPLACE5, 39)
    assert hoists_copy(38, INPLACE5, 39)
    assert not hoists_copy(38, replace(INPLACE5, f2="cd"), 39)   # cd reads b last: no leading copy


def test_cheaper_on_core2(blocks):
    # (the loop bound stays below it: tests/search/test_loop_bound.py's stores hold this recipe's block)
    text, inpl = blocks
    model = load_model("core2")
    assert block_loop_cycles(inpl, model) < block_loop_cycles(text, model)
