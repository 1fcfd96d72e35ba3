"""``adc`` on integers after a modelled carry and ``movzx`` of a byte register, the lifter against the CPU.

Rules (``executor.PathMachine._wide``, issue 24: libiberty's byte counter): ``adc`` adds the carry flag
the last flag-writing instruction left -- ``cmp``/``sub``/``add``/``neg`` set it, ``inc`` keeps it,
``and`` clears it -- and is refused by name where no instruction the lifter models set CF (a shift, or
flags of data) or where an operand is no integer; ``movzbl %cl, %ecx`` zero-extends the byte (it once
masked at 32 bits and kept bits 8..31: gcc's per-block ``setbe %cl; movzbl %cl, %ecx`` counted wrong).
Each snippet is lifted once with symbolic register inputs (one ``explore``), then its result, evaluated
at edge and random inputs, is compared with the same snippet run natively (``tests.support.native``).
"""

from __future__ import annotations

import random

import pytest
import z3

from sha1opt.emit.toolchain import compile_source
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.executor import Int, Opq, PathMachine, Program, Ptr, State, explore
from tests.support.cpu import needs
from tests.support.native import SnippetRunner

INPUTS = ("eax", "ebx", "ecx", "edx")
# (snippet, the register it computes): each a way a modelled instruction leaves the carry for adc
MODELLED = [
    ("cmp %ebx, %eax\nadc %ecx, %edx", "edx"),            # libiberty: CF = eax < ebx (unsigned)
    ("add %ebx, %eax\nadc $0, %edx", "edx"),              # CF = the add's carry out of bit 31
    ("sub %ebx, %eax\nadc %eax, %edx", "edx"),            # the borrow, then the difference added
    ("neg %eax\nadc %ecx, %edx", "edx"),                  # CF = eax != 0
    ("cmp %ebx, %eax\ninc %ecx\nadc %ecx, %edx", "edx"),  # inc keeps CF
    ("and %ebx, %eax\nadc %ecx, %edx", "edx"),            # CF = 0
    ("cmp %eax, %ebx\nsetbe %cl\nmovzbl %cl, %ecx", "ecx"),   # gcc's per-block carry: 0 or 1, whatever ecx held
    ("movzbl %cl, %edx", "edx"),
]
REFUSED = [
    ("shl $1, %eax\nadc %ecx, %edx", "adc after flags no instruction has set"),     # (a shift's CF: not modelled)
    ("mov (%rsi), %eax\ncmp %ebx, %ecx\nadc %eax, %edx", "adc is modelled on integers only"),   # data
    ("mov (%rsi), %ecx\nmovzbl %cl, %edx", "movzx of the low byte of %cl, which holds no integer"),
]
EDGES = (0, 1, 0xFF, 0x100, 0x7FFFFFFF, 0x80000000, 0xFFFFFF00, 0xFFFFFFFF)


@pytest.fixture(scope="module")
def lifted(tmp_path_factory):
    """Each snippet (``MODELLED`` then ``REFUSED``) as function ``fK``, explored once from symbolic inputs."""
    where = tmp_path_factory.mktemp("carry")
    snippets = [s for s, _ in MODELLED + REFUSED]
    src = where / "c.S"
    src.write_text("\t.text\n" + "".join(
        f"\t.globl f{k}\n\t.type f{k}, @function\nf{k}:\n" + "".join(f"\t{ln}\n" for ln in s.splitlines())
        + f"\tret\n\t.size f{k}, .-f{k}\n" for k, s in enumerate(snippets)))
    obj = ObjectFile.parse(compile_source(src, "x86_64", where / "c.o", "test").read_bytes())
    b = Builder()
    out = []
    for k in range(len(snippets)):
        fn = decode_function(obj, obj.find_function(f"f{k}"))
        program = Program(obj, fn, decode_function)
        st = State((fn.section, fn.entry))
        st.regs.update({"esp": Ptr("stack", z3.BitVecVal(0, 64)), "esi": Ptr("data", z3.BitVecVal(0, 64))})
        st.regs.update({r: Int(z3.ZeroExt(32, z3.BitVec(r, 32))) for r in INPUTS})
        st.mem[("stack", "", 0)] = (Opq("return address"), 8)
        out.append(explore(lambda s: PathMachine(program, TermDomain(b), b.var, lambda r, o: b.var(f"{r}[{o}]"), s,
                                                 bits=64), st, set()))
    return out


def _value(ends, reg: str, inputs: dict[str, int]) -> int:
    """``reg`` at the end of the one path whose condition ``inputs`` meet (``setbe`` forks on its condition)."""
    at = [(z3.BitVec(r, 32), z3.BitVecVal(x, 32)) for r, x in inputs.items()]
    (end,) = [e for e in ends if all(z3.is_true(z3.simplify(z3.substitute(c, *at))) for c in e.state.cond)]
    return z3.simplify(z3.substitute(end.state.regs[reg].v, *at)).as_long()


@needs()
def test_adc_and_movzx_of_a_byte_match_the_cpu(lifted):
    runner = SnippetRunner([s for s, _ in MODELLED])
    rng = random.Random(24)
    cases = [dict(zip(INPUTS, (a, b, 0xABCD0000 | c, d))) for a in EDGES for b in EDGES[::3]
             for c, d in ((1, 0xFFFFFFFF), (0x80, 5))]
    cases += [{r: rng.getrandbits(32) for r in INPUTS} for _ in range(40)]
    try:
        for k, (snippet, reg) in enumerate(MODELLED):
            assert all(e.kind == "exit" for e in lifted[k]), (snippet, [e.reason for e in lifted[k]])
            for inputs in cases:
                regs, _ = runner.run(k, inputs, [0] * 16)
                assert _value(lifted[k], reg, inputs) & 0xFFFFFFFF == regs[reg], (snippet, inputs)
    finally:
        runner.close()


@pytest.mark.parametrize("k", range(len(REFUSED)), ids=[why for _, why in REFUSED])
def test_adc_without_a_modelled_carry_or_on_data_and_movzx_of_data_are_refused_by_name(lifted, k):
    """Mutants of the rule: a carry the lifter does not model, an adc or a byte zero-extension of data."""
    (end,) = lifted[len(MODELLED) + k]
    assert end.kind == "refused" and REFUSED[k][1] in end.reason, (end.kind, end.reason)
