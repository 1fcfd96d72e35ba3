"""``analyze`` on shared objects (issue 24): with no function named, the one SHA-1 function proved (or a short
refusal naming the candidates), and a function that tail-jumps into a stripped block function proved and
priced as one function.

The stripped case is built here: the textbook export's body made a local label, an exported
``SHA1_Transform`` that is ``mov $1, %edx; jmp`` into it (OpenSSL's shape), linked with ``gcc -shared``
and stripped, so the block function has no symbol and no size. The real ``libcrypto.so.3`` is analysed in
the slow checks only (tests/slow.toml); skipped with the reason when it is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from sha1opt.cli_analyze import analyze
from sha1opt.emit.assembly import function_text
from sha1opt.emit.objfile import load_object
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.decode import decode_function

LIBCRYPTO_SO = "/usr/lib/x86_64-linux-gnu/libcrypto.so.3"
needs_gcc = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("strip")), reason="gcc/strip not installed")


def _shared(tmp_path, text: str, name: str = "lib.so"):
    src = tmp_path / "lib.S"
    src.write_text(text)
    out = tmp_path / name
    subprocess.run(["gcc", "-shared", "-nostdlib", "-o", str(out), str(src)], check=True, capture_output=True)
    subprocess.run(["strip", str(out)], check=True, capture_output=True)
    return out


def _transform_text(name: str = "SHA1_Transform", body: str | None = None) -> str:
    if body is None:
        body = function_text(textbook("x86_64"))
        body = "\n".join(ln for ln in body.splitlines() if not ln.strip().startswith((".globl", ".type", ".size")))
    wrapper = (f"\t.text\n\t.globl {name}\n\t.type {name}, @function\n{name}:\n"
               f"\tmov $1, %edx\n\tjmp sha1_block_data_order\n\t.size {name}, .-{name}\n"
               "\t.p2align 6\n")
    return wrapper + body


OTHER = "\n\t.text\n\t.globl other\n\t.type other, @function\nother:\n\tret\n\t.size other, .-other\n"


@pytest.mark.skipif(not os.path.exists(LIBCRYPTO_SO), reason="libcrypto.so.3 not installed (libssl3)")
def test_libcrypto_so_without_a_function_named_prints_the_paths_by_models_table():
    """Issue 24: `analyze libcrypto.so.3` exited 2 after printing one 117 KB line listing every exported
    function (then, one short line naming SHA-1 candidates). Now the one SHA-1 compression function scan
    finds, SHA1_Transform (its jump enters the stripped block function), is proved and priced: the paths x
    models table of its five dispatch paths. (Slow: tests/slow.toml; the rule's fast test is below.)"""
    r = CliRunner().invoke(analyze, [LIBCRYPTO_SO, "--uarch", "zen5", "--uarch", "skylake"])
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[0]
    assert "function SHA1_Transform (the file's one SHA-1 compression function with a symbol; evidence: tail jump" \
        in head, head
    assert "paths x models, c/B" in r.output and "proved SHA-1 (whole function SHA1_Transform: 5 path(s)" in r.output


def _cfi_body(name: str) -> str:
    """A block function with an unwind extent (CFI), so that stripped it is found by its extent and round
    constants -- as libcrypto.so.3's block functions are."""
    body = function_text(textbook("x86_64")).replace("sha1_block_data_order", name).replace(".Lsha1_", f".L{name}_")
    body = "\n".join(ln for ln in body.splitlines() if not ln.strip().startswith((".globl", ".type", ".size")))
    body = body.replace(f"{name}:\n", f"{name}:\n\t.cfi_startproc\n", 1)
    return "\n" + body.replace("\t.section .note.GNU-stack", "\t.cfi_endproc\n\t.section .note.GNU-stack", 1) + "\n"


@needs_gcc
def test_regression_libcrypto_so_with_stripped_sha1_functions_beside_the_named_one_was_refused(tmp_path):
    """Issue 24: once scan found libcrypto.so.3's stripped SHA-1 bodies too, `analyze` with no --function saw 5
    candidates and refused ("name one with --function"). The one with a symbol, SHA1_Transform, is chosen; the
    header names the stripped ones for --function."""
    so = _shared(tmp_path, _transform_text(body=_cfi_body("sha1_block_data_order")) + _cfi_body("second_block")
                 + OTHER)
    r = CliRunner().invoke(analyze, [str(so), "--uarch", "zen5"])
    assert r.exit_code == 0, r.output
    assert ("function SHA1_Transform (the file's one SHA-1 compression function with a symbol; evidence: tail jump "
            "(stripped ones, named with --function: sub_") in r.output, r.output
    assert "SHA-1: proved SHA-1 (whole function SHA1_Transform: 1 path(s), 0 loop(s), one block" in r.output


@needs_gcc
def test_regression_shared_object_with_one_sha1_function_and_no_function_named_was_refused(tmp_path):
    """Issue 24: with no --function, a shared object of several global functions was refused ("name one with
    --function") even when it holds exactly one SHA-1 compression function. That one (scan's candidates, less
    those another enters) is now proved, and the header says why it was chosen; --json names it too."""
    so = _shared(tmp_path, _transform_text() + OTHER)
    r = CliRunner().invoke(analyze, [str(so), "--uarch", "zen5"])
    assert r.exit_code == 0, r.output
    assert "function SHA1_Transform (the file's one SHA-1 compression function; evidence: tail jump)" in r.output
    assert "SHA-1: proved SHA-1 (whole function SHA1_Transform: 1 path(s), 0 loop(s), one block" in r.output
    r = CliRunner().invoke(analyze, [str(so), "--uarch", "zen5", "--json"])
    got = json.loads(r.stdout)
    assert got["function"] == "SHA1_Transform" and "tail jump" in got["function_origin"] and got["proved"]


@needs_gcc
def test_shared_object_with_two_sha1_functions_and_none_named_is_one_line_naming_both(tmp_path):
    """Two exported functions each jumping into their own stripped block function: no one function to choose,
    so one short line names both SHA-1 candidates (nothing proved, exit 2)."""
    second = _transform_text("SHA1_Other").replace("sha1_block_data_order", "block_two").replace(".L", ".Ltwo")
    so = _shared(tmp_path, _transform_text() + "\n" + second + OTHER)
    r = CliRunner().invoke(analyze, [str(so), "--uarch", "zen5"])
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert "\n" not in line and len(line) < 300, line
    assert "name one with --function" in line and "SHA1_Transform" in line and "SHA1_Other" in line


@needs_gcc
def test_tail_jump_into_a_stripped_block_function_is_proved_and_priced_as_one_function(tmp_path):
    """Issue 24: `--function SHA1_Transform` on libcrypto.so.3 said "execution leaves the code": its
    ``jmp`` enters a block function no symbol describes (and the jump's target was off by the section's
    address in any linked object). Now the stripped code is decoded from the jump target and the function
    proved whole as one block and priced: ``SHA1_Transform`` under its catalogued interface (state, data)
    (corpus/interfaces.toml); the same code under a name the catalogue does not know by the count the code
    sets itself (nblocks never read, said as a finding)."""
    for name, said in (("SHA1_Transform", "from the interface catalogue"),
                       ("transform_one", "the nblocks argument is never read")):
        so = _shared(tmp_path, _transform_text(name), f"{name}.so")
        r = CliRunner().invoke(analyze, [str(so), "--uarch", "zen5", "--function", name])
        assert r.exit_code == 0, r.output
        assert f"SHA-1: proved SHA-1 (whole function {name}: 1 path(s), 0 loop(s), one block" in r.output
        assert said in r.output, r.output
        row = next(ln for ln in r.output.splitlines() if ln.startswith("  zen5")).split()
        assert float(row[2]) > 0.5                               # c/B of the one block, entry to ret


@needs_gcc
def test_run_time_words_of_a_linked_object_are_inputs_not_the_files_bytes(tmp_path):
    """Issue 24: in a shared object OpenSSL's capability words are a hidden symbol in .bss; read as the
    file's bytes (zero), the dispatch would be decided and only the integer path proved. A read of a
    writable section of a linked object is an input named by its address; .rodata stays a constant."""
    so = _shared(tmp_path, "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tmov word(%rip), %eax\n"
                           "\tadd k(%rip), %eax\n\tret\n\t.size f, .-f\n\t.section .rodata\nk:\t.long 0x5a827999\n"
                           "\t.bss\nword:\t.zero 16\n")
    uo = load_object(so, tmp_path)
    fn = decode_function(uo.obj, uo.obj.find_function("f"))
    mov, add, _ = fn.instructions.values()
    assert mov.mem_ref.region.startswith("ext:mem_") and add.mem_ref.region == "sec:.rodata"
