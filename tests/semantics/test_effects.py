"""``x86.effects`` says exactly what ``machine.Machine`` reads and writes, on random programs.

The machine materialises state lazily: a register or memory word it reads
before any write comes from ``initial_reg`` / ``initial_mem`` (or, for an
address base, becomes a pointer), and a write is the location ``step``
returns. So on a fresh machine, one instruction's observed reads and writes
are its real effects, and they must equal what the table-derived
``effects`` claims -- registers by name, memory by (base, displacement).
"""

from __future__ import annotations

import random

import pytest

from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.machine import Machine, Pointer
from sha1opt.semantics.x86 import CL, DATA_REGS, SEMANTICS, Imm, Instr, Mem, Reg, check_operands, effects

POINTER = "esi"                       # the only address base of loads and stores
DATA = tuple(r for r in DATA_REGS["x86_64"] if r != POINTER)
SCALAR = sorted(m for m, sem in SEMANTICS.items() if not sem.vector)  # vector rows: test_vector_semantics.py
PROGRAMS = 200
LENGTH = 12


def _random_operand(rng: random.Random, kind: str):
    if kind == "reg":
        return Reg(rng.choice(DATA))
    if kind == "imm":
        return Imm(rng.randrange(0, 1 << 32))
    if kind == "count":
        return rng.choice([Imm(rng.randrange(0, 40)), CL])
    if kind == "mem":
        return Mem(Reg(POINTER, 64), disp=4 * rng.randrange(0, 16))
    if kind == "addr":                 # lea's address: data registers, index and scale
        return Mem(Reg(rng.choice(DATA), 64), rng.choice([None, Reg(rng.choice(DATA), 64)]),
                   rng.choice([1, 2, 4, 8]), rng.randrange(-(1 << 31), 1 << 31))
    raise AssertionError(kind)


# Operand kinds per form, in AT&T order; check_operands filters the illegal mixes.
_SHAPES = {
    "binary": [("reg", "reg"), ("imm", "reg"), ("mem", "reg"), ("reg", "mem"), ("imm", "mem")],
    "move":   [("reg", "reg"), ("imm", "reg"), ("mem", "reg"), ("reg", "mem"), ("imm", "mem")],
    "shift":  [("count", "reg"), ("count", "mem"), ("reg",), ("mem",)],
    "unary":  [("reg",), ("mem",)],
    "lea":    [("addr", "reg")],
    "andn":   [("reg", "reg", "reg"), ("mem", "reg", "reg")],
    "rorx":   [("imm", "reg", "reg"), ("imm", "mem", "reg")],
    "double": [("count", "reg", "reg"), ("count", "reg", "mem")],
}


def random_instruction(rng: random.Random) -> Instr:
    while True:
        mnemonic = rng.choice(SCALAR)
        shape = rng.choice(_SHAPES[SEMANTICS[mnemonic].form])
        ins = Instr(mnemonic, tuple(_random_operand(rng, k) for k in shape))
        if ins.mnemonic == "rorx":
            ins = Instr("rorx", (Imm(ins.operands[0].value & 31), *ins.operands[1:]))
        try:
            check_operands(ins)
        except UnsupportedError:
            continue
        return ins


def observe(ins: Instr) -> tuple[set, set, set, set]:
    """(registers read, registers written, memory words read, memory words written) of one run."""
    reg_reads: set = set()
    mem_reads: set = set()
    td = TermDomain()

    def initial_reg(r):
        reg_reads.add(r)
        return td.var(r)

    def initial_mem(region, off):
        mem_reads.add((region, off))
        return td.var(f"{region}[{off}]")

    m = Machine(td, initial_reg, initial_mem)
    loc, _ = m.step(ins)
    reg_reads |= {r for r, v in m.regs.items() if isinstance(v, Pointer) and (("reg", r) != loc)}
    reg_writes = {loc[1]} if loc[0] == "reg" else set()
    mem_writes = {(loc[1], loc[2])} if loc[0] == "mem" else set()
    return reg_reads, reg_writes, mem_reads, mem_writes


def claimed(ins: Instr) -> tuple[set, set, set, set]:
    e = effects(ins)
    word = lambda m: {(m.base.name, m.disp)} if m is not None else set()  # noqa: E731
    return set(e.registers_read), set(e.writes), word(e.mem_read), word(e.mem_write)


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_effects_are_what_the_machine_reads_and_writes(seed):
    rng = random.Random(seed)
    program = [random_instruction(rng) for _ in range(LENGTH)]
    for ins in program:
        assert observe(ins) == claimed(ins), str(ins)


@pytest.mark.parametrize("seed", range(20))
def test_a_program_touches_exactly_the_union_of_its_effects(seed):
    rng = random.Random(10_000 + seed)
    program = [random_instruction(rng) for _ in range(LENGTH)]
    td = TermDomain()
    m = Machine(td, lambda r: td.var(r), lambda region, off: td.var(f"{region}[{off}]"))
    m.run(program)
    regs, words = set(), set()
    for ins in program:
        r, w, mr, mw = claimed(ins)
        regs |= r | w
        words |= mr | mw
    assert set(m.regs) == regs
    assert set(m.mem) == words


def test_every_form_and_shape_is_generated():
    rng = random.Random(0)
    seen = set()
    for _ in range(5000):
        ins = random_instruction(rng)
        seen.add((ins.mnemonic, tuple(type(o).__name__ if o != CL else "CL" for o in ins.operands)))
    assert {m for m, _ in seen} == set(SCALAR)
    assert ("rol", ("CL", "Reg")) in seen and ("andn", ("Mem", "Reg", "Reg")) in seen
    assert ("add", ("Reg", "Mem")) in seen and ("shl", ("Mem",)) in seen
