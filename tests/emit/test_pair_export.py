"""A two-block ymm dialect's function (``search.space.hybrid_pair`` in ``emit.hybrid_frame``) is proved whole
from its machine code with the two-block invariant (``semantics.lift.multiblock``: every nblocks, the odd
tail leaving after block 1) and passes the native vectors where the CPU has AVX2; without the clamp of block
2's pointer the odd tail reads past the data and the proof says so."""

from __future__ import annotations

import pytest

from sha1opt.emit.hybrid_export import function_text, validate_hybrid
from sha1opt.search.space.hybrid import HybridParams, build
from tests.support.cpu import not_run_here

PARAMS = HybridParams(isa="avx2x2", lead=3, every=2, scalar="pin-bmi-early-majn")


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
    assert "add $128, %rsi" in text and "cmove %rsi, %r15" in text


def test_native_vectors_run_where_the_cpu_has_avx2(validated):
    _, _, v = validated
    vec = v.checks[-1]
    assert vec.ok and vec.not_run == (not_run_here("avx2", "bmi2") is not None)


def test_without_the_clamp_the_odd_tail_reads_past_the_data(validated, tmp_path):
    block, text, _ = validated
    bad = text.replace("\tcmove %rsi, %r15\n", "")
    v = validate_hybrid(bad, block, tmp_path, native=False)
    assert not v.ok and v.failure.name == "prove" and "reads past the end of the data" in v.failure.detail
