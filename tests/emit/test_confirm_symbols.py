"""Native confirmation runs a dispatch path by the capability words it is given (emit.confirm ``symbols``).

Rule: an undefined data symbol is zero in the harness unless ``symbols`` gives its first bytes; so a
path taken only when a capability bit is set is run -- and its wrong result found -- only when the
caller passes that bit (the mutant bench and analyze confirm each OpenSSL path this way).
"""

from __future__ import annotations

import pytest

from sha1opt.emit.assembly import function_text
from sha1opt.emit.confirm import ConfirmError, Finding, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import host_is_x86_64
from sha1opt.search.space.candidate import textbook

pytestmark = pytest.mark.skipif(not host_is_x86_64(), reason="native runs need an x86-64 host")


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """Our export with a second path: when bit 0 of the external ``capword`` is set it returns at once."""
    d = tmp_path_factory.mktemp("confirm")
    text = function_text(textbook("x86_64")).replace(
        "sha1_block_data_order:\n", "sha1_block_data_order:\n\ttestb $1, capword(%rip)\n\tjnz .Lgated_out\n", 1)
    text += "\t.text\n.Lgated_out:\n\tret\n"
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
