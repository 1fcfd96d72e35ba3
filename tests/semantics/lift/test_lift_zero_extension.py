"""A 32-bit register write zero-extends (``PathMachine._write``): no opaque 64-bit value survives it whole.

The rule (Intel SDM vol. 1 3.4.1.1: 32-bit operands give a 32-bit result, zero-extended to 64 bits): two
data words held whole (``values.DataPair``) keep the low one; an entry value keeps its low half, a value of
its own, so ``mov %ebx, %ebx`` after ``pop %rbx`` does not restore %rbx. Both were holes a review found: the
edited exports below were "proved" while natively wrong. Each edits sha1opt's own textbook export.
"""

from __future__ import annotations

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook


@pytest.fixture(scope="module")
def text() -> str:
    return function_text(textbook("x86_64"))


def _prove(tmp_path, text: str):
    p = tmp_path / "e.S"
    p.write_text(text)
    return prove_object(p, workdir=tmp_path)


def test_regression_two_data_words_written_to_a_32_bit_register_kept_the_upper_word(tmp_path, text):
    """m0 and m1 loaded whole, ``lea (%r9), %r9d`` (natively: m0, upper half 0), spilled 8 bytes and the
    upper word read back as round 1's message word: natively 0, not m1."""
    head = "\tmov (%rsi), %r9\n\tlea (%r9), %r9d\n\tmov %r9, -16(%rsp)\n\tmov -12(%rsp), %r9d\n"
    edited = text.replace(".Lsha1_loop:\n", ".Lsha1_loop:\n" + head, 1).replace(
        "\tmov 4(%rsi), %r8d\n", "\tmov %r9d, %r8d\n", 1)
    assert edited.count("\tmov %r9d, %r8d\n") == text.count("\tmov %r9d, %r8d\n") + 1
    res = _prove(tmp_path, edited)
    assert not res.proved, res.summary()


def test_regression_a_32_bit_write_of_rbx_after_its_pop_counted_as_restored(tmp_path, text):
    i = text.rindex("\tpop %rbx\n") + len("\tpop %rbx\n")
    res = _prove(tmp_path, text[:i] + "\tmov %ebx, %ebx\n" + text[i:])
    assert not res.proved, res.summary()
