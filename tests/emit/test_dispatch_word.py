"""The capability word: one bit per feature, masks closed under inclusion, read by the prover as an input."""

from __future__ import annotations

import pytest

from sha1opt.emit.dispatch_word import (FEATURE_BITS, WORD_SYMBOL, WordError, features_of, init_text, mask_of,
                                        word_from_cpu_flags)
from sha1opt.semantics.lift.decode import CAPABILITY_SYMBOLS
from sha1opt.semantics.x86 import ISA_INCLUDES


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


def test_the_prover_reads_our_word_as_an_input():
    """Else the lifter reads the word's initial 0 from .data and proves only the fallback path."""
    assert WORD_SYMBOL in CAPABILITY_SYMBOLS


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_constructor_checks_os_support_before_any_avx_bit(arch):
    """AVX needs OSXSAVE then xgetbv: a CPU whose OS does not save ymm state must not take an AVX path."""
    text = init_text(arch)
    assert text.index("xgetbv") < text.index(f"or ${1 << FEATURE_BITS['avx']:#x}")
    assert "cpuid" in text and ".init_array" in text
