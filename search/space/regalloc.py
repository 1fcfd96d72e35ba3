"""Register allocation in the fixed layout: virtual temporaries -> physical registers, after ordering.

a..e live in fixed registers whose names rotate between rounds
(``frame.state_regs``); only temporaries are allocated. (Candidates with
floating registers allocate every value instead: ``search.space.assignment``,
which takes its register pool from ``TEMPS`` and ``frame.STATE_REGS``.) Linear scan over
the final order: a temporary takes a free register at its first write and
gives it back after its last read (x86 reads sources before writing the
destination, so one instruction may free a register and reuse it).

Budgets (the frame contract of ``search.space.frame``): i386 has 7 data
registers -- a..e plus ``esi``/``edi``; x86-64 has 13 once ``%rdi``/``%rsi``
carry the state and data pointers -- a..e plus ``r8d``..``r15d``.
Returns None when the order needs more temporaries than the budget.
"""

from __future__ import annotations

from sha1opt.semantics.x86 import Arch, Instr, rename
from sha1opt.search.space.order import Graph
from sha1opt.search.space.recipe import Op

TEMPS: dict[str, tuple[str, ...]] = {
    "i386": ("esi", "edi"),
    "x86_64": ("r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"),
}


def allocate(ops: list[Op], graph: Graph, order: list[int], arch: Arch,
             cache: dict | None = None) -> list[Instr] | None:
    """``cache`` (op index, physical names) -> Instr may be shared across calls on the same ops."""
    vread, vwrite, vregs = graph.vread, graph.vwrite, graph.vregs
    last_read: dict[str, int] = {}
    for pos, i in enumerate(order):
        for v in vread[i]:
            last_read[v] = pos
    assigned: dict[str, str] = {}
    free = list(TEMPS[arch])
    out: list[Instr] = []
    for pos, i in enumerate(order):
        w = vwrite[i]
        # Free first: temporaries whose last read is this instruction.
        for v in vread[i]:
            if last_read[v] == pos and v not in w:
                free.insert(0, assigned[v])
        for v in w:
            if v not in assigned:
                if not free:
                    return None
                assigned[v] = free.pop(0)
        vs = vregs[i]
        if not vs:
            out.append(ops[i].ins)
        else:
            names = tuple(assigned[v] for v in vs)
            key = (i, names)
            ins = cache.get(key) if cache is not None else None
            if ins is None:
                ins = rename(ops[i].ins, dict(zip(vs, names)))
                if cache is not None:
                    cache[key] = ins
            out.append(ins)
        # A temporary written but never read again is dead right away.
        for v in w:
            if v not in last_read:
                free.insert(0, assigned[v])
    return out
