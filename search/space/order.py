"""Order: the dependence graph of a range's operations, and a pressure-aware list scheduler.

Dependences are computed from what each instruction reads and writes --
registers (physical and virtual temporaries) and memory words (the W ring
slots, the input block) -- as read-after-write, write-after-read and
write-after-write edges. Any topological order of that graph computes the
same values, which is why the scheduler may reorder freely (and why the
final proof still checks it).

``list_schedule(ops, priority, temps)`` repeatedly takes the ready operation
with the highest priority whose issue keeps at most ``temps`` virtual
temporaries live (a temporary is live from its first write to its last
read). It returns None when every ready operation would exceed the budget
(the candidate is infeasible; the caller rejects it).

Invariant: the result is a permutation of ``ops`` respecting every edge.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from sha1opt.semantics import x86
from sha1opt.semantics.x86 import Instr, Mem, Reg
from sha1opt.search.space.recipe import Op


def is_virtual(r: Reg) -> bool:
    return r.name.startswith("v")


def _mem_key(m: Mem) -> tuple:
    return ("mem", m.base.name if m.base else "", m.disp)


def effects(ins: Instr) -> tuple[set, set]:
    """(locations read, locations written): register names and memory keys, from ``x86.effects``.

    Memory words are keyed by base register and displacement (``_mem_key``).
    Example: ``add 4(%rsp), %eax`` -> ``({"eax", "esp", ("mem", "esp", 4)}, {"eax"})``;
    ``mov %eax, 8(%rsp)`` -> ``({"eax", "esp"}, {("mem", "esp", 8)})``.
    """
    e = x86.effects(ins)
    reads: set = set(e.registers_read)
    writes: set = set(e.writes)
    if e.mem_read is not None:
        reads.add(_mem_key(e.mem_read))
    if e.mem_write is not None:
        writes.add(_mem_key(e.mem_write))
    return reads, writes


@dataclass
class Graph:
    preds: list[list[int]]
    succs: list[list[int]]
    reads: list[set]
    writes: list[set]
    vregs: list[tuple[str, ...]]   # virtual temporaries each op mentions, sorted
    vread: list[tuple[str, ...]] = None    # virtual temporaries each op reads, sorted
    vwrite: list[tuple[str, ...]] = None   # virtual temporaries each op writes, sorted


def build_graph(ops: list[Op]) -> Graph:
    n = len(ops)
    preds: list[set[int]] = [set() for _ in range(n)]
    last_write: dict = {}
    readers_since: dict = {}
    reads_l, writes_l = [], []
    for i, op in enumerate(ops):
        r, w = effects(op.ins)
        reads_l.append(r)
        writes_l.append(w)
        for loc in r:
            if loc in last_write:
                preds[i].add(last_write[loc])           # RAW
        for loc in w:
            if loc in last_write:
                preds[i].add(last_write[loc])           # WAW
            for j in readers_since.get(loc, ()):
                if j != i:
                    preds[i].add(j)                     # WAR
        for loc in r:
            readers_since.setdefault(loc, []).append(i)
        for loc in w:
            last_write[loc] = i
            readers_since[loc] = []
    succs: list[list[int]] = [[] for _ in range(n)]
    for i, ps in enumerate(preds):
        for p in ps:
            succs[p].append(i)
    vregs = [tuple(sorted(v for v in (r | w) if isinstance(v, str) and v.startswith("v")))
             for r, w in zip(reads_l, writes_l)]
    vread = [tuple(sorted(v for v in r if isinstance(v, str) and v.startswith("v"))) for r in reads_l]
    vwrite = [tuple(sorted(v for v in w if isinstance(v, str) and v.startswith("v"))) for w in writes_l]
    return Graph([sorted(p) for p in preds], succs, reads_l, writes_l, vregs, vread, vwrite)


def critical_path(graph: Graph, latency: list[float]) -> list[float]:
    """Longest latency-weighted path from each op to any sink (a classic list-scheduling priority)."""
    n = len(graph.preds)
    cp = [0.0] * n
    for i in range(n - 1, -1, -1):
        best = 0.0
        for s in graph.succs[i]:
            if cp[s] > best:
                best = cp[s]
        cp[i] = latency[i] + best
    return cp


def list_schedule(ops: list[Op], graph: Graph, priority: list[float], temps: int,
                  live_in: tuple[str, ...] = (), live_out: tuple[str, ...] = ()) -> list[int] | None:
    """``live_in``: values live before the first op (they count against ``temps``); ``live_out``: values
    that stay live after the last (never freed) -- the floating-register graph's entry and exit state."""
    n = len(ops)
    indeg = [len(p) for p in graph.preds]
    vread, vwrite, succs = graph.vread, graph.vwrite, graph.succs
    # Virtual temporaries: readers still to come, and which are live (written, readers to come).
    vreads: dict[str, int] = {v: 1 for v in live_out}
    for i in range(n):
        for v in vread[i]:
            vreads[v] = vreads.get(v, 0) + 1
    live: set[str] = set(live_in)
    ready = [(-priority[i], i) for i in range(n) if indeg[i] == 0]
    heapq.heapify(ready)
    heappop, heappush = heapq.heappop, heapq.heappush
    order: list[int] = []
    skipped: list[tuple[float, int]] = []
    while ready or skipped:
        chosen = -1
        new: tuple = ()
        while ready:
            item = heappop(ready)
            i = item[1]
            w = vwrite[i]
            new = tuple(v for v in w if v not in live)
            # temporaries whose last reader this is (and that it does not write) free their register
            freed = sum(1 for v in vread[i] if vreads[v] == 1 and v not in w and v in live)
            if len(live) + len(new) - freed <= temps:
                chosen = i
                break
            skipped.append(item)
        if chosen < 0:
            return None
        for item in skipped:
            heappush(ready, item)
        skipped = []
        i = chosen
        order.append(i)
        live.update(new)
        for v in vread[i]:
            vreads[v] -= 1
            if not vreads[v]:
                live.discard(v)
        for v in new:
            if not vreads.get(v, 0):
                live.discard(v)
        for s in succs[i]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heappush(ready, (-priority[s], s))
    return order if len(order) == n else None
