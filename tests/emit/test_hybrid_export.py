"""Hybrid export (emit/hybrid_frame.py, hybrid_export.py, families.py) and ``export --isa``."""

from dataclasses import replace

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.families import export_choice
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.hybrid_export import PROOF_SCOPE, export_hybrid, validate_hybrid
from sha1opt.emit.hybrid_frame import FRAME, K_FRAME, function_text, loop_lines
from sha1opt.emit.host_cpu import lacking
from tests.support.cpu import needs
from sha1opt.search.space.hybrid import HybridParams, build, group_ops
from sha1opt.search.space.hybrid_regs import K_TABLE
from sha1opt.search.space.recipe import Recipe
from sha1opt.semantics.x86 import Imm, Instr

pytestmark = needs()


def test_frame_keeps_the_ring_16_aligned_under_the_abi():
    # (the ring stores are the unaligned forms; aligned under the ABI they cost what movdqa costs)
    # entry %rsp = 8 mod 16; six pushes keep it; FRAME = 8 mod 16 makes the ring at 0(%rsp) 16-aligned
    assert (8 + 6 * 8 + FRAME) % 16 == 0
    assert (8 + 6 * 8 + K_FRAME) % 16 == 0 and K_TABLE % 16 == 0 and K_TABLE >= FRAME    # a k_copy row's table too


@pytest.mark.parametrize("isa,ahead", [("ssse3", False), ("avx512vl", False), ("avx", True), ("ssse3", True),
                                       ("ssse3k", False), ("ssse3k", True)])
def test_export_proves_the_whole_function_before_writing_it(tmp_path, isa, ahead):
    out = tmp_path / "h.S"
    res = export_hybrid(build(HybridParams(isa=isa, ahead=ahead)), out, uarch="zen5")
    assert res.ok, res.validation.failure
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    assert res.validation.proof.proved and "whole function" in res.validation.checks[2].detail
    assert PROOF_SCOPE in out.read_text()
    vec = res.validation.checks[3]           # run here only where this CPU has the features (else not run / emulated)
    assert vec.execution.missing == lacking(res.validation.features)
    assert ("vectors not run here" in out.read_text()) == vec.not_run


def test_read_ahead_loop_forks_before_the_last_rounds_and_reads_the_next_block(tmp_path):
    block = build(HybridParams(isa="avx512vl", ahead=True))
    text = function_text(block)
    assert "jz .Lsha1_tail" in text and "jmp .Lsha1_loop" in text and "64(%rsi), %xmm0" in text
    assert not any("(%rsi)" in str(i) for i in block.body + block.tail)     # only main reads data


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
    assert export_choice(None, None, "avx512").code.params.isa == "avx512vl"
    assert export_choice(None, None, "avx2").code.params.isa == "avx"
    assert export_choice(None, None, "ssse3").code.params.isa == "ssse3"


@pytest.mark.parametrize("level,arch", [("bmi2", None), ("base", None), ("bmi2", "i386")])
def test_choice_is_scalar_without_a_vector_dialect(level, arch):
    c = export_choice(None, arch, level)
    assert c.family is SCALAR and c.code.arch == (arch or "x86_64")


def test_choice_on_i386_without_a_model_is_the_i386_hybrid_block():
    c = export_choice(None, "i386", "avx")
    assert c.family is HYBRID and c.code.params.arch == "i386" and c.code.params.isa == "avx" and c.code.schedule().arch == "i386"


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


def test_a_frame_that_loses_a_callee_saved_register_is_refused_at_the_proof(tmp_path):
    block = build(HybridParams(isa="avx"))
    text = function_text(block).replace("\tpop %rbx\n", "\tpop %rcx\n")
    v = validate_hybrid(text, block, tmp_path)
    assert not v.ok and v.failure.name == "prove" and "vectors" not in [c.name for c in v.checks]


def test_a_read_ahead_of_the_wrong_block_is_refused_at_the_proof(tmp_path):
    # main reads 64..127(%rsi) (the next block); reading the current block again breaks the invariant
    block = build(HybridParams(isa="avx", ahead=True))
    text = function_text(block).replace("vmovdqu 64(%rsi), %xmm0", "vmovdqu (%rsi), %xmm0")
    assert text != function_text(block)
    v = validate_hybrid(text, block, tmp_path)
    assert not v.ok and v.failure.name == "prove"


def test_loop_lines_are_the_functions_loop_under_other_labels():
    block = build(HybridParams(isa="avx512vl", ahead=True))
    mine = "\n".join(loop_lines(block, ".Lx", ".Ly", "8(%rsp)"))
    assert mine.replace(".Lx", ".Lsha1_loop").replace(".Ly", ".Lsha1_tail").replace(
        "decq 8(%rsp)", "decq 64(%rsp)") in function_text(block)
