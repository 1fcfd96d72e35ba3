"""The AT&T parser: GNU as spelling in, refusals name file:line and the word."""

import pytest

from sha1opt.semantics.att import parse_text, read_source
from sha1opt.semantics.errors import ParseError, UnsupportedError
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg


def test_accepts_comments_labels_directives_and_suffixes():
    text = """
        .text
        .globl f        # directives that emit nothing are ignored
    f:  movl 4(%esp), %eax   /* a block
        comment */ ; roll $5, %eax
    1:  xor 12(%esp),%ebx
        lea 0x5a827999(%eax,%ebx,1), %ecx
    """
    prog = parse_text(text, "i386")
    assert [str(i) for i in prog] == [
        "mov 4(%esp), %eax", "rol $5, %eax", "xor 12(%esp), %ebx", "lea 0x5a827999(%eax,%ebx), %ecx",
    ]
    assert prog[0] == Instr("mov", (Mem(Reg("esp"), None, 1, 4), Reg("eax")), 4)
    assert prog[2].line == 6


def test_x86_64_pointer_registers_and_immediates():
    prog = parse_text("addq $64, %rsi\nmov -8(%rsp), %r9d\nxor $-1, %eax", "x86_64")
    assert prog[0].operands == (Imm(64), Reg("esi", 64))
    assert prog[1].operands[0] == Mem(Reg("esp", 64), None, 1, -8)
    assert prog[2].operands[0] == Imm(0xFFFFFFFF)


@pytest.mark.parametrize("line, arch, message", [
    ("adc %eax, %ebx", "i386", "unsupported instruction 'adc'"),
    ("jnz 1b", "i386", "unsupported instruction 'jnz'"),
    ("cmovz %eax, %ebx", "x86_64", "unsupported instruction 'cmovz'"),
    ("mov %r8d, %eax", "i386", "%r8d does not exist on i386"),
    ("mov %ax, %bx", "i386", "unsupported register %ax"),
    ("add (%eax), 4(%ebx)", "i386", "at most one memory operand"),
    ("add %eax, $4", "i386", "destination cannot be an immediate"),
    ("rol %ebx, %eax", "i386", "count must be an immediate or %cl"),
    ("bswap 4(%esp)", "i386", "operand must be a register"),
    ("mov K(%esp), %eax", "i386", "displacement 'K' is not a number"),
    (".byte 0x90", "i386", "data directive .byte inside code"),
    ("addq %rax, %rbx", "x86_64", "only modelled for pointer"),
    ("lea 4(%eax,%ebx,3), %ecx", "i386", "scale must be 1, 2, 4 or 8"),
])
def test_refusals_name_file_line_and_word(tmp_path, line, arch, message):
    f = tmp_path / "round.s"
    f.write_text("mov %eax, %ebx\n\n" + line + "\n")
    with pytest.raises((ParseError, UnsupportedError)) as e:
        parse_text(read_source(f), arch, str(f))
    assert str(e.value).startswith(f"{f}:3: ")
    assert message in str(e.value)


def test_missing_file_is_one_line_error(tmp_path):
    with pytest.raises(ParseError, match="cannot read"):
        read_source(tmp_path / "nope.s")
