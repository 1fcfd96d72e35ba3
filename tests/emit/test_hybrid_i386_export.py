"""The i386 hybrid function (``emit.hybrid_i386_frame``): validated whole, and the frame's realignment needed."""

import pytest

from tests.support.cpu import needs
from sha1opt.search.space.hybrid import HybridParams
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.emit.families import export_choice
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.hybrid_export import export_hybrid, function_text, validate_hybrid


@needs("ssse3")                                  # the vectors run the SSSE3 block natively
def test_the_i386_ssse3_block_exports_proved_and_run(tmp_path):
    out = tmp_path / "h.S"
    res = export_hybrid(build_i386(HybridParams(isa="ssse3", arch="i386")), out)
    assert res.ok, res.validation.failure
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    text = out.read_text()
    assert "arch: i386" in text and "and $-64, %esp" in text and "%r" not in text.split("*/", 1)[1]


def test_without_the_realignment_the_k_table_operands_are_refused_at_the_proof(tmp_path):
    block = build_i386(HybridParams(isa="ssse3", arch="i386"))
    text = function_text(block).replace("\tand $-64, %esp\n", "")
    v = validate_hybrid(text, block, tmp_path)
    assert not v.ok and v.failure.name == "prove" and "aligned" in v.failure.detail
    assert "vectors" not in [c.name for c in v.checks]


def test_a_frame_that_loses_a_callee_saved_register_is_refused(tmp_path):
    block = build_i386(HybridParams(isa="avx", arch="i386"))
    text = function_text(block).replace("\tpop %ebx\n", "\tpop %ecx\n")
    v = validate_hybrid(text, block, tmp_path, native=False)
    assert not v.ok and v.failure.name == "prove"


@pytest.mark.slow   # ~30 s: the whole i386 search. Fast: test_space_hybrid_i386 (the i386 search, stays i386),
#                    test_store_families (export_choice reads a stored row), test_hybrid_export (export_choice's levels)
def test_export_isa_on_i386_with_a_model_searches_the_i386_block():
    c = export_choice("atom", "i386", "ssse3")        # (the in-order model: the cheapest search to simulate)
    assert c.family is HYBRID and c.code.params.arch == "i386", c.notes
    assert any("block proved" in n for n in c.notes)


def test_regression_rol2_without_read_ahead_did_not_prove_whole(tmp_path):
    """The loop proof used the schedule prover only when the loop head holds the block's words
    (read-ahead) or for sha1rnds4; the i386 rol2 block loads its block in the loop, and W32 =
    rol2(W26 ^ W16 ^ W4 ^ W0) is true only through the W definitions: refuted at W32. A loop with
    vector instructions now gets the schedule prover (``semantics.lift.induction.compress_holds``)."""
    block = build_i386(HybridParams(isa="ssse3", arch="i386", recurrence="rol2"))
    v = validate_hybrid(function_text(block), block, tmp_path, native=False)
    assert v.ok, v.failure
