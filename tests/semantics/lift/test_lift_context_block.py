"""``state@S + words@D``: one argument pointing to a context that holds both the state and the block.

The rule (``semantics/lift/interface.py``, ``memory.py``, issue 24): LLVM's ``llvm::SHA1::hashBlock()``
takes only ``this``, whose first 64 bytes are the block as host words (``Buffer.L``) and whose next 20
are the state. Declared ``(state@0x40 + words@0 clobbered)``, the proof models the two regions on the one
base -- the block words at base+0..0x3f, the state at base+0x40..0x53 -- and holds the function to: the
state left is compress(state, block), the block words may be left anything (the schedule is computed in
them), and every other byte of the object is never written (this+0x54, the hasher's own count, included).
An access straddling the block's edge is refused. The native run (``emit.adapter``) lays out the same
context, so a counterexample is confirmed by running the code.

The C (csrc/sha1_context_block.c) is this project's own, in LLVM's layout; the installed libLLVM's
function is proved as Debian ships it (tests/slow.toml: a 120 MiB object parsed).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.adapter import adapter_text
from sha1opt.scan import Found
from sha1opt.scan import scan as scan_paths
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.catalogue import interface_for
from sha1opt.semantics.lift.interface import parse_interface
from tests.support.mutants import instruction_mutant

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
SRC = Path(__file__).parent / "csrc" / "sha1_context_block.c"
FUNCTION = "hasher_block"
INTERFACE = "(state@0x40 + words@0 clobbered)"
LLVM_SYMBOL = "_ZN4llvm4SHA19hashBlockEv"
LIBLLVM = Path("/usr/lib/x86_64-linux-gnu/libLLVM-19.so")      # Debian's libllvm19 (setup/system-packages.sh)


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("context_block")
    out = {}
    for name, flags in (("right", []), ("past_state", ["-DPAST_STATE"])):
        out[name] = d / f"{name}.o"
        subprocess.run(["gcc", "-O2", "-c", *flags, "-o", str(out[name]), str(SRC)], check=True, timeout=120)
    return out


def _prove(obj: Path, tmp_path: Path, interface: str = INTERFACE, native: bool = True):
    return prove_object(obj, function=FUNCTION, interface=parse_interface(interface), workdir=tmp_path,
                        native=native)


def test_the_grammar_joins_the_state_and_the_block_of_one_context():
    """One argument, two regions: printed back it reads the same; the contract says where each lies."""
    i = parse_interface(INTERFACE)
    assert (i.roles, i.state_offset, i.shared_data, i.data_offset, i.data_clobbered) == (("state",), 0x40, "words",
                                                                                        0, True)
    assert parse_interface("(words@0 clobbered + state@0x40)") == i and parse_interface(str(i)) == i
    c = i.contract("sysv")
    assert c.one_block and c.host_words and c.block_in_context == -0x40
    assert "the block is the 64 bytes at byte 0x0 of the same context" in c.describe()


@pytest.mark.parametrize("text, message", [
    ("(state@0x40 + words@0x30)", "the block (bytes 0x30..0x6f) overlaps the state words (bytes 0x40..0x53)"),
    ("(state@0x40 + words)", "needs its byte in the context (words@OFFSET)"),
    ("(state@0x40 + words@0, nblocks)", "a block inside the state's context is one block"),
    ("(data + nblocks)", "'+' joins the state and the block of one context"),
    ("(state@0x40 + words@0, data)", "a second data argument"),
])
def test_a_joined_argument_that_cannot_be_one_context_is_a_parse_error(text, message):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        parse_interface(text)


def test_the_adapter_lays_the_block_and_the_state_in_one_context():
    """The native run passes one pointer, the block's host words at +0 and the state at +0x40 of it."""
    text = adapter_text("x86_64", parse_interface(INTERFACE), "callee")
    assert "\tlea sha1opt_ctx(%rip), %rdi" in text and "%rsi" not in text.split("sha1opt_ctx(%rip), %rdi")[1]
    assert "\tbswap %ecx\n\tmov %ecx, sha1opt_ctx+0+60(%rip)" in text
    assert "\tmov %ecx, sha1opt_ctx+64(%rip)" in text and "\tmov sha1opt_ctx+80(%rip), %ecx" in text


def test_a_function_in_llvms_layout_proves(objects, tmp_path):
    res = _prove(objects["right"], tmp_path, native=False)
    assert res.proved, res.summary()


def test_a_write_one_byte_past_the_state_is_refuted(objects, tmp_path):
    """The object's bytes past the state (LLVM's byte count at +0x54) are the caller's: never written."""
    res = _prove(objects["past_state"], tmp_path, native=False)
    assert not res.proved
    assert "writes outside the 5 state words (byte 0x54 of the context)" in res.summary(), res.summary()


def test_the_block_written_without_clobbered_is_not_proved(objects, tmp_path):
    res = _prove(objects["right"], tmp_path, "(state@0x40 + words@0)", native=False)
    assert not res.proved and "writes data memory" in res.summary(), res.summary()


@pytest.mark.parametrize("mnemonic, operands, patch", [
    pytest.param("roll", "$5, ", lambda b: b[:-1] + b"\x06", id="rotate_count"),
    pytest.param("addl", "%esi, 0x50(%rdi)", lambda b: b"\x90" * len(b), id="dropped_state_add"),
    pytest.param("movups", "%xmm0, 0x40(%rdi)", lambda b: b.replace(b"\x40", b"\x30"), id="state_into_block"),
])
def test_one_instruction_mutants_are_counterexamples_confirmed_natively(objects, tmp_path, mnemonic, operands, patch):
    """A rotate count changed (``rol $5`` -> ``rol $6``), an instruction dropped (state word 4 never updated), the
    state stored at the wrong offset (h0..h3 into the block, which ``clobbered`` allows): each a counterexample,
    confirmed by running the mutant through the adapter's context."""
    mutant = instruction_mutant(objects["right"], FUNCTION, mnemonic, operands, patch, tmp_path / "mutant.o")
    res = _prove(mutant, tmp_path)
    assert res.outcome == "counterexample" and "confirmed natively" in res.summary(), res.summary()


def test_the_state_stored_across_the_end_of_the_state_is_refused(objects, tmp_path):
    """Mutant: the 16-byte store of h0..h3 moved to +0x48 writes +0x54..0x57, past the state."""
    mutant = instruction_mutant(objects["right"], FUNCTION, "movups", "%xmm0, 0x40(%rdi)",
                                lambda b: b.replace(b"\x40", b"\x48"), tmp_path / "mutant.o")
    res = _prove(mutant, tmp_path, native=False)
    assert not res.proved and "byte 0x54 of the context" in res.summary(), res.summary()


def test_the_catalogue_declares_llvms_hashblock():
    assert str(interface_for(LLVM_SYMBOL)) == f"{LLVM_SYMBOL}{INTERFACE}"


@pytest.mark.skipif(not LIBLLVM.exists(), reason=f"{LIBLLVM} not installed (Debian's libllvm19)")
def test_scan_proves_llvms_hashblock_from_the_installed_library():
    """``sha1opt scan`` infers the catalogue's interface for the symbol and proves the shipped code whole."""
    rows = [e for e in scan_paths([LIBLLVM], uarch="zen3") if isinstance(e, Found)]
    assert [(r.function, r.interface, r.catalogued, r.verdict) for r in rows] == \
        [(LLVM_SYMBOL, INTERFACE, True, "proved")], [r.detail for r in rows]
