"""The allocation stage's limited resources (out-of-order engine): scheduler entries, port choice, move elimination.

Each class is one rule of the model's data, consulted by ``ooo.run_out_of_order`` as an
instruction is allocated (renamed and written to the scheduler), in program order:

* ``ReservationStation`` (``rules.scheduler``): allocation waits for free scheduler entries;
* ``PortBinder`` (``rules.port_binding``): a compute uop's port is chosen at allocation, by issue slot;
* ``MoveEliminator`` (``rules.move_elimination.slots``): how many register moves the renamer can
  eliminate; a move it cannot is executed like any ALU move.

Each keeps only ints, lists and dicts, and ``state()`` / ``restore()`` copy it for the engine's
resume points. Times are ticks (``model.ticks_per_cycle`` per clock), cycles are clocks.
"""

from __future__ import annotations

from heapq import heappop, heappush

class ReservationStation:
    """``rules.scheduler``: at most ``entries`` uops (unfused) allocated and not yet dispatched to a unit.

    An instruction's uops take an entry each at allocation and give it back when dispatched; an
    instruction that finds too few free is allocated at the clock enough of them free (the stall is
    charged to the rule's name). An eliminated move takes none. Example (core2, 32 entries): behind
    80 dependent adds (one dispatch per clock, four allocated per clock) the station is full from
    clock 8 on, and the first independent instruction after them is allocated at clock 50, when
    the 49th add dispatches -- not at clock 22, when the front end reaches it.
    """

    __slots__ = ("entries", "name", "tpc", "held")

    def __init__(self, rule, tpc: int) -> None:
        self.entries, self.name, self.tpc = rule.entries, rule.name, tpc
        self.held: list[int] = []          # a heap: the dispatch tick of each occupied entry

    def admit(self, i: int, n: int, k: int, alloc: int, front, nodes: list | None) -> int:
        """The allocation tick of instruction ``i`` (``n`` uops, ``k`` fused; the front end says ``alloc``)."""
        held, entries = self.held, self.entries
        while held and held[0] <= alloc:
            heappop(held)
        if len(held) + n <= entries:
            return alloc
        t = alloc
        while len(held) + n > entries:
            t = max(t, heappop(held))
        tpc = self.tpc
        new = -(-t // tpc)
        while held and held[0] <= new * tpc:
            heappop(held)
        front.cycle, front.count = new, k
        if nodes is not None:                     # attribution recorded (record=True)
            at, pred, segs = nodes[2 * i + 1]
            nodes[2 * i + 1] = (new * tpc, pred, segs + ((self.name, new * tpc - at),))
        return new * tpc

    def hold(self, dispatched: list[int]) -> None:
        """One entry per uop, occupied until its dispatch tick."""
        for t in dispatched:
            heappush(self.held, t)

    def state(self) -> list[int]:
        return list(self.held)

    def restore(self, state: list[int]) -> None:
        self.held = list(state)


class PortBinder:
    """``rules.port_binding``: a compute uop's port is chosen when it is allocated, not when it is ready.

    The choice (uiCA's model of Intel's allocator, measured on Sandy Bridge to Ice Lake): each
    port counts the uops bound to it that are still in the scheduler (dispatched no earlier than
    the previous clock); the uops allocated in one clock all see the counts as they stood before
    that clock. The uop in an even issue slot of the clock (0, 2) takes the port with the lowest
    count, the one in an odd slot (1, 3) the second lowest -- unless that is 3 or more above the
    lowest; ties go to the later port in the model's list (uiCA: the higher port number). Example:
    four independent adds allocated in one clock on skylake (p0|p1|p5|p6, all counts 0) are bound
    p6, p5, p6, p5 -- two ports for four uops, where a free choice at dispatch would use four.
    """

    __slots__ = ("tpc", "queued", "usage", "cycle", "chosen")

    def __init__(self, nunits: int, tpc: int) -> None:
        self.tpc = tpc
        self.queued: list[list[int]] = [[] for _ in range(nunits)]     # per unit: dispatch ticks (heaps)
        self.usage = [0] * nunits
        self.cycle = -1
        self.chosen: tuple[dict, dict] = ({}, {})   # per slot parity (even, odd): alternatives -> unit, this clock

    def choose(self, alts: tuple, alloc: int, slot: int) -> int:
        """The unit of ``alts`` a uop allocated at tick ``alloc`` in issue slot ``slot`` is bound to."""
        c = alloc // self.tpc
        if c != self.cycle:
            limit = (c - 1) * self.tpc
            for q in self.queued:
                while q and q[0] < limit:
                    heappop(q)
            self.usage = [len(q) for q in self.queued]
            self.cycle = c
            self.chosen = ({}, {})
        odd = slot & 1
        chosen = self.chosen[odd]
        u = chosen.get(alts)              # the counts are fixed within a clock: so is the choice
        if u is not None:
            return u
        usage = self.usage
        best = alts[0]
        for u in alts:
            if usage[u] <= usage[best]:
                best = u
        if odd and len(alts) > 1:
            second = -1
            for u in alts:
                if u != best and (second < 0 or usage[u] <= usage[second]):
                    second = u
            if usage[second] < usage[best] + 3:
                best = second
        chosen[alts] = best
        return best

    def record(self, u: int, t: int) -> None:
        heappush(self.queued[u], t)

    def state(self) -> tuple:
        even, odd = self.chosen
        return self.cycle, list(self.usage), [list(q) for q in self.queued], (dict(even), dict(odd))

    def restore(self, state: tuple) -> None:
        self.cycle, self.usage, self.queued = state[0], list(state[1]), [list(q) for q in state[2]]
        self.chosen = (dict(state[3][0]), dict(state[3][1]))


class MoveEliminator:
    """``rules.move_elimination.slots``: the renamer eliminates a register move only while it has room.

    uiCA's model of Intel's renamer (Renamer.cycle; microArchConfigs.py SKL: 4 GPR and 4 vector
    slots): an eliminated move makes its source and destination share one physical register (an
    alias group); a general-purpose group lives until every register in it has been overwritten,
    a vector group until at most one is left. In a rename clock c (counting only clocks in which
    something is renamed) a move is eliminated only if ``slots`` minus the moves of its kind
    eliminated in clocks c and c-1 minus the groups of its kind alive at the end of clock c-2 is
    positive; otherwise it runs on an ALU port like any ``mov_rr``. Example (skylake, 4 slots):
    with two GPR groups alive two clocks ago and two moves eliminated in the previous clock, the
    next ``mov %r12d, %ecx`` is not eliminated (4 - 0 - 2 - 2 = 0).
    """

    __slots__ = ("slots", "group", "members", "vectors", "fresh", "done", "alive", "clock", "active")

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.group: dict[str, int] = {}           # register -> its alias group (negative: vector)
        self.members: dict[int, set] = {}         # alias group -> registers still sharing it
        self.vectors = 0                          # vector groups among them
        self.fresh = 0                            # groups made so far
        self.done: dict[tuple, int] = {}          # (active rename clock, vector?) -> moves eliminated
        self.alive: dict[tuple, int] = {}         # (active rename clock, vector?) -> groups alive at its end
        self.clock = -1                           # the last rename clock seen
        self.active = 0                           # rename clocks seen so far

    def allowed(self, clock: int, vector: bool) -> bool:
        """May a move (a vector one?) renamed in ``clock`` be eliminated?"""
        self.tick(clock)
        c, done = self.active, self.done
        used = done.get((c, vector), 0) + done.get((c - 1, vector), 0) + self.alive.get((c - 2, vector), 0)
        return self.slots - used > 0

    def tick(self, clock: int) -> None:
        """Every instruction's rename clock, in order: closes the previous clock's books."""
        if clock == self.clock:
            return
        c, alive, done = self.active, self.alive, self.done
        alive[(c, True)], alive[(c, False)] = self.vectors, len(self.members) - self.vectors
        for key in ((c - 3, True), (c - 3, False)):      # only clocks c-2 .. c are ever asked for
            alive.pop(key, None)
            done.pop(key, None)
        self.active = c + 1
        self.clock = clock

    def overwrite(self, regs) -> None:
        """Registers written by an instruction that is not an eliminated move leave their groups."""
        group, members = self.group, self.members
        for r in regs:
            g = group.pop(r, None)
            if g is not None:
                m = members[g]
                m.discard(r)
                if len(m) <= (1 if g < 0 else 0):
                    del members[g]
                    for x in m:
                        del group[x]
                    if g < 0:
                        self.vectors -= 1

    def eliminate(self, src: str, dst: str, vector: bool) -> None:
        """Move ``src`` -> ``dst`` eliminated in the current clock: ``dst`` joins ``src``'s alias group."""
        key = (self.active, vector)
        self.done[key] = self.done.get(key, 0) + 1
        self.overwrite((dst,))
        g = self.group.get(src)
        if g is None:
            self.fresh += 1
            g = -self.fresh if vector else self.fresh
            self.vectors += vector
            self.members[g] = {src}
            self.group[src] = g
        self.members[g].add(dst)
        self.group[dst] = g

    def state(self) -> tuple:
        return (dict(self.group), {g: set(m) for g, m in self.members.items()}, self.vectors, self.fresh,
                dict(self.done), dict(self.alive), self.clock, self.active)

    def restore(self, state: tuple) -> None:
        group, members, self.vectors, self.fresh, done, alive, self.clock, self.active = state
        self.group, self.members = dict(group), {g: set(m) for g, m in members.items()}
        self.done, self.alive = dict(done), dict(alive)
