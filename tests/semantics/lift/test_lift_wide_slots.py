"""``state@S wide + workspace@W[N]``: the state words are 64-bit slots' low halves, the schedule in the context.

The rule (``semantics/lift/interface.py``, ``memory.py``, ``executor.py``, issue 24): NSS's ``shaCompress(X, data)``
(libfreeblpriv3.so, stripped) is passed X = &H[11] of its context; the 5 state words are the LOW halves of the
64-bit slots X-0x58..X-0x38, loaded and added with 64-bit instructions (upper halves carry garbage), and the
message schedule is written to and read back from the context's slots X-0x30..X+0x48. Declared
``(state@-0x58 wide + workspace@-0x30[32], data)``, the proof checks the low halves against SHA-1, lets the
function write the slots and the workspace only, gives each slot's upper half an unknown of its own (a result
depending on it is refuted), and the native run (``emit.adapter``) builds the same context: the argument inside
it, the words in 64-bit slots whose upper halves differ per record.

The C (csrc/sha1_wide_slots.c) is this project's own, in that shape; its mutants are one instruction patched.
The spellings' parse errors are rows of test_lift_roles.py's grammar table.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.adapter import adapter_text
from sha1opt.semantics.lift.interface import parse_interface
from tests.support.mutants import instruction_mutant

SRC = Path(__file__).parent / "csrc" / "sha1_wide_slots.c"
FUNCTION = "wide_compress"
INTERFACE = "(state@-0x58 wide + workspace@-0x30[32], data)"
LIBFREEBL = Path("/usr/lib/x86_64-linux-gnu/libfreeblpriv3.so")     # Debian's libnss3 (setup/system-packages.sh)
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


@pytest.fixture(scope="module")
def right(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wide_slots") / "right.o"
    subprocess.run(["gcc", "-O2", "-c", "-o", str(out), str(SRC)], check=True, timeout=120)
    return out


def _prove(obj: Path, tmp_path: Path, native: bool = True, function: str = FUNCTION):
    return prove_object(obj, function=function, interface=parse_interface(INTERFACE), workdir=tmp_path,
                        native=native)


def test_the_grammar_reads_a_wide_state_before_the_argument_and_a_workspace_in_its_context():
    """Printed back it reads the same (either order of the join); the contract says where each region lies and
    that the upper halves are unknown on entry and unchecked on exit."""
    i = parse_interface(INTERFACE)
    assert (i.roles, i.state_offset, i.state_wide, i.context_workspace) == (("state", "data"), -0x58, True,
                                                                            (-0x30, 32))
    assert parse_interface("(workspace@-0x30[32] + state@-0x58 wide, data)") == i and parse_interface(str(i)) == i
    c = i.contract("sysv")
    assert c.one_block and c.state_stride == 8 and c.scratch_in_context == (0x28, 0xa8)
    assert "upper halves are unknown on entry and not checked on exit" in c.describe()


def test_the_adapter_passes_a_pointer_into_a_context_of_64_bit_slots():
    """The native run: the argument 0x98 bytes into the adapter's context (0x58 before it plus 64 spare), state
    word 1 in the low half of the slot 8 bytes after word 0's, the upper halves the block's words complemented."""
    text = adapter_text("x86_64", parse_interface(INTERFACE), "callee")
    assert "\tlea sha1opt_ctx+152(%rip), %rdi" in text
    assert "\tmov 4(%rax), %ecx\n\tmov %ecx, sha1opt_ctx+72(%rip)" in text
    assert "\tmov 4(%rax), %ecx\n\tnot %ecx\n\tmov %ecx, sha1opt_ctx+76(%rip)" in text


@needs_gcc
def test_a_function_of_64_bit_slots_with_the_schedule_in_its_context_proves(right, tmp_path):
    res = _prove(right, tmp_path, native=False)
    assert res.proved, res.summary()


@needs_gcc
@pytest.mark.parametrize("mnemonic, operands, patch", [
    pytest.param("movl", "-0x58(%rax), %e", lambda b: b.replace(b"\xa8", b"\xac"), id="upper_half_read"),
    pytest.param("roll", "$5, ", lambda b: b[:-1] + b"\x06", id="rotate_count"),
])
def test_a_mutant_is_a_counterexample_confirmed_natively(right, tmp_path, mnemonic, operands, patch):
    """State word 0 read from its slot's upper half (``mov -0x58(%rax),%edx`` -> ``-0x54``: right only if the
    caller's upper half equalled h0), and a rotate count changed (``rol $5`` -> ``rol $6``): each a counterexample,
    confirmed by running the mutant in the adapter's context of 64-bit slots."""
    mutant = instruction_mutant(right, FUNCTION, mnemonic, operands, patch, tmp_path / "mutant.o")
    res = _prove(mutant, tmp_path)
    assert res.outcome == "counterexample" and "confirmed natively" in res.summary(), res.summary()


@needs_gcc
def test_a_write_past_the_workspace_is_refused_by_its_byte_in_the_context(right, tmp_path):
    """Mutant: the store of W0 to X-0x30 moved to X+0x50, one slot past the schedule: never the function's."""
    mutant = instruction_mutant(right, FUNCTION, "movq", "%rcx, -0x30(%rax)", lambda b: b.replace(b"\xd0", b"\x50"),
                                tmp_path / "mutant.o")
    res = _prove(mutant, tmp_path, native=False)
    assert not res.proved
    assert "writes outside the 5 state slots and the workspace (byte 0x50 of the context)" in res.summary(), \
        res.summary()


@pytest.mark.skipif(not LIBFREEBL.exists(), reason=f"{LIBFREEBL} not installed (Debian's libnss3)")
def test_nss_shacompress_in_the_installed_libfreebl_proves(tmp_path):
    """The stripped ``sub_4a00`` of libfreeblpriv3.so under the declared interface: proved whole, one path."""
    res = _prove(LIBFREEBL, tmp_path, native=False, function="sub_4a00")
    assert res.proved, res.summary()


def test_scan_guesses_nss_shape_from_the_catalogue():
    """A stripped function no symbol names is tried under the catalogue's shapes: NSS's is one of them."""
    from sha1opt.scan import guesses
    assert parse_interface(INTERFACE) in guesses()


@pytest.mark.skipif(not LIBFREEBL.exists(), reason=f"{LIBFREEBL} not installed (Debian's libnss3)")
def test_scan_proves_nss_shacompress_in_the_installed_libfreebl():
    """``sha1opt scan`` finds the stripped ``sub_4a00``, refutes the standard guesses and proves it under NSS's
    shape: the row reads proved under that interface, and no other function of the object is reported."""
    from sha1opt.scan import Found
    from sha1opt.scan import scan as scan_paths
    rows = [e for e in scan_paths([LIBFREEBL], uarch="zen3") if isinstance(e, Found)]
    assert [(r.function, r.interface, r.catalogued, r.verdict) for r in rows] == \
        [("sub_4a00", INTERFACE, False, "proved")], [r.detail for r in rows]


def test_a_write_at_a_computed_offset_into_the_context_is_refused_not_a_violation(tmp_path):
    """A store indexed by a byte of the context (unknown) may land inside the workspace or outside it: the proof
    refuses it by name ("address"), never calls it a contract violation (a counterexample it cannot show)."""
    src = tmp_path / "indexed.S"
    src.write_text("\t.text\n\t.globl indexed\n\t.type indexed, @function\nindexed:\n"
                   "\tmovzbl 0x100(%rdi), %ecx\n\tmov (%rsi), %eax\n\tmov %rax, -0x30(%rdi,%rcx,8)\n\tret\n"
                   "\t.size indexed, .-indexed\n")
    with pytest.raises(LiftRefusal, match="writes the state's context at a computed offset"):
        _prove(src, tmp_path, native=False, function="indexed")
