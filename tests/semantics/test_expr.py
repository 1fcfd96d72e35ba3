"""The user-expression grammar: C precedence, our own parser, bounded on hostile input."""

import time
import tracemalloc

import numpy as np
import pytest

from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.expr import MAX_CHARS, MAX_DEPTH, parse
from sha1opt.semantics.ir import Builder, evaluate, to_text


def value(text, **env):
    t = parse(text)
    e = {k: np.array([v], dtype=np.uint32) for k, v in env.items()}
    return int(evaluate([t], NumpyDomain(1), e)[0][0])


@pytest.mark.parametrize("text, env, want", [
    ("1 + 2 << 3", {}, 24),                       # + binds tighter than <<
    ("1 | 2 ^ 3 & 4", {}, 1 | (2 ^ (3 & 4))),     # C: & over ^ over |
    ("x - y - z", {"x": 10, "y": 3, "z": 2}, 5),  # left associative
    ("~0", {}, 0xFFFFFFFF),
    ("-1", {}, 0xFFFFFFFF),
    ("0xffffffff + 1", {}, 0),                    # wraps mod 2^32
    ("rol(0x80000001, 1)", {}, 3),
    ("ror(x, 2) ^ rol(x, 30)", {"x": 0x12345678}, 0),
    ("bswap(0x11223344)", {}, 0x44332211),
    ("x << 33", {"x": 1}, 2),                     # counts mod 32, as x86
    ("(b & c) | (d & (b | c))", {"b": 0xF0, "c": 0xCC, "d": 0xAA}, 0xE8),
])
def test_values(text, env, want):
    assert value(text, **env) == want


def test_interning_shares_subterms():
    b = Builder()
    t = parse("(b & c) | (d & (b | c))", b)
    assert len(b) == 7            # b c d, b&c, b|c, d&(b|c), or  -- the ir.py worked example
    assert all(a < i for i, n in enumerate(b.nodes) for a in n.args)
    assert to_text(t) == "((b & c) | (d & (b | c)))"


@pytest.mark.parametrize("text, message", [
    ("", "column 1: expected a number, a variable, a function call or '(', found end of input"),
    ("a +", "column 4: expected a number"),
    ("(a & b", "column 7: expected ')', found end of input"),
    ("a b", "column 3: expected an operator or end of input, found 'b'"),
    ("rol(a)", "rol takes 2 arguments, got 1"),
    ("rol a", "expected '(' after function rol"),
    ("a * b", "column 3: unexpected character '*'"),
    ("0x100000000", "does not fit in 32 bits"),
    ("foo(1)", "unknown function 'foo'"),
])
def test_malformed_input_names_position_and_expectation(text, message):
    with pytest.raises(ParseError) as e:
        parse(text)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("hostile", [
    "__import__('os').system('x')",
    "eval(x)",
    "exec('import os')",
    "().__class__",
])
def test_code_injection_is_just_a_parse_error(hostile):
    with pytest.raises(ParseError):
        parse(hostile)


def _bounded(text):
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(ParseError) as e:
        parse(text)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return str(e.value), seconds, peak


def test_ten_thousand_nested_parentheses_refused_cleanly():
    msg, seconds, peak = _bounded("(" * 10000 + "a" + ")" * 10000)
    assert f"nesting deeper than {MAX_DEPTH}" in msg
    # Refused before any recursion or term building: bounded memory, and time far from a
    # hang (a generous bound -- this shared 2-core VM swings; the real figure is ~0.1 s alone).
    assert seconds < 10.0 and peak < 50 * 2**20


def test_deep_unary_chain_refused_cleanly():
    msg, _, _ = _bounded("~" * 10000 + "a")
    assert "nesting deeper" in msg


def test_one_megabyte_expression_refused_before_tokenizing():
    msg, seconds, peak = _bounded("a+" * (2**19))
    assert f"the limit is {MAX_CHARS}" in msg
    assert seconds < 10.0 and peak < 10 * 2**20


def test_nesting_at_the_limit_still_parses():
    assert value("(" * (MAX_DEPTH - 1) + "7" + ")" * (MAX_DEPTH - 1)) == 7


def test_long_flat_expression_within_the_limit_parses():
    text = "+".join(["x"] * 5000)            # 9999 characters, a deep left spine
    assert value(text, x=3) == 15000
