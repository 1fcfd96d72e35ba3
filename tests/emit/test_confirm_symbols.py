"""Native confirmation runs a dispatch path by the capability words it is given (emit.confirm ``symbols``).

Rule: an undefined data symbol is zero in the harness unless ``symbols`` gives its first bytes; so a
path taken only when a capability bit is set is run -- and its wrong result found -- only when the
caller passes that bit (the mutant bench and analyze confirm each OpenSSL path this way).
"""

from __future__ import annotations

import pytest

from tests.support.cpu import needs
from sha1opt.emit.assembly import function_text
from sha1opt.emit.confirm import ConfirmError, Finding, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.search.space.candidate import textbook

pytestmark = needs()


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """Our export with a second path: when bit 0 of the external ``capword`` is set it returns at once."""
    d = tmp_path_factory.mktemp("confirm")
    text = function_text(textbook("x86_64")).replace(
        "sha1_block_data_order:\n", "sha1_block_data_order:\n\ttestb $1, capword(%rip)\n\tjz .Lgated_in\n"
        ".Lgated_out:\n\tret\n.Lgated_in:\n", 1)
    src = d / "gated.S"
    src.write_text(text)
    return load_object(src, d), d


def test_zero_capability_runs_the_correct_path(gated):
    uo, d = gated
    assert confirm(uo, "sha1_block_data_order", 1, d) is None


def test_given_capability_word_takes_the_gated_path_and_is_refuted(gated):
    uo, d = gated
    found = confirm(uo, "sha1_block_data_order", 1, d, symbols={"capword": b"\x01\x00\x00\x00"})
    assert isinstance(found, Finding) and found.got == found.state


def test_a_symbol_the_object_does_not_use_is_refused(gated):
    uo, d = gated
    with pytest.raises(ConfirmError, match="nosuch"):
        confirm(uo, "sha1_block_data_order", 1, d, symbols={"nosuch": b"\x01"})


def test_regression_a_failed_dispatch_path_was_run_with_zero_capability_words(gated):
    """analyze confirmed a failed path natively with every undefined symbol zero, so a wrong path
    taken only when a capability bit is set was never run: "unknown" instead of a counterexample.
    Each path now carries a model of its condition (``PathReport.witness``) and is run with it."""
    from sha1opt.analyze import prove_object

    uo, d = gated
    res = prove_object(uo.path, workdir=d)
    bad = [p for p in res.proof.paths if p.outcome != "proved"]
    assert bad and all(dict(p.witness).get("capword", b"\0")[0] & 1 for p in bad), res.proof.paths
    assert res.outcome == "counterexample", res.summary()
    assert isinstance(res.native, Finding) and res.native.got == res.native.state
