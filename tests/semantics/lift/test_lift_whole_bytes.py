"""``bytes whole`` (a byte length that is always a multiple of 64) and ``state counter@OFFSET`` (a byte counter).

Rule (``semantics/lift/interface.py``, issue 24): libiberty's ``sha1_process_block(buffer, len, ctx)`` loops while
its pointer is below ``buffer + len``: a length with trailing bytes would have its partial block read whole, so
its contract is ``bytes whole`` (length = 64*nblocks), not ``bytes``. The roles are in argument order, so
``(data, bytes whole, state)`` states it. Its 64-bit byte counter ``total`` is declared ``state counter@OFFSET``:
every exit must leave it at its entry value + the length (mod 2^64, lengths below 2^32), proved with the
state; nothing else of the context may be written. The C is this project's own (``csrc/sha1_process.c``),
built by gcc here; the same shape in Debian's libctf is proved in ``test_lift_libraries.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.adapter import adapter_text
from sha1opt.emit.confirm import harness_for
from sha1opt.emit.objfile import load_object
from sha1opt.emit.validate import run_vectors
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.interface import Interface, parse_interface
from tests.support.cpu import needs

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_process.c"
SHAPE = "process_block(data, bytes whole, state)"           # (the build without -DCOUNTER)
COUNTED = "process_block(data, bytes whole, state counter@20)"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    where = tmp_path_factory.mktemp("process")

    def make(*defines: str) -> Path:
        out = where / f"sha1_process{''.join(defines)}.o"
        if not out.exists():
            run([which("gcc"), "-O2", "-m64", "-fno-tree-vectorize", *defines, "-c", "-o", str(out),
                 str(C_SOURCE)], "compiling the test C")
        return out
    return make


def test_grammar_reads_whole_bytes_and_a_counter_in_argument_order():
    """Data first, the length second, the context last: roles in argument order; printed back, the same."""
    got = parse_interface(COUNTED)
    assert got == Interface(("data", "bytes", "state"), 0, "process_block", 0, (), 1, False, True, 20)
    assert parse_interface(str(got)) == got
    assert str(got) == "process_block(data, bytes whole, state counter@0x14)"
    text = got.contract("sysv").describe()
    assert "bytes = 64*nblocks" in text and "64*nblocks < 2^32" in text and "increased by bytes mod 2^64" in text


@pytest.mark.parametrize("text, message", [
    ("f(data, bytes, state counter@20)", "needs a 'bytes whole' argument"),
    ("f(data, bytes whole, state counter@16)", "column 36: the counter's 8 bytes at 16 overlap the 5 state words"),
    ("f(data, bytes whole, state@8 counter@4)", "overlap the 5 state words at 8"),
    ("f(data, bytes whole, state counter@22)", "counter offset 22 is not a multiple of 4"),
    ("f(data, bytes whole, state counter)", "expected '@', found ')'"),
    ("f(data whole, state)", "expected ')', found 'whole'"),
])
def test_grammar_misuse_is_a_one_line_parse_error(text, message):
    with pytest.raises(ParseError) as e:
        parse_interface(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_pointer_loop_is_not_proved_under_bytes_with_trailing_bytes(build):
    """Mutant contract: with 1..63 trailing bytes the loop reads a partial block whole -- ``bytes`` must not prove
    what ``bytes whole`` proves (without the counter: ``test_the_adapter_hashes_...``; with it: below)."""
    res = prove_object(build(), interface=parse_interface("process_block(data, bytes, state)"))
    assert not res.proved and res.outcome != "partial", res.summary()


def test_the_counter_update_with_its_carry_proves(build):
    """The add / cmp / adc of libiberty's ``total`` (gcc -O2): every exit's counter is entry + 64*nblocks."""
    res = prove_object(build("-DCOUNTER"), interface=parse_interface(COUNTED), native=False)
    assert res.proved, res.summary()
    assert "length < 2^32" in res.summary()


@pytest.mark.parametrize("defines", [("-DCOUNTER", "-DNO_CARRY"), ()])
def test_a_counter_without_its_carry_or_not_updated_is_a_counterexample(build, defines):
    """Mutants: the low word's carry dropped; the counter never updated (the state still hashed right)."""
    res = prove_object(build(*defines), interface=parse_interface(COUNTED), native=False)
    assert not res.proved
    assert "the byte counter is not its entry value + bytes (mod 2^64) at ret" in res.summary(), res.summary()


def test_writing_buflen_is_a_violation(build):
    """Nothing of the context but the state words and the declared counter may be written."""
    res = prove_object(build("-DCOUNTER", "-DWRITE_BUFLEN"), interface=parse_interface(COUNTED), native=False)
    assert not res.proved
    assert "writes outside the 5 state words (state+28)" in res.summary(), res.summary()


def test_updating_an_undeclared_counter_is_not_proved(build):
    """The counter's add reads a context word as the state word it is not: never proved without the role."""
    res = prove_object(build("-DCOUNTER"), interface=parse_interface(SHAPE))
    assert not res.proved and res.outcome != "partial", res.summary()


def test_the_adapter_passes_the_state_in_its_own_context_beside_the_counter():
    """Natively the counter is written in the adapter's context (never the harness's canaries), the length is
    64 * nblocks with no trailing bytes."""
    text = adapter_text("x86_64", parse_interface(COUNTED), "callee")
    assert "\tlea sha1opt_ctx(%rip), %rdx" in text and "sha1opt_ctx:\t.zero 92" in text
    assert "\tshl $6, %rsi" in text


@needs()
@pytest.mark.parametrize("defines, interface", [((), SHAPE), (("-DCOUNTER",), COUNTED)])
def test_the_adapter_hashes_under_bytes_whole_and_a_counter(build, tmp_path, defines, interface):
    """Natively: the counter build's writes land in the adapter's context, and every vector passes."""
    itf = parse_interface(interface)
    ok, detail = run_vectors(harness_for(load_object(build(*defines), tmp_path), itf.name, tmp_path, itf))
    assert ok, detail


@needs()
def test_a_wrong_round_constant_fails_the_vectors_through_the_adapter(build, tmp_path):
    itf = parse_interface(COUNTED)
    ok, detail = run_vectors(harness_for(load_object(build("-DCOUNTER", "-DK3=0x8f1bbcddu"), tmp_path), itf.name,
                                         tmp_path, itf))
    assert not ok and "got" in detail


def test_regression_movzx_of_a_byte_register_kept_the_upper_bits(build):
    """Regression: ``movzbl %cl, %ecx`` of an integer masked at the destination's width, keeping bits 8..31 of
    %ecx, so gcc's per-block carry (``setbe %cl; movzbl %cl, %ecx; add %ecx, 0x18(%r14)``) added a wrong high
    word and right code was a "counterexample". The byte is now zero-extended; the per-block counter (each
    word by its own step, the carry lost by the invariant) is not proved, and never called a counterexample."""
    res = prove_object(build("-DPER_BLOCK"), interface=parse_interface(COUNTED), native=False)
    assert not res.proved
    assert all(p.outcome != "counterexample" for p in res.proof.paths), res.summary()
