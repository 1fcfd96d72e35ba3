"""Property-based fuzz of the text front ends: the expression grammar and the AT&T (.s/.S) readers.

Properties:
- ``expr.parse`` on any text returns a term or raises ``ParseError`` with a
  one-line message; on a generated well-formed expression, printed with the
  fewest parentheses C precedence allows, it returns the term a reference
  evaluator agrees with on random inputs (precedence, associativity, counts
  mod 32, constants at 32 bits).
- ``att.parse_text`` and ``listing.parse_listing`` on generated assembly
  (valid lines, near-misses, directives, comments, labels, garbage) return
  or raise a ``Sha1optError``, nothing else.
- ``sha1opt analyze`` and ``sha1opt prove --asm`` on generated files and on
  damaged copies of a real block function exit 0/1/2/3 with no traceback,
  within their limit.

Fixed budget (about 10 s for this file), ``derandomize=True``, no example
database; ``SHA1OPT_FUZZ_SCALE=N`` multiplies the examples and randomizes
them for a longer hunt by hand. The regression tests at the end are defects
this fuzz found (strict xfails until they were fixed; a defect still open is
pinned that way, with its ``known_defect`` exclusion).
"""

from __future__ import annotations

import os
import random
import re
import signal
import traceback
from contextlib import contextmanager

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st

from tests.support.fuzz import EXIT_CODES, SCALE, Hang, fuzz, run_cli, time_limit  # noqa: F401
from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics import expr
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import ParseError, Sha1optError
from sha1opt.semantics.ir import evaluate
from sha1opt.semantics.listing import parse_listing
from sha1opt.snippet import snippet_program

M32 = 0xFFFFFFFF
VARS = ("b", "c", "d")

# --- budget and the CLI check (as in test_fuzz_cli.py; kept here so each file stands alone) ----------











# --- the expression grammar ----------------------------------------------------------------------

# (precedence, python reference) per binary operator; higher binds tighter, as in expr._BINARY.
BINARY = {
    "|": (1, lambda x, y: x | y),
    "^": (2, lambda x, y: x ^ y),
    "&": (3, lambda x, y: x & y),
    "<<": (4, lambda x, y: (x << (y & 31)) & M32),
    ">>": (4, lambda x, y: x >> (y & 31)),
    "+": (5, lambda x, y: (x + y) & M32),
    "-": (5, lambda x, y: (x - y) & M32),
}
UNARY = {"~": lambda x: ~x & M32, "-": lambda x: -x & M32, "+": lambda x: x}


def _rol(x, n):
    n &= 31
    return ((x << n) | (x >> (32 - n))) & M32 if n else x


CALLS = {"rol": _rol, "ror": lambda x, n: _rol(x, (32 - (n & 31)) & 31),
         "bswap": lambda x: int.from_bytes(x.to_bytes(4, "little"), "big")}

# Trees: ("var", name) | ("const", n) | ("un", op, t) | ("bin", op, l, r) | ("call", f, args)
LEAVES = st.one_of(st.sampled_from(VARS).map(lambda v: ("var", v)),
                   st.one_of(st.integers(0, 40), st.integers(0, M32)).map(lambda n: ("const", n)))


def _extend(sub):
    return st.one_of(
        st.tuples(st.just("un"), st.sampled_from(list(UNARY)), sub),
        st.tuples(st.just("bin"), st.sampled_from(list(BINARY)), sub, sub),
        st.tuples(st.just("call"), st.sampled_from(["rol", "ror"]), st.tuples(sub, sub)),
        st.tuples(st.just("call"), st.just("bswap"), st.tuples(sub)),
    )


TREES = st.recursive(LEAVES, _extend, max_leaves=12)


def render(t, hexa: bool = False) -> str:
    """Text with the fewest parentheses C precedence needs (so the parser's precedence is what is tested)."""
    kind = t[0]
    if kind == "var":
        return t[1]
    if kind == "const":
        return hex(t[1]) if hexa else str(t[1])
    if kind == "call":
        return f"{t[1]}({', '.join(render(a, hexa) for a in t[2])})"
    if kind == "un":
        inner = render(t[2], hexa)
        if t[2][0] == "bin":
            inner = f"({inner})"
        return f"{t[1]} {inner}"         # the space keeps "- -x" from reading as anything else
    prec = BINARY[t[1]][0]
    left, right = render(t[2], hexa), render(t[3], hexa)
    if t[2][0] == "bin" and BINARY[t[2][1]][0] < prec:
        left = f"({left})"
    if t[3][0] == "bin" and BINARY[t[3][1]][0] <= prec:     # left-associative: a - (b - c) keeps its parentheses
        right = f"({right})"
    return f"{left} {t[1]} {right}"


def reference(t, env: dict[str, int]) -> int:
    kind = t[0]
    if kind == "var":
        return env[t[1]]
    if kind == "const":
        return t[1]
    if kind == "un":
        return UNARY[t[1]](reference(t[2], env))
    if kind == "call":
        return CALLS[t[1]](*(reference(a, env) for a in t[2]))
    return BINARY[t[1]][1](reference(t[2], env), reference(t[3], env))


def _used(t) -> set[str]:
    if t[0] == "var":
        return {t[1]}
    if t[0] == "const":
        return set()
    kids = t[2] if t[0] == "call" else t[2:]
    return set().union(*(_used(k) for k in kids))


@fuzz(150)
@given(TREES, st.booleans(), st.integers(0, 2**32 - 1))
def test_fuzz_expression_round_trip_matches_a_reference_evaluator(tree, hexa, seed):
    """Printed with minimal parentheses, parsed back, the term computes what C precedence says."""
    text = render(tree, hexa)
    term = expr.parse(text)
    rng = random.Random(seed)
    lanes = 8
    envs = [{v: rng.choice([0, 1, M32, 0x80000000, rng.getrandbits(32)]) for v in VARS} for _ in range(lanes)]
    dom = NumpyDomain(lanes)
    arrays = {v: np.array([e[v] for e in envs], dtype=np.uint32) for v in VARS}
    (got,) = evaluate([term], dom, arrays)
    got = np.broadcast_to(np.asarray(got, dtype=np.uint32), (lanes,))
    want = [reference(tree, e) for e in envs]
    assert [int(x) for x in got] == want, text


GRAMMAR_SOUP = st.text(alphabet="bcdx0123456789 ~&|^+-<>(),rolbswap_\t", max_size=40)


@fuzz(300)
@given(st.one_of(GRAMMAR_SOUP, st.text(max_size=40), TREES.map(render).map(lambda s: s[: len(s) // 2])))
def test_fuzz_expression_parse_returns_a_term_or_one_line_parse_error(text):
    try:
        expr.parse(text)
    except ParseError as e:
        assert "\n" not in str(e), str(e)
        assert str(e).startswith("column ") or "characters; the limit is" in str(e), str(e)


@fuzz(20)
@given(st.integers(expr.MAX_DEPTH - 3, 3 * expr.MAX_DEPTH), st.sampled_from(["(", "~", "-", "rol("]))
def test_fuzz_expression_deep_nesting_is_refused_not_a_recursion_error(depth, opener):
    closer = {"(": ")", "~": "", "-": "", "rol(": ", 1)"}[opener]
    text = opener * depth + "b" + closer * depth
    with time_limit(5):
        try:
            expr.parse(text)
        except ParseError as e:
            assert "nesting deeper than" in str(e)


# --- the AT&T front end --------------------------------------------------------------------------

REGS = ["%eax", "%ebx", "%ecx", "%edx", "%esi", "%edi", "%ebp", "%esp", "%r8d", "%r15d", "%rax", "%rsi",
        "%rsp", "%cl", "%ax", "%al", "%xmm0", "%eip", "%", "%foo"]
IMMS = ["$0", "$1", "$31", "$32", "$-1", "$0x5a827999", "$0xffffffff", "$0x100000000", "$sym", "$", "$1+2", "$0b101"]
MEMS = ["(%rsi)", "4(%rsi)", "-4(%rsp)", "0x40(%rsp)", "(%rsi,%rdx,4)", "(%esp)", "8(%esp,%eax)", "(,%eax,2)",
        "sym(%rip)", "(%rsi", "4(%rsi))", "()", "16", "(%rsi,%rdx,3)"]
MNEMONICS = ["mov", "movl", "movq", "add", "addl", "addq", "sub", "and", "or", "xor", "not", "andn", "rol", "roll",
             "ror", "rorx", "shl", "sal", "shr", "lea", "leal", "leaq", "bswap", "adc", "imul", "push", "ret", "jnz",
             "dec", "cmp", "nop", "MOV", "Xor"]
DIRECTIVES = [".text", ".globl f", ".p2align 4", ".type f, @function", ".size f, .-f", ".byte 0x90", ".long 1",
              ".fill 8", ".incbin \"x\"", ".include \"x.s\"", ".section .data", ".cfi_startproc", ".rept 3", ".endr",
              ".if 0", ".endif", ".macro m", ".endm", ".set x, 1"]


def _operand():
    return st.sampled_from(REGS + IMMS + MEMS)


INSTRUCTIONS = st.tuples(st.sampled_from(MNEMONICS), st.lists(_operand(), max_size=3)).map(
    lambda t: f"\t{t[0]} {', '.join(t[1])}".rstrip())
LINES = st.one_of(
    INSTRUCTIONS, INSTRUCTIONS, INSTRUCTIONS,
    st.sampled_from(DIRECTIVES),
    st.sampled_from(["", "# comment", "/* block */", "/* open", "*/", "f:", "1:", ".Lloop:", "a: b: mov %eax, %ebx",
                     "mov %eax, %ebx; add %ecx, %ebx", "\tjnz .Lloop", "\tjnz 1b"]),
    st.text(alphabet="%$(),.:;#/* \tabcdelmorx0123456789", max_size=30),
    st.text(max_size=15),
)
SOURCES = st.lists(LINES, max_size=12).map("\n".join)
ARCHES = st.sampled_from(["x86_64", "i386"])


# A q-suffixed add/sub/lea with no operand: test_addq_without_operands_is_an_index_error below.
_ADDQ_BARE = re.compile(r"(?i)\b(?:add|sub|lea)q\s*(?:$|[;#/])", re.M)


def known_defect(text: str) -> bool:
    return bool(_ADDQ_BARE.search(text))


@fuzz(300)
@given(SOURCES, ARCHES)
def test_fuzz_att_parse_text_returns_or_raises_sha1opt_error(text, arch):
    assume(not known_defect(text))
    try:
        parse_text(text, arch, "fuzz.s")
    except Sha1optError as e:
        assert str(e).startswith("fuzz.s:"), str(e)


@fuzz(300)
@given(SOURCES, ARCHES)
def test_fuzz_listing_parse_returns_or_raises_sha1opt_error(text, arch):
    assume(not known_defect(text))
    try:
        listing = parse_listing(text, arch, "fuzz.s")
    except Sha1optError:
        return
    try:
        listing.loop()
    except Sha1optError:
        pass


@fuzz(40)
@given(SOURCES, st.sampled_from(["zen3", "p4", "atom"]))
def test_fuzz_analyze_generated_text(tmp_path_factory, text, uarch):
    assume(not known_defect(text))
    f = tmp_path_factory.getbasetemp() / "fuzz_analyze.s"
    f.write_text(text)
    run_cli(["analyze", str(f), "--uarch", uarch])


@fuzz(40)
@given(SOURCES)
def test_fuzz_prove_asm_generated_text(tmp_path_factory, text):
    assume(not known_defect(text))
    f = tmp_path_factory.getbasetemp() / "fuzz_prove.s"
    f.write_text(text)
    run_cli(["prove", "--asm", str(f), "--out", "eax", "--expr", "b+c", "--map", "b=ebx,c=ecx", "--timeout", "2"])


_BLOCK = {arch: function_text(textbook(arch)).splitlines() for arch in ("x86_64", "i386")}


DAMAGES = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(["delete", "duplicate", "replace"]), LINES),
                  min_size=1, max_size=3)


def _analyze_damaged(tmp_path_factory, arch, edits) -> None:
    """A real block function with a few lines deleted, doubled or replaced: parsed, simulated, proved or not."""
    lines = list(_BLOCK[arch])
    for pos, how, new in edits:
        k = pos % len(lines)
        if how == "delete":
            del lines[k]
        elif how == "duplicate":
            lines.insert(k, lines[k])
        else:
            lines[k] = new
    assume(not known_defect("\n".join(lines)))
    f = tmp_path_factory.getbasetemp() / f"fuzz_block_{arch}.S"
    f.write_text("\n".join(lines) + "\n")
    # a whole function's proof: seconds, not the sub-second of the other calls -- 20 s was a false "hang" on a
    # loaded 2-core machine (load 6: analyze of a damaged x86_64 block took longer, then passed on the re-run)
    run_cli(["analyze", str(f), "--uarch", "zen3", "--arch", arch], limit=90)


@fuzz(3)
@given(ARCHES, DAMAGES)
def test_fuzz_analyze_damaged_block_function(tmp_path_factory, arch, edits):
    """A damaged block function (``_analyze_damaged``): no traceback, no hang; 3 examples in ``make test``."""
    _analyze_damaged(tmp_path_factory, arch, edits)


@pytest.mark.slow         # bench/slow_checks.py: the same rule on more examples than make test's 3
@fuzz(12)
@given(ARCHES, DAMAGES)
def test_fuzz_analyze_damaged_block_function_deeper(tmp_path_factory, arch, edits):
    """The same rule as ``test_fuzz_analyze_damaged_block_function`` over 12 examples."""
    _analyze_damaged(tmp_path_factory, arch, edits)


# --- found while writing this file ---------------------------------------------------------------

def test_regression_prove_asm_rept_directive_was_proved_as_if_absent(tmp_path):
    """``.rept 2`` around ``add %ecx, %eax``: GNU as emits the add twice (eax = b + 2c); the text reader skipped
    the directive and proved eax = b + c. The machine code is proved now: the .rept snippet is the unrolled one."""
    rept, unrolled = tmp_path / "rept.s", tmp_path / "unrolled.s"
    rept.write_text("\tmov %ebx, %eax\n\t.rept 2\n\tadd %ecx, %eax\n\t.endr\n")
    unrolled.write_text("\tmov %ebx, %eax\n\tadd %ecx, %eax\n\tadd %ecx, %eax\n")
    assert [str(i) for i in snippet_program(rept)] == [str(i) for i in snippet_program(unrolled)]
    for f in (rept, unrolled):
        ok = run_cli(["prove", "--asm", str(f), "--out", "eax", "--expr", "b+c+c", "--map", "b=ebx,c=ecx"])
        assert ok.exit_code == 0 and ok.output.startswith("proved"), ok.output
        bad = run_cli(["prove", "--asm", str(f), "--out", "eax", "--expr", "b+c", "--map", "b=ebx,c=ecx"])
        assert bad.exit_code == 1 and "counterexample" in bad.output, bad.output


@pytest.mark.parametrize("name, text", [
    ("if.s", "\tmov %ebx, %eax\n\t.if 0\n\tadd %ecx, %eax\n\t.endif\n\tadd %edx, %eax\n\tadd %edx, %eax\n"),
    ("macro.s", "\t.macro twice r\n\tadd \\r, %eax\n\tadd \\r, %eax\n\t.endm\n\tmov %ebx, %eax\n\ttwice %edx\n"),
    ("cpp.S", "#define ADD add\n\tmov %ebx, %eax\n\tADD %edx, %eax\n\tADD %edx, %eax\n"),
])
def test_prove_asm_conditionals_macros_and_cpp_count_as_assembled(tmp_path, name, text):
    """What the assembler leaves out is not proved, what it expands is: each file computes eax = b + 2d."""
    f = tmp_path / name
    f.write_text(text)
    r = run_cli(["prove", "--asm", str(f), "--out", "eax", "--expr", "b+d+d", "--map", "b=ebx,d=edx"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("word", ["addq", "subq", "leaq"])
def test_regression_addq_without_operands_was_an_index_error(tmp_path, word):
    f = tmp_path / "bare.s"
    f.write_text(f"\t{word}\n")
    run_cli(["analyze", str(f), "--uarch", "zen3"])
