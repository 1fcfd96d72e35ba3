"""The in-order engine (Pentium, Atom): issue groups in program order, in three stages.

Per instruction, in program order:

1. operands (``Pipeline.operands``): the tick its inputs are ready --
   register data, address registers (``rules.address_stall``: a base/index
   register written by a non-exempt class is usable ``cycles`` later: Pentium
   AGI, Atom lea stall), a forwarded store (``store_forwarding`` clocks after
   the store), and write-after-write order (a result is never written before
   the previous writer's);
2. grouping (``Pipeline.group``): up to
   ``issue_width`` instructions issue in one clock, each on a distinct free
   unit of its class; ``rules.pairing`` adds U-then-V order (``ordered``),
   lock-step pipes (``lockstep``: a multi-clock instruction holds the next
   group) and ``no_disp_and_imm`` (such an instruction issues alone). An
   instruction that cannot join the open group, or whose inputs are late,
   opens the next one;
3. issue (``Pipeline.issue``): the instruction's units join the group, its
   result is ready ``latency`` later, and its registers and stored address
   are published.

Every time computed records what bound it (``attribution`` node format).

Example: on pentium ``addl %ebx, %eax; addl %edx, %ecx`` issue together in
clock 0 on u and v; ``addl %ebx, %eax; addl %eax, %ecx`` issue in clocks 0
and 1 (the second reads the first's result).
"""

from __future__ import annotations

from sha1opt.search.cost.attribution import (CRITICAL, ISSUE, ISSUE_WIDTH, MULTI_CLOCK, PAIRING, Trace, fit,
                                             unit_port)
from sha1opt.search.cost.decode import ADDR, ALONE, DATA, EXEMPT, FLAGS, LAT, MREAD, MWRITE, OCC, TEXT, UOPS, \
    WIDTH, WRITES, mem_key, stored_keys, written_identity
from sha1opt.search.cost.model import Model, UarchError


def fit_units(uops: tuple, taken: list, floor: int, ordered: bool) -> list[int] | None:
    """Distinct free units, one per uop, or None. ``ordered``: each unit must come after
    ``floor`` and after the previous uop's unit (Pentium: U before V)."""
    picks: list[int] = []
    low = floor if ordered else -1
    for _role, alts, _busy in uops:
        choice = -1
        for u in alts:
            if not taken[u] and u > low and u not in picks:
                choice = u
                break
        if choice < 0:
            return None
        picks.append(choice)
        if ordered:
            low = choice
    return picks


class Pipeline:
    """The state of an in-order run: register scoreboard, stored addresses, and the open issue group."""

    __slots__ = ("tpc", "width", "nunits", "unit_names", "pairing", "ordered", "lockstep", "fwd_lat",
                 "stall_ticks", "stall_name", "model_name", "ready", "ready_addr", "producer", "gen", "stores",
                 "issue_t", "complete", "units_used", "nodes", "cur", "group_n", "group_units",
                 "group_max_unit", "group_closed", "group_end", "first_picks")

    def __init__(self, model: Model, n: int, record: bool = True) -> None:
        self.tpc = model.ticks_per_cycle
        self.width = model.issue_width
        self.nunits = len(model.units)
        self.unit_names = [u.name for u in model.units]
        self.model_name = model.name
        pairing = self.pairing = model.rules.pairing
        self.ordered = bool(pairing and pairing.ordered)
        self.lockstep = bool(pairing and pairing.lockstep)
        self.fwd_lat = int(round(model.rules.store_forward_latency * self.tpc))
        stall = model.rules.address_stall
        self.stall_ticks = stall.cycles * self.tpc if stall else 0
        self.stall_name = stall.name if stall else ""
        self.ready: dict[str, int] = {}          # register -> tick its value is ready
        self.ready_addr: dict[str, int] = {}     # register -> tick it may be used in an address
        self.producer: dict[str, int] = {}       # register -> index of its last writer
        self.gen: dict = {}                      # register -> address identity (``decode.written_identity``)
        self.stores: dict[tuple, tuple] = {}     # address key -> (store issue tick, 0, store index)
        self.issue_t = [0] * n
        self.complete = [0] * n
        self.units_used: list[tuple] = [()] * n
        self.nodes: list | None = [None] * (2 * n) if record else None
        self.cur = 0                    # the open group's clock (ticks)
        self.group_n = 0                # instructions in it
        self.group_units = [False] * self.nunits
        self.group_max_unit = -1
        self.group_closed = False       # an issue-alone instruction closed it
        self.group_end = 0              # lock step: the group's pipes are busy until here
        self.first_picks: dict[tuple, tuple] = {}   # uops -> their units as the first of a group (pure)

    def operands(self, d: tuple) -> tuple[int, int, int]:
        """Stage 1: (tick the inputs are ready, producer index or -1, address-stall ticks in it)."""
        ready, ready_addr, producer = self.ready, self.ready_addr, self.producer
        r_need, p_need = 0, -1
        stalled = 0
        for r in d[DATA]:
            t = ready.get(r, 0)
            if t > r_need:
                r_need, p_need, stalled = t, producer[r], 0
        for r in d[ADDR]:
            t = ready_addr.get(r, 0)
            if t > r_need:
                r_need, p_need = t, producer[r]
                stalled = t - ready.get(r, 0)
        if d[MREAD] is not None:
            f = self.stores.get(mem_key(d[MREAD], self.gen))
            if f is not None and f[0] + self.fwd_lat > r_need:
                r_need, p_need, stalled = f[0] + self.fwd_lat, f[2], 0
        lat = d[LAT]
        for r in d[WRITES]:
            if r != FLAGS:
                t = ready.get(r, 0) - lat + self.tpc      # write-after-write: complete after the last writer
                if t > r_need:
                    r_need, p_need, stalled = t, producer[r], 0
        return r_need, p_need, stalled

    def group(self, i: int, d: tuple, r_need: int, p_need: int, stalled: int) -> tuple[int, tuple[int, ...]]:
        """Stage 2: join the open group, or open the next one; (issue tick, units). Records the issue node."""
        nodes, cur, group_n = self.nodes, self.cur, self.group_n
        why = ""                 # why the instruction cannot join the open group, data aside
        if group_n:
            if self.group_closed or d[ALONE]:
                why = PAIRING
            elif group_n >= self.width:
                why = ISSUE_WIDTH
            else:
                picks = fit_units(d[UOPS], self.group_units, self.group_max_unit, self.ordered)
                if picks is None:
                    why = PAIRING if self.pairing else unit_port("|".join(self.unit_names[u] for u in d[UOPS][0][1]))
                elif r_need <= cur:
                    if nodes is not None:
                        nodes[2 * i + 1] = (cur, 2 * i - 1, ((ISSUE, 0),))
                    return cur, tuple(picks)
        # open the next group: after the open one, after its lock-step pipes, when the inputs are ready
        t_order = cur + self.tpc if group_n else cur
        t_lock = self.group_end if self.lockstep else 0
        t = max(r_need, t_order, t_lock)
        if nodes is None:
            pass
        elif p_need >= 0 and t == r_need and r_need > cur:
            c_p = self.complete[p_need]
            # The stall counts only for the clocks it added beyond where the
            # instruction would otherwise have issued (in the open group if it fits).
            t_free = max(cur if group_n and not why else t_order, t_lock)
            stalled = max(0, min(stalled, r_need - t_free))
            if r_need >= c_p:       # waited for a result (plus any address stall)
                segs = ((self.stall_name, stalled), (CRITICAL, r_need - stalled - c_p)) if stalled \
                    else ((CRITICAL, r_need - c_p),)
                nodes[2 * i + 1] = (t, 2 * p_need, fit(segs, t - c_p))
            else:                   # write-after-write: waited for the earlier writer to finish
                nodes[2 * i + 1] = (t, 2 * p_need + 1, ((CRITICAL, t - self.issue_t[p_need]),))
        elif i:
            if self.lockstep and t == t_lock and t_lock > t_order:
                cause = MULTI_CLOCK
            else:
                cause = why or ISSUE_WIDTH
            nodes[2 * i + 1] = (t, 2 * i - 1, ((cause, t - self.issue_t[i - 1]),))
        else:
            nodes[2 * i + 1] = (t, -1, ())
        self.cur = t
        self.group_n = 0
        self.group_units = [False] * self.nunits
        self.group_max_unit = -1
        self.group_closed = False
        self.group_end = t
        uops = d[UOPS]
        picks = self.first_picks.get(uops)
        if picks is None:
            fresh = fit_units(uops, self.group_units, -1, self.ordered)
            if fresh is None:        # cannot happen for a valid model: an empty group fits any class
                raise UarchError(f"{d[TEXT]}: its uops do not fit one issue group on {self.model_name}")
            picks = self.first_picks[uops] = tuple(fresh)
        return t, picks

    def issue(self, i: int, d: tuple, t: int, picks: tuple[int, ...]) -> None:
        """Stage 3: issue instruction ``i`` at tick ``t`` on ``picks``; publish its result and stored address."""
        group_units, top = self.group_units, self.group_max_unit
        for u in picks:
            group_units[u] = True
            if u > top:
                top = u
        self.group_max_unit = top
        self.group_n += 1
        if d[ALONE]:
            self.group_closed = True
        if self.lockstep and t + d[OCC] > self.group_end:
            self.group_end = t + d[OCC]
        lat = d[LAT]
        self.issue_t[i] = t
        result = t + lat
        self.complete[i] = result
        self.units_used[i] = picks
        if self.nodes is not None:
            self.nodes[2 * i] = (result, 2 * i + 1, ((CRITICAL, lat),))

        gen, ready, ready_addr, producer = self.gen, self.ready, self.ready_addr, self.producer
        if d[MWRITE] is not None:
            for key in stored_keys(d[MWRITE], gen, d[WIDTH]):
                self.stores[key] = (t, 0, i)
        ready_at_addr = result if d[EXEMPT] else result + self.stall_ticks
        ident = written_identity(d, gen, self.stores) if d[WRITES] else None
        for r in d[WRITES]:
            ready[r] = result
            ready_addr[r] = ready_at_addr
            producer[r] = i
            gen[r] = ident


def run_in_order(seq: list[tuple], model: Model, record: bool = True) -> Trace:
    """Schedule the decoded ``seq`` on the in-order ``model``: operands -> grouping -> issue per instruction.

    ``record=False`` skips the attribution nodes (``Trace.nodes`` is None); every time is the same.
    """
    p = Pipeline(model, len(seq), record)
    nodes = p.nodes
    operands, group, issue = p.operands, p.group, p.issue
    for i, d in enumerate(seq):
        r_need, p_need, stalled = operands(d)                   # 1. operands
        t, picks = group(i, d, r_need, p_need, stalled)         # 2. grouping
        issue(i, d, t, picks)                                   # 3. issue
    return Trace(p.issue_t, p.complete, p.units_used, nodes)
