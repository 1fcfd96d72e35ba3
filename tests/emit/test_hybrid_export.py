"""Hybrid export (emit/hybrid_frame.py, hybrid_export.py, hybrid_choice.py) and ``export --isa``."""

from dataclasses import replace

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.hybrid_choice import export_choice
from sha1opt.emit.hybrid_export import PROOF_SCOPE, export_hybrid, validate_hybrid
from sha1opt.emit.hybrid_frame import FRAME, function_text
from sha1opt.emit.toolchain import host_is_x86_64
from sha1opt.search.space.hybrid import HybridParams, build, group_ops
from sha1opt.search.space.recipe import Recipe
from sha1opt.semantics.x86 import Imm, Instr

pytestmark = pytest.mark.skipif(not host_is_x86_64(), reason="native validation needs an x86-64 host")


def test_frame_keeps_the_ring_16_aligned_under_the_abi():
    # entry %rsp = 8 mod 16; six pushes keep it; FRAME = 8 mod 16 makes the ring at 0(%rsp) 16-aligned
    assert (8 + 6 * 8 + FRAME) % 16 == 0


@pytest.mark.parametrize("isa", ["ssse3", "avx512vl"])
def test_export_writes_only_validated_code_and_says_what_is_proved(tmp_path, isa):
    out = tmp_path / "h.S"
    res = export_hybrid(build(HybridParams(isa=isa)), out, uarch="zen5")
    assert res.ok, res.validation.failure
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    text = out.read_text()
    assert "block proved" in text and "the loop and frame are not proved" in text and PROOF_SCOPE[:40] in text


def test_a_text_of_another_block_is_refused_before_anything_runs(tmp_path):
    a, b = build(HybridParams(isa="avx", every=2)), build(HybridParams(isa="avx", every=5))
    v = validate_hybrid(function_text(a), b, tmp_path)
    assert not v.ok and v.failure.name == "lift" and "vectors" not in [c.name for c in v.checks]


def test_a_wrong_block_is_refused_at_the_proof_and_never_run(tmp_path):
    block = build(HybridParams(isa="avx"))
    old = group_ops(6, "avx")[0]
    body = list(block.body)
    body[body.index(old)] = Instr(old.mnemonic, (Imm(4),) + old.operands[1:])
    bad = replace(block, body=tuple(body))
    out = tmp_path / "bad.S"
    res = export_hybrid(bad, out)
    assert not res.ok and res.validation.failure.name == "prove" and not out.exists()
    assert "vectors" not in [c.name for c in res.validation.checks]


def test_choice_without_a_model_is_the_default_block_of_the_caps_top_dialect():
    assert export_choice(None, None, "avx512").block.params.isa == "avx512vl"
    assert export_choice(None, None, "avx2").block.params.isa == "avx"
    assert export_choice(None, None, "ssse3").block.params.isa == "ssse3"


@pytest.mark.parametrize("level,arch", [("bmi2", None), ("base", None), ("avx", "i386")])
def test_choice_is_scalar_without_a_vector_dialect_or_on_i386(level, arch):
    c = export_choice(None, arch, level)
    assert c.block is None and c.schedule is not None and c.schedule.arch == (arch or "x86_64")


def test_cli_export_isa_avx512_writes_a_hybrid_file(tmp_path):
    out = tmp_path / "f.S"
    r = CliRunner().invoke(main, ["export", "--isa", "avx512", "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "vpternlogd" in out.read_text() and "hybrid default block" in r.output


def test_cli_export_refuses_an_unknown_level(tmp_path):
    r = CliRunner().invoke(main, ["export", "--isa", "avx3", "-o", str(tmp_path / "f.S")])
    assert r.exit_code == 2 and not (tmp_path / "f.S").exists()


def test_synthesized_and_bmi_rounds_lift_back_equal(tmp_path):
    recipe = Recipe.parse("f1=f1/t2/bmi1/keep/2,f2=f2-into-e/t1/base/keep/6,f3=f3-into-e/t1/base/keep/4,rol5=rorx")
    block = build(HybridParams(isa="avx512vl", lead=1, every=2, recipe=recipe))
    v = validate_hybrid(function_text(block), block, tmp_path, native=False)
    assert v.ok, v.failure


def test_an_instruction_added_to_the_frame_is_refused(tmp_path):
    block = build(HybridParams(isa="avx"))
    text = function_text(block).replace("\tret\n", "\tmov $1, %eax\n\tret\n")
    v = validate_hybrid(text, block, tmp_path)
    assert not v.ok and v.failure.name == "lift" and "epilogue" in v.failure.detail
