"""A two-block ymm dialect's function (``search.space.hybrid_pair`` in ``emit.hybrid_frame``) is proved whole
from its machine code with the two-block invariant (``semantics.lift.multiblock``: every nblocks, the odd
tail leaving after block 1, the next pair's words read ahead as head values) and passes the native vectors
where the CPU has AVX2; without a clamp of a block pointer a count reads past the data and the proof says
so; the model prices the lifted loop as the search priced the block (``measure.hybrid_loop_items``)."""

from __future__ import annotations

import pytest

from sha1opt.emit.hybrid_export import function_text, validate_hybrid
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.measure import hybrid_loop_cost
from sha1opt.search.space.hybrid import HybridParams, build
from tests.support.cpu import not_run_here

# the read-ahead form: the next pair's groups 0-9 during block 2's rounds, the rol2 recurrence
PARAMS = HybridParams(isa="avx2x2", lead=2, every=4, scalar="rotate-bmi-early", ahead=True, recurrence="rol2")


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    block = build(PARAMS)
    text = function_text(block)
    return block, text, validate_hybrid(text, block, tmp_path_factory.mktemp("pair"))


def test_the_whole_function_proves_with_the_two_block_invariant(validated):
    _, text, v = validated
    assert v.ok, v.failure
    assert [c.name for c in v.checks] == ["assemble", "lift", "prove", "vectors"]
    loops = [p for p in v.proof.paths if p.head is not None]
    assert len(loops) == 1 and loops[0].block_bytes == 128 and "2-block invariant" in loops[0].detail
    assert "1 left: 1 compression(s), exit" in loops[0].detail         # the odd tail
    assert "add $128, %rsi" in text and "vinserti128 $1, (%r14), %ymm0, %ymm0" in text


def test_native_vectors_run_where_the_cpu_has_avx2(validated):
    _, _, v = validated
    vec = v.checks[-1]
    assert vec.ok and vec.not_run == (not_run_here("avx2", "bmi2") is not None)


def test_the_lifted_loop_costs_what_the_search_priced(validated):
    block, _, v = validated
    sky = load_model("skylake")
    loop = v.proof.loop_paths()[0]
    lifted = simulate(cost_items(loop.trace), sky, loop=True, bytes_per_iteration=loop.block_bytes)
    assert lifted.cycles_per_byte == pytest.approx(hybrid_loop_cost(block, sky).cycles_per_byte)


@pytest.mark.parametrize("clamp,why", [("\tcmove %rsi, %rdx\n", "reads past the end of the data"),
                                       ("\tcmovb %r13, %r14\n", "")])
def test_without_a_clamp_a_count_is_not_proved(validated, tmp_path, clamp, why):
    """The first pair's block 2 (nblocks = 1 reads past the data) and the next pair's (three blocks left:
    the proof stops unproved, before it names the read)."""
    block, text, _ = validated
    assert clamp in text
    v = validate_hybrid(text.replace(clamp, ""), block, tmp_path, native=False)
    assert not v.ok and v.failure.name == "prove" and why in v.failure.detail
