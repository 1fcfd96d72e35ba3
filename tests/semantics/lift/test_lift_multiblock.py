"""Loops of several blocks per iteration (``lift.multiblock``): one test per rule.

The loops are the project's own x86-64 export with its block body written
twice per iteration (the second copy reading 64 bytes on, the data pointer
advancing 128 bytes, a count in a stack slot and an exit after the first copy
when one block is left), so what a correct variant computes is known to be
SHA-1; each wrong variant is one edit of it and must not be proved -- its
failure is confirmed by running the object. OpenSSL's AVX2 path is in
test_lift_openssl.
"""

from __future__ import annotations

import re

import pytest
import z3

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.multiblock import tail_template
from sha1opt.semantics.lift.template import FREE, H, HeadTerm, Lanes
from sha1opt.semantics.lift.values import Ptr
from sha1opt.semantics.lift.schedule import ScheduleProver
from sha1opt.semantics.prove import Prover
from sha1opt.semantics.sha1 import Spec, range_spec

EXIT_AFTER_ONE = "\tdecq 64(%rsp)\n\tjz .Lout\n"


@pytest.fixture(scope="module")
def parts() -> tuple[str, str, str]:
    text = function_text(textbook("x86_64"))
    head, rest = text.split(".Lsha1_loop:\n", 1)
    body, tail = rest.split("\tadd $64, %rsi\n", 1)
    return head, body, tail.split("\tjnz .Lsha1_loop\n", 1)[1]


def _loop(parts, first: str, second: str | None = None, *, pre: str = "", mid: str = EXIT_AFTER_ONE,
          step: int = 128) -> str:
    head, body, epilogue = parts
    second = re.sub(r"(-?\d*)\(%rsi\)", lambda m: f"{int(m[1] or 0) + 64}(%rsi)", body) if second is None else second
    return (f"{head}.Lsha1_loop:\n{pre}{first}{mid}{second}\tadd ${step}, %rsi\n\tdecq 64(%rsp)\n"
            f"\tjnz .Lsha1_loop\n.Lout:\n{epilogue}")


def _prove(tmp_path, text: str):
    p = tmp_path / "two.S"
    p.write_text(text)
    return prove_object(p)


def test_two_blocks_per_iteration_with_an_odd_tail_proves(tmp_path, parts):
    res = _prove(tmp_path, _loop(parts, parts[1]))
    loop = [p for p in res.proof.paths if p.kind == "loop"]
    assert res.proved, [(p.name, p.detail) for p in res.proof.paths]
    assert len(loop) == 1 and "2-block invariant" in loop[0].detail and loop[0].block_bytes == 128
    assert "1 left: 1 compression" in loop[0].detail
    # every case's chained compressions are cut: at least the two blocks of the full case, 160 cuts each
    assert loop[0].cuts >= 2 * 160 and f"; {loop[0].cuts} cuts" in loop[0].detail


def test_three_blocks_per_iteration_with_both_tails_proves(tmp_path, parts):
    head, body, epilogue = parts
    on = [re.sub(r"(-?\d*)\(%rsi\)", lambda m, d=d: f"{int(m[1] or 0) + d}(%rsi)", body) for d in (0, 64, 128)]
    text = (f"{head}.Lsha1_loop:\n{on[0]}{EXIT_AFTER_ONE}{on[1]}{EXIT_AFTER_ONE}{on[2]}\tadd $192, %rsi\n"
            f"\tdecq 64(%rsp)\n\tjnz .Lsha1_loop\n.Lout:\n{epilogue}")
    res = _prove(tmp_path, text)
    loop = next(p for p in res.proof.paths if p.kind == "loop")
    assert res.proved and "3-block invariant" in loop.detail, loop.detail
    assert "1 left: 1 compression" in loop.detail and "2 left: 2 compression" in loop.detail


def test_advancing_two_blocks_but_compressing_one_is_not_proved(tmp_path, parts):
    res = _prove(tmp_path, _loop(parts, parts[1], ""))
    assert not res.proved and res.outcome == "counterexample"        # confirmed natively


def test_skipping_the_odd_tail_is_not_proved(tmp_path, parts):
    # one block left: leave before compressing it
    res = _prove(tmp_path, _loop(parts, parts[1], pre=EXIT_AFTER_ONE, mid=""))
    assert not res.proved and res.outcome == "counterexample"
    loop = next(p for p in res.proof.paths if p.kind == "loop")
    assert loop.outcome == "counterexample" and "1 block(s) left" in loop.detail


def test_second_block_compressing_the_first_again_is_not_proved(tmp_path, parts):
    res = _prove(tmp_path, _loop(parts, parts[1], parts[1]))
    assert not res.proved and res.outcome == "counterexample"


def test_a_step_of_no_whole_number_of_blocks_is_refused_by_name(tmp_path, parts):
    with pytest.raises(LiftRefusal, match="160 bytes .several blocks per iteration"):
        _prove(tmp_path, _loop(parts, parts[1], step=160))


def test_tail_template_havocs_head_values_of_blocks_that_do_not_exist():
    b = Builder()
    own, other = b.var("m3") + b.const(1), b.var("data[76]") + b.const(1)       # block 0 / block 1 of the pair
    k = z3.BitVec("k", 64)
    full = {("reg", "xmm0"): (Lanes((HeadTerm(own),) * 4 + (HeadTerm(other),) * 4), 0),
            ("mem", ("stack", "", -64)): (HeadTerm(other), 4), ("reg", "eax"): (H(0), 0),
            ("reg", "r9"): (Ptr("data", k * 128 + 64), 0)}
    tail = tail_template(full, 1)
    assert tail[("reg", "xmm0")][0].kinds == (HeadTerm(own),) * 4 + (FREE,) * 4
    assert tail[("mem", ("stack", "", -64))][0] == FREE
    assert tail[("reg", "eax")] == full[("reg", "eax")] and tail[("reg", "r9")] == full[("reg", "r9")]


def test_head_cuts_replace_a_schedule_word_inside_a_head_value_and_only_a_true_one():
    spec = range_spec(Builder(), 0, 79)
    spec = Spec(spec.builder, 0, 79, [f"h{i}" for i in range(5)] + [f"W{j}" for j in range(16)],
                [d for d in spec.definitions if not (d.name[0] == "W" and int(d.name[1:]) < 16)], spec.outputs)
    b = spec.builder
    w = {j: b.var(f"W{j}") for j in range(16)}
    cuts = ScheduleProver(Prover(), spec)
    k = b.const(0x5A827999)
    w16 = (w[13] ^ w[8] ^ w[2] ^ w[0]).rol(1)
    assert cuts.head_cuts(w16 + k) == b.var("W16") + k          # W16 + K as OpenSSL's AVX2 stores it
    wrong = (w[13] ^ w[8] ^ w[2] ^ w[1]).rol(1) + k
    assert cuts.head_cuts(wrong) == wrong
