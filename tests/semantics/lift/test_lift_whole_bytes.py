"""``bytes whole`` (a byte length that is always a multiple of 64) and ``state counter@OFFSET`` (a byte counter).

Rule (``semantics/lift/interface.py``, issue 24): libiberty's ``sha1_process_block(buffer, len, ctx)`` loops while
its pointer is below ``buffer + len``: a length with trailing bytes would have its partial block read whole, so
its contract is ``bytes whole`` (length = 64*nblocks), not ``bytes``. The roles are in argument order, so
``(data, bytes whole, state)`` states it. Its 64-bit byte counter ``total`` is declared ``state counter@OFFSET``:
every exit must leave it at its entry value + the length (mod 2^64, lengths below 2^32), proved with the
state; nothing else of the context may be written. The counter's two words are in the entry state, so every
loop invariant carries them and checks them each step (a word the first iteration leaves alone is never read as
the caller's at every head); any other access of its 8 bytes is refused. The C is this project's own
(``csrc/sha1_process.c``), built by gcc here; libiberty's own ``sha1_process_block`` (libiberty.a) proves in
``test_lift_libraries.py`` and its one-instruction mutants are refuted here.
"""

from __future__ import annotations

from pathlib import Path

import capstone
import pytest
import z3
from elftools.elf.elffile import ELFFile

from sha1opt.analyze import prove_object
from sha1opt.emit.adapter import adapter_text
from sha1opt.emit.confirm import Finding, confirm, harness_for
from sha1opt.emit.objfile import load_object
from sha1opt.emit.validate import run_vectors
from sha1opt.emit.toolchain import compile_source, run, which
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.executor import Program, explore
from sha1opt.semantics.lift.function import entry_state
from sha1opt.semantics.lift.induction import Ctx, names
from sha1opt.semantics.lift.interface import Interface, parse_interface
from tests.support.archives import member_file
from tests.support.cpu import needs

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_process.c"
SHAPE = "process_block(data, bytes whole, state)"           # (the build without -DCOUNTER)
COUNTED = "process_block(data, bytes whole, state counter@20)"
LIBIBERTY = Path("/usr/lib/x86_64-linux-gnu/libiberty.a")
IBERTY = "sha1_process_block(data, bytes whole, state counter@0x14)"      # its catalogue row
NOT_COUNTED = "the byte counter is not its entry value + bytes (mod 2^64) at ret"


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
    assert got == Interface(("data", "bytes", "state"), 0, "process_block", whole_bytes=True, counter_offset=20)
    assert parse_interface(str(got)) == got
    assert str(got) == "process_block(data, bytes whole, state counter@0x14)"
    text = got.contract("sysv").describe()
    assert "bytes = 64*nblocks" in text and "64*nblocks < 2^32" in text and "increased by bytes mod 2^64" in text


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
    """Mutants: the low word's carry dropped; the counter never updated (the state still hashed right). The
    first iteration's proof finds the counterexample; natively only the state is checked, so the object's
    result stays unknown (not confirmed), never proved."""
    res = prove_object(build(*defines), interface=parse_interface(COUNTED), native=False)
    assert not res.proved
    assert NOT_COUNTED in res.summary(), res.summary()


def test_regression_a_counter_the_first_iteration_leaves_alone_was_read_as_the_callers_at_every_head(build):
    """Regression: the loop invariant was guessed from the entry and first-iteration states, which held no counter
    word when the code touched it only later, so the head read it as the caller's and no step checked that: a
    build counting ``len`` in the last block's iteration and 64 more in the second of three or more blocks
    (wrong from three blocks on) was "proved". The entry state now holds the counter, the invariant carries it
    as an integer moving by a constant step, and the second-block write breaks it: not proved."""
    res = prove_object(build("-DLATE"), interface=parse_interface(COUNTED), native=False)
    assert not res.proved
    assert "loop invariant not re-established: state+20 should be" in res.summary(), res.summary()


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
def test_native_confirmation_passes_whole_blocks_only_under_bytes_whole(build, tmp_path):
    """``confirm`` (what checks a failed proof natively) gives the function only lengths 64*nblocks under ``bytes
    whole``: the counter build, its counter in the adapter's context, agrees with SHA-1 on every record and the
    known-answer vectors; under plain ``bytes`` (the mutant contract) a record 1..63 bytes longer has its
    partial block hashed whole: a native finding naming its tail."""
    counted = load_object(build("-DCOUNTER"), tmp_path)
    assert confirm(counted, "process_block", 0, tmp_path, interface=parse_interface(COUNTED)) is None
    found = confirm(load_object(build(), tmp_path), "process_block", 0, tmp_path,
                    interface=parse_interface("process_block(data, bytes, state)"))
    assert isinstance(found, Finding) and found.tail > 0, found


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


# -- libiberty's own sha1_process_block and its one-instruction mutants --------------------------------------

@pytest.fixture(scope="module")
def iberty(tmp_path_factory) -> Path:
    return member_file(LIBIBERTY, "sha1.o", tmp_path_factory.mktemp("iberty"))


def _iberty_mutant(obj: Path, folder: Path, mnemonic: str, operands: str, edit) -> Path:
    """``obj`` with the first ``mnemonic operands`` of ``sha1_process_block`` replaced by ``edit(its bytes)`` (the
    same length), found by decoding the object at test time; skipped for another build of libiberty."""
    raw = bytearray(obj.read_bytes())
    with open(obj, "rb") as fh:
        elf = ELFFile(fh)
        text = elf.get_section_by_name(".text")
        start = elf.get_section_by_name(".symtab").get_symbol_by_name("sha1_process_block")[0]["st_value"]
        offset, code = text["sh_offset"], text.data()
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    ins = next((i for i in md.disasm(code[start:], start) if i.mnemonic == mnemonic and i.op_str == operands), None)
    if ins is None:
        pytest.skip(f"{LIBIBERTY}'s sha1_process_block is another build (no `{mnemonic} {operands}`)")
    new = edit(bytes(ins.bytes))
    assert len(new) == ins.size and new != bytes(ins.bytes)
    raw[offset + ins.address:offset + ins.address + ins.size] = new
    out = folder / f"sha1_{mnemonic}_{len(list(folder.iterdir()))}.o"
    out.write_bytes(raw)
    return out


ADC = ("adcl", "%r10d, 0x18(%rbx)")            # total[1] += (len >> 32) + carry


def test_libiberty_without_its_adc_is_not_proved(iberty, tmp_path):
    """Mutant: the high word's ``adc`` replaced by a 4-byte nop -- the low word's carry is lost."""
    res = prove_object(_iberty_mutant(iberty, tmp_path, *ADC, lambda b: b"\x0f\x1f\x40\x00"),
                       interface=parse_interface(IBERTY), native=False)
    assert not res.proved and NOT_COUNTED in res.summary(), res.summary()


@pytest.mark.parametrize("what, mnemonic, operands, edit", [
    ("adc made add", *ADC, lambda b: b[:1] + b"\x01" + b[2:]),          # (opcode 11 /r -> 01 /r: no carry added)
    ("cmp reversed", "cmpq", "%rsi, %r8", lambda b: b[:1] + b"\x3b" + b[2:]),   # (39 /r -> 3b /r: CF = len < sum)
], ids=["adc made add", "cmp reversed"])
def test_libiberty_with_a_wrong_carry_is_not_proved(iberty, tmp_path, what, mnemonic, operands, edit):
    """Mutants of the carry into the high word: none added; the carry of the reversed comparison."""
    res = prove_object(_iberty_mutant(iberty, tmp_path, mnemonic, operands, edit), interface=parse_interface(IBERTY),
                       native=False)
    assert not res.proved and NOT_COUNTED in res.summary(), (what, res.summary())


def test_libiberty_under_a_wrong_counter_offset_is_refused(iberty):
    """Mutant contract: the counter declared at 0x1c, where libiberty keeps ``buflen`` -- its ``add 0x14(%rbx)``
    reads a context word as the data it is not, and is refused by name."""
    res = prove_object(iberty, interface=parse_interface(IBERTY.replace("0x14", "0x1c")), native=False)
    assert not res.proved and "at 0x7a (`addl 0x14(%rbx), %r8d`)" in res.summary(), res.summary()


# -- the counter's words in the path machine ------------------------------------------------------------------

ACCESSES = {                       # function -> what exploring it from the entry state gives
    "low": ("\tmov 0x14(%rdx), %eax\n", None),
    "quad_read": ("\tmov 0x14(%rdx), %rax\n", "8-byte read of a 4-byte slot"),
    "quad_write": ("\tmov %rsi, 0x14(%rdx)\n", "writes the byte counter other than as its two 32-bit words"),
    "byte_write": ("\tmovb $0, 0x15(%rdx)\n", "writes the byte counter other than as its two 32-bit words"),
}


@pytest.fixture(scope="module")
def accesses(tmp_path_factory):
    """Each of ``ACCESSES`` under ``(data, bytes whole, state counter@20)``: its object's program and the ``Ctx``."""
    where = tmp_path_factory.mktemp("accesses")
    src = where / "a.S"
    src.write_text("\t.text\n" + "".join(f"\t.globl {f}\n\t.type {f}, @function\n{f}:\n{body}\tret\n"
                                          f"\t.size {f}, .-{f}\n" for f, (body, _) in ACCESSES.items()))
    obj = ObjectFile.parse(compile_source(src, "x86_64", where / "a.o", "test").read_bytes())
    contract = parse_interface(COUNTED).contract("sysv")
    out = {}
    for f in ACCESSES:
        fn = decode_function(obj, obj.find_function(f))
        ctx = Ctx(obj, Program(obj, fn, decode_function), 64, contract, z3.BitVec("n", 64), z3.BitVec("k", 64))
        out[f] = (ctx, fn)
    return out


def _explore(ctx, st):
    """The one path of ``fn`` from ``st`` (which the exploration consumes)."""
    b = Builder()
    ir, im = names(b)
    (end,) = explore(lambda s: ctx.machine(TermDomain(b), ir, im, s), st, set())
    return end


def test_the_counter_lives_from_the_entry_state_and_an_absent_word_is_refused_not_the_callers(accesses):
    """The entry state holds both counter words (the caller's, ``counter+0`` / ``counter+4``); a state without
    them -- an invariant that dropped one -- reads no caller's value there: refused by name."""
    ctx, fn = accesses["low"]
    end = _explore(ctx, entry_state(ctx, fn.section, fn.entry))
    assert end.kind == "exit" and z3.simplify(z3.Extract(31, 0, end.state.regs["eax"].v)).eq(z3.BitVec("counter+0", 32))
    st = entry_state(ctx, fn.section, fn.entry)
    del st.mem[("state", "", 20)]
    end = _explore(ctx, st)
    assert end.kind == "refused" and "reads the byte counter (state+20) where its value is not tracked" in end.reason


@pytest.mark.parametrize("f", ["quad_read", "quad_write", "byte_write"])
def test_the_counter_other_than_as_its_two_words_is_refused_not_a_violation(accesses, f):
    """A 64-bit or byte access of the counter's 8 bytes may be right code (``addq`` of the whole counter): not
    modelled, so refused by name, never called a write outside the state."""
    ctx, fn = accesses[f]
    end = _explore(ctx, entry_state(ctx, fn.section, fn.entry))
    assert end.kind == "refused" and ACCESSES[f][1] in end.reason, (end.kind, end.reason)
