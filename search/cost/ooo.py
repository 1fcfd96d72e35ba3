"""The out-of-order engine (P4, Core 2, Nehalem, Skylake, Zen 3), in three stages like llvm-mca's.

Stages 1 and 3 and the run live here; stage 2 is ``execute.Execute`` (with its units, ``execute.Ports``).

Per instruction, in program order:

1. dispatch (``FrontEnd.allocate``): the front end allocates ``issue_width``
   fused uops per clock into a ``window``-entry reorder buffer; an
   instruction's uops may straddle two clocks, it is allocated when its last
   one is, and it waits while the buffer is full -- and, with
   ``rules.scheduler``, while the reservation station has no free entry for
   its uops (``ReservationStation``), and with ``rules.register_reads``
   while the register file's read ports are taken (``FrontEnd.read_ports``);
   with ``rules.microcode`` a microcoded instruction comes from the sequencer,
   not the op cache (none of the ``width`` slots), and an integer instruction
   is dispatched by the integer side too, ``issue_width`` slots per clock, of
   which a microcoded one takes the rule's ``slots``; after one, the next
   instruction that is not microcoded starts the integer side on a new clock
   (``FrontEnd.integer``, ``FrontEnd.switch``);
   with ``rules.port_binding`` each compute uop's port is chosen here, by
   issue slot (``PortBinder``);
2. execute (``execute.Execute.run``): each uop is placed, at the first tick its
   inputs are ready -- but no sooner than one clock after its allocation,
   ``rules.dispatch_delay.cycles`` with that rule (uiCA's issue-to-dispatch
   delay: 5; an input ready exactly then or a clock later is seen a clock
   late) -- on the least-used free unit among its alternatives
   (``execute.Ports.place``); registers are renamed (only true dependencies count),
   a load's data comes its ``LDLAT`` after it runs (``decode``: the ``load`` row's
   latency, the ``vec_load`` row's for a load into a vector register), a
   load of a just-stored address (any 4-byte lane of a vector store; an address
   is its registers' identities, ``decode.written_identity``: a pointer
   reloaded from an unchanged slot is the same one) gets the
   data ``store_forwarding`` clocks after the store's data
   (``Rules.forward_latency`` by the store's kind: ``rules.vector_store_forwarding`` for a vector store,
   ``rules.rmw_forwarding`` for a read-modify-write -- with a register operand, or any with its
   ``immediate``), a plain reload of a plain register store has the register's value at rename with
   ``rules.memory_renaming`` (zen4: no sooner than its allocation, as an eliminated move),
   ``rules.replay`` charges a load that ran before
   its forwarded slow data, and ``rules.move_elimination`` moves cost
   nothing; the result is written back (``Execute.write_back``);
3. retire (``ReorderBuffer.retire``): in order, ``retire_width``
   instructions per clock, each no earlier than its result; a retired slot
   frees a window entry for stage 1.

Every time computed records what bound it (``attribution`` node format).

Example: on core2, 30 independent loads/stores/moves (``MIX`` in
tests/test_cost.py) take 30/4 clocks per iteration, bound by the front end.
"""

from __future__ import annotations

from sha1opt.search.cost.allocation import MoveEliminator, ReservationStation
from sha1opt.search.cost.attribution import FRONT_END, WINDOW, Trace
from sha1opt.search.cost.decode import ADDR, CLS, DATA, ELIM, FE, FLAGS, UOPS, WRITES, integer_slots
from sha1opt.search.cost.execute import Execute
from sha1opt.search.cost.model import VECTOR_CLASSES, Model


class ReorderBuffer:
    """Retire stage: in order, ``width`` instructions per clock; the retire clock of every fused uop."""

    __slots__ = ("width", "tpc", "slots", "owner", "cycle", "count")

    def __init__(self, width: int, tpc: int) -> None:
        self.width, self.tpc = width, tpc
        self.slots: list[int] = []      # retire clock of each fused uop, in order
        self.owner: list[int] = []      # the instruction each slot belongs to
        self.cycle = 0
        self.count = 0

    def retire(self, i: int, k: int, result: int, std_d: int) -> None:
        """Retire instruction ``i`` (``k`` fused uops), done at tick ``result`` (a store: its data at ``std_d``)."""
        tpc = self.tpc
        if std_d and std_d + tpc > result:
            result = std_d + tpc
        c = -(-result // tpc)                # result >= 0: every tick is
        cycle = self.cycle
        if c > cycle:
            cycle, count = c, 0
        else:
            count = self.count
        if count >= self.width:
            cycle += 1
            count = 0
        self.cycle, self.count = cycle, count + 1
        if k == 1:
            self.slots.append(cycle)
            self.owner.append(i)
        else:
            self.slots.extend([cycle] * k)
            self.owner.extend([i] * k)


class FrontEnd:
    """Dispatch stage: ``width`` fused uops per clock into a ``window``-entry reorder buffer; with
    ``rules.microcode``, the integer side's dispatch too (``integer``)."""

    __slots__ = ("width", "window", "tpc", "cycle", "count", "ints", "icycle", "icount")

    def __init__(self, width: int, window: int, tpc: int) -> None:
        self.width, self.window, self.tpc = width, window, tpc
        self.cycle = 0
        self.count = 0
        self.ints = 0            # rules.microcode: the integer instructions' share of ``count``
        self.icycle = 0          # rules.microcode: the integer side's dispatch clock and the slots taken in it
        self.icount = 0

    def allocate(self, i: int, k: int, rob: ReorderBuffer, nodes: list, fe: int | None = None) -> int:
        """The tick instruction ``i`` (``k`` fused uops, ``fe`` of them from the op cache where not all:
        ``rules.microcode``) is allocated; records its allocation node."""
        width, cycle, count = self.width, self.cycle, self.count
        if count >= width and fe != 0:             # (a microcoded instruction needs no op-cache slot)
            cycle += 1
            count = 0
        slots = rob.slots
        slot = len(slots) + k - 1 - self.window
        windowed = slot >= 0 and slots[slot] > cycle
        if windowed:
            cycle, count = slots[slot], 0
        count += k if fe is None else fe
        while count > width:
            cycle += 1
            count -= width
        self.cycle, self.count = cycle, count
        alloc = cycle * self.tpc
        if nodes is not None:
            a_pred, a_cause = (2 * rob.owner[slot], WINDOW) if windowed else ((2 * i - 1 if i else -1), FRONT_END)
            wait = alloc - nodes[a_pred][0] if a_pred >= 0 else alloc
            nodes[2 * i + 1] = (alloc, a_pred, ((a_cause, wait if wait > 0 else 0),))
        return alloc

    def switch(self) -> None:
        """``rules.microcode``: back from the microcode sequencer, the integer side starts a new clock."""
        if self.icount:
            self.icycle += 1
            self.icount = 0

    def integer(self, i: int, alloc: int, slots: int, own: int, nodes: list | None) -> int:
        """``rules.microcode``: integer instruction ``i``, allocated at tick ``alloc`` by the front end, takes
        ``slots`` of the integer side's ``width`` per clock (``own``: its op-cache slots, 0 for a microcoded
        one); the tick it is dispatched. While the integer side is not behind the front end it follows it --
        the integer instructions' slots of the front end's clock (``ints``), vector ones never counted -- so it
        delays nothing but microcode; where it is behind, the front end waits for it (its clock moves on, the
        instruction's own slots the only ones taken there), and the stall is charged to the front end."""
        tpc, width = self.tpc, self.width
        c = alloc // tpc
        ic, n = self.icycle, self.icount
        if c > ic:
            ic, n = c, self.ints - own + slots
        else:
            n += slots
        while n > width:
            ic += 1
            n -= width
        self.icycle, self.icount = ic, n
        if ic <= c:
            return alloc
        self.cycle = ic
        self.count = self.ints = own
        if nodes is not None:
            at, pred, segs = nodes[2 * i + 1]
            nodes[2 * i + 1] = (ic * tpc, pred, segs + ((FRONT_END, ic * tpc - at),))
        return ic * tpc

    def read_ports(self, i: int, k: int, d: tuple, alloc: int, ex: "Execute", retired: list, rule, state: list,
                   nodes: list) -> int:
        """``rules.register_reads`` (P6, Core 2, Nehalem): registers whose last writer has retired are read
        from the permanent register file, at most ``rule.per_clock`` distinct ones per clock; an
        instruction that would exceed it is allocated a clock later (the stall is charged to the rule).

        ``state`` is ``[clock, registers read from the file in that clock]``. Example (core2, 3 per
        clock): four instructions each reading two different long-retired registers take 3 clocks.
        """
        tpc, regs = self.tpc, ex.regs
        cyc = alloc // tpc
        perm = None                               # (a set only when some register comes from the file)
        for regs_read in (d[DATA], d[ADDR]):
            for r in regs_read:
                if r != FLAGS and ((e := regs.get(r)) is None or retired[e[2]] <= cyc):
                    perm = {r} if perm is None else perm | {r}
        if perm is None:
            return alloc
        if cyc == state[0] and len(state[1] | perm) <= rule.per_clock:
            state[1] |= perm
            return alloc
        if cyc != state[0] and len(perm) <= rule.per_clock:
            state[0], state[1] = cyc, perm
            return alloc
        new = cyc + max(1 if cyc == state[0] else 0, (len(perm) - 1) // rule.per_clock)
        if new == cyc:
            state[0], state[1] = cyc, perm
            return alloc
        state[0], state[1] = new, perm
        self.cycle, self.count = new, k
        if nodes is not None:                     # attribution recorded (record=True)
            t, pred, segs = nodes[2 * i + 1]
            nodes[2 * i + 1] = (new * tpc, pred, segs + ((rule.name, new * tpc - t),))
        return new * tpc


class Resume:
    """The last run's states every ``STEP`` instructions, so a sequence sharing its prefix resumes there.

    A local change to a candidate (one group moved) leaves the code before it,
    and the context rounds before the range, as they were; the engine's state
    after that prefix is the same, so the run restarts from the last
    checkpoint inside the shared prefix. Decoded tuples are compared by
    identity (a ``Simulator`` hands out one tuple per distinct item), so a
    shared prefix is exactly a run of the same instructions. The result is
    the same as a run from the start: the engine is deterministic and every
    piece of state it reads is restored (front end and reorder buffer
    counters, the retire slots so far, unit occupancy from the front end's
    clock on -- no uop is placed before it again --, register and store
    tables, the per-instruction times so far). A memo serves one model.

    Checks: ``tests/search/test_engine_digest.py`` (every output the same as
    the engine's before the speed work, with and without a memo).
    """

    STEP = 32

    __slots__ = ("seq", "points", "trace", "slots", "owner", "retired")

    def __init__(self) -> None:
        self.seq: list[tuple] = []
        self.points: list[tuple] = []      # (i, state before instruction i)
        self.trace: Trace | None = None
        self.slots: list[int] = []
        self.retired: list[int] | None = None   # retire clock per instruction (rules.register_reads)
        self.owner: list[int] = []

    def shared(self, seq: list[tuple]) -> int:
        old = self.seq
        n = min(len(old), len(seq))
        i = 0
        while i < n and old[i] is seq[i]:
            i += 1
        return i


def _save(i: int, front: FrontEnd, rob: ReorderBuffer, ex: Execute, rs: ReservationStation | None,
          rstate: list, mover: MoveEliminator | None, coded: bool) -> tuple:
    """A resume point before instruction ``i``; ``coded``: whether the run kept the integer side
    (``rules.microcode``), which only a run that keeps it too may resume from."""
    return (i, rstate[0], set(rstate[1]), front.cycle, front.count, front.ints, front.icycle, front.icount, rob.cycle,
            rob.count, len(rob.slots),
            ex.ports.state(front.cycle * front.tpc), dict(ex.regs), dict(ex.gen), dict(ex.stores),
            rs.state() if rs else None,
            ex.binder.state() if ex.binder else None, mover.state() if mover else None, coded)


def _restore(point: tuple, memo: Resume, front: FrontEnd, rob: ReorderBuffer, ex: Execute,
             rs: ReservationStation | None, rstate: list, mover: MoveEliminator | None) -> int:
    (i, rcycle, rset, front.cycle, front.count, front.ints, front.icycle, front.icount, rob.cycle, rob.count, nslots,
     ports, regs, gen, stores, held, bound, moves, _coded) = point
    rstate[0], rstate[1] = rcycle, set(rset)
    if rs is not None:
        rs.restore(held)
    if ex.binder is not None:
        ex.binder.restore(bound)
    if mover is not None:
        mover.restore(moves)
    rob.slots, rob.owner = memo.slots[:nslots], memo.owner[:nslots]
    ex.ports.restore(ports)
    ex.regs, ex.gen, ex.stores = dict(regs), dict(gen), dict(stores)
    old = memo.trace
    ex.issue[:i], ex.complete[:i], ex.units_used[:i] = old.issue[:i], old.complete[:i], old.units[:i]
    return i


_EXECUTED: dict[int, tuple] = {}     # id(decoded move) -> (the move, the same move not eliminated)


def _renamed(d: tuple, mover: MoveEliminator, clock: int) -> tuple:
    """``d`` as renamed in ``clock``: a move the renamer has no room to eliminate runs as an ALU move."""
    if not d[ELIM]:
        if clock != mover.clock:
            mover.tick(clock)
        if mover.group:
            mover.overwrite(d[WRITES])
        return d
    vector = d[CLS] in VECTOR_CLASSES     # a SIMD move (the renamer has slots per kind)
    if mover.allowed(clock, vector):
        mover.eliminate(d[DATA][0], d[WRITES][0], vector)
        return d
    e = _EXECUTED.get(id(d))
    if e is None or e[0] is not d:
        if len(_EXECUTED) > 4096:
            _EXECUTED.clear()
        e = _EXECUTED[id(d)] = (d, d[:ELIM] + (False,) + d[ELIM + 1:])
    mover.overwrite(d[WRITES])
    return e[1]


def run_out_of_order(seq: list[tuple], model: Model, record: bool = True, memo: Resume | None = None,
                     horizon: int | None = None) -> Trace:
    """Schedule the decoded ``seq`` on the out-of-order ``model``: dispatch -> execute -> retire per instruction.

    ``record=False`` skips the attribution nodes (``Trace.nodes`` is None); every time is the same.
    ``memo`` (without ``record``; one memo per model): resume from the last run's state where ``seq`` stops
    sharing its prefix; the very sequence again is the last run's trace. ``horizon``: resume points are
    kept only before that instruction (a loop's ``seq`` repeats its body: a later sequence that shares
    more than the first body is that same loop, whose trace is kept whole) -- it changes only the time.
    """
    tpc = model.ticks_per_cycle
    if memo is not None and not record and memo.trace is not None and len(memo.seq) == len(seq) and \
            memo.shared(seq) == len(seq):
        return memo.trace
    rob = ReorderBuffer(model.retire_width, tpc)
    front = FrontEnd(model.issue_width, model.window, tpc)
    ex = Execute(model, len(seq), record)
    nodes = ex.nodes
    allocate, execute, retire = front.allocate, ex.run, rob.retire
    reads = model.rules.register_reads
    rs = ReservationStation(model.rules.scheduler, tpc) if model.rules.scheduler is not None else None
    slots = model.rules.move_elimination_slots
    mover = MoveEliminator(slots) if slots is not None else None
    # the register-read stall (P6 / Core 2 / Nehalem): each instruction's retire clock, and the clock
    # whose permanent-file reads are counted with those registers
    retired = [0] * len(seq) if reads is not None else None
    rstate: list = [-1, set()]
    start = 0
    points: list[tuple] = []
    saving = memo is not None and not record
    micro = model.rules.microcode
    # rules.microcode: the integer side is kept only for a sequence with a microcoded instruction (without one it
    # follows the front end exactly: nothing to keep); a run resumes only from a point that kept it alike
    coded = micro.classes if micro is not None and any(d[CLS] in micro.classes for d in seq) else None
    if saving:
        shared = memo.shared(seq)
        points = [p for p in memo.points if p[0] <= shared and p[-1] == (coded is not None)]
        if points:
            start = _restore(points[-1], memo, front, rob, ex, rs, rstate, mover)
            if retired is not None:
                retired[:start] = memo.retired[:start]
    read_ports = front.read_ports
    binding = ex.binder is not None
    step = Resume.STEP
    last_point = len(seq) if horizon is None else min(len(seq), horizon)
    next_point = (start // step + 1) * step if saving else len(seq)
    for i in range(start, len(seq)):
        if i == next_point:
            if i < last_point:
                points.append(_save(i, front, rob, ex, rs, rstate, mover, coded is not None))
            next_point += step
        d = seq[i]
        k = d[FE]
        if coded is None:
            own = k
            alloc = allocate(i, k, rob, nodes)     # 1. dispatch
        else:                                      # ... with the microcode sequencer (rules.microcode)
            cls = d[CLS]
            mc = cls in coded
            own = 0 if mc else k                   # its op-cache slots
            before = front.cycle
            alloc = allocate(i, k, rob, nodes, own)
        if mover is not None:                      # ... eliminating a move only while the renamer has room
            d = _renamed(d, mover, front.cycle)
        if rs is not None and not d[ELIM]:         # ... into free reservation-station entries
            alloc = rs.admit(i, len(d[UOPS]), own, alloc, front, nodes)
        if coded is not None:                      # ... and by the integer side
            vector = cls in VECTOR_CLASSES
            if front.cycle != before:              # (the integer instructions' share of the front end's clock)
                front.ints = 0 if vector else front.count
            elif not vector:
                front.ints += own
            if not mc and i and seq[i - 1][CLS] in coded:
                front.switch()
            if not vector:
                alloc = front.integer(i, alloc, integer_slots(d, model), own, nodes)
        if retired is not None:                    # ... reading at most so many retired registers per clock
            alloc = read_ports(i, k, d, alloc, ex, retired, reads, rstate, nodes)
        if binding:                                # ... the issue slot it took (rules.port_binding)
            slot = front.count - k
            ex.slot = slot if slot > 0 else 0
        result, std_d = execute(i, d, alloc)       # 2. issue / execute / write back
        if rs is not None:
            rs.hold(ex.dispatched)
        retire(i, k, result, std_d)                # 3. retire
        if retired is not None:
            retired[i] = rob.cycle
    trace = Trace(ex.issue, ex.complete, ex.units_used, nodes)
    if saving:
        memo.seq, memo.points, memo.trace, memo.slots, memo.owner = seq, points, trace, rob.slots, rob.owner
        memo.retired = retired
    return trace
