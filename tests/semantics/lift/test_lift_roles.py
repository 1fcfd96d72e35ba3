"""Interface roles beyond ``(state, data, nblocks)``: ``state@OFFSET``, ``words``, ``bytes``, constants, non-null pointers.

Rule (``semantics/lift/interface.py``, issue 24): a function is proved under the interface declared for
it, in the shape other libraries ship -- the state inside a context struct (mbedTLS: ``state@8``), the
block as host-order words (Crypto++'s ``SHA1_HashBlock_CXX``, wolfSSL's ``Transform``), a byte length
hashing its whole blocks (Crypto++'s ``SHA1_HashMultipleBlocks_SHANI``), a constant argument (its byte
order) and NULL checks on the pointers (wolfSSL), which the contract makes infeasible (its pointers are
objects). The C is this project's own (``csrc/sha1_ifaces.c``, written from FIPS 180-4), built by gcc
here: each shape proves under its interface, and a wrong declaration or a defective build does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import Contract, Interface, parse_interface

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_ifaces.c"
FLAGS = {"x86_64": ("-O2", "-m64", "-fno-tree-vectorize"), "i386": ("-O2", "-m32")}


def _build(tmp_path: Path, arch: str = "x86_64", *defines: str) -> Path:
    out = tmp_path / f"sha1_ifaces_{arch}{''.join(d.replace('=', '_') for d in defines)}.o"
    if not out.exists():
        run([which("gcc"), *FLAGS[arch], *defines, "-c", "-o", str(out), str(C_SOURCE)], "compiling the test C")
    return out


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    where = tmp_path_factory.mktemp("ifaces")
    return lambda arch="x86_64", *defines: _build(where, arch, *defines)


def _prove(obj: Path, interface: str, native: bool = False):
    return prove_object(obj, interface=parse_interface(interface), native=native)


# -- the grammar --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, want", [
    ("f(state@0x4c, words)", Interface(("state", "words"), 0, "f", 0x4c)),
    ("(state[5]@8, data[64])", Interface(("state", "data"), 0, None, 8)),
    ("f(state, data, bytes, 1)", Interface(("state", "data", "bytes", "const"), 0, "f", 0, ((3, 1),))),
    ("f(0, state, words[16], bytes, 0xffffffff)",
     Interface(("const", "state", "words", "bytes", "const"), 0, "f", 0, ((0, 0), (4, 0xFFFFFFFF)))),
])
def test_grammar_reads_offsets_words_bytes_and_constants(text, want):
    assert parse_interface(text) == want
    assert parse_interface(str(want)) == want                    # printed back, it reads the same


@pytest.mark.parametrize("text, message", [
    ("f(state@3, data)", "column 9: state offset 3 is not a multiple of 4"),
    ("f(state@0x2000, data)", "not a multiple of 4 within -4096..4096"),
    ("f(state, data@4)", "column 14: only the state has an offset"),
    ("f(state@, data)", "column 9: expected a number, found ','"),
    ("f(state, data, words)", "column 16: a second data argument (words; one of data, words)"),
    ("f(state, data, nblocks, bytes)", "column 25: a second count (bytes; one of nblocks, bytes)"),
    ("f(state, data, bytes[2])", "bytes is a count, not an array"),
    ("f(state, words[15])", "words is 16 words, not 15"),
    ("f(state, data, 0x100000000)", "column 16: constant 0x100000000 is not within 0..0xffffffff"),
    ("f(state, bytes, 1)", "no data argument"),
    ("f(1, data)", "no state argument"),
    # ``bytes whole`` and ``state counter@OFFSET`` (test_lift_whole_bytes.py)
    ("f(data, bytes, state counter@20)", "needs a 'bytes whole' argument"),
    ("f(data, bytes whole, state counter@16)", "column 36: the counter's 8 bytes at 16 overlap the 5 state words"),
    ("f(data, bytes whole, state@8 counter@4)", "overlap the 5 state words at 8"),
    ("f(data, bytes whole, state counter@22)", "counter offset 22 is not a multiple of 4"),
    ("f(data, bytes whole, state counter)", "expected '@', found ')'"),
    ("f(data whole, state)", "expected ')', found 'whole'"),
    # ``state@-S wide`` and ``state@S + workspace@W[N]`` (test_lift_wide_slots.py)
    ("(state@-0x58 wide + workspace@-0x40[32], data)",
     "column 19: the workspace (bytes -0x40..0x3f) overlaps the state (bytes -0x58..-0x31)"),
    ("(state@-0x58 wide, data, nblocks)", "column 14: a wide state (state@S wide) is modelled for one block only"),
    ("(state + workspace@0x20[4], data, nblocks)", "column 8: a workspace in the state's context is modelled for one"),
    ("(state wide + words@64)", "column 8: a wide state beside a block in its context (state@S wide + words@D)"),
    ("(state, data, workspace@4[3])", "column 24: a workspace at an offset is in the state's context"),
    ("(state@-0x58 + workspace[4], data)", "column 14: the workspace joined to the state needs its byte"),
    ("(state@-0x5a, data)", "column 8: state offset -0x5a is not a multiple of 4 within -4096..4096"),
    ("(state, data, -1)", "column 15: constant -1 is not within 0..0xffffffff"),
    ("(state + workspace@0x20[0], data)", "column 25: a workspace of 0 words in the context is not within 1..256"),
    ("(state + workspace@0x20[4], data, workspace[3])", "column 35: workspace given twice"),
])
def test_grammar_errors_are_one_line_naming_the_problem(text, message):
    with pytest.raises(ParseError) as e:
        parse_interface(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_contract_says_what_each_role_assumes():
    c = parse_interface("f(state@0x4c, words, bytes, 1)").contract("sysv")
    assert c == Contract("sysv", 0, ("state", "words", "bytes", "const"), 0, 0x4c, ((3, 1),))
    text = c.describe()
    assert "%rdi state@0x4c, %rsi words, %rdx bytes, %rcx 1" in text
    assert "byte 0x4c of the context" in text and "never written" in text
    assert "host-order" in text and "any 0 <= r < 64" in text and "none null" in text


# -- gcc builds: each shape proves under its interface ------------------------------------------

@pytest.mark.parametrize("arch, interface, paths", [
    ("x86_64", "ctx_process(state@8, data)", ["entry -> ret, one block"]),
    ("i386", "ctx_process(state@8, data)", ["entry -> ret, one block"]),
    # the NULL tests of both pointers: never taken under the contract, one path and no refusal
    ("x86_64", "checked_transform(state@0x4c, words)", ["entry -> ret, one block"]),
    ("x86_64", "hash_block_words(state, words)", ["entry -> ret, one block"]),
    ("x86_64", "hash_multiple(state, data, bytes, 1)", ["entry -> ret, loop not entered", "loop"]),
    # the other byte order: the same function hashes host-order words
    ("x86_64", "hash_multiple(state, words, bytes, 0)", ["entry -> ret, loop not entered", "loop"]),
])
def test_each_interface_shape_proves(build, arch, interface, paths):
    res = _prove(build(arch), interface)
    assert res.proved, res.summary()
    assert [p.name if p.kind != "loop" else "loop" for p in res.proof.paths] == paths


@pytest.mark.parametrize("interface", [
    "ctx_process(state, data)",                   # the context's first words are not the state
    "checked_transform(state@0x4c, data)",        # host words read as big-endian bytes
    "hash_block_words(state, data)",
    # (the constant selecting the other byte order: test_a_wrong_declaration_is_confirmed_natively_...)
    "hash_multiple(state, data, nblocks, 1)",     # a byte length is not a block count
])
def test_a_wrong_declaration_is_not_proved(build, interface):
    res = _prove(build(), interface)
    assert not res.proved and res.outcome != "partial", res.summary()


def test_a_wrong_declaration_is_confirmed_natively_through_the_adapter(build):
    """``emit.adapter`` runs the constant and the byte length as declared: the wrong order disagrees natively."""
    res = _prove(build(), "hash_multiple(state, data, bytes, 0)", native=True)
    assert res.outcome == "counterexample" and "confirmed natively" in res.summary(), res.summary()


def test_a_write_to_the_context_outside_the_state_is_a_violation(build):
    """The context's other bytes may be read, never written: counting bytes in ``ctx->total`` is not proved."""
    res = _prove(build("x86_64", "-DWRITE_TOTAL"), "ctx_process(state@8, data)")
    assert not res.proved
    assert "writes outside the 5 state words (byte 0x0 of the context)" in res.summary(), res.summary()


def test_an_early_return_when_the_pointer_is_not_null_is_not_proved(build):
    """The non-null fact removes only the NULL branch: a build returning early for a valid ``ctx`` fails."""
    res = _prove(build("x86_64", "-DNULL_INVERTED"), "checked_transform(state@0x4c, words)")
    assert not res.proved and res.outcome != "partial", res.summary()


def test_a_byte_loop_that_skips_the_last_whole_block_is_not_proved(build):
    res = _prove(build("x86_64", "-DSHORT_LOOP"), "hash_multiple(state, data, bytes, 1)")
    assert not res.proved and res.outcome in ("counterexample", "unknown"), res.summary()


def test_a_wrong_round_constant_in_host_word_code_names_the_round(build):
    res = _prove(build("x86_64", "-DK3=0x8f1bbcddu"), "hash_block_words(state, words)")
    assert not res.proved and "round 40" in res.summary(), res.summary()


def test_a_cmov_on_data_decided_by_a_constant_argument_proves(build):
    """gcc -O2 selects each word's load by the order with a ``cmov`` of two data values: the declared constant
    decides its condition on every path, so the move is of the one value it picks (``control._cmov``); without
    the constant the condition is undecided and the function is not proved."""
    obj = build("x86_64", "-DSELECT_BY_CMOV")
    code = ObjectFile.parse(obj.read_bytes())
    fn = decode_function(code, code.find_function("hash_multiple"))
    assert any(d.mnemonic.startswith("cmov") for d in fn.instructions.values())     # the build has the cmov
    res = _prove(obj, "hash_multiple(state, data, bytes, 1)")
    assert res.proved, res.summary()
    with pytest.raises(LiftRefusal):
        _prove(obj, "hash_multiple(state, data, bytes)")


def test_the_contexts_other_fields_are_read_as_unknown_integers_both_ways(build):
    """``state@OFFSET``: the caller's other fields may be read (``memory``: a quad-word there is an integer the proof
    does not know). A branch on one explores both ways; each proves. An early return for one value of the field
    leaves the state unhashed on that path: not proved, the path's condition naming the field."""
    res = _prove(build(), "kind_process(state@8, data)")
    assert res.proved, res.summary()
    assert sorted(p.condition for p in res.proof.paths) == ["context[-8] != 1", "context[-8] == 1"]
    bad = _prove(build("x86_64", "-DKIND_RETURNS"), "kind_process(state@8, data)")
    assert not bad.proved
    assert [p.condition for p in bad.proof.paths if p.outcome != "proved"] == ["context[-8] == 7"], bad.summary()
