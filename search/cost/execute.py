"""The out-of-order engine's execute stage (``ooo.run_out_of_order``'s stage 2): units, renaming, forwarding.

``Ports`` is which tick each execution unit is taken; ``Execute`` runs one
instruction at a time in program order once the front end (``ooo.FrontEnd``)
has allocated it: it renames registers (only true dependencies count), finds
a forwarded store, places each uop at the first tick its inputs are ready on
the least-used free unit among its alternatives, writes the result back and
records what bound each time (``attribution`` node format). The rules it
applies and their order are ``ooo``'s module docstring, stage 2.

Invariant: ``Execute.run`` is called once per instruction, in program order,
with an allocation tick no earlier than the previous one's; its results
(``issue``, ``complete``, ``units_used``) are per instruction index. Example:
on skylake, ``add %eax, %ebx; add %ebx, %ecx`` allocated in clock 0 issue at
clocks 5 and 7 and complete at 6 and 8 -- no uop issues sooner than
``rules.dispatch_delay`` (5 clocks) after its allocation, and an input ready
at that clock is seen a clock late.
"""

from __future__ import annotations

from sha1opt.search.cost.allocation import PortBinder
from sha1opt.search.cost.attribution import CRITICAL, FRONT_END, fit, split_stall, unit_port
from sha1opt.search.cost.decode import (ADDR, CLS, DATA, ELIM, EXEMPT, FE, LAT, LDLAT, MREAD, MWRITE, SKIND, STDREG,
                                        UOPS, WIDTH, WRITES, mem_key, stored_keys, written_identity)
from sha1opt.search.cost.model import STORE_KINDS, Model


class Ports:
    """Execute-stage resources: which ticks each unit is busy (a bytearray per unit, grown on demand).

    Invariant: ``occ[u][t]`` is 1 iff unit ``u`` is taken at tick ``t`` (for every tick a uop may still be
    placed at: ``restore`` drops the ticks before a saved state's base); every array is ``size`` long and
    every tick past the end is free (arrays grow with zeros), so the first free tick is ``bytearray.find``'s
    -- the tick a scan from ``t`` upward finds.
    """

    __slots__ = ("occ", "used", "size")

    def __init__(self, nunits: int) -> None:
        self.size = 4096
        self.occ = [bytearray(self.size) for _ in range(nunits)]
        self.used = [0] * nunits

    def state(self, base: int) -> tuple:
        """A copy of the state for ticks >= ``base``: (array size, per unit (first tick kept, its busy ticks
        up to its last taken one), uops placed per unit). ``base`` must be a tick no uop is placed before
        from now on (the front end's clock: every uop dispatches after its allocation), so the ticks
        before it are never read again and are not kept."""
        segs = [bytes(o[base:o.rfind(1) + 1]) for o in self.occ]     # (empty when nothing is taken from base on)
        return self.size, base, segs, list(self.used)

    def restore(self, state: tuple) -> None:
        """Back to a ``state()``: its ticks from its base on (the earlier ones, never read again, free)."""
        size, base, segs, used = state
        occ = []
        for seg in segs:
            o = bytearray(size)
            o[base:base + len(seg)] = seg
            occ.append(o)
        self.occ, self.used, self.size = occ, list(used), size

    def grow(self, need: int) -> None:
        """Make every array at least ``need`` ticks long (zeros: free)."""
        size = max(2 * self.size, need) + 4096
        for o in self.occ:
            o.extend(bytearray(size - len(o)))
        self.size = size

    def place(self, alts: tuple, t: int, busy: int) -> tuple[int, int]:
        """The first tick >= ``t`` one of ``alts`` is free for ``busy`` ticks, and that unit (least used wins:
        of the units free at that tick, the first in ``alts`` with the fewest uops placed so far)."""
        occ, used = self.occ, self.used
        if t + busy > self.size:
            self.grow(t + busy)
        if busy == 1:
            best = -1
            for u in alts:                      # free at ``t`` itself (the common case)
                if not occ[u][t] and (best < 0 or used[u] < used[best]):
                    best = u
            if best >= 0:
                occ[best][t] = 1
                used[best] += 1
                return t, best
        want = 0 if busy == 1 else bytes(busy)
        best, best_t = -1, -1
        for u in alts:
            f = occ[u].find(want, t)
            while f < 0:                        # no room before the end: every tick past it is free
                self.grow(self.size + busy)
                f = occ[u].find(want, t)
            if best < 0 or f < best_t or (f == best_t and used[u] < used[best]):
                best, best_t = u, f
        occ[best][best_t:best_t + busy] = b"\x01" * busy
        used[best] += 1
        return best_t, best


class Execute:
    """Execute stage: renamed registers, store forwarding, uop placement, and the binding cause of each result."""

    __slots__ = ("tpc", "unit_ports", "fwd_lat", "replay", "rp_pen", "rp_min", "rp_name",
                 "stall_ticks", "stall_name", "ports", "place", "regs", "gen",
                 "stores", "issue", "complete", "units_used", "nodes", "binder", "slot", "dispatched", "delay",
                 "start_segs", "late", "delay_name", "rename_lat")

    def __init__(self, model: Model, n: int, record: bool = True) -> None:
        tpc = self.tpc = model.ticks_per_cycle
        self.unit_ports = [unit_port(u.name) for u in model.units]     # each unit's cause name
        rules = model.rules
        # forwarding ticks per store kind (Rules.forward_latency); a plain load of a plain store's address is
        # renamed (rules.memory_renaming: rename_lat) where the model says so
        self.fwd_lat = {k: int(round(rules.forward_latency(k) * tpc)) for k in STORE_KINDS}
        self.rename_lat = int(round(rules.forward_latency("plain", "plain") * tpc)) \
            if rules.memory_renaming is not None else None
        replay = self.replay = model.rules.replay
        self.rp_pen = int(round(replay.penalty * tpc)) if replay else 0
        self.rp_min = int(round(replay.min_latency * tpc)) if replay else 0
        self.rp_name = replay.name if replay else ""
        stall = model.rules.address_stall
        self.stall_ticks = stall.cycles * tpc if stall else 0
        self.stall_name = stall.name if stall else ""
        self.ports = Ports(len(model.units))
        self.place = self.ports.place
        self.binder = PortBinder(len(model.units), tpc) if model.rules.port_binding is not None else None
        # rules.dispatch_delay: a uop dispatches no sooner than so many clocks after its allocation (else 1),
        # and an input that arrives at that clock or the next is seen one clock late; the clocks beyond the
        # first are charged to the rule's name
        dd = model.rules.dispatch_delay
        self.delay = (dd.cycles if dd is not None else 1) * tpc
        self.late = dd is not None
        self.delay_name = dd.name if dd is not None else ""
        self.start_segs = (((dd.name, self.delay - tpc),) if self.delay > tpc else ()) + ((FRONT_END, tpc),)
        self.slot = 0                            # the issue slot (0..width-1) of the instruction being run
        # register -> (tick its value is ready, tick it may be used in an address, index of its last writer,
        # latency of that writer (the replay rule)): one entry, written whole by ``write_back``
        self.regs: dict[str, tuple[int, int, int, int]] = {}
        self.gen: dict = {}                      # register -> address identity (``decode.written_identity``)
        self.stores: dict[tuple, tuple] = {}     # address key -> (data tick, producer latency, store index,
        #                                          forwarding ticks by its kind, and for a plain register store
        #                                          (rules.memory_renaming) its register's ready tick and producer
        #                                          node, else None and -1)
        self.issue = [0] * n
        self.complete = [0] * n
        self.units_used: list[tuple] = [()] * n
        self.nodes: list | None = [None] * (2 * n) if record else None
        self.dispatched: list[int] = []          # the last run's uop dispatch ticks

    def run(self, i: int, d: tuple, alloc: int) -> tuple[int, int]:
        """Execute instruction ``i`` allocated at ``alloc``: (result tick, store-data tick or 0)."""
        tpc, nodes, complete, regs = self.tpc, self.nodes, self.complete, self.regs
        start = alloc + self.delay

        # -- inputs: register data, address registers, a forwarded store --
        r_data, p_data = 0, -1
        for r in d[DATA]:
            e = regs.get(r)
            if e is not None and e[0] > r_data:
                r_data, p_data = e[0], e[2]
        r_addr, p_addr, addr_stalled = 0, -1, 0
        for r in d[ADDR]:
            e = regs.get(r)
            if e is not None and e[1] > r_addr:
                r_addr, p_addr = e[1], e[2]
                addr_stalled = r_addr - e[0]
        fwd = self.stores.get(mem_key(d[MREAD], self.gen)) if d[MREAD] is not None else None

        # -- dispatch the uops to units --
        used_units = []
        first_d = -1
        std_d = 0
        cause = None
        dispatched = self.dispatched = []
        if d[ELIM]:
            result = r_data if r_data > alloc else alloc
            if nodes is not None:
                cause = (2 * p_data, ((CRITICAL, 0),)) if r_data >= alloc and p_data >= 0 else \
                    (2 * i + 1, ((FRONT_END, 0),))
        else:
            place, binder = self.place, self.binder
            late, wake = self.late, start + tpc
            mem_ready, replayed, mem_pred, mem_extra = -1, False, -1, 0
            comp_d, comp_wait, comp_late, last_unit = -1, 0, 0, -1
            nth = 0                                  # compute uops bound so far (rules.port_binding)
            for role, alts, busy in d[UOPS]:
                if not role:
                    # compute; lea computes from its address registers (no load uop to wait for them)
                    inp = r_data
                    if mem_ready > inp:
                        inp = mem_ready
                    elif mem_ready < 0 and r_addr > inp:
                        inp = r_addr
                    r0, bump = (inp if inp > start else start), 0
                    if late and (inp == start or inp == wake):
                        r0, bump = inp + tpc, tpc
                    if binder is not None:               # rules.port_binding: the port is chosen at allocation,
                        # by the issue slot of the uop's own fused uop: the two uops of ``roll $1`` (2 fused
                        # uops) sit in slots s and s+1 and so are bound to two ports, not both to one
                        alts = (binder.choose(alts, alloc, self.slot + (nth if nth < d[FE] else d[FE] - 1)),)
                        nth += 1
                    t, u = place(alts, r0, busy)
                    if binder is not None:
                        binder.record(u, t)
                    if t > comp_d:
                        comp_d, comp_wait, comp_late, last_unit = t, t - r0, bump, u
                elif role == "load":
                    r0 = r_addr if r_addr > start else start
                    if late and (r_addr == start or r_addr == wake):
                        r0 = r_addr + tpc
                    t, u = place(alts, r0, busy)
                    mem_ready = t + d[LDLAT]
                    mem_pred = 2 * p_addr if r_addr >= start and p_addr >= 0 else 2 * i + 1
                    mem_extra, replayed = t - r0, False
                    if fwd is not None and fwd[4] is not None and self.rename_lat is not None and d[CLS] == "load":
                        # rules.memory_renaming: the store's register, at rename -- not the load's own latency
                        # (as an eliminated move: no sooner than the load's allocation)
                        ready = fwd[4] + self.rename_lat
                        mem_ready, mem_pred = (ready, fwd[5]) if ready >= alloc and fwd[5] >= 0 else (alloc, 2 * i + 1)
                        replayed, mem_extra = False, 0
                    elif fwd is not None:
                        mem_ready, replayed, mem_pred, mem_extra = self._forward(fwd, t, mem_ready, mem_pred,
                                                                                 mem_extra)
                elif role == "sta":
                    r0 = r_addr if r_addr > start else start
                    if late and (r_addr == start or r_addr == wake):
                        r0 = r_addr + tpc
                    t, u = place(alts, r0, busy)
                else:                                    # std: the data of a store
                    v = comp_d + d[LAT] if comp_d >= 0 else r_data
                    r0 = v if v > start else start
                    if late and (v == start or v == wake):
                        r0 = v + tpc
                    t, u = place(alts, r0, busy)
                    std_d = t
                if first_d < 0 or t < first_d:
                    first_d = t
                dispatched.append(t)
                used_units.append(u)

            # -- what bound the result: memory data, register data, address, or allocation --
            if nodes is None:
                result = comp_d + d[LAT] if comp_d >= 0 else mem_ready if mem_ready >= 0 else \
                    (std_d if std_d > first_d else first_d) + tpc
            elif comp_d >= 0:
                result = comp_d + d[LAT]
                head = ((CRITICAL, d[LAT]), (self.unit_ports[last_unit], comp_wait))
                if comp_late:           # rules.dispatch_delay: its last input was seen a clock late
                    head += ((self.delay_name, comp_late),)
                if mem_ready >= 0 and mem_ready >= r_data and mem_ready >= start:
                    cause = (mem_pred, head + self._load_segments(mem_ready, mem_pred, replayed))
                elif mem_ready < 0 and r_addr > r_data and r_addr >= start and p_addr >= 0:
                    cause = (2 * p_addr, head + ((CRITICAL, r_addr - complete[p_addr]),))
                elif r_data >= start and p_data >= 0:
                    cause = (2 * p_data, head + ((CRITICAL, r_data - complete[p_data]),))
                else:
                    cause = (2 * i + 1, head + self.start_segs)
            elif mem_ready >= 0:          # a pure load
                result = mem_ready
                if replayed:
                    segs = self._load_segments(mem_ready, mem_pred, True)
                else:
                    base = nodes[mem_pred][0] if mem_pred >= 0 and nodes[mem_pred] else 0
                    segs = ((CRITICAL, result - base - mem_extra),
                            (self.unit_ports[used_units[0]], mem_extra))
                cause = (mem_pred, segs)
            else:                         # a pure store / push: done when its data is written
                result = max(std_d, first_d) + tpc
                cause = (2 * i + 1, ((CRITICAL, result - alloc),))

        if nodes is not None:
            # the address-stall share of a data link is the stall name's
            pred, segs = cause
            if self.stall_ticks and addr_stalled and pred == 2 * p_addr and p_addr >= 0 and d[ADDR]:
                # only the clocks the stall added beyond allocation count as the stall
                eff = max(0, min(addr_stalled, r_addr - start))
                if eff:
                    segs = split_stall(segs, eff, self.stall_name)
            pt = nodes[pred][0] if pred >= 0 and nodes[pred] is not None else 0
            nodes[2 * i] = (result, pred, fit(segs, result - pt))
        self.issue[i] = first_d if first_d >= 0 else alloc
        complete[i] = result
        self.units_used[i] = tuple(used_units)
        self.write_back(i, d, result, std_d)
        return result, std_d

    def _forward(self, fwd: tuple, t: int, mem_ready: int, mem_pred: int, mem_extra: int) -> tuple:
        """A load at tick ``t`` of a just-stored address: (ready tick, replayed?, predecessor node, port wait)."""
        sdata, plat, sidx, lat = fwd[:4]
        if self.replay is not None and plat >= self.rp_min and sdata > t:
            return sdata + lat + self.rp_pen, True, 2 * sidx, 0
        if sdata + lat > mem_ready:
            return sdata + lat, False, 2 * sidx, 0
        return mem_ready, False, mem_pred, mem_extra

    def _load_segments(self, mem_ready: int, mem_pred: int, replayed: bool) -> tuple:
        """The causes of a load's data: the replay penalty (if replayed) and the dependency before it."""
        nodes = self.nodes
        base = nodes[mem_pred][0] if mem_pred >= 0 and nodes[mem_pred] else 0
        if replayed:
            return ((self.rp_name, self.rp_pen), (CRITICAL, mem_ready - self.rp_pen - base))
        return ((CRITICAL, mem_ready - base),)

    def write_back(self, i: int, d: tuple, result: int, std_d: int) -> None:
        """Publish instruction ``i``'s results: the stored value (for forwarding) and the renamed registers."""
        regs, gen = self.regs, self.gen
        if d[MWRITE] is not None:
            e = None
            if d[STDREG] is not None:
                e = regs.get(d[STDREG])
                plat, sdata = (0, std_d) if e is None else (e[3], std_d if std_d > e[0] else e[0])
            else:
                plat, sdata = d[LAT], (std_d if std_d > result else result)
            # a vector store forwards to a load of any of its 4-byte lanes; a read-modify-write's store by its
            # kind (``xorl %eax, 8(%rsp)``: "rmw", ``roll $5, 8(%rsp)``: "rmw_imm"); Rules.forward_latency
            kind = d[SKIND]
            if kind != "plain":
                renamed = (None, -1)
            else:                        # the register's value and its producer's node (rules.memory_renaming)
                renamed = (e[0], 2 * e[2]) if e is not None else (0, -1)
            for key in stored_keys(d[MWRITE], gen, d[WIDTH]):
                self.stores[key] = (sdata, plat, i, self.fwd_lat[kind], *renamed)
        if d[WRITES]:
            plat = d[LAT]
            if d[ELIM]:                  # an eliminated move passes its source's producer latency on
                e = regs.get(d[DATA][0]) if d[DATA] else None
                plat = e[3] if e is not None else 0
            entry = (result, result if d[EXEMPT] else result + self.stall_ticks, i, plat)
            ident = written_identity(d, gen, self.stores)
            for r in d[WRITES]:
                regs[r] = entry
                gen[r] = ident
