"""The dispatch idioms of issue 24 in a few lines of assembly written here: fast checks of each rule.

Rules (the libraries' own code: test_lift_got_flags.py, test_lift_stack_address.py, test_lift_known_calls.py):
* ``mov sym@GOTPCREL(%rip), %rax`` loads the address of ``sym``; a flag another object defines is an input, so
  ``cmpb $0,(%rax)`` forks (``lift.decode.got_address``); ``call *sym@GOTPCREL(%rip)`` (-fno-plt) calls ``sym``;
* a tail jump with the caller's arguments and constants in the next argument registers is the callee's proof
  under those constants (``lift.handoff.passed_contract``);
* a flag this object defines in a writable section, global (another object may set it) or written by the
  object's code, is an input too, never its initial bytes (``lift.statics.run_time_name``); a word nothing
  can change is the file's;
* ``getenv`` returns NULL on one path and a string of its own on the other (``lift.calls.KNOWN``, ISO C11
  7.22.4.6); a path's witness names the variable and the value that takes it (``lift.witness``);
* the stack pointer's bits (``neg``, ``and``) are exact in the entry stack pointer, whose alignment the SysV ABI
  fixes, so a frame rounded up to 16 takes ``movdqa`` (``lift.executor.PathMachine._bits``); off by 8, it is
  refused as misaligned.
Only exploration runs here (the targets are outside the object): each check is well under a second.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface

ONE_BLOCK = parse_interface("one-block").contract("sysv")


def _asm(tmp_path: Path, text: str) -> ObjectFile:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed (setup/system-packages.sh installs it as root)")
    src, out = tmp_path / "f.s", tmp_path / "f.o"
    src.write_text("\t.text\n\t.globl f\n\t.type f,@function\nf:\n" + text + "\t.size f, .-f\n")
    subprocess.run([gcc, "-c", "-o", str(out), str(src)], check=True, timeout=60)
    return ObjectFile.parse(out.read_bytes())


def test_got_flag_forks_and_tail_calls_carry_their_constants(tmp_path):
    obj = _asm(tmp_path, """
        movq has_fast@GOTPCREL(%rip), %rax
        cmpb $0, (%rax)
        je 1f
        xorl %ecx, %ecx
        movl $64, %edx
        jmp impl_fast@PLT
1:      jmp *impl_plain@GOTPCREL(%rip)
""")
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    by = {p.outside: p for p in paths}
    assert set(by) == {"impl_fast", "impl_plain"}, [p.detail for p in paths]
    assert "has_fast+0 != 0" in by["impl_fast"].condition and "has_fast+0 == 0" in by["impl_plain"].condition
    assert by["impl_fast"].callee.arg_names() == ["state", "data", "64", "0"]
    assert by["impl_plain"].callee.arg_names() == ["state", "data"]


def test_flag_defined_here_but_global_or_written_is_an_input(tmp_path):
    obj = _asm(tmp_path, """
        cmpb $0, has_fast(%rip)
        je 1f
        jmp impl_fast@PLT
1:      cmpb $0, detected(%rip)
        je 2f
        jmp impl_plain@PLT
2:      movb $1, detected(%rip)
        jmp impl_other@PLT
        .bss
        .globl has_fast
has_fast: .byte 0
detected: .byte 0
        .text
""")
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    # (the store to ``detected`` is a write outside the contract: that path is a violation, the others reach jumps)
    assert {p.outside for p in paths} == {"impl_fast", "impl_plain", None}, [p.detail for p in paths]
    assert "has_fast+0 != 0" in next(p for p in paths if p.outside == "impl_fast").condition


def test_getenv_result_is_a_path_for_null_and_one_for_a_string(tmp_path):
    obj = _asm(tmp_path, """
        pushq %rbx
        pushq %rbp
        subq $8, %rsp
        movq %rdi, %rbx
        movq %rsi, %rbp
        leaq name(%rip), %rdi
        call getenv@PLT
        movq %rbx, %rdi
        movq %rbp, %rsi
        addq $8, %rsp
        popq %rbp
        popq %rbx
        testq %rax, %rax
        je 1f
        jmp impl_plain@PLT
1:      jmp impl_fast@PLT
        .section .rodata
name:   .string "SHA1_PLAIN"
        .text
""")
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    assert {p.outside: "not (getenv()" in p.condition for p in paths} == {"impl_plain": True, "impl_fast": False}


REALIGN = """
        subq $0x48, %rsp
        movq %rsp, %rax
        movq %rax, %rcx
        negq %rcx
        andl $15, %ecx
        addq %rcx, %rax
        movdqa %xmm0, {disp}(%rax)
        addq $0x48, %rsp
        jmp impl_fast@PLT
"""


def test_frame_rounded_up_to_16_takes_aligned_stores(tmp_path):
    paths = prove_function(_asm(tmp_path, REALIGN.format(disp=16)), "f", ONE_BLOCK).paths
    # (the path reaches the tail jump; a realigned slot counts as possibly the caller's stack there, so the jump is
    # not taken for the callee's own proof -- a limit of ``handoff.entry_changed``, not of the alignment)
    assert len(paths) == 1 and paths[0].detail.startswith("jumps to an external function (impl_fast)"), \
        [p.detail for p in paths]


def test_frame_slot_off_by_8_is_refused_as_misaligned(tmp_path):
    paths = prove_function(_asm(tmp_path, REALIGN.format(disp=24)), "f", ONE_BLOCK).paths
    assert [p.outside for p in paths] == [None] and "align" in paths[0].detail, [p.detail for p in paths]


GETENV_STRING = """
        subq $8, %rsp
        leaq name(%rip), %rdi
        call getenv@PLT
        addq $8, %rsp
        testq %rax, %rax
        je 1f
{body}
1:      jmp impl_plain@PLT
        .section .rodata
name:   .string "SHA1_IMPL"
        .text
"""


def test_getenv_string_reads_the_same_bytes_at_the_same_offset(tmp_path):
    """A byte compare and a 32-bit compare of the same string agree: byte 0 not 'f' and the word "fast" is no path
    (``lift.memory``: byte i of getenv's string is one unknown on the path, whatever width reads it)."""
    obj = _asm(tmp_path, GETENV_STRING.format(body="""
        cmpb $0x66, (%rax)
        je 2f
        cmpl $0x74736166, (%rax)
        jne 1f
        jmp impl_impossible@PLT
2:      cmpl $0x74736166, (%rax)
        jne 1f
        jmp impl_fast@PLT"""))
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    # (the arguments are not kept across the call: each path ends at its jump, naming the callee)
    reached = {m.group(1) for p in paths if (m := re.match(r"jumps to an external function \((\w+)\)", p.detail))}
    assert reached == {"impl_plain", "impl_fast"}, [p.detail for p in paths]


def test_getenv_string_read_at_a_computed_offset_is_new_unknowns(tmp_path):
    """A read of the string at an offset not constant from the returned pointer (a walk over its characters) is
    bytes of their own, new unknowns (``lift.memory._returned_string``): the string is arbitrary input, so a branch
    on them forks and both ways reach their jump -- no refusal."""
    obj = _asm(tmp_path, GETENV_STRING.format(body="""
        movzbl (%rax), %ecx
        cmpb $0, (%rax,%rcx)
        jne 1f
        jmp impl_fast@PLT"""))
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    # (the arguments are not kept across the call: each path ends at its jump, naming the callee)
    reached = [m.group(1) for p in paths if (m := re.match(r"jumps to an external function \((\w+)\)", p.detail))]
    assert len(reached) == len(paths) and set(reached) == {"impl_plain", "impl_fast"}, [p.detail for p in paths]
    assert any("getenv@0x" in p.condition and "[computed offset]" in p.condition for p in paths), \
        [p.condition for p in paths]


def test_getenv_string_write_is_a_violation(tmp_path):
    """The environment string is read-only (C11 7.22.4.6: the program shall not modify it)."""
    obj = _asm(tmp_path, GETENV_STRING.format(body="""
        movb $0, (%rax)
        jmp impl_fast@PLT"""))
    paths = prove_function(obj, "f", ONE_BLOCK).paths
    assert any(p.outcome == "counterexample" and "writes the string getenv@" in p.detail for p in paths), \
        [(p.outcome, p.detail) for p in paths]


def test_getenv_path_witness_names_the_variable_and_its_value(tmp_path):
    """A path that read an environment variable by a constant name carries it in its witness (``lift.witness``,
    ``paths.State.environment``): ``env:NAME`` with the string's bytes from the model, up to its NUL, where the
    model makes getenv non-NULL; nothing where it returns NULL -- what a native run sets, and no more, to take
    the path. Here the fast path needs the value to start with "fast"."""
    obj = _asm(tmp_path, GETENV_STRING.format(body="""
        cmpl $0x74736166, (%rax)
        jne 1f
        jmp impl_fast@PLT"""))
    by_callee = {}
    for p in prove_function(obj, "f", ONE_BLOCK).paths:
        m = re.match(r"jumps to an external function \((\w+)\)", p.detail)
        by_callee.setdefault(m.group(1) if m else None, []).append(dict(p.witness))
    assert [w["env:SHA1_IMPL"][:4] for w in by_callee["impl_fast"]] == [b"fast"], by_callee
    plain = by_callee["impl_plain"]
    assert len(plain) == 2 and {"env:SHA1_IMPL" in w for w in plain} == {True, False}, plain
    assert all(not w.get("env:SHA1_IMPL", b"").startswith(b"fast") for w in plain), plain
