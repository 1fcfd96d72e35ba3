"""The capability word: one bit per feature, masks closed under inclusion, read by the prover as an input."""

from __future__ import annotations

import pytest

from sha1opt.emit.dispatch_word import (FEATURE_BITS, WORD_SYMBOL, WordError, features_of, init_text, mask_of,
                                        word_from_cpu_flags)
from sha1opt.emit.assembly import function_text
from sha1opt.emit.dispatch_text import PathCode, dispatch_function_text
from sha1opt.emit.toolchain import compile_preprocessed
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.decode import CAPABILITY_SYMBOLS
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.features import ISA_INCLUDES


def test_a_mask_covers_every_feature_the_code_implies():
    """AVX code also runs SSSE3 instructions: its mask has their bits, so a word without SSSE3 never takes it."""
    m = mask_of({"avx", "bmi2"})
    for f in ("sse", "sse2", "ssse3", "sse4.1", "avx", "bmi1", "bmi2"):
        assert m >> FEATURE_BITS[f] & 1, f
    assert not m >> FEATURE_BITS["avx2"] & 1 and not m >> FEATURE_BITS["sha"] & 1


def test_base_code_needs_no_bit():
    assert mask_of(()) == 0 and mask_of({"base"}) == 0


def test_every_feature_of_the_table_has_a_bit():
    assert set(ISA_INCLUDES) - {"base"} == set(FEATURE_BITS)


def test_an_unknown_feature_is_refused():
    with pytest.raises(WordError, match="mmx"):
        mask_of({"mmx"})


def test_features_of_inverts_a_mask():
    assert features_of(mask_of({"sha", "ssse3"})) == {"sse", "sse2", "ssse3", "sha"}


def test_avx512_needs_foundation_and_vl_in_cpuinfo():
    assert not word_from_cpu_flags({"avx512vl"}) >> FEATURE_BITS["avx512vl"] & 1
    assert word_from_cpu_flags({"avx512f", "avx512vl"}) >> FEATURE_BITS["avx512vl"] & 1


def test_aes_ni_takes_its_bit_from_leaf_1_ecx_bit_25():
    """AES-NI is CPUID.01H:ECX[25] (/proc/cpuinfo "aes", no OS state): the constructor tests that bit of leaf 1's
    ecx, and the word the cpuinfo flags give has the feature's bit."""
    assert word_from_cpu_flags({"aes"}) == 1 << FEATURE_BITS["aes"]
    text = init_text("x86_64")
    assert f"bt $25, %ecx\n\tjnc .Lcap_no_aes\n\tor ${1 << FEATURE_BITS['aes']:#x}, %esi" in text
    assert text.index("bt $25, %ecx") < text.index("xgetbv")


def test_the_prover_reads_our_word_as_an_input():
    """Else the lifter reads the word's initial 0 from .data and proves only the fallback path."""
    assert WORD_SYMBOL in CAPABILITY_SYMBOLS


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_constructor_checks_os_support_before_any_avx_bit(arch):
    """AVX needs OSXSAVE then xgetbv: a CPU whose OS does not save ymm state must not take an AVX path."""
    text = init_text(arch)
    assert text.index("xgetbv") < text.index(f"or ${1 << FEATURE_BITS['avx']:#x}")
    assert "cpuid" in text and ".init_array" in text


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_regression_the_i386_word_was_an_absolute_address(arch, tmp_path):
    """``mov sha1opt_ia32cap, %eax`` (and the constructor's store) put an absolute R_386_32 relocation
    into .text: a text relocation once the object goes into a shared library. Both now read and write
    the word PC-relative (call/pop on i386, %rip on x86-64): no absolute relocation against it in .text."""
    paths = [PathCode("sse2", frozenset({"sse2"}), function_text(textbook(arch))),
             PathCode("scalar", frozenset(), function_text(textbook(arch)))]
    obj = ObjectFile.parse(compile_preprocessed(dispatch_function_text(arch, paths), arch, tmp_path, "d").read_bytes())
    against = [r for r in obj.relocs.get(".text", {}).values() if r.symbol == WORD_SYMBOL]
    assert len(against) == 2 and all(r.kind in ("R_386_PC32", "R_X86_64_PC32") for r in against), against
