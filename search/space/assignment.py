"""Floating register assignment: a..e in any register, decided with the order; spills when over budget.

The fixed layout (``frame.state_regs``, ``regalloc``) keeps a..e in five
registers whose names rotate by one per round, so the new a always lands in
e's register and only temporaries are allocated. Here every value is
allocated instead (Unison's view: allocation and scheduling decided
together):

* ``flow(ops, arch, first, last)`` reads the range's operations (generation
  order, physical a..e, virtual temporaries) as *values*: each write of a
  register makes a new value (``"eax.3"``, ``"v12.2"``). Its ``graph``
  orders operations by their values only -- read-after-write, plus
  "every other reader of a value before the two-address instruction that
  overwrites it in place" -- and by memory words as ``order.build_graph``
  does (its ``reads`` / ``writes`` hold values and memory words, a two-address
  op's ``writes`` also the value it overwrites); the false dependences of the fixed layout (``lea K(d,w),d`` of round
  t+1 waiting for round t's f to read d) are gone.
* ``assign(...)`` walks the chosen order and puts every value in a register:
  a two-address instruction's result stays in its destination's register,
  or -- choice -- in the register of a commutative source that dies there
  (``add %eax, %esi`` instead of ``add %esi, %eax``: the new a lands where
  the W temporary was); any other result (``mov``, ``lea``, ``rorx``,
  ``andn``) takes its home register (where the fixed layout keeps it) if
  free, else -- choice -- any free register or one whose value dies there.
  ``choices[op index]`` picks (0: the default).
* Over budget (the order keeps more values live than there are registers:
  ``candidate`` allows that many via the ``(-1, "regs")`` move): the value used
  furthest in the future is stored to a spill slot (``frame.SPILL_SLOTS``,
  i386 only) and reloaded before its next use, or read from the slot as the
  memory source of an ALU instruction where it dies (``xor 80(%esp), %esi``).
  Spill and reload are ordinary instructions the cost model prices (store
  forwarding, AGU ports, P4 replay).
* At the end the exit values are moved to the fixed layout's registers
  (``state_regs(last + 1)``) by register moves (a cycle through a free
  register), so ranges still join each other and the feed-forward unchanged.

Invariant: the code computes what generation order computes -- every value
is read from the register (or slot) it was put in and no live value's
register is written -- and every candidate is proved again in a whole block
before it is stored. Example: round 20 of the textbook recipe on i386, in
generation order with ``choices = {6: 1}`` (op 6 is ``lea K(e,w),e``): the lea
writes ``lea 0x6ed9eba1(%ebp,%esi), %esi`` -- the new a lands in W's register
-- so e's old register %ebp is free and f and rol(a,5) run in it (``mov
%ebx, %ebp`` ... ``add %ebp, %esi``); the exit adds ``mov %esi, %ebp``, where
round 21 expects its a.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.x86 import SEMANTICS, Arch, Instr, Mem, Reg, effects
from sha1opt.search.space.frame import SPILL_SLOTS, STATE_REGS, state_regs
from sha1opt.search.space.order import Graph, effects as op_effects
from sha1opt.search.space.recipe import Op
from sha1opt.search.space.regalloc import TEMPS

POOL: dict[str, tuple[str, ...]] = {arch: STATE_REGS + temps for arch, temps in TEMPS.items()}
SPILL = "spill"       # origin chain of spill and reload instructions
MOVE = "move"         # origin chain of the exit moves


@functools.cache
def commutes(mnemonic: str) -> bool:
    """Whether a two-operand row's value is symmetric in its operands, asked of its value function.

    ``commutes("add")`` and ``commutes("xor")`` are True, ``commutes("sub")`` False: the row's
    function is evaluated on 64 random lane pairs both ways round.
    """
    sem = SEMANTICS.get(mnemonic)
    if sem is None or sem.form != "binary":
        return False
    dom = NumpyDomain(64)
    rng = np.random.default_rng(7)
    x, y = (rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    return bool(np.array_equal(sem.fn(dom, x, y), sem.fn(dom, y, x)))


@dataclass(frozen=True)
class Flow:
    """The range's operations as values (see the module docstring); indices are op indices."""

    reads: tuple[tuple[str, ...], ...]        # values each op reads (sorted)
    names: tuple[dict, ...]                   # per op: register name in its instruction -> value read
    defs: tuple[str | None, ...]              # the value each op writes
    tied: tuple[str | None, ...]              # the value a two-address op overwrites in place
    home: dict                                # value -> its register in generation-order code
    live_in: dict                             # entry value -> register (state_regs(first))
    live_out: dict                            # exit value -> register (state_regs(last + 1))
    keys: tuple[tuple[int, int], ...]         # per op: (round, position among the round's ops)
    graph: Graph
    source: tuple[str | None, ...] = ()       # per op: the value of the source of ``op %reg, %reg`` (binary form)
    commutative: tuple[bool, ...] = ()        # per op: that op's operands may be swapped


def flow(ops: list[Op], arch: Arch, first: int, last: int) -> Flow:
    pool = set(POOL[arch])
    version: dict[str, int] = {}
    cur: dict[str, str] = {}
    for r in state_regs(first):
        cur[r.name] = f"{r.name}.0"
        version[r.name] = 0
    live_in = {v: v.split(".")[0] for v in cur.values()}
    home: dict[str, str] = dict(live_in)
    reads, names, defs, tied, keys, source, comm = [], [], [], [], [], [], []
    mem_r: list[set] = []
    mem_w: list[set] = []
    readers: dict[str, list[int]] = {}
    last_def: dict[str, int] = {}
    per_round: dict[int, int] = {}
    preds: list[set[int]] = []
    mem_write: dict = {}
    mem_readers: dict = {}
    for i, op in enumerate(ops):
        e = effects(op.ins)
        is_value = lambda n: n in pool or n.startswith("v")  # noqa: E731
        rnames = [n for n in dict.fromkeys(e.data + e.address) if is_value(n)]
        nm = {n: cur[n] for n in rnames}
        w = e.writes[0] if e.writes and is_value(e.writes[0]) else None
        p: set[int] = {last_def[v] for v in nm.values() if v in last_def}
        t = None
        d = None
        if w is not None:
            if w in e.data:                     # read and written in place (two-address)
                t = cur[w]
                p.update(j for j in readers.get(t, ()) if j != i)
            version[w] = version.get(w, 0) + 1
            d = f"{w}.{version[w]}"
            cur[w] = d
            home[d] = w if w in pool else ""
            last_def[d] = i
        for v in nm.values():
            readers.setdefault(v, []).append(i)
        # memory words, as order.build_graph orders them
        r_all, w_all = op_effects(op.ins)
        for loc in r_all:
            if isinstance(loc, tuple):
                if loc in mem_write:
                    p.add(mem_write[loc])
                mem_readers.setdefault(loc, []).append(i)
        for loc in w_all:
            if isinstance(loc, tuple):
                if loc in mem_write:
                    p.add(mem_write[loc])
                p.update(j for j in mem_readers.get(loc, ()) if j != i)
                mem_write[loc] = i
                mem_readers[loc] = []
        preds.append(p)
        mem_r.append({loc for loc in r_all if isinstance(loc, tuple)})
        # a two-address op overwrites its input too (so an edge to it from that input's reader is write-after-read)
        mem_w.append({loc for loc in w_all if isinstance(loc, tuple)} | ({t} if t else set()))
        reads.append(tuple(sorted(set(nm.values()))))
        names.append(nm)
        defs.append(d)
        tied.append(t)
        k = per_round.get(op.round, 0)
        per_round[op.round] = k + 1
        keys.append((op.round, k))
        o = op.ins.operands
        two_regs = (SEMANTICS[op.ins.mnemonic].form == "binary" and len(o) == 2 and isinstance(o[0], Reg)
                    and isinstance(o[1], Reg) and o[0].name != o[1].name and o[0].name in nm)
        source.append(nm[o[0].name] if two_regs else None)
        comm.append(two_regs and commutes(op.ins.mnemonic))
    live_out = {cur[r.name]: r.name for r in state_regs(last + 1)}
    succs: list[list[int]] = [[] for _ in ops]
    for i, ps in enumerate(preds):
        for j in ps:
            succs[j].append(i)
    vwrite = [(d,) if d else () for d in defs]
    graph = Graph([sorted(p) for p in preds], succs, [set(r) | m for r, m in zip(reads, mem_r)],
                  [set(x) | m for x, m in zip(vwrite, mem_w)],
                  [tuple(sorted(set(r) | set(x))) for r, x in zip(reads, vwrite)], list(reads), vwrite)
    return Flow(tuple(reads), tuple(names), tuple(defs), tuple(tied), home, live_in, live_out, tuple(keys), graph,
                tuple(source), tuple(comm))


def budget(arch: Arch, spills: int) -> int:
    """Values the order may keep live at once: the registers, plus ``spills`` (at most the spill slots)."""
    return len(POOL[arch]) + min(spills, len(SPILL_SLOTS[arch]))


def _place(ins: Instr, regs: dict[str, str], dest: str | None) -> Instr:
    """``ins`` with each value's register: ``regs`` for what it reads, ``dest`` for the register it writes."""
    ops = list(ins.operands)
    last = len(ops) - 1

    def fix(o, k):
        if isinstance(o, Reg):
            if k == last and dest is not None:
                return Reg(dest, o.width)
            return Reg(regs[o.name], o.width) if o.name in regs else o
        if isinstance(o, Mem):
            base = Reg(regs[o.base.name], o.base.width) if o.base is not None and o.base.name in regs else o.base
            index = Reg(regs[o.index.name], o.index.width) if o.index is not None and o.index.name in regs else o.index
            return Mem(base, index, o.scale, o.disp)
        return o
    return Instr(ins.mnemonic, tuple(fix(o, k) for k, o in enumerate(ops)), ins.line)


def assign(ops: list[Op], fl: Flow, order: list[int], arch: Arch, choices: dict[int, int],
           memo: dict | None = None) -> tuple[list[Instr], list[tuple[int, str]]] | None:
    """The order's code with every value in a register (see the module docstring), and per instruction
    its (round, chain): the op's, or ``SPILL`` / ``MOVE`` for what the assignment adds. None when the
    order needs more spill slots than the frame has. ``memo`` (placement -> Instr) may be shared by
    calls on the same ops: equal placements then give the same Instr objects (the simulator's decode
    cache hits by identity)."""
    memo = {} if memo is None else memo
    sp = Reg("esp", 64 if arch == "x86_64" else 32)
    uses: dict[str, list[int]] = {}
    for pos, i in enumerate(order):
        for v in fl.reads[i]:
            uses.setdefault(v, []).append(pos)
    end = len(order)
    for v in fl.live_out:
        uses.setdefault(v, []).append(end)
    last_use = {v: u[-1] for v, u in uses.items()}
    where: dict[str, str] = {}        # value -> register
    holder: dict[str, str] = {}       # register -> value
    slot_of: dict[str, int] = {}      # value -> spill slot (a copy there stays valid: values never change)
    free_slots = list(SPILL_SLOTS[arch])
    for v, r in fl.live_in.items():
        where[v], holder[r] = r, v
    free = [r for r in POOL[arch] if r not in holder]
    code: list[Instr] = []
    origin: list[tuple[int, str]] = []
    pos = 0

    def mov(src, dst) -> Instr:
        key = ("mov", src, dst)
        ins = memo.get(key)
        if ins is None:
            ins = memo[key] = Instr("mov", (Reg(src) if isinstance(src, str) else Mem(sp, None, 1, src),
                                            Reg(dst) if isinstance(dst, str) else Mem(sp, None, 1, dst)))
        return ins

    def next_use(v: str) -> int:
        for u in uses.get(v, ()):
            if u >= pos:
                return u
        return -1

    def evict(keep, at: tuple[int, str]) -> str | None:
        """Free a register by spilling the value used furthest ahead (not in ``keep``)."""
        victims = [v for v in holder.values() if v not in keep]
        if not victims:
            return None
        v = max(victims, key=lambda x: (next_use(x), x))
        if v not in slot_of:
            if not free_slots:
                return None
            slot_of[v] = free_slots.pop(0)
            code.append(mov(where[v], slot_of[v]))
            origin.append(at)
        r = where.pop(v)
        del holder[r]
        return r

    def release(v: str) -> None:
        r = where.pop(v, None)
        if r is not None:
            del holder[r]
            free.insert(0, r)
        s = slot_of.pop(v, None)
        if s is not None:
            free_slots.insert(0, s)

    reads, names, defs, tied, source, comm, home = fl.reads, fl.names, fl.defs, fl.tied, fl.source, fl.commutative, fl.home
    for pos, i in enumerate(order):
        op = ops[i]
        need = reads[i]
        dying = [v for v in need if last_use[v] == pos]
        src = source[i]
        # Spilled values this op reads: the memory source of an ALU op where they die, else reloaded.
        folded = None
        for v in need:
            if v in where:
                continue
            if folded is None and v == src and v in dying:
                folded = v
                continue
            r = free.pop(0) if free else evict(need, (op.round, SPILL))
            if r is None:
                return None
            code.append(mov(slot_of[v], r))
            origin.append((op.round, SPILL))
            where[v], holder[r] = r, v
        d = defs[i]
        dest = None
        swapped = False
        if d is not None:
            t = tied[i]
            if t is not None:
                dest = where[t]
                if comm[i] and folded is None and src in dying and choices.get(i, 0) % 2 == 1:
                    dest, swapped = where[src], True
            else:
                spare = [where[v] for v in dying if v in where]
                cands = spare + [r for r in free if r not in spare]
                if not cands:
                    r = evict(need, (op.round, SPILL))
                    if r is None:
                        return None
                    free.insert(0, r)
                    cands = [r]
                h = home.get(d, "")
                if h in cands:
                    cands.remove(h)
                    cands.insert(0, h)
                dest = cands[choices.get(i, 0) % len(cands)]
        key = (i, tuple(where.get(v) for v in need), dest, slot_of[folded] if folded else None, swapped)
        placed = memo.get(key)
        if placed is None:
            ins = op.ins
            regs = {n: where[v] for n, v in names[i].items() if v in where}
            if folded is not None:
                placed = _place(ins, regs, dest)
                placed = Instr(placed.mnemonic, (Mem(sp, None, 1, slot_of[folded]),) + placed.operands[1:], ins.line)
            elif swapped:
                placed = Instr(ins.mnemonic, (Reg(regs[ins.dest.name]), Reg(dest)), ins.line)
            else:
                placed = _place(ins, regs, dest)
            memo[key] = placed
        code.append(placed)
        origin.append((op.round, op.chain))
        for v in dying:
            if where.get(v) == dest:       # the result took this register: it is not freed
                del where[v]
                del holder[dest]
                s = slot_of.pop(v, None)
                if s is not None:
                    free_slots.insert(0, s)
            else:
                release(v)
        if d is not None:
            if dest in free:
                free.remove(dest)
            where[d], holder[dest] = dest, d
            if d not in uses:               # written, never read: dead at once
                release(d)
    # Exit: every exit value to its fixed-layout register.
    pending = {r: v for v, r in fl.live_out.items() if where.get(v) != r}
    at = (ops[order[-1]].round if order else 0, MOVE)
    while pending:
        done = [r for r in pending if r not in holder]
        if done:
            for r in done:
                v = pending.pop(r)
                if v in where:
                    old = where[v]
                    code.append(mov(old, r))
                    del holder[old]
                    free.insert(0, old)
                else:
                    code.append(mov(slot_of[v], r))
                if r in free:
                    free.remove(r)
                where[v], holder[r] = r, v
                origin.append(at)
            continue
        # a cycle: move one blocking value aside through a free register
        r = next(iter(pending))
        v = holder[r]
        if not free:
            return None
        t = free.pop(0)
        code.append(mov(r, t))
        origin.append(at)
        del holder[r]
        free.insert(0, r)
        where[v], holder[t] = t, v
    return code, origin
