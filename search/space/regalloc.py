"""Register allocation: virtual temporaries -> physical registers, after ordering.

a..e live in fixed registers whose names rotate between rounds
(``recipe.state_regs``); only temporaries are allocated. Linear scan over
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
    pool = list(TEMPS[arch])
    last_read: dict[str, int] = {}
    for pos, i in enumerate(order):
        for loc in graph.reads[i]:
            if isinstance(loc, str) and loc.startswith("v"):
                last_read[loc] = pos
    assigned: dict[str, str] = {}
    free = list(pool)
    out: list[Instr] = []
    for pos, i in enumerate(order):
        # Free first: temporaries whose last read is this instruction.
        dying = sorted(v for v in graph.reads[i] if isinstance(v, str) and v.startswith("v")
                       and last_read.get(v) == pos and v not in graph.writes[i])
        for v in dying:
            free.insert(0, assigned[v])
        for v in sorted(loc for loc in graph.writes[i] if isinstance(loc, str) and loc.startswith("v")):
            if v not in assigned:
                if not free:
                    return None
                assigned[v] = free.pop(0)
        vs = graph.vregs[i]
        if not vs:
            out.append(ops[i].ins)
        else:
            key = (i, tuple(assigned[v] for v in vs))
            ins = cache.get(key) if cache is not None else None
            if ins is None:
                ins = rename(ops[i].ins, {v: assigned[v] for v in vs})
                if cache is not None:
                    cache[key] = ins
            out.append(ins)
        # A temporary written but never read again is dead right away.
        for v in sorted(x for x in graph.writes[i] if isinstance(x, str)):
            if v.startswith("v") and v not in last_read and v in assigned:
                free.insert(0, assigned[v])
    return out
