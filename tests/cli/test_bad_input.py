"""Bad input is one line and exit 2, never a traceback or a run without end; numbers are ASCII.

Issue 13 items 5 (option values) and 6 (Unicode digits). Each test is one reproduction of the
issue, named after the defect.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import one_line_error
from sha1opt.cli import main
from sha1opt.semantics import numerals
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.listing import parse_listing

SHA1OPT = Path(sys.executable).with_name("sha1opt")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def cli_process(*args: str) -> subprocess.CompletedProcess:
    """A real ``sha1opt`` process with a deadline: a command that blocks fails here instead of hanging."""
    return subprocess.run([str(SHA1OPT), *args], capture_output=True, text=True, timeout=60)


def one_line_process_error(proc: subprocess.CompletedProcess, needle: str) -> None:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and needle in proc.stderr, proc.stderr


# --- item 5: option values ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e999", "-1"])
def test_prove_timeout_not_finite_is_one_line(value):
    """Regression: inf / nan reached int(timeout * 1000) and ended in OverflowError / ValueError."""
    one_line_error(run("prove", "--timeout", value, "b+c", "c+b"), "--timeout")


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_search_time_limit_not_finite_is_refused_at_once(value):
    """Regression: --time-limit inf searched for ever (memory growing); nan ran 0 evaluations, exit 0.

    A real process with a deadline: a search that starts is a failure here, not a hang."""
    proc = cli_process("search", "--uarch", "p4", "--rounds", "40-41", "--time-limit", value,
                       "--db", "/nonexistent-dir/never-created.db")
    one_line_process_error(proc, "--time-limit")
    assert not Path("/nonexistent-dir").exists()


def test_synth_time_limit_nan_is_refused():
    one_line_error(run("synth", "--target", "f1", "--time-limit", "nan"), "--time-limit")


def test_bench_sizes_not_a_number_is_one_line(tmp_path):
    """Regression: --sizes abc ended in ValueError: invalid literal for int()."""
    f = tmp_path / "s.S"
    f.write_text("\n")
    one_line_error(run("bench", str(f), "--sizes", "abc"), "--sizes", "'abc' is not a number")


def test_bench_binary_source_with_arch_auto_is_one_line(tmp_path):
    """Regression: --arch auto read the file as text and ended in UnicodeDecodeError."""
    f = tmp_path / "bin.S"
    f.write_bytes(bytes(range(256)) * 4)
    one_line_error(run("bench", str(f)), "not a text file")


def test_bench_source_that_is_a_fifo_is_refused_without_reading(tmp_path):
    """Regression: --arch auto read the FIFO and blocked for ever."""
    p = tmp_path / "src.S"
    os.mkfifo(p)
    one_line_process_error(cli_process("bench", str(p)), "not a regular file")


def test_option_errors_are_one_line_naming_the_option():
    one_line_error(run("search", "--uarch", "p4", "--workers", "0"), "--workers", "below the minimum 1",
                   "search --help")


# --- item 6: numbers are ASCII --------------------------------------------------------------------


def test_expression_with_arabic_indic_digits_is_refused_with_a_column():
    """Regression: prove "b+١٢" "b+12" was proved (Python's int reads any Unicode digit)."""
    r = run("prove", "b+١٢", "b+12")
    one_line_error(r, "column 3", "non-ASCII digit '١'")


@pytest.mark.parametrize("text, col", [("b+１２", 3), ("0x１f", 3), ("rol(b, ５)", 8), ("b+1٢", 4)])
def test_expression_non_ascii_digits_anywhere_are_refused(text, col):
    with pytest.raises(ParseError, match=f"column {col}: non-ASCII digit"):
        parse(text)


def test_att_immediate_with_arabic_indic_digit_is_refused(tmp_path):
    """Regression: `movl $٣,%eax` was proved %eax=3 while as makes it a relocation to a symbol ٣
    (the machine code is now proved, so the relocation is what is refused)."""
    f = tmp_path / "u.s"
    f.write_text("movl $٣,%eax\n")
    r = run("prove", "--asm", str(f), "--out", "eax", "--expr", "3")
    one_line_error(r, f"{f}:1:", "unresolved symbol '٣'")


@pytest.mark.parametrize("line", ["movl ٤(%ebx), %eax", "movl 4(%ebx,%ecx,٤), %eax", "addl $0x١, %eax",
                                  "movl $-٣, %eax"])
def test_att_displacement_scale_and_hex_digits_are_ascii(line):
    with pytest.raises(ParseError, match=f"f.s:1:{line.index(next(c for c in line if not c.isascii())) + 1}: "
                                         "non-ASCII digit"):
        parse_text(line, "i386", "f.s")


def test_att_number_parser_refuses_non_ascii_digits_on_its_own():
    """parse_statement (no file context) still refuses: the operand parser itself is ASCII-only."""
    from sha1opt.semantics.att import parse_statement
    with pytest.raises(ParseError, match="immediate '٣': non-ASCII digit"):
        parse_statement("movl $٣, %eax", "i386", 1)


def test_att_leading_zero_is_octal_as_gnu_as_reads_it():
    """Regression: `$010` ended in ValueError (int('010', 0)); GNU as reads it as octal 8."""
    (ins,) = parse_text("movl $010, %eax", "i386")
    assert ins.operands[0].value == 8


def test_att_bad_octal_is_refused():
    with pytest.raises(Exception, match="is not a number"):
        parse_text("movl $08, %eax", "i386")


def test_listing_local_label_with_arabic_indic_digit_is_refused():
    """Regression: `١:` was taken as a numeric local label (re's \\d and str.isdigit are Unicode)."""
    with pytest.raises(ParseError, match="f.s:1:1: non-ASCII digit"):
        parse_listing("١:\n  addl $1, %eax\n  jne 1b\n", "i386", "f.s")


def test_non_ascii_digits_in_comments_are_fine():
    assert len(parse_text("addl $1, %eax  # ١٢ \n/* ٣ */ addl $2, %eax\n", "i386")) == 2


@pytest.mark.parametrize("args", [["search", "--uarch", "p4", "--rounds", "٤٠-٥٩"],
                                  ["search", "--uarch", "p4", "--seed", "١"],
                                  ["show", "--uarch", "p4", "--rounds", "٤٠-٤٤"],
                                  ["synth", "--target", "f1", "--max-len", "٤"]])
def test_cli_integer_options_are_ascii(args):
    """Regression: click's int() read "١" as 1."""
    r = run(*args)
    assert r.exit_code == 2 and "ASCII" in r.output, r.output


def test_bench_sizes_are_ascii(tmp_path):
    f = tmp_path / "s.S"
    f.write_text("\n")
    one_line_error(run("bench", str(f), "--sizes", "٦٤"), "non-ASCII digit")


@pytest.mark.parametrize("text", ["٤٠", "4_0", " ", "0x10", "1.0"])
def test_numerals_decimal_is_ascii_decimal_only(text):
    with pytest.raises(ParseError):
        numerals.decimal(text)


@pytest.mark.parametrize("text, value", [("40", 40), ("-3", -3), (" 7 ", 7)])
def test_numerals_decimal_reads_ascii(text, value):
    assert numerals.decimal(text) == value


@pytest.mark.parametrize("text", ["inf", "nan", "1e999", "-1", "٥", "0x10", ""])
def test_numerals_seconds_are_finite_ascii(text):
    with pytest.raises(ParseError):
        numerals.seconds(text)


def test_prove_asm_from_a_fifo_is_refused_without_reading(tmp_path):
    """Regression: --asm on a FIFO blocked for ever in read()."""
    p = tmp_path / "f.s"
    os.mkfifo(p)
    one_line_process_error(cli_process("prove", "--asm", str(p), "--out", "eax", "--expr", "b"), "not a regular file")
