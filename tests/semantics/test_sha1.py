"""The SHA-1 spec against hashlib, and compositional proofs of whole blocks of x86 code."""

import dataclasses
import os
import random

import pytest

from tests.support.rounds import ROUND_20, ROUND_20_INPUTS, ROUND_20_OUTPUTS
from sha1opt.emit.vectors import all_vectors
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.block import describe_failure, failing_round, prove_block
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.prove import Counterexample, Proved, Unknown
from sha1opt.semantics.sha1 import check_against_hashlib, digest_numpy, range_spec
from sha1opt.semantics.x86 import Imm, Instr, Reg


def test_spec_matches_hashlib_on_random_messages():
    rng = random.Random(7)
    msgs = [os.urandom(rng.randrange(0, 300)) for _ in range(200)]
    assert check_against_hashlib(msgs) == []


def test_spec_matches_hashlib_on_random_single_blocks():
    msgs = [os.urandom(55) for _ in range(2000)]   # 55 bytes pad to exactly one block
    assert check_against_hashlib(msgs) == []


def test_spec_matches_the_shipped_vectors():
    vecs = [v for v in all_vectors() if len(v.message) < 4096]
    assert [v.digest for v in vecs] == digest_numpy([v.message for v in vecs])


def _check(sched, body=None):
    return prove_block(list(body or sched.body), sched.inputs, sched.outputs, sched.pointers)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_textbook_block_proved_compositionally(arch):
    res = _check(textbook(arch))
    assert isinstance(res.outcome, Proved), res.failure
    assert res.cuts == 160          # 80 new a values and 80 message words


def test_wrong_rotate_is_refuted_at_its_round():
    sched = textbook("x86_64")
    body = list(sched.body)
    i = next(k for k in range(sched.round_starts[30], sched.round_starts[31])
             if body[k].mnemonic == "rol" and body[k].operands[0] == Imm(5))
    body[i] = Instr("rol", (Imm(6), body[i].operands[1]))
    res = _check(sched, body)
    assert isinstance(res.outcome, Counterexample)
    assert res.missing.startswith("A31 ")      # round 30 never produces its new a
    assert (res.missing_definition.name, res.missing_definition.round) == ("A31", 30)     # the same, as data
    assert failing_round(res) == 30


def _wrong_rotate_result():
    sched = textbook("x86_64")
    body = list(sched.body)
    i = next(k for k in range(sched.round_starts[30], sched.round_starts[31])
             if body[k].mnemonic == "rol" and body[k].operands[0] == Imm(5))
    body[i] = Instr("rol", (Imm(6), body[i].operands[1]))
    return _check(sched, body)


def test_describe_failure_names_the_round_location_and_counterexample():
    text = describe_failure(_wrong_rotate_result())
    first, refuted, cex, _ = text.split("; ", 3)
    assert first == "first wrong value: A31 (new a of round 30) is never computed"
    assert refuted.startswith("refuted: ")
    assert cex.startswith("counterexample: ") and "more inputs" in cex
    assert "code gives 0x" in text and "SHA-1 gives 0x" in text


def test_describe_failure_calls_a_hint_with_the_failing_round():
    res = _wrong_rotate_result()
    seen = []
    text = describe_failure(res, hint=lambda t: seen.append(t) or f"look at round {t}")
    assert seen == [30]
    assert text == describe_failure(res) + "; look at round 30"


def test_describe_failure_appends_a_string_hint_and_skips_a_callable_without_a_round():
    res = _wrong_rotate_result()
    assert describe_failure(res, hint="see the listing") == describe_failure(res) + "; see the listing"
    nothing_missing = dataclasses.replace(res, missing_definition=None)
    assert describe_failure(nothing_missing, hint=lambda t: pytest.fail("called without a round")) \
        == describe_failure(nothing_missing)


def test_describe_failure_reports_an_unknown_as_not_a_proof():
    res = _wrong_rotate_result()
    unknown = Unknown("timeout")
    res = dataclasses.replace(res, outcome=unknown, failure=dataclasses.replace(res.failure, outcome=unknown))
    assert "solver: timeout (not a proof)" in describe_failure(res)


def test_wrong_register_is_refuted():
    sched = textbook("i386")
    body = list(sched.body)
    i = next(k for k in range(sched.round_starts[50], sched.round_starts[51]) if body[k].mnemonic == "and")
    ops = body[i].operands
    body[i] = Instr("and", (Reg("ebp") if ops[0] != Reg("ebp") else Reg("eax"), ops[1]))
    res = _check(sched, body)
    assert isinstance(res.outcome, Counterexample)


def test_missing_rotate_is_refuted():
    sched = textbook("i386")
    body = list(sched.body)
    i = next(k for k in range(sched.round_starts[10], sched.round_starts[11]) if body[k].mnemonic == "ror")
    del body[i]
    res = _check(sched, body)
    assert isinstance(res.outcome, Counterexample)


@pytest.mark.parametrize("first, last", [(0, 19), (16, 39), (40, 59), (60, 79), (17, 17)])
def test_range_spec_shapes(first, last):
    spec = range_spec(Builder(), first, last)
    assert sum(d.name.startswith("A") for d in spec.definitions) == last - first + 1
    assert {"a", "b", "c", "d", "e"} <= set(spec.outputs)


def test_prove_block_proves_a_round_range():
    body = parse_text(ROUND_20, "x86_64")
    res = prove_block(body, ROUND_20_INPUTS, ROUND_20_OUTPUTS, {"esp": "stack"}, first=20, last=20)
    assert res.ok, describe_failure(res)
    assert res.cuts == 2                        # W20 and A21


def test_prove_block_refutes_a_wrong_round_range():
    body = parse_text(ROUND_20.replace("rol $30, %ebx", "rol $29, %ebx"), "x86_64")
    res = prove_block(body, ROUND_20_INPUTS, ROUND_20_OUTPUTS, {"esp": "stack"}, first=20, last=20)
    assert isinstance(res.outcome, Counterexample)
    assert res.failure.definition == "output c" and res.failure.output == "c"
