"""Refusals are one clear line and exit 2: unknown instruction, unresolved symbol, indirect jump (issue 12).

Each refusal is checked on the three commands that prove machine code:
``prove --asm`` (a straight-line snippet, assembled then decoded),
``prove --object`` and ``analyze`` (a whole function: the project's own
x86-64 export with one line added). The line names what was refused and
where: the file and source line (snippets) or the address and line (functions).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.support.cli import one_line_error
from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook

SNIPPET = "\tmov %ebx, %eax\n{line}\n\tadd %ecx, %eax\n"
SNIPPET_REFUSALS = {
    "unknown instruction": ("\tpopcnt %ecx, %eax", ":2: unsupported instruction 'popcnt' at 0x2"),
    "unresolved symbol": ("\tadd K_00_19(%rip), %eax", ":2: unresolved symbol 'K_00_19' at 0x2"),
    "indirect jump": ("\tjmp *%rdx", ":2: indirect jump in straight-line code at 0x2"),
}
# Added right after the entry's "jz .Lsha1_done" (the unknown instruction: before round 0's first bswap). The
# unknown instruction is one no table models (``popcnt``: not ``adc``, which the lifter adds on integers).
FUNCTION_REFUSALS = {
    "unknown instruction": ("\tbswap %r8d\n", "\tpopcnt %ecx, %r8d\n\tbswap %r8d\n",
                            "unsupported instruction popcnt at 0x"),
    "unresolved symbol": ("\tjz .Lsha1_done\n", "\tjz .Lsha1_done\n\tcall sha1_hook\n",
                          "calls an external function (sha1_hook)"),
    "indirect jump": ("\tjz .Lsha1_done\n", "\tjz .Lsha1_done\n\tjmp *%rax\n", "indirect jump at 0x9 (line 8)"),
}


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def export_text() -> str:
    return function_text(textbook("x86_64"))


@pytest.mark.parametrize("what", sorted(SNIPPET_REFUSALS))
def test_prove_asm_refusal_is_one_line_naming_file_line_and_address(tmp_path, what):
    line, needle = SNIPPET_REFUSALS[what]
    f = tmp_path / "snippet.s"
    f.write_text(SNIPPET.format(line=line))
    one_line_error(run("prove", "--asm", str(f), "--out", "eax", "--expr", "b+c", "--map", "b=ebx,c=ecx"),
                   f"{f}{needle}")


@pytest.mark.parametrize("command", ["prove", "analyze"])
@pytest.mark.parametrize("what", sorted(FUNCTION_REFUSALS))
def test_whole_function_refusal_is_one_line_naming_the_instruction(tmp_path, export_text, command, what):
    old, new, needle = FUNCTION_REFUSALS[what]
    f = tmp_path / "variant.S"
    f.write_text(export_text.replace(old, new, 1))
    args = ["prove", "--object", str(f)] if command == "prove" else ["analyze", str(f), "--uarch", "zen3"]
    one_line_error(run(*args), needle)


def test_snippet_text_the_assembler_rejects_is_one_line_with_its_message(tmp_path):
    f = tmp_path / "bad.s"
    f.write_text("\tmov %ebx, %eax\n\tfrobnicate %eax\n")
    one_line_error(run("prove", "--asm", str(f), "--out", "eax", "--expr", "b", "--map", "b=ebx"),
                   "bad.s:2:", "frobnicate")


@pytest.mark.parametrize("line, needle", [
    ("\tret", "ret in straight-line code"),
    ("\tjnz .+4", "jne in straight-line code"),
    ("\tmovzbl (%rsi), %eax", "unsupported instruction 'movzx'"),
    ("\tadd %rcx, %rax", "64-bit operand size is only modelled for pointer moves"),
    ("\taddw $1, (%rsi)", "2-byte memory operand"),
])
def test_prove_asm_refuses_what_the_straight_line_model_would_get_wrong(tmp_path, line, needle):
    f = tmp_path / "snippet.s"
    f.write_text(SNIPPET.format(line=line))
    one_line_error(run("prove", "--asm", str(f), "--out", "eax", "--expr", "b+c", "--map", "b=ebx,c=ecx"),
                   f"{f}:2: {needle}")
