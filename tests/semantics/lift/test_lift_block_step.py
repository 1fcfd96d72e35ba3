"""The loop reads block k at data + 64*k: a loop that advances the data pointer otherwise is never proved.

The whole-function proof states "H_{k+1} = compress(H_k, block k)" with block
k's words read relative to the loop's data pointer; unless that pointer is
exactly data + 64*k at iteration k, the words read are not block k. Both
defects below were proved "SHA-1" before the check (issue 12: a verifier
that says proved for wrong code); now each is a counterexample confirmed
natively (nblocks = 2 tells them apart).
"""

from __future__ import annotations

import pytest

from tests.support.cpu import needs
from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook

pytestmark = needs()                       # native confirmation of counterexamples


@pytest.fixture(scope="module")
def text64() -> str:
    return function_text(textbook("x86_64"))


@pytest.mark.parametrize("name, old, new", [
    ("half_block_advance", "add $64, %rsi", "add $32, %rsi"),
    ("no_advance", "\tadd $64, %rsi\n", ""),
])
def test_regression_wrong_data_advance_was_proved(tmp_path, text64, name, old, new):
    assert old in text64
    p = tmp_path / f"{name}.S"
    p.write_text(text64.replace(old, new))
    res = prove_object(p)
    assert res.outcome == "counterexample", res.summary()
    assert "not data+64*k" in res.summary() and "confirmed natively" in res.summary()


def test_i386_export_still_reads_block_k_at_data_plus_64k(tmp_path):
    p = tmp_path / "e32.S"
    p.write_text(function_text(textbook("i386")))
    assert prove_object(p).proved
