"""The layers after the proof: each test builds a defect that slips past every earlier layer.

The proof trusts two things it cannot check itself: that ``x86.SEMANTICS``
says what the CPU does, and that the assembler turns the same text into the
same machine code every time. The native vector run and the re-assembly byte
comparison are the nets for those two; without a test that reaches them, either
net could be switched off with the suite still green (issue 13, item 7).

The second half covers the nets inside the checker itself
(``composition.check_program``: a random screen, then Z3 on every cut and
output), each test written for a mutant ``bench/mutation.py`` found alive.
"""

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
import z3

import sha1opt.emit.toolchain as toolchain
from tests.support.cpu import needs
from tests.support.rounds import ROUND_20, ROUND_20_INPUTS, ROUND_20_OUTPUTS
from sha1opt.emit.assembly import SYMBOL, function_text
from sha1opt.emit.export import export
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics import x86
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.block import describe_failure, prove_block
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.prove import Counterexample, Prover
from sha1opt.semantics.x86 import Instr, Reg

needs_x86_64 = needs()                     # native validation of base x86 code


def _add_f_replaced_by_sub(arch="x86_64", round_=10):
    """The textbook block with round ``round_``'s ``add %tmp, %e`` (e += f) turned into ``sub``.

    Nothing else in the textbook block uses ``sub``, so a table in which ``sub``
    means ``add`` proves this block SHA-1 while the CPU computes e - f.
    """
    sched = textbook(arch)
    assert not any(i.mnemonic == "sub" for i in sched.body)
    body = list(sched.body)
    k = next(i for i in range(sched.round_starts[round_], sched.round_starts[round_ + 1])
             if body[i].mnemonic == "add" and all(isinstance(o, Reg) for o in body[i].operands))
    body[k] = Instr("sub", body[k].operands)
    return replace(sched, body=tuple(body))


@needs_x86_64
def test_injected_sub_really_is_wrong_under_the_true_table(tmp_path):
    """The defect of the next test is real: with the real table the proof refuses it."""
    sched = _add_f_replaced_by_sub()
    v = validate(function_text(sched), sched, tmp_path, native=False)
    assert v.failure is not None and v.failure.name == "prove", v.checks
    assert "round 10" in v.failure.detail


@needs_x86_64
def test_semantics_entry_that_disagrees_with_the_cpu_is_refused_by_the_native_vectors_only(tmp_path, monkeypatch):
    """A wrong row in x86.SEMANTICS (``sub`` computed as ``add``) makes the proof pass on code the CPU
    computes differently; only the native digest comparison in ``run_vectors`` stands between that
    and a file reported "validated"."""
    wrong = replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn)
    monkeypatch.setitem(x86.SEMANTICS, "sub", wrong)
    out = tmp_path / "wrong.S"
    res = export(_add_f_replaced_by_sub(), out)
    checks = res.validation.checks
    assert [c.name for c in checks] == ["assemble", "lift", "prove", "vectors"]
    assert [c.ok for c in checks] == [True, True, True, False], checks   # every layer before it passed
    assert not res.ok and not out.exists()
    detail = res.validation.failure.detail
    # A digest mismatch (not a crash, not a harness flag) on the very first record, the empty message.
    assert detail.startswith("fips180/empty: got "), detail
    assert detail.endswith(f", want {hashlib.sha1(b'').hexdigest()}"), detail


def _second_assembly_differs(monkeypatch):
    """Wrap ``toolchain.run`` so every assembly of our function after the first gets different text.

    The first assembly of a source defining ``sha1_block_data_order:`` (the one
    validated) is left alone; from the second on, the first ``ror $2`` becomes
    ``ror $3`` just before the tool reads the file: same length, other bytes,
    an assembler that "emits something else the second time".
    Returns the list of sources seen, in order.
    """
    real_run = toolchain.run
    seen: list[Path] = []

    def run(args, what, *rest, **kw):
        src = next((Path(a) for a in args if a.endswith((".s", ".S"))), None)
        if src is not None and src.is_file() and f"{SYMBOL}:" in src.read_text():
            seen.append(src)
            if len(seen) > 1:
                text = src.read_text()
                assert "ror $2, " in text
                src.write_text(text.replace("ror $2, ", "ror $3, ", 1))
        return real_run(args, what, *rest, **kw)

    monkeypatch.setattr(toolchain, "run", run)
    return seen


@needs_x86_64
def test_reassembly_that_differs_from_the_validated_object_is_refused_and_nothing_written(tmp_path, monkeypatch):
    """Everything validated passes (the first assembly is untouched); only the comparison of the
    written file's re-assembly with the validated object stops the export."""
    seen = _second_assembly_differs(monkeypatch)
    out = tmp_path / "drift.S"
    res = export(textbook("x86_64"), out)
    assert not res.ok and res.path is None
    assert [c.name for c in res.validation.checks if not c.ok] == ["written file"]
    assert "does not assemble to the validated object" in res.validation.checks[-1].detail
    assert len(seen) == 2                 # the validated assembly, then the re-assembly of the final text
    assert not out.exists() and list(tmp_path.iterdir()) == []


@needs_x86_64
def test_reassembly_wrapper_leaves_an_honest_export_alone(tmp_path, monkeypatch):
    """Control for the test above: with the wrapper installed but only one assembly, nothing differs."""
    seen = _second_assembly_differs(monkeypatch)
    v = validate(function_text(textbook("x86_64")), textbook("x86_64"), tmp_path, native=False)
    assert v.ok, v.failure
    assert len(seen) == 1


# --- nets inside the checker (tests added for bench/mutation.py's survivors) -------------------------
#
# check_program screens every cut and output on 64 random lanes first, then proves with Z3. A value that
# is wrong on one input in 2**32 passes the screen; only the Z3 step stands between it and "proved".

RARE = 0x13579BDF
# %r8d = 1 exactly when d (in %edx) == RARE, else 0: wrong on one input in 2**32, never on a random lane.
WHEN_D_IS_RARE = f"""
    mov %edx, %r8d
    xor ${RARE:#x}, %r8d
    mov %r8d, %r9d
    sub $1, %r9d
    not %r8d
    and %r9d, %r8d
    shr $31, %r8d
"""


def _round_20(extra: str = "", prover: Prover | None = None):
    body = parse_text(ROUND_20 + extra, "x86_64")
    return prove_block(body, ROUND_20_INPUTS, ROUND_20_OUTPUTS, {"esp": "stack"}, first=20, last=20, prover=prover)


def test_output_wrong_on_one_input_in_2_32_is_refuted_by_z3_after_the_random_screen():
    """Output d (%ecx) gets +1 only when d == RARE: the random lanes agree, the Z3 output check must not."""
    res = _round_20(WHEN_D_IS_RARE + "    add %r8d, %ecx\n")
    assert isinstance(res.outcome, Counterexample) and res.outcome.found_by == "z3", res.outcome
    assert res.failure.definition == "output d"
    assert res.outcome.inputs["d"] == RARE


NEW_A = "    add %edi, %esi         # + rol(a, 5): the new a\n"
# The new a itself made wrong when d == RARE: its only write looks like A21 on every random lane.
ROUND_20_RARE_A = ROUND_20.replace(NEW_A, WHEN_D_IS_RARE + "    add %r8d, %edi\n" + NEW_A)


def test_cut_wrong_on_one_input_in_2_32_is_refuted_by_z3_and_names_its_instruction():
    """The screen takes the wrong new a for A21 (a cut candidate); Z3 refutes the cut, and the failure names the
    instruction that wrote it and its line."""
    assert ROUND_20_RARE_A != ROUND_20
    body = parse_text(ROUND_20_RARE_A, "x86_64")
    res = prove_block(body, ROUND_20_INPUTS, ROUND_20_OUTPUTS, {"esp": "stack"}, first=20, last=20)
    assert isinstance(res.outcome, Counterexample) and res.outcome.found_by == "z3", res.outcome
    assert res.failure.definition.startswith("A21 ")
    assert res.outcome.inputs["d"] == RARE
    line = next(i for i, t in enumerate(ROUND_20_RARE_A.splitlines(), 1) if t == NEW_A.rstrip("\n"))
    assert res.failure.describe() == f"{res.failure.definition} in %esi written by `add %edi, %esi` (line {line})"


def test_two_different_unbound_registers_are_two_different_unknowns():
    """Code that adds %r10d and subtracts %r11d (neither an input) depends on two free values: refuted,
    never treated as the same unknown that cancels."""
    res = _round_20("    add %r10d, %ecx\n    sub %r11d, %ecx\n")
    assert isinstance(res.outcome, Counterexample)
    assert res.failure.definition == "output d"


@pytest.mark.parametrize("text", [ROUND_20, ROUND_20_RARE_A, ROUND_20 + WHEN_D_IS_RARE + "    add %r8d, %ecx\n"],
                         ids=["proved", "refuted at a cut", "refuted at an output"])
def test_solver_calls_count_this_check_only_when_the_prover_is_reused(text):
    prover = Prover()
    body = parse_text(text, "x86_64")
    for _ in range(2):                                 # the second check starts with calls already counted
        before = prover.solver_calls
        res = prove_block(body, ROUND_20_INPUTS, ROUND_20_OUTPUTS, {"esp": "stack"}, first=20, last=20, prover=prover)
        assert res.solver_calls == prover.solver_calls - before
    assert before > 0


def test_counterexample_text_shows_eight_inputs_and_counts_the_rest():
    res = _round_20("    add %r10d, %ecx\n")           # refuted on the random lanes: every input is named
    n = len(res.outcome.inputs)
    assert n == 21                                     # a..e and W4..W19
    text = describe_failure(res)
    assert f", ... ({n - 8} more inputs); code gives " in text
    assert text.count("=0x") == 8
    eight = Counterexample(dict(list(res.outcome.inputs.items())[:8]), 1, 2, "z3")
    exact = replace(res, outcome=eight, failure=replace(res.failure, outcome=eight))
    assert "more inputs" not in describe_failure(exact)
    nine = Counterexample(dict(list(res.outcome.inputs.items())[:9]), 1, 2, "z3")
    one_more = replace(res, outcome=nine, failure=replace(res.failure, outcome=nine))
    assert ", ... (1 more inputs); " in describe_failure(one_more)


@pytest.mark.parametrize("timeout, ms", [(2.5, 2500), (0.0004, 1)])
def test_z3_gets_the_callers_timeout_in_milliseconds_and_never_zero(monkeypatch, timeout, ms):
    """Z3 reads 0 as "no limit": a sub-millisecond timeout must still be a limit (1 ms)."""
    seen = []
    real = z3.SolverFor

    def solver_for(*args, **kw):
        s = real(*args, **kw)
        real_set = s.set
        s.set = lambda *a: (seen.append(a), real_set(*a))[1]
        return s

    monkeypatch.setattr(z3, "SolverFor", solver_for)
    b = Builder()
    x, y = b.var("x"), b.var("y")
    Prover().check(x + y, y + x, timeout=timeout)
    assert seen == [("timeout", ms)]
