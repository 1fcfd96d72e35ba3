"""What compiled C leans on from the ABI and the C library: one test per rule, on gcc/clang builds of our C.

The C is the project's own (``emit/csrc/sha1_rolled.c``, ``sha1_ref.c``),
compiled here; mutants are edits of the compiler's own assembly text.

* the stack-protector canary (``lift.canary``): the guard is one opaque
  constant, so a frame whose copy is intact proves whole (the check's branch
  to ``__stack_chk_fail`` infeasible), and a frame whose copy is overwritten
  reaches ``__stack_chk_fail``: a contract violation, never proved;
* the ABI's entry alignment (SysV: %rsp + 8 = 0 mod 16): a frame compilers
  spill to with ``movaps``/``movdqa`` proves (the precondition discharged from
  it), and a spill the entry alignment does not align is refused by name;
* i386 position-independent code (Debian's gcc builds PIE by default): the GOT
  base from ``call __x86.get_pc_thunk.ax`` + ``add $_GLOBAL_OFFSET_TABLE_``,
  SSE constants loaded ``sym@GOTOFF(%eax)`` from the object's .rodata, and
  the i386 psABI's entry alignment (%esp + 4 = 0 mod 16) for its ``movaps``
  spills: the build proves whole;
* callee-saved registers kept in vector registers (``movq``/``vmovq``/
  ``pinsrq``/``pextrq``, i386 ``movd``) instead of pushed: the halves of the
  entry value travel through the lanes (across the loop too) and restore it;
  restoring from the wrong lane, or from the halves swapped, is a
  counterexample, and computing on such a lane is refused. No compiler we
  have does this for our C, so the code is the project's textbook export
  with its pushes and pops rewritten (our own code).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.emit.toolchain import csrc, run, which
from sha1opt.semantics.lift.canary import CANARY_REGION
from sha1opt.semantics.lift.decode import Ref, decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract, prove_function

ROLLED = "sha1_rolled"
SCHEDULE = "sha1_schedule"        # csrc/sha1_schedule.c: w[80] on the stack, its first 16 words vectorized
HERE = Path(__file__).parent / "csrc"


def _tool(cc: str) -> str:
    try:
        return which(cc)
    except Exception:  # noqa: BLE001 - a missing compiler is a skip, said with the reason
        pytest.skip(f"{cc} is not installed (setup/system-packages.sh installs it as root)")


def _source(src: str) -> Path:
    """The C of ``src``: the test's own (``csrc/`` here) or the project's (``emit/csrc``)."""
    here = HERE / f"{src}.c"
    return here if here.exists() else csrc(f"{src}.c")


def _object(tmp_path, cc: str, src: str, flags: list[str]):
    out = tmp_path / f"{src}-{cc}.o"
    run([_tool(cc), *flags, "-c", "-o", str(out), str(_source(src))], "compiling the test C")
    return out


def _assembly(tmp_path, src: str, flags: list[str]) -> str:
    out = tmp_path / f"{src}.s"
    run([_tool("gcc"), *flags, "-S", "-o", str(out), str(_source(src))], "compiling the test C")
    return out.read_text()


def _assemble(tmp_path, text: str, flags: list[str]) -> ObjectFile:
    src, out = tmp_path / "mutant.s", tmp_path / "mutant.o"
    src.write_text(text)
    run([_tool("gcc"), *flags, "-c", "-o", str(out), str(src)], "assembling the mutant")
    return ObjectFile.parse(out.read_bytes())


def _prove_edited(tmp_path, src: str, flags: list[str], pattern: str, edit, what: str):
    """``src`` compiled to assembly (gcc), its first match of ``pattern`` replaced by ``edit(match)``, proved."""
    text = _assembly(tmp_path, src, flags)
    hit = re.search(pattern, text)
    assert hit, f"{what} not found in gcc's output"
    obj = _assemble(tmp_path, text.replace(hit[0], edit(hit), 1), flags)
    return prove_function(obj, f"{src}_block_data_order", Contract("sysv"))


# -- the stack-protector canary ----------------------------------------------------------------------

@pytest.mark.parametrize("cc, flags", [
    ("gcc", ["-O2", "-m64", "-fstack-protector-all"]),        # mov %fs:0x28; sub %fs:0x28 + jne
    ("gcc", ["-O2", "-m32", "-fstack-protector-all"]),        # %gs:0x14, __stack_chk_fail_local (PIE)
    ("clang", ["-O2", "-m64", "-fstack-protector-all"]),      # the guard read again, cmp with the copy
])
def test_stack_protected_build_proves_whole(tmp_path, cc, flags):
    obj = _object(tmp_path, cc, ROLLED, flags)
    assert b"__stack_chk_fail" in obj.read_bytes()
    res = prove_object(obj, function=f"{ROLLED}_block_data_order")
    assert res.proved, res.summary()


def test_overwritten_canary_copy_reaches_stack_chk_fail(tmp_path):
    """A constant written over the frame's copy of the guard: the check can fail, a contract violation."""
    proof = _prove_edited(tmp_path, ROLLED, ["-O2", "-m64", "-fstack-protector-all"],
                          r"\tmovq\t%fs:40, %rax\n\tmovq\t%rax, (\d+\(%rsp\))\n",
                          lambda store: f"{store[0]}\tmovq\t$0, {store[1]}\n", "gcc's canary store")
    assert not proof.proved
    bad = [p for p in proof.paths if p.outcome == "counterexample"]
    assert bad and "__stack_chk_fail" in bad[0].detail and bad[0].category == "contract", proof.paths


def test_other_segment_relative_access_stays_refused_by_name(tmp_path):
    """Only the guard's own operand is modelled: another thread-local word is refused when reached."""
    obj = _assemble(tmp_path, "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tmovq %fs:0x30, %rax\n"
                              "\tmovq %fs:0x28, %rcx\n\tret\n\t.size f, .-f\n", ["-m64"])
    fn = decode_function(obj, obj.find_function("f"))
    first, second = list(fn.instructions.values())[:2]
    assert "segment-relative memory is not modelled (only the stack guard %fs:0x28)" in first.problem
    assert second.problem is None and second.mem_ref == Ref(CANARY_REGION, 0)


# -- the ABI's stack alignment at entry -------------------------------------------------------------

def _aligned_stack_stores(obj) -> list[str]:
    o = ObjectFile.parse(obj.read_bytes())
    fn = decode_function(o, o.find_function(f"{SCHEDULE}_block_data_order"))
    return [d.text for d in fn.instructions.values() if d.mnemonic in ("movaps", "movdqa")
            and "(%rsp)" in d.text.split(",")[-1]]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_aligned_stack_spill_proves_from_the_entry_alignment(tmp_path, cc):
    obj = _object(tmp_path, cc, SCHEDULE, ["-O3", "-m64", "-mssse3"])
    assert _aligned_stack_stores(obj), "the build has no aligned store to its frame: the test shows nothing"
    res = prove_object(obj, function=f"{SCHEDULE}_block_data_order")
    assert res.proved, res.summary()
    assert "entry %rsp = 8 mod 16" in res.contract.describe()


def test_aligned_spill_the_entry_alignment_does_not_align_is_refused(tmp_path):
    proof = _prove_edited(tmp_path, SCHEDULE, ["-O3", "-m64", "-mssse3"], r"\tmovaps\t(%xmm\d+), (-?\d+)\(%rsp\)\n",
                          lambda spill: f"\tmovaps\t{spill[1]}, {int(spill[2]) + 8}(%rsp)\n", "gcc's aligned spill")
    bad = [p for p in proof.paths if p.outcome == "refused"]
    assert not proof.proved and bad, proof.paths
    assert "movaps needs a 16-byte aligned stack address" in bad[0].detail and bad[0].category == "address"


def test_i386_pie_build_with_gotoff_constants_proves_whole(tmp_path):
    """gcc -m32 -fpie -O2 -march=core2 of sha1_schedule.c: the pshufb mask is loaded ``.LC0@GOTOFF(%eax)``
    (gcc 12 does not vectorize this C for -march=pentium4: no SSE constant there to load)."""
    obj = _object(tmp_path, "gcc", SCHEDULE, ["-O2", "-m32", "-fpie", "-march=core2"])
    o = ObjectFile.parse(obj.read_bytes())
    fn = decode_function(o, o.find_function(f"{SCHEDULE}_block_data_order"))
    assert any(d.gotpc for d in fn.instructions.values()), "no add $_GLOBAL_OFFSET_TABLE_: the test shows nothing"
    assert any(d.gotoff and "xmm" in d.text for d in fn.instructions.values()), "no SSE load through @GOTOFF"
    res = prove_object(obj, function=f"{SCHEDULE}_block_data_order")
    assert res.proved, res.summary()
    assert "entry %esp = 12 mod 16" in res.contract.describe()


# -- callee-saved registers kept in vector registers ----------------------------------------------

IN_XMM = {  # push / pop of the textbook export -> a save to / restore from vector lanes
    "x86_64": [("push %rbx", "movq %rbx, %xmm8"), ("pop %rbx", "movq %xmm8, %rbx"),
               ("push %rbp", "vmovq %rbp, %xmm9"), ("pop %rbp", "vmovq %xmm9, %rbp"),
               ("push %r12", "pinsrq $1, %r12, %xmm8"), ("pop %r12", "pextrq $1, %xmm8, %r12")],
    # (i386 keeps its frame: the arguments stay where the code reads them)
    "i386": [("push %ebx", "sub $4, %esp\n\tmovd %ebx, %xmm7"), ("pop %ebx", "movd %xmm7, %ebx\n\tadd $4, %esp")],
}


def _saved_in_xmm(arch: str) -> str:
    text = function_text(textbook(arch))
    for old, new in IN_XMM[arch]:
        assert f"\t{old}\n" in text
        text = text.replace(f"\t{old}\n", f"\t{new}\n", 1)
    return text


def _prove_text(tmp_path, text: str, arch: str):
    obj = _assemble(tmp_path, text, ["-m64" if arch == "x86_64" else "-m32"])
    return prove_function(obj, "sha1_block_data_order", Contract("sysv" if arch == "x86_64" else "cdecl"))


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_callee_saved_registers_kept_in_vector_registers_prove(tmp_path, arch):
    proof = _prove_text(tmp_path, _saved_in_xmm(arch), arch)
    assert proof.proved, [(p.name, p.outcome, p.detail) for p in proof.paths]
    assert [p.kind for p in proof.paths] == ["loop not entered", "loop"]


@pytest.mark.parametrize("edit, why", [
    (("pextrq $1, %xmm8, %r12", "pextrq $0, %xmm8, %r12"), "callee-saved %r12d is not restored"),    # rbx's lanes
    (("movq %xmm8, %rbx", "pshufd $0xe1, %xmm8, %xmm8\n\tmovq %xmm8, %rbx"), "callee-saved %ebx is not restored"),
])
def test_restore_from_the_wrong_lanes_is_a_counterexample(tmp_path, edit, why):
    proof = _prove_text(tmp_path, _saved_in_xmm("x86_64").replace(*edit, 1), "x86_64")
    assert [(p.outcome, p.detail) for p in proof.paths if p.kind == "loop"] == [("counterexample", why)]


def test_computing_on_a_saved_registers_lane_is_refused(tmp_path):
    text = _saved_in_xmm("x86_64").replace(".Lsha1_loop:\n", ".Lsha1_loop:\n\tpaddd %xmm0, %xmm8\n", 1)
    loop = [p for p in _prove_text(tmp_path, text, "x86_64").paths if p.kind == "loop"]
    assert [(p.outcome, p.category) for p in loop] == [("refused", "untracked value")]
    assert "%xmm8 holds the caller's %ebx[31:0] but is computed on" in loop[0].detail
