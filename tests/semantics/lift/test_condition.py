"""``condition.words``: a path condition in words, rendered from the z3 terms (issue 27: ``prove --path``
printed raw z3 terms such as ``Not(And(bit 3 of ... is 1, ...))`` and ``And(Extract(57, 1, n) == 0, ...)``)."""

import z3

from sha1opt.semantics.lift.condition import words

CAP4 = z3.BitVec("OPENSSL_ia32cap_P+4", 32)
CAP8 = z3.BitVec("OPENSSL_ia32cap_P+8", 32)
N = z3.BitVec("n", 64)


def bit(word, i, v):
    return z3.Extract(i, i, word) == v


def test_mask_idioms_become_bit_tests():
    # the executor's `test $0x200, cap+4` leaves a mask comparison; z3's simplifier makes it a bit test
    assert words([(CAP4 & 0x200) == 0]) == "bit 9 of OPENSSL_ia32cap_P+4 is 0"
    assert words([z3.Not((CAP4 & 0x200) == 0)]) == "bit 9 of OPENSSL_ia32cap_P+4 is 1"


def test_prove_path_conditions_in_words_not_z3_terms():
    # OpenSSL's SSSE3 path: SSSE3, no SHA-NI, not (BMI1 and AVX2 and BMI2) -- De Morgan, in parentheses
    text = words([bit(CAP4, 9, 1), bit(CAP8, 29, 0), z3.Not(z3.And(bit(CAP8, 3, 1), bit(CAP8, 5, 1), bit(CAP8, 8, 1)))])
    assert text == ("bit 9 of OPENSSL_ia32cap_P+4 is 1 and bit 29 of OPENSSL_ia32cap_P+8 is 0 and "
                    "(bit 3 of OPENSSL_ia32cap_P+8 is 0 or bit 5 of OPENSSL_ia32cap_P+8 is 0 or "
                    "bit 8 of OPENSSL_ia32cap_P+8 is 0)")
    for raw in ("And(", "Not(", "Extract(", "Or("):
        assert raw not in text


def test_nested_and_is_flattened():
    assert words([z3.And(bit(CAP8, 3, 1), z3.And(bit(CAP8, 5, 1), bit(CAP8, 8, 1)))]) == \
        "bit 3 of OPENSSL_ia32cap_P+8 is 1 and bit 5 of OPENSSL_ia32cap_P+8 is 1 and bit 8 of OPENSSL_ia32cap_P+8 is 1"


def test_high_bits_of_nblocks_read_as_a_bound():
    # nblocks < 2^58 on x86-64: bits 1..57 of n all 0 is n <= 1
    assert words([z3.Extract(57, 1, N) == 0], {"n": 58}) == "n <= 1"
    assert words([z3.Not(z3.Extract(57, 1, N) == 0)], {"n": 58}) == "n > 1"
    # without the known width the field is not the whole number
    assert words([z3.Extract(57, 1, N) == 0]) == "bits 1..57 of n == 0"


def test_plain_comparisons_are_not_split_into_bit_fields():
    assert words([z3.ULT(N, 2)], {"n": 58}) == "n < 2"
    assert words([z3.Not(z3.ULT(N, 3))], {"n": 58}) == "n >= 3"
    assert words([z3.Not(N == 0)]) == "n != 0"


def test_stack_alignment_facts_are_not_a_dispatch_condition():
    align = z3.BitVec("align3", 32)
    assert words([z3.ULT(align, 32), align == (z3.BitVec("stack_base", 32) & 31)]) == "always"
    assert words([z3.ULT(align, 32), bit(CAP4, 9, 0)]) == "bit 9 of OPENSSL_ia32cap_P+4 is 0"


def test_regression_a_several_bit_mask_test_printed_as_a_z3_term():
    # our dispatcher's `and $0xf, %eax; cmp $0xf, %eax; jne`: z3 simplifies the mask comparison to
    # ~Extract(3, 0, cap) != 0, which `prove --object` printed as is
    cap = z3.BitVec("sha1opt_ia32cap+0", 32)
    assert words([(cap & 0xF) != 0xF]) == "bits 0..3 of sha1opt_ia32cap+0 are not all 1"
    assert words([(cap & 0x7F) == 0x7F]) == "bits 0..6 of sha1opt_ia32cap+0 are all 1"
    assert "Extract" not in words([z3.Not(z3.Or((cap & 0xF) == 0xF, bit(cap, 9, 0)))])
