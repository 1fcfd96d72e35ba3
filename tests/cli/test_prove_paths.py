"""``sha1opt prove --object F --path LABEL``: proving only some dispatch paths never claims the whole function."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from sha1opt.analyze import prove_object
from sha1opt.cli_prove import prove
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook

LIBCRYPTO = "/usr/lib/x86_64-linux-gnu/libcrypto.a"
MEMBER = "libcrypto-lib-sha1-x86_64.o"


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    p = tmp_path_factory.mktemp("paths") / "textbook_x86_64.S"
    p.write_text(function_text(textbook("x86_64")))
    return p


@pytest.mark.skipif(not os.path.exists(LIBCRYPTO), reason="libssl-dev not installed")
def test_a_filtered_proof_of_openssl_says_partial_not_proved():
    """One path of five selected and proved: the result is "partial", the other paths are "not checked",
    and nothing in the report says the function is proved."""
    r = CliRunner().invoke(prove, ["--object", LIBCRYPTO, "--member", MEMBER, "--min-blocks", "1",
                                   "--path", "_shaext_shortcut", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["result"] == "partial"
    assert "the function as a whole is not proved" in data["summary"] and "whole function" not in data["summary"]
    by_result = {p["name"]: p["result"] for p in data["paths"]}
    assert [n for n, res in by_result.items() if res == "proved"] == ["loop at 0x10f0 (_shaext_shortcut)"]
    assert {res for n, res in by_result.items() if "_shaext_shortcut" not in n} == {"not checked"}


def test_selecting_every_path_is_the_whole_proof(export):
    """The export has one label; selecting it leaves nothing unchecked, so the function is proved."""
    res = prove_object(export, paths=frozenset({"sha1_block_data_order"}))
    assert res.outcome == "proved" and res.proved
    assert not any(p.outcome == "not checked" for p in res.proof.paths)


def test_an_unknown_path_label_is_refused_in_one_line(export):
    r = CliRunner().invoke(prove, ["--object", str(export), "--path", "_ssse3_shortcut"])
    assert r.exit_code == 2
    assert r.stderr.strip().count("\n") == 0
    assert "no path of sha1_block_data_order is labelled _ssse3_shortcut (labels: sha1_block_data_order)" in r.stderr


def test_path_without_object_is_a_usage_error():
    r = CliRunner().invoke(prove, ["--path", "x", "a", "a"])
    assert r.exit_code == 2 and "--path goes with --object" in r.output
