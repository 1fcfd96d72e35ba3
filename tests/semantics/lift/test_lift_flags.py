"""The lifter's flags against the CPU: every modelled condition after cmp/sub/add/test/inc/dec.

For each (instruction, condition) a snippet runs natively (``emit.native``):
``xor %edx,%edx`` (CF=0), the instruction on eax/ebx, then ``j<cc>`` over a
``mov $1,%ecx``; whether the branch was taken is compared with the z3
condition the executor computes from the same inputs.
"""

from __future__ import annotations

import random

import z3

from tests.support.cpu import needs
from tests.support.native import SnippetRunner
from sha1opt.semantics.lift.executor import PathMachine
from sha1opt.semantics.lift.paths import State

CONDS = ("e", "ne", "s", "ns", "b", "ae", "a", "be", "l", "ge", "g", "le", "o", "no")
OPS = ("cmp", "sub", "add", "test", "inc", "dec")
EDGES = (0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE)


def _snippet(op: str, cc: str) -> str:
    ins = f"{op} %eax" if op in ("inc", "dec") else f"{op} %ebx, %eax"
    return f"xor %edx, %edx\nmov $0, %ecx\n{ins}\nj{cc} 1f\nmov $1, %ecx\n1:\n"


def _model(op: str, cc: str, a: int, b: int) -> bool:
    pm = PathMachine(None, None, None, None, State(("", 0)), bits=32)
    x, y = z3.BitVecVal(a, 32), z3.BitVecVal(b, 32)
    pm.set_flags_logic(z3.BitVecVal(0, 32), 4)                      # xor %edx,%edx: CF = 0
    cf = pm.s.flags.cf
    if op in ("cmp", "sub"):
        pm.set_flags_sub(x, y, x - y, 4)
    elif op == "add":
        pm.set_flags_add(x, y, x + y, 4)
    elif op == "test":
        pm.set_flags_logic(x & y, 4)
    elif op == "inc":
        pm.set_flags_add(x, z3.BitVecVal(1, 32), x + 1, 4)
        pm.s.flags.cf = cf
    else:
        pm.set_flags_sub(x, z3.BitVecVal(1, 32), x - 1, 4)
        pm.s.flags.cf = cf
    return z3.is_true(z3.simplify(pm.condition(f"j{cc}", None)))


@needs()
def test_branch_conditions_match_the_cpu():
    cases = [(op, cc) for op in OPS for cc in CONDS]
    runner = SnippetRunner([_snippet(op, cc) for op, cc in cases])
    rng = random.Random(7)
    pairs = [(a, b) for a in EDGES for b in EDGES] + [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(40)]
    try:
        for k, (op, cc) in enumerate(cases):
            for a, b in pairs:
                regs, _ = runner.run(k, {"eax": a, "ebx": b, "ecx": 7, "edx": 5}, [0] * 16)
                taken = regs["ecx"] == 0
                assert taken == _model(op, cc, a, b), (op, cc, hex(a), hex(b))
    finally:
        runner.close()
