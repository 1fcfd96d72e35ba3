"""The SHA-NI function: it passes the native harness on both arches, and nothing unproved is validated."""

from __future__ import annotations

import dataclasses

import pytest

from sha1opt.emit import shani_frame
from sha1opt.emit.shani_frame import shani_function_text, validate_shani, validated_text
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.space.shani import ShaniParams, default_params
from tests.support.cpu import needs

needs_shani = needs("sha", "sse4.1")


@needs_shani
@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_exported_function_passes_the_native_harness(arch, tmp_path):
    p = default_params(arch)
    v = validate_shani(shani_function_text(arch, p), arch, p, tmp_path)
    assert v.ok, v.native_detail


def test_an_unproved_unit_is_never_run_or_handed_out(monkeypatch):
    class Failed:
        ok, failure, outcome = False, None, "refuted (test double)"
    monkeypatch.setattr(shani_frame, "prove_shani", lambda params, arch: Failed())
    with pytest.raises(Sha1optError, match="did not validate"):
        validated_text("x86_64", default_params("x86_64"))


def test_the_function_has_one_global_symbol():
    text = shani_function_text("x86_64", default_params("x86_64"))
    assert [line for line in text.splitlines() if ".globl" in line] == ["\t.globl sha1_block_data_order"]


@needs_shani
def test_a_software_pipelined_function_passes_the_native_harness(tmp_path):
    p = ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True, preload=1)
    v = validate_shani(shani_function_text("x86_64", p), "x86_64", p, tmp_path)
    assert v.ok, v.native_detail
    assert "cmovne %rax, %rsi" in shani_function_text("x86_64", p)


@needs("sha", "sse4.1", "avx512vl")
@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_avx512_sha1msg2_form_passes_the_native_harness(tmp_path, arch):
    p = dataclasses.replace(default_params(arch), msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True,
                            msg2_form="avx512")
    v = validate_shani(shani_function_text(arch, p), arch, p, tmp_path)
    assert v.ok, v.native_detail
