"""The prover's outcomes: Proved only from unsat, real counterexamples, Unknown is not success."""

import numpy as np
import pytest

from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import Builder, evaluate
from sha1opt.semantics.prove import Counterexample, Proved, Prover, Unknown, program_term, prove_exprs, prove_program


def _holds(cex: Counterexample, lhs: str, rhs: str) -> bool:
    env = {k: np.array([v], dtype=np.uint32) for k, v in cex.inputs.items()}
    b = Builder()
    lv, rv = evaluate([parse(lhs, b), parse(rhs, b)], NumpyDomain(1), env)
    return int(lv[0]) == cex.lhs and int(rv[0]) == cex.rhs and cex.lhs != cex.rhs


def test_issue_example_proved():
    assert isinstance(prove_exprs("(b&c)|(d&(b|c))", "(b&c)+(d&(b^c))"), Proved)


def test_issue_example_counterexample_is_real():
    lhs, rhs = "(b&c)|(d&(b|c))", "(b&c)+(d&(b|c))"
    out = prove_exprs(lhs, rhs)
    assert isinstance(out, Counterexample) and _holds(out, lhs, rhs)


def test_z3_counterexample_joins_the_test_set():
    # Differs only when x == 0x12345678: random tests miss it, Z3 finds it.
    z = "(x ^ 0x12345678)"
    lhs, rhs = "x", f"x + ((({z} - 1) & ~{z}) >> 31)"   # + 1 exactly when z == 0
    p = Prover()
    first = prove_exprs(lhs, rhs, prover=p)
    assert isinstance(first, Counterexample) and first.found_by == "z3"
    assert first.inputs == {"x": 0x12345678} and _holds(first, lhs, rhs)
    calls = p.solver_calls
    again = prove_exprs(lhs, rhs, prover=p)
    assert isinstance(again, Counterexample) and again.found_by == "tests"
    assert p.solver_calls == calls      # the prefilter caught it: no second solver call


def _majority_rounds(b, form, n=12):
    """n majority rounds from symbolic state, f3 written in the given form."""
    a, bb, c, d, e = (b.var(x) for x in "abcde")
    for t in range(n):
        f = {"or": (bb & c) | (d & (bb | c)), "sum": (bb & c) + (d & (bb ^ c))}[form]
        a, bb, c, d, e = a.rol(5) + f + e + 0x8F1BBCDC + b.var(f"w{t}"), a, bb.rol(30), c, d
    return a


def test_unknown_is_reported_not_proved():
    # Equal (the corpus proves the f3 forms equal) but monolithic over 12
    # rounds: far beyond a 50 ms budget. The answer must be Unknown -- it can
    # not be a counterexample, and a timeout must never read as a proof.
    b = Builder()
    res = Prover(timeout=0.05).check(_majority_rounds(b, "or"), _majority_rounds(b, "sum"))
    assert isinstance(res, Unknown), res
    assert not res.ok and "after" in res.reason


def test_bad_timeout_is_misuse():
    with pytest.raises(Sha1optError):
        Prover(timeout=0)


F3_SUM = """
    mov %ebx, %eax
    and %ecx, %eax      # b & c
    mov %ebx, %esi
    xor %ecx, %esi
    and %edx, %esi      # d & (b ^ c)
    add %esi, %eax
"""


def test_program_proved_against_formula():
    prog = parse_text(F3_SUM, "i386")
    out = prove_program(prog, "eax", "(b&c)|(d&(b|c))", {"b": "ebx", "c": "ecx", "d": "edx"})
    assert isinstance(out, Proved)


def test_program_wrong_register_gives_counterexample():
    prog = parse_text(F3_SUM, "i386")
    out = prove_program(prog, "esi", "(b&c)|(d&(b|c))", {"b": "ebx", "c": "ecx", "d": "edx"})
    assert isinstance(out, Counterexample)


def test_program_depending_on_unmapped_register_is_caught():
    prog = parse_text("mov %ebx, %eax\nadd %edi, %eax", "i386")
    out = prove_program(prog, "eax", "b", {"b": "ebx"})
    assert isinstance(out, Counterexample) and "%edi" in out.inputs


def test_program_memory_operands_read_named_words():
    prog = parse_text("mov 4(%esp), %eax\nxor 8(%esp), %eax\nrol $1, %eax", "i386")
    b = Builder()
    got = program_term(prog, "eax", {}, b)
    want = (b.var("esp[4]") ^ b.var("esp[8]")).rol(1)
    assert isinstance(Prover().check(got, want), Proved)
    assert isinstance(Prover().check(got, (b.var("esp[4]") ^ b.var("esp[12]")).rol(1)), Counterexample)


def test_unmapped_expression_variable_is_misuse():
    prog = parse_text("mov %ebx, %eax", "i386")
    with pytest.raises(Sha1optError, match="variable 'c'"):
        prove_program(prog, "eax", "b & c", {"b": "ebx"})
