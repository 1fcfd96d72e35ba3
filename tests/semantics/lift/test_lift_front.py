"""The front end: any text the system toolchain assembles, objects, archives; refusals as one line, exit 2.

Each test assembles a variant of the project's own export (so what is being
proved is known to be SHA-1) and runs ``sha1opt prove --object`` on it.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.emit.toolchain import compile_source
from sha1opt.search.space.candidate import textbook


@pytest.fixture(scope="module")
def text64() -> str:
    return function_text(textbook("x86_64"))


def _prove(path, *extra):
    return CliRunner().invoke(main, ["prove", "--object", str(path), *extra])


def _refused(r, *needles) -> None:
    assert r.exit_code == 2, r.output
    assert r.stderr.strip().count("\n") == 0, r.stderr          # one line
    for n in needles:
        assert n in r.stderr, r.stderr


def test_gas_and_cpp_features_assemble_and_prove(tmp_path, text64):
    """cpp macros and #ifdef, .rept, a data section, .balign padding executed, constant expressions, .byte code."""
    t = text64.replace("add $64, %rsi", "add $ADVANCE, %rsi")
    t = t.replace("mov 4(%rdi), %ebx", "mov 4*(1)(%rdi), %ebx", 1)
    t = t.replace(".Lsha1_loop:\n", "\t.rept 3\n\tnop\n\t.endr\n\t.balign 32\n.Lsha1_loop:\n", 1)
    i = t.rindex("\tret\n")
    t = t[:i] + "\t.byte 0xc3\n" + t[i + len("\tret\n"):]
    header = ("#ifdef __x86_64__\n#define ADVANCE 64\n#else\n#define ADVANCE 0\n#endif\n"
              "\t.section .rodata.cst16,\"aM\",@progbits,16\n\t.long 1, 2, 3, 4\n"
              "\t.section .note.gnu.property,\"a\"\n\t.p2align 3\n\t.long 4, 16, 5\n")
    p = tmp_path / "variant.S"
    p.write_text(header + t)
    r = _prove(p)
    assert r.exit_code == 0, r.output
    assert "SHA-1: proved SHA-1" in r.output and "nblocks = 0: no-op" in r.output


def test_object_and_json_paths(tmp_path, text64):
    src = tmp_path / "e.S"
    src.write_text(text64)
    obj = compile_source(src, "x86_64", tmp_path / "e.o", "test")
    r = _prove(obj, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["result"] == "proved" and data["function"] == "sha1_block_data_order"
    assert [p["result"] for p in data["paths"]] == ["proved", "proved"]
    assert "nblocks >= 0" in data["contract"]


def test_i386_export_proves(tmp_path):
    p = tmp_path / "e32.S"
    p.write_text(function_text(textbook("i386")))
    r = _prove(p)
    assert r.exit_code == 0, r.output
    assert "cdecl i386" in r.output and "proved SHA-1" in r.output


def test_archive_member(tmp_path, text64):
    src = tmp_path / "e.S"
    src.write_text(text64)
    obj = compile_source(src, "x86_64", tmp_path / "sha1-x.o", "test")
    lib = tmp_path / "libx.a"
    subprocess.run(["ar", "rcs", str(lib), str(obj)], check=True)
    r = _prove(lib, "--member", "sha1-x.o")
    assert r.exit_code == 0, r.output
    assert "libx.a(sha1-x.o)" in r.output


def test_unknown_instruction_is_refused_by_name_address_and_line(tmp_path, text64):
    t = text64.replace("\tbswap %r8d\n", "\tpmulld %xmm1, %xmm0\n\tbswap %r8d\n", 1)
    p = tmp_path / "vec.S"
    p.write_text(t)
    line = t.splitlines().index("\tpmulld %xmm1, %xmm0") + 1
    _refused(_prove(p), "unsupported instruction pmulld at 0x", f"(line {line})")


def test_indirect_jump_is_refused(tmp_path, text64):
    p = tmp_path / "ind.S"
    p.write_text(text64.replace("\tjz .Lsha1_done\n", "\tjz .Lsha1_done\n\tjmp *%rax\n", 1))
    _refused(_prove(p), "indirect jump")


def test_call_to_an_unresolved_symbol_is_refused(tmp_path, text64):
    """An external function with no contract (``lift.calls.KNOWN`` has memcpy's and a few others) is refused."""
    p = tmp_path / "call.S"
    p.write_text(text64.replace("\tjz .Lsha1_done\n", "\tjz .Lsha1_done\n\tcall sha1_hook\n", 1))
    _refused(_prove(p), "calls an external function (sha1_hook)")


def test_missing_function_is_refused(tmp_path, text64):
    p = tmp_path / "e.S"
    p.write_text(text64)
    _refused(_prove(p, "--function", "sha256_block"), "no function 'sha256_block'")


def test_text_that_does_not_assemble_is_refused(tmp_path):
    p = tmp_path / "bad.s"
    p.write_text("f:\n\tfrobnicate %eax\n")
    _refused(_prove(p), "bad.s", "frobnicate")
