"""Declared interfaces: the grammar, and one-block functions with a workspace proved from gcc builds.

The C is this project's own (``csrc/sha_transform.c`` here): Linux-kernel
style ``sha_transform(digest, data, W)`` with an 80-word and a 16-word
workspace, and ``SHA1Transform(state, buffer)`` on its own stack. Each
defect (a wrong round constant, a workspace declared too small, reading
the caller's workspace before writing it, the wrong interface) is never
proved.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.emit.toolchain import run, which
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract, prove_function
from sha1opt.semantics.lift.interface import DEFAULT, Interface, parse_interface

C_SOURCE = Path(__file__).parent / "csrc" / "sha_transform.c"
# gcc -m64 -O2 vectorizes the state feed-forward (movd/punpckldq): the lifter has no vector state yet.
NO_VECTOR = "-fno-tree-vectorize"


def _build(tmp_path, *flags: str) -> ObjectFile:
    out = tmp_path / "sha_transform.o"
    run([which("gcc"), *flags, "-c", "-o", str(out), str(C_SOURCE)], "compiling the test C")
    return out


# -- the grammar --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, want", [
    ("sha_transform(state, data, workspace[16])", Interface(("state", "data", "workspace"), 16, "sha_transform")),
    ("SHA1Transform(state[5], data[64])", Interface(("state", "data"), 0, "SHA1Transform")),
    ("  ( data , state , nblocks ) ", Interface(("data", "state", "nblocks"))),
    ("blocks", DEFAULT),
    ("one-block", Interface(("state", "data"))),
    ("_gcry_f(state, data, nblocks even)", Interface(("state", "data", "nblocks"), 0, "_gcry_f", block_multiple=2)),
])
def test_interface_grammar_reads_roles_in_argument_order(text, want):
    assert parse_interface(text) == want


@pytest.mark.parametrize("text, message", [
    ("f(state, digest)", "column 10: unknown role 'digest'"),
    ("f(state, state, data)", "column 10: state given twice"),
    ("f(state, data, workspace)", "workspace needs its size"),
    ("f(state, data, workspace[81])", "not within 1..80"),
    ("f(state, data, workspace[0x1g])", "column 29: expected ']', found 'g'"),
    ("f(state[4], data)", "state is 5 words, not 4"),
    ("f(state, data, nblocks[2])", "nblocks is a count, not an array"),
    ("f(state)", "no data argument"),
    ("f(state, data, even)", "column 16: unknown role 'even'"),
    ("f(state, data even, nblocks)", "column 15: expected ')', found 'even'"),
    ("f(state, data) extra", "column 16: unexpected 'extra'"),
    ("f(state, data", "expected ')'"),
    ("__import__('os')(state, data)", "column 12: unexpected character"),
    ("f(state, data, workspace[١٦])", "column 26: unexpected character '١'"),
    ("x" * 300, "longer than 200 characters"),
])
def test_interface_grammar_refuses_with_one_line_naming_the_column(text, message):
    with pytest.raises(ParseError) as e:
        parse_interface(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_one_block_interface_maps_to_a_contract_without_nblocks():
    c = parse_interface("sha_transform(state, data, workspace[80])").contract("sysv")
    assert c == Contract("sysv", 1, ("state", "data", "workspace"), 80) and c.one_block
    assert "%rdx workspace[80]" in c.describe() and "one block" in c.describe()
    assert DEFAULT.contract("cdecl").describe() == Contract("cdecl").describe()


def test_nblocks_even_is_a_contract_of_even_counts():
    """``nblocks even`` (libgcrypt's AVX2 code hashes pairs, never 0): the contract says so, and the least count
    is 2 whatever --min-blocks says."""
    pairs = parse_interface("(state, data, nblocks even)")
    assert str(pairs) == "(state, data, nblocks even)" and parse_interface(str(pairs)) == pairs
    assert pairs.contract("sysv", 1) == Contract("sysv", 1, block_multiple=2)
    assert pairs.contract("sysv", 1).counts() == "even nblocks >= 2"
    assert pairs.contract("sysv", 0).counts() == "even nblocks >= 2"
    assert DEFAULT.contract("sysv", 1).counts() == "nblocks >= 1"


# -- gcc builds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, interface", [
    (("-O2", "-m32"), "sha_transform80(state, data, workspace[80])"),
    (("-O3", "-m32"), "sha_transform16(state, data, workspace[16])"),
    (("-O2", "-m32"), "SHA1Transform(state, data)"),
    (("-O2", "-m64", NO_VECTOR), "sha_transform80(state, data, workspace[80])"),
    (("-O2", "-m64", NO_VECTOR), "sha_transform16(state, data, workspace[16])"),
])
def test_kernel_style_one_block_function_proves_under_its_interface(tmp_path, flags, interface):
    res = prove_object(_build(tmp_path, *flags), interface=parse_interface(interface))
    assert res.proved, res.summary()
    assert [p.name for p in res.proof.paths] == ["entry -> ret, one block"]
    assert "one block" in res.summary() and "one block (no nblocks argument)" in res.contract.describe()


def test_wrong_round_constant_is_not_proved_and_names_the_round(tmp_path):
    res = prove_object(_build(tmp_path, "-O2", "-m32", "-DK3=0x8f1bbcddu"),
                       interface=parse_interface("sha_transform16(state, data, workspace[16])"))
    assert res.outcome == "counterexample" and "confirmed natively" in res.summary(), res.summary()  # emit.adapter
    assert "round 40" in res.summary() and "nblocks 1" in res.summary()


def test_workspace_declared_too_small_is_a_write_past_it(tmp_path):
    """Not proved; natively the adapter's workspace has room, so the hash agrees: unknown, never proved."""
    res = prove_object(_build(tmp_path, "-O2", "-m32"),
                       interface=parse_interface("sha_transform80(state, data, workspace[16])"))
    assert res.outcome == "unknown"
    assert "writes past the declared workspace (byte 64 of workspace[16])" in res.summary()


def test_reading_the_callers_workspace_before_writing_it_is_not_proved(tmp_path):
    res = prove_object(_build(tmp_path, "-O2", "-m32", "-DREAD_WORKSPACE"),
                       interface=parse_interface("sha_transform16(state, data, workspace[16])"))
    assert not res.proved, res.summary()


def test_one_block_function_under_the_blocks_interface_is_not_proved(tmp_path):
    obj = ObjectFile.parse(_build(tmp_path, "-O2", "-m32").read_bytes())
    proof = prove_function(obj, "SHA1Transform", Contract("cdecl"))
    # (the loop heads of sibling functions count: the path may stop at sha_transform16's loop first)
    assert not proof.proved
    assert any(p.outcome == "counterexample" and ("returns without the loop" in p.detail or "nblocks = 0" in p.detail)
               for p in proof.paths), proof.paths


def test_block_function_under_a_one_block_interface_is_refused(tmp_path):
    """Its nblocks register holds no argument then: the entry's test of it decides nothing."""
    src = tmp_path / "e.S"
    src.write_text(function_text(textbook("x86_64")))
    with pytest.raises(LiftRefusal, match="branch depends on data flags"):
        prove_object(src, interface=parse_interface("one-block"))


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(st.text(alphabet="()[],@  stadenblockwrpfuy0123456789-_x", max_size=60) | st.text(max_size=30))
def test_fuzz_interface_text_is_an_interface_or_one_line_parse_error(text):
    try:
        itf = parse_interface(text)
    except ParseError as e:
        assert str(e).startswith("--interface: ") and "\n" not in str(e)
        return
    named = [r for r in itf.roles if r != "const"]
    assert "state" in named and {"data", "words"} & set(named) and len(set(named)) == len(named)
    assert parse_interface(str(itf)) == replace(itf, name=itf.name or None)   # printed back, it reads the same
