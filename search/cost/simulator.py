"""Cycle-level cost of straight-line code and of a loop body in steady state, per microarchitecture.

``simulate(items, model)`` schedules instructions (``x86.Instr``) and opaque
control/stack items (``listing.Opaque``) on a ``uarch.Model`` and returns a
``Simulation``: cycles (total, or per iteration in steady state with
``loop=True``), cycles per byte, the bottleneck, and a per-instruction
timeline (issue and complete cycle, unit) from which a schedule can be drawn.

Two engines, chosen by ``model.engine``:

* in-order (Pentium, Atom): instructions issue in program order, up to
  ``issue_width`` per clock, each on a free unit of its class; an
  instruction that cannot join the current clock's group starts the next
  one. ``rules.pairing`` adds the Pentium's U-then-V order, lock-step pipes
  and the displacement+immediate rule.
* out-of-order (P4, Core 2, Nehalem, Skylake, Zen 3): a front end allocates
  ``issue_width`` fused uops per clock into a ``window``-entry reorder
  buffer that retires in order; each uop dispatches, oldest first, at the
  first clock its inputs are ready and one of its units is free.

Both engines honour: register dependencies (renamed in OoO, scoreboarded
with write-after-write order in-order), ``rules.address_stall`` (a base or
index register written by a non-exempt class is usable ``cycles`` later:
Pentium AGI, Atom lea stall), store-to-load forwarding (a load from the
address of an earlier store -- same base/index register, unchanged since,
same scale and displacement -- gets the stored value ``store_forwarding``
clocks after the store's data), ``rules.replay`` (P4: a load that runs before
its forwarded data, when that data comes from a slow instruction, costs the
penalty), and ``rules.move_elimination``.

Time runs in ticks: ``model.ticks_per_cycle`` ticks per clock (2 for the P4's
half-clock ALUs). Results are reported in clocks.

Bottleneck: every issue/complete time records what bound it (a producer, a
stall rule, a unit, the front end, the window, pairing). Walking that chain
back from the last result of the measured span and adding up the clocks per
cause names the bottleneck: "critical path", "port X", "front end",
"window", "pairing", "issue width", or a stall rule's name ("lea stall",
"AGI stall", "P4 replay").

Speed: per-instruction facts are decoded once per (item, model) and cached;
the engines touch only ints, tuples and bytearrays (one 80-round block,
~1250 instructions, in a few ms -- see bench/simspeed.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from sha1opt.semantics.listing import Opaque
from sha1opt.semantics.x86 import CL, SEMANTICS, Imm, Instr, Mem, Reg
from sha1opt.search.cost.model import Model, UarchError

Item = Instr | Opaque

# Bumped whenever the simulator's results change for the same input and model
# data (the search store keys cached results on it, with the model's repr).
VERSION = "1"

# Mnemonics that write the arithmetic flags (x86.py: none of the table reads them;
# only branches do).
_FLAG_WRITERS = {"add", "sub", "and", "or", "xor", "rol", "ror", "shl", "shr", "andn"}
_LOGIC = {"and", "or", "xor"}
_ADD = {"add", "sub"}
FLAGS = "flags"


@dataclass(frozen=True)
class Slot:
    """One instruction in the reported schedule (clocks from the start of the span)."""

    index: int          # position in the items given to simulate()
    text: str
    issue: float        # first uop dispatched (OoO) / issued (in-order)
    complete: float     # result available
    unit: str           # units used, "+"-joined; "eliminated" for a renamed-away move
    line: int = 0


@dataclass(frozen=True)
class Simulation:
    model: str
    cycles: float                   # total, or per iteration in steady state (loop=True)
    cycles_per_byte: float
    bottleneck: str
    timeline: list[Slot]
    breakdown: dict[str, float] = field(default_factory=dict)   # clocks per cause on the critical chain
    loop: bool = False
    iterations: int = 1             # iterations simulated (loop=True: several back to back)
    instructions: int = 0           # per iteration
    uops: int = 0                   # front-end slots per iteration


# --- classification ----------------------------------------------------------

def classify(item: Item, model: Model) -> str:
    """The instruction class ``item`` is priced as on ``model`` (a key of ``model.classes``)."""
    cls = _class_of(item)
    if cls not in model.classes:
        ext = "BMI1" if cls.startswith("andn") else "BMI2" if cls.startswith("rorx") else cls
        where = f"line {item.line}: " if getattr(item, "line", 0) else ""
        raise UarchError(f"{where}{item} needs {ext}, which {model.name} does not have")
    return cls


def _class_of(item: Item) -> str:
    if isinstance(item, Opaque):
        k, m = item.kind, item.mnemonic
        if k == "stack":
            return "push" if m.startswith("push") else "pop"
        if k in ("compare", "counter", "branch", "jump", "nop"):
            return k
        if k in ("call", "return"):
            return "jump"
        if k == "move":
            return "load" if item.memory else "mov_rr"
        return "opaque"
    m, ops = item.mnemonic, item.operands
    dst = ops[-1]
    src = ops[0] if len(ops) > 1 else None
    if m == "mov":
        if isinstance(dst, Mem):
            return "store"
        if isinstance(src, Mem):
            return "load"
        return "mov_ri" if isinstance(src, Imm) else "mov_rr"
    if m in _ADD or m in _LOGIC:
        if isinstance(dst, Mem):
            return "alu_mr"
        if isinstance(src, Mem):
            return "add_rm" if m in _ADD else "logic_rm"
        return "add_rr" if m in _ADD else "logic_rr"
    if m == "not":
        return "alu_mr" if isinstance(dst, Mem) else "not"
    if m in ("rol", "ror", "shl", "shr"):
        if isinstance(dst, Mem):
            return "shift_mr"
        if src == CL:
            return "shift_cl"
        if m in ("shl", "shr"):
            return "shift_imm"
        one = len(ops) == 1 or (isinstance(src, Imm) and src.value % 32 == 1)
        return "rot1" if one else "rot_imm"
    if m == "lea":
        a = ops[0]
        terms = (a.base is not None) + (a.index is not None) + (a.disp != 0)
        scaled = a.index is not None and a.scale != 1
        return "lea_complex" if terms == 3 or scaled else "lea_simple"
    if m == "bswap":
        return "bswap"
    if m == "andn":
        return "andn_rm" if isinstance(ops[0], Mem) else "andn"
    if m == "rorx":
        return "rorx_rm" if isinstance(ops[1], Mem) else "rorx"
    raise UarchError(f"no cost class for {m}")  # unreachable: x86.SEMANTICS is closed


# --- decoding: per (item, model) facts the engines need -------------------------

# Decoded tuple layout (a tuple, not an object: the engines index it in the hot loop).
_CLS, _FE, _UOPS, _LAT, _DATA, _ADDR, _WRITES, _MREAD, _MWRITE, _ELIM, _EXEMPT, _ALONE, _TEXT, _LINE, \
    _OCC, _STDREG = range(16)

_cache: dict[str, dict[Item, tuple]] = {}
_CACHE_LIMIT = 200_000


def _mem_of(item: Instr) -> Mem | None:
    if item.mnemonic == "lea":
        return None
    for o in item.operands:
        if isinstance(o, Mem):
            return o
    return None


def _decode(item: Item, model: Model, unit_index: dict[str, int], tpc: int) -> tuple:
    cls = classify(item, model)
    cost = model.classes[cls]
    speed = {u.name: u.speed for u in model.units}
    uops = []
    if isinstance(item, Opaque) and item.memory and cls not in ("push", "pop", "load") and not model.in_order:
        # An opaque compare/counter with a memory operand: its load first.
        ld = model.classes["load"].ports[0]
        uops.append(("load", tuple(unit_index[u] for u in ld.units), tpc // speed[ld.units[0]] or 1))
    for u in cost.ports:
        busy = max(1, tpc // speed[u.units[0]])
        uops.append((u.role, tuple(unit_index[x] for x in u.units), busy))
    lat = int(round(cost.latency * tpc))
    stall = model.rules.address_stall
    exempt = stall is None or cls in stall.exempt
    elim = cls in model.rules.move_elimination
    if isinstance(item, Opaque):
        data = tuple(sorted(item.reads))
        return (cls, cost.uops, tuple(uops), lat, data, (), tuple(sorted(item.writes)), None, None, elim, exempt,
                False, str(item), item.line, max(1, int(round(cost.rthroughput * tpc))), None)
    form = SEMANTICS[item.mnemonic].form
    ops = item.operands
    last = len(ops) - 1
    data: list[str] = []
    addr: list[str] = []
    std_reg = None
    for k, o in enumerate(ops):
        if isinstance(o, Reg):
            if k != last or form in ("binary", "shift", "unary"):
                data.append(o.name)
        elif isinstance(o, Mem):
            addr.extend(r.name for r in (o.base, o.index) if r is not None)
    if form == "lea":
        # lea's register inputs are address inputs (AGU), its result is data.
        data = []
    mem = _mem_of(item)
    writes_mem = isinstance(ops[last], Mem) and form != "lea"
    reads_mem = mem is not None and (not writes_mem or form in ("binary", "shift", "unary"))
    if writes_mem and item.mnemonic == "mov" and isinstance(ops[0], Reg):
        std_reg = ops[0].name
    writes = [ops[last].name] if isinstance(ops[last], Reg) else []
    if item.mnemonic in _FLAG_WRITERS:
        writes.append(FLAGS)
    alone = False
    if model.rules.pairing and model.rules.pairing.no_disp_and_imm:
        alone = any(isinstance(o, Imm) for o in ops) and mem is not None and mem.disp != 0
    return (cls, cost.uops, tuple(uops), lat, tuple(dict.fromkeys(data)), tuple(dict.fromkeys(addr)),
            tuple(writes), mem if reads_mem else None, mem if writes_mem else None, elim, exempt, alone,
            str(item), item.line, max(1, int(round(cost.rthroughput * tpc))), std_reg)


def decode(items: Sequence[Item], model: Model) -> list[tuple]:
    """Decoded facts for ``items`` on ``model`` (cached per model; exposed for tests and benches)."""
    cache = _cache.setdefault(model.name, {})
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    unit_index = {u.name: i for i, u in enumerate(model.units)}
    tpc = model.ticks_per_cycle
    out = []
    for it in items:
        d = cache.get(it)
        if d is None:
            d = cache[it] = _decode(it, model, unit_index, tpc)
        out.append(d)
    return out


# --- the simulation ------------------------------------------------------------

def simulate(items: Sequence[Item], model: Model, *, loop: bool = False, bytes_per_iteration: int = 64) -> Simulation:
    """Cycles of ``items`` on ``model``: once (``loop=False``), or per iteration of a loop body run back to back."""
    if bytes_per_iteration <= 0:
        raise UarchError("bytes_per_iteration must be positive")
    dec = decode(items, model)
    n = len(dec)
    if n == 0:
        return Simulation(model.name, 0.0, 0.0, "none", [], {}, loop, 1, 0, 0)
    iters = 1
    if loop:
        # Enough iterations that the first one's cold start does not dominate;
        # long bodies (a whole block) reach steady state in the second.
        iters = 3 if n >= 200 else min(64, 2 + -(-800 // n))
    seq = dec * iters
    run = _run_in_order if model.in_order else _run_out_of_order
    issue, complete, units, nodes = run(seq, model)
    tpc = model.ticks_per_cycle
    ends = [max(complete[k * n:(k + 1) * n]) for k in range(iters)]
    if loop:
        # Measure the later iterations; over a multiple of 12 of them when there
        # are that many, so issue patterns of period 2, 3, 4 or 6 average out.
        span = iters - iters // 2
        if span >= 12:
            span -= span % 12
        k0 = iters - span
        span_start = ends[k0 - 1]
        cycles_ticks = (ends[-1] - span_start) / (iters - k0)
        first = (iters - 1) * n
    else:
        span_start = 0
        cycles_ticks = ends[0]
        first = 0
    last_iter = range(first, first + n)
    end_node = 2 * max(last_iter, key=lambda i: complete[i])
    breakdown = _attribute(nodes, end_node, span_start, tpc)
    if loop and iters - k0 > 1:
        # The chain covers several iterations; report clocks per iteration.
        breakdown = {k: v / (iters - k0) for k, v in breakdown.items()}
    bottleneck = _bottleneck(breakdown, _utilisation(model, seq, units, last_iter, cycles_ticks / tpc))
    origin = min(issue[i] for i in last_iter) if loop else 0
    names = [u.name for u in model.units]
    timeline = [Slot(i - first, seq[i][_TEXT], (issue[i] - origin) / tpc, (complete[i] - origin) / tpc,
                     "+".join(names[u] for u in units[i]) if units[i] else ("eliminated" if seq[i][_ELIM] else ""),
                     seq[i][_LINE]) for i in last_iter]
    cycles = cycles_ticks / tpc
    return Simulation(model.name, cycles, cycles / bytes_per_iteration, bottleneck, timeline,
                      {k: round(v, 3) for k, v in sorted(breakdown.items(), key=lambda kv: -kv[1])},
                      loop, iters, n, sum(d[_FE] for d in dec))


SATURATED = 0.97   # a unit or the front end busy this share of the clocks is the bottleneck


def _utilisation(model: Model, seq: list[tuple], units: list[tuple], span: range, cycles: float) -> dict[str, float]:
    """Share of ``cycles`` each unit, and the front end (issue slots), is busy in one iteration."""
    if cycles <= 0:
        return {}
    tpc = model.ticks_per_cycle
    busy = [0.0] * len(model.units)
    for i in span:
        for u in units[i]:
            busy[u] += max(1, tpc // model.units[u].speed) / tpc
    # The front end first: on a tie with a unit it is the limit (units are
    # shared out unevenly below it).
    if model.in_order:
        out = {"issue width": len(span) / model.issue_width / cycles}
    else:
        out = {"front end": sum(seq[i][_FE] for i in span) / model.issue_width / cycles}
    out.update({f"port {u.name}": b / cycles for u, b in zip(model.units, busy)})
    return out


def _bottleneck(breakdown: dict[str, float], utilisation: dict[str, float]) -> str:
    """A saturated resource if there is one (the busiest), else the largest cause on the critical chain."""
    full = {k: v for k, v in utilisation.items() if v >= SATURATED}
    if full:
        top = max(full, key=full.get)
        ports = [k[5:] for k, v in full.items() if k.startswith("port ") and v >= full[top] - 0.01]
        if top.startswith("port ") and len(ports) > 1:
            return "port " + "|".join(ports)       # a group of units, all saturated
        return top
    return max(breakdown, key=breakdown.get) if breakdown else "none"


def _attribute(nodes: list, end_node: int, span_start: int, tpc: int) -> dict[str, float]:
    """Walk the binding-constraint chain back from ``end_node`` to ``span_start``; clocks per cause.

    ``nodes[2*i]`` is instruction i's completion, ``nodes[2*i+1]`` its issue /
    allocation; each holds (time, predecessor node or -1, ((cause, ticks), ...))
    with the causes' ticks summing to time - time(predecessor).
    """
    out: dict[str, float] = {}
    node = end_node
    while node >= 0:
        t, pred, segs = nodes[node]
        if t <= span_start:
            break
        room = t - span_start          # clip the segment that crosses the span start
        for cause, ticks in segs:
            take = min(ticks, room)
            if take > 0:
                out[cause] = out.get(cause, 0) + take / tpc
                room -= take
        node = pred
    return {k: v for k, v in out.items() if v > 0}


def _mem_key(m: Mem, gen: dict[str, int]) -> tuple:
    b = m.base.name if m.base is not None else None
    x = m.index.name if m.index is not None else None
    return (b, gen.get(b, 0), x, gen.get(x, 0), m.scale, m.disp)


def _run_out_of_order(seq: list[tuple], model: Model):
    tpc = model.ticks_per_cycle
    width, rwidth, window = model.issue_width, model.retire_width, model.window
    nunits = len(model.units)
    unit_names = [u.name for u in model.units]
    occ = [bytearray(4096) for _ in range(nunits)]
    used = [0] * nunits
    load_lat = int(round(model.load_latency * tpc))
    fwd_lat = int(round(model.rules.store_forward_latency * tpc))
    replay = model.rules.replay
    rp_pen = int(round(replay.penalty * tpc)) if replay else 0
    rp_min = int(round(replay.min_latency * tpc)) if replay else 0
    stall = model.rules.address_stall
    stall_ticks = stall.cycles * tpc if stall else 0
    stall_name = stall.name if stall else ""

    ready: dict[str, int] = {}          # register -> tick its value is ready
    ready_addr: dict[str, int] = {}     # register -> tick it may be used in an address
    producer: dict[str, int] = {}       # register -> index of its last writer
    prod_lat: dict[str, int] = {}       # register -> latency of its last writer (replay rule)
    gen: dict[str, int] = {}
    stores: dict[tuple, tuple] = {}     # address key -> (data tick, producer latency, store index)

    n = len(seq)
    issue = [0] * n
    complete = [0] * n
    units_used: list[tuple] = [()] * n
    nodes: list = [None] * (2 * n)
    retire_slots: list[int] = []        # retire clock of each fused uop, in order
    slot_owner: list[int] = []
    fe_cycle, fe_count = 0, 0
    ret_cycle, ret_count = 0, 0

    def place(alts: tuple, t: int, busy: int) -> tuple[int, int]:
        while True:
            best = -1
            for u in alts:
                o = occ[u]
                if t + busy > len(o):
                    o.extend(bytearray(len(o) + busy + 4096))
                if busy == 1:
                    free = not o[t]
                else:
                    free = not any(o[t:t + busy])
                if free and (best < 0 or used[u] < used[best]):
                    best = u
            if best >= 0:
                o = occ[best]
                for k in range(t, t + busy):
                    o[k] = 1
                used[best] += 1
                return t, best
            t += 1

    for i, d in enumerate(seq):
        # -- allocate (front end, window) --
        # The front end is a stream of fused uops, ``width`` per clock; an
        # instruction's uops may straddle two clocks, and it is allocated
        # when its last uop is.
        k = d[_FE]
        a_pred, a_cause = (2 * i - 1 if i else -1), "front end"
        if fe_count >= width:
            fe_cycle += 1
            fe_count = 0
        slot = len(retire_slots) + k - 1 - window
        if slot >= 0 and retire_slots[slot] > fe_cycle:
            fe_cycle, fe_count = retire_slots[slot], 0
            a_pred, a_cause = 2 * slot_owner[slot], "window"
        fe_count += k
        while fe_count > width:
            fe_cycle += 1
            fe_count -= width
        alloc = fe_cycle * tpc
        prev_t = nodes[a_pred][0] if a_pred >= 0 else 0
        nodes[2 * i + 1] = (alloc, a_pred, ((a_cause, max(0, alloc - prev_t)),))
        start = alloc + tpc

        # -- inputs --
        r_data, p_data = 0, -1
        for r in d[_DATA]:
            t = ready.get(r, 0)
            if t > r_data:
                r_data, p_data = t, producer[r]
        r_addr, p_addr, addr_stalled = 0, -1, 0
        for r in d[_ADDR]:
            t = ready_addr.get(r, 0)
            if t > r_addr:
                r_addr, p_addr = t, producer[r]
                addr_stalled = t - ready.get(r, 0)
        fwd = stores.get(_mem_key(d[_MREAD], gen)) if d[_MREAD] is not None else None

        # -- dispatch uops --
        used_units = []
        first_d = -1
        mem_ready, mem_cause, mem_pred, mem_extra = -1, "", -1, 0
        comp_d = -1
        comp_wait = 0
        std_d = 0
        last_unit = -1
        if d[_ELIM]:
            result = max(r_data, alloc)
            cause = (2 * p_data, (("critical path", 0),)) if r_data >= alloc and p_data >= 0 else \
                (2 * i + 1, (("front end", 0),))
        else:
            for role, alts, busy in d[_UOPS]:
                if role == "load":
                    r0 = max(start, r_addr)
                    t, u = place(alts, r0, busy)
                    mem_ready = t + load_lat
                    mem_cause, mem_pred = "critical path", (2 * p_addr if r_addr >= start and p_addr >= 0 else 2 * i + 1)
                    mem_extra = t - r0
                    if fwd is not None:
                        sdata, plat, sidx = fwd
                        if replay is not None and plat >= rp_min and sdata > t:
                            mem_ready = sdata + fwd_lat + rp_pen
                            mem_cause, mem_pred, mem_extra = "P4 replay", 2 * sidx, 0
                        elif sdata + fwd_lat > mem_ready:
                            mem_ready = sdata + fwd_lat
                            mem_cause, mem_pred, mem_extra = "critical path", 2 * sidx, 0
                elif role == "sta":
                    t, u = place(alts, max(start, r_addr), busy)
                elif role == "std":
                    v = comp_d + d[_LAT] if comp_d >= 0 else r_data
                    t, u = place(alts, max(start, v), busy)
                    std_d = t
                else:
                    # lea computes from its address registers (no load uop to wait for them)
                    r0 = max(start, r_data, mem_ready, r_addr if mem_ready < 0 else 0)
                    t, u = place(alts, r0, busy)
                    if t > comp_d:
                        comp_d, comp_wait, last_unit = t, t - r0, u
                if first_d < 0 or t < first_d:
                    first_d = t
                used_units.append(u)
            if comp_d >= 0:
                result = comp_d + d[_LAT]
                # what bound the compute uop: memory data, register data, or allocation
                lat_seg = ("critical path", d[_LAT])
                port_seg = (f"port {unit_names[last_unit]}", comp_wait)
                if mem_ready >= 0 and mem_ready >= r_data and mem_ready >= start:
                    base = nodes[mem_pred][0] if mem_pred >= 0 and nodes[mem_pred] else 0
                    if mem_cause == "P4 replay":
                        lseg = (("P4 replay", rp_pen), ("critical path", mem_ready - rp_pen - base))
                    else:
                        lseg = (("critical path", mem_ready - base),)
                    cause = (mem_pred, (lat_seg, port_seg) + lseg)
                elif mem_ready < 0 and r_addr > r_data and r_addr >= start and p_addr >= 0:
                    cause = (2 * p_addr, (lat_seg, port_seg, ("critical path", r_addr - complete[p_addr])))
                elif r_data >= start and p_data >= 0:
                    cause = (2 * p_data, (lat_seg, port_seg, ("critical path", r_data - complete[p_data])))
                else:
                    cause = (2 * i + 1, (lat_seg, port_seg, ("front end", start - alloc)))
            elif mem_ready >= 0:          # a pure load
                result = mem_ready
                base = nodes[mem_pred][0] if mem_pred >= 0 and nodes[mem_pred] else 0
                if mem_cause == "P4 replay":
                    segs = (("P4 replay", rp_pen), ("critical path", result - rp_pen - base))
                else:
                    segs = (("critical path", result - base - mem_extra), (f"port {unit_names[used_units[0]]}", mem_extra))
                cause = (mem_pred, segs)
            else:                         # a pure store / push: done when its data is written
                result = max(std_d, first_d) + tpc
                cause = (2 * i + 1, (("critical path", result - alloc),))
        # the address-stall share of a data link is the stall name's
        pred, segs = cause
        if stall_ticks and addr_stalled and pred == 2 * p_addr and p_addr >= 0 and d[_ADDR]:
            # only the clocks the stall added beyond allocation count as the stall
            eff = max(0, min(addr_stalled, r_addr - start))
            if eff:
                segs = _split_stall(segs, eff, stall_name)
        pt = nodes[pred][0] if pred >= 0 and nodes[pred] is not None else 0
        segs = _fit(segs, result - pt)
        nodes[2 * i] = (result, pred, segs)
        issue[i] = first_d if first_d >= 0 else alloc
        complete[i] = result
        units_used[i] = tuple(used_units)

        # -- memory and register results --
        if d[_MWRITE] is not None:
            key = _mem_key(d[_MWRITE], gen)
            if d[_STDREG] is not None:
                plat = prod_lat.get(d[_STDREG], 0)
                sdata = max(std_d, ready.get(d[_STDREG], 0))
            else:
                plat, sdata = d[_LAT], max(std_d, result)
            stores[key] = (sdata, plat, i)
        exempt = d[_EXEMPT]
        for r in d[_WRITES]:
            ready[r] = result
            ready_addr[r] = result if exempt else result + stall_ticks
            producer[r] = i
            prod_lat[r] = d[_LAT] if not d[_ELIM] else prod_lat.get(d[_DATA][0], 0) if d[_DATA] else 0
            gen[r] = gen.get(r, 0) + 1

        # -- retire (in order, retire_width instructions per clock) --
        c = -(-max(result, std_d + tpc if std_d else 0) // tpc)
        if c > ret_cycle:
            ret_cycle, ret_count = c, 0
        if ret_count >= rwidth:
            ret_cycle += 1
            ret_count = 0
        ret_count += 1
        retire_slots.extend([ret_cycle] * k)
        slot_owner.extend([i] * k)
    return issue, complete, units_used, nodes


def _split_stall(segs: tuple, stalled: int, name: str) -> tuple:
    """Move ``stalled`` ticks of the dependency segment(s) to the stall rule's name."""
    out = []
    left = stalled
    for cause, ticks in segs:
        if cause == "critical path" and left > 0 and ticks > 0:
            take = min(ticks, left)
            out.append((name, take))
            ticks -= take
            left -= take
        out.append((cause, ticks))
    return tuple(out)


def _fit(segs: tuple, total: int) -> tuple:
    """Make the segments add up to ``total`` ticks (clip the tail, or put the rest on the first cause)."""
    out = []
    left = total
    for cause, ticks in segs:
        take = max(0, min(ticks, left))
        if take:
            out.append((cause, take))
            left -= take
    if left > 0:
        out.append((segs[0][0] if segs else "critical path", left))
    return tuple(out)


def _run_in_order(seq: list[tuple], model: Model):
    tpc = model.ticks_per_cycle
    width = model.issue_width
    nunits = len(model.units)
    unit_names = [u.name for u in model.units]
    pairing = model.rules.pairing
    ordered = bool(pairing and pairing.ordered)
    lockstep = bool(pairing and pairing.lockstep)
    fwd_lat = int(round(model.rules.store_forward_latency * tpc))
    stall = model.rules.address_stall
    stall_ticks = stall.cycles * tpc if stall else 0
    stall_name = stall.name if stall else ""

    ready: dict[str, int] = {}
    ready_addr: dict[str, int] = {}
    producer: dict[str, int] = {}
    gen: dict[str, int] = {}
    stores: dict[tuple, tuple] = {}

    n = len(seq)
    issue = [0] * n
    complete = [0] * n
    units_used: list[tuple] = [()] * n
    nodes: list = [None] * (2 * n)
    cur = 0                     # the open group's clock (ticks)
    group_n = 0
    group_units = [False] * nunits
    group_max_unit = -1
    group_closed = False
    group_end = 0               # lock step: the group's pipes are busy until here

    for i, d in enumerate(seq):
        # -- operand readiness --
        r_need, p_need = 0, -1
        stalled = 0
        for r in d[_DATA]:
            t = ready.get(r, 0)
            if t > r_need:
                r_need, p_need, stalled = t, producer[r], 0
        for r in d[_ADDR]:
            t = ready_addr.get(r, 0)
            if t > r_need:
                r_need, p_need = t, producer[r]
                stalled = t - ready.get(r, 0)
        if d[_MREAD] is not None:
            f = stores.get(_mem_key(d[_MREAD], gen))
            if f is not None and f[0] + fwd_lat > r_need:
                r_need, p_need, stalled = f[0] + fwd_lat, f[2], 0
        lat = d[_LAT]
        for r in d[_WRITES]:
            if r != FLAGS:
                t = ready.get(r, 0) - lat + tpc      # write-after-write: complete after the last writer
                if t > r_need:
                    r_need, p_need, stalled = t, producer[r], 0

        # -- join the open group, or open the next one --
        uops = d[_UOPS]
        why = ""                 # why the instruction could not join the open group, data aside
        if group_n:
            if group_closed or d[_ALONE]:
                why = "pairing"
            elif group_n >= width:
                why = "issue width"
            else:
                picks = _fit_units(uops, group_units, group_max_unit, ordered)
                if picks is None:
                    why = "pairing" if pairing else "port " + "|".join(unit_names[u] for u in uops[0][1])
        joined = group_n > 0 and not why and r_need <= cur
        if joined:
            t = cur
            nodes[2 * i + 1] = (t, 2 * i - 1, (("issue", 0),))
        else:
            t_order = cur + tpc if group_n else cur
            t_lock = group_end if lockstep else 0
            t = max(r_need, t_order, t_lock)
            if p_need >= 0 and t == r_need and r_need > cur:
                c_p = complete[p_need]
                # The stall counts only for the clocks it added beyond where the
                # instruction would otherwise have issued (in the open group if it fits).
                t_free = max(cur if group_n and not why else t_order, t_lock)
                stalled = max(0, min(stalled, r_need - t_free))
                if r_need >= c_p:       # waited for a result (plus any address stall)
                    segs = ((stall_name, stalled), ("critical path", r_need - stalled - c_p)) if stalled \
                        else (("critical path", r_need - c_p),)
                    nodes[2 * i + 1] = (t, 2 * p_need, _fit(segs, t - c_p))
                else:                   # write-after-write: waited for the earlier writer to finish
                    nodes[2 * i + 1] = (t, 2 * p_need + 1, (("critical path", t - issue[p_need]),))
            elif i:
                if lockstep and t == t_lock and t_lock > t_order:
                    cause = "multi-clock instruction"
                else:
                    cause = why or "issue width"
                nodes[2 * i + 1] = (t, 2 * i - 1, ((cause, t - issue[i - 1]),))
            else:
                nodes[2 * i + 1] = (t, -1, ())
            cur = t
            group_n = 0
            group_units = [False] * nunits
            group_max_unit = -1
            group_closed = False
            group_end = t
            picks = _fit_units(uops, group_units, -1, ordered)
            if picks is None:        # cannot happen for a valid model: an empty group fits any class
                raise UarchError(f"{d[_TEXT]}: its uops do not fit one issue group on {model.name}")
        for u in picks:
            group_units[u] = True
            if u > group_max_unit:
                group_max_unit = u
        group_n += 1
        if d[_ALONE]:
            group_closed = True
        if lockstep:
            group_end = max(group_end, t + d[_OCC])
        issue[i] = t
        result = t + lat
        complete[i] = result
        units_used[i] = tuple(picks)
        nodes[2 * i] = (result, 2 * i + 1, (("critical path", lat),))

        if d[_MWRITE] is not None:
            stores[_mem_key(d[_MWRITE], gen)] = (t, 0, i)
        exempt = d[_EXEMPT]
        for r in d[_WRITES]:
            ready[r] = result
            ready_addr[r] = result if exempt else result + stall_ticks
            producer[r] = i
            gen[r] = gen.get(r, 0) + 1
    return issue, complete, units_used, nodes


def _fit_units(uops: tuple, taken: list, floor: int, ordered: bool) -> list[int] | None:
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
