"""The free parameters of a model's fit (``search.cost.fit``): which rows may move, to which values, and how.

Each ``Param`` is one row field with a finite list of candidate values (the literature value first) and how to
read and set it on a model:

* per instruction class: ``latency`` (not for ``NO_RESULT`` classes; whole clocks from 1 -- 0 only for a class with no compute uop, or one the
  literature already gives 0: a computing instruction takes at least a clock -- up to max(literature + 4, 7)),
  ``ports`` (the unit set every compute uop may use: a set the model already names, a single unit, or the whole
  pool: ``port_candidates``), ``compute_uops`` (1-4 uops on those units) and ``busy`` (1-4 clocks each of them
  holds its unit: a uop that is not pipelined, as Zen 4's sha1rnds4 -- half the throughput of one uop, the
  latency chain unchanged, where a second uop would lengthen the chain); in-order: ``rthroughput``, the clocks
  a unit is held;
* ``issue_width`` (out-of-order models) -- the front end's one free parameter. A class's front-end slots
  (``uops``, its macro-op count) are a decode fact the literature states (AMD's and Intel's guides, uops.info)
  and are never fitted: timing without per-port counters cannot tell a class's front-end slots from its
  units' occupancy in a kernel of that class alone (both give slots / width = uops / units), and the first
  calibration on a Zen 3 "explained" slow store and load kernels with 4-slot stores and loads;
* the rule constants: ``store_forwarding``, ``vector_store_forwarding``, ``rmw_forwarding``, ``memory_renaming``
  latencies (a rule the base lacks starts absent, None, and may be added), ``rmw_forwarding.immediate`` and
  ``move_elimination`` of ``mov_rr`` / ``vec_mov``; out of order, the scheduler's size (``rules.scheduler.entries``,
  ``SCHEDULER_SIZES`` or absent), moved only on the evidence of observations whose ``classes`` name
  ``SCHEDULER``: the scheduler kernels, whose filler instructions wait in it for a load chain (an idle
  scheduler bounds nothing a throughput or latency kernel shows); and the integer-side dispatch slots of a
  microcoded instruction (``rules.microcode.slots``, ``MICROCODE_SLOTS`` or absent, for ``MICROCODED``), moved
  only on the evidence of observations whose ``classes`` name ``MICROCODE``: the ``rule.microcode.K`` kernels.
  Out of order ``store_forwarding`` is evidenced only by load-op kernels (the others have their own rules).

A parameter is *structural* when it says how many resources an instruction takes or how many there are
(``ports``, ``compute_uops``, ``busy``, ``rthroughput``, ``issue_width``); ``Param.resource`` names the resource
a change of it binds (the class's compute units, or the front end), which ``fit``'s witness rule asks of the
simulator's bottleneck. ``parameters(model, evidence)`` lists the parameters of the classes seen, given one
class set per observation (the classes it is evidence for).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sha1opt.search.cost.model import READS_MEMORY, RMW_CLASSES, WRITES_MEMORY, ClassCost, MemoryRenaming, Model, \
    RmwForwarding, Scheduler, Uop, VectorForwarding, derived_rthroughput
from sha1opt.search.cost.rules import Microcode

# Classes whose instructions write no register (nor flags): their latency delays nothing a kernel can time,
# only their own retirement -- a Zen 4 calibration "explained" its slow taken jumps (tput.jump, one per eight
# instructions) with jump latency 1 -> 7. Their latency is not a free parameter.
NO_RESULT = frozenset({"jump", "branch", "nop"})
ISSUE_WIDTH = "issue_width"     # named in an observation's ``classes``: it is evidence for the issue width
SCHEDULER = "scheduler_entries"    # named in an observation's ``classes``: it is evidence for the scheduler's size
SCHEDULER_SIZES = tuple(range(16, 257, 8))   # the sizes the fit may give ``rules.scheduler.entries``
MICROCODE = "microcode_switch"     # named in an observation's ``classes``: it is evidence for ``rules.microcode``
MICROCODE_SLOTS = tuple(range(4, 13))       # the integer-side dispatch slots the fit may give a microcoded instruction
# The classes ``rules.microcode`` names when the fit adds it: the double shifts (shld/shrd), 4 macro-ops on
# the Zen models (zen3.toml ``uops = 4``), and AMD's optimisation guides (family 17h/19h, "Microcoded
# instructions") send every instruction of more than two macro-ops to the microcode sequencer. The only
# integer classes of more than two in any model; on a CPU where they are not microcoded the kernels refute
# the rule (their time is the units' alone) and the fit leaves it absent.
MICROCODED = frozenset({"double_rot", "double_shift"})
FRONT_END = frozenset({"front end"})    # the resource a front-end change binds (``attribution.FRONT_END``)


@dataclass(frozen=True)
class Param:
    """One free parameter: ``row`` (``classes.X``, ``rules.X`` or ``issue_width``), ``field``, its candidates,
    and how to set it on a model."""
    row: str
    field: str
    candidates: tuple[Any, ...]
    get: Callable[[Model], Any]
    set: Callable[[Model, Any], Model]
    touches: Callable[[frozenset[str]], bool]     # whether an observation with these classes can change
    evidence: Callable[[frozenset[str]], bool] | None = None   # whether an observation that is evidence for
    #                                                 these classes speaks for it (None: ``touches``)

    resource: Callable[[Model], frozenset[str]] | None = None   # what a structural change binds: unit names,
    #                                                 or ``FRONT_END`` (None: not structural)
    recorded: Callable[[Model], Any] | None = None   # the value a change records (None: ``get``): a joint
    #                                                 parameter records its own field, the other's has its own
    screen_all_evidence: bool = False   # ``fit._screen`` probes on all of its evidence, not the worst-explained
    #                                     few: a size whose kernels form one curve (the scheduler's knee) is
    #                                     judged on the whole curve, else the worst points pick sizes the
    #                                     knee's points refute

    @property
    def structural(self) -> bool:
        return self.resource is not None

    def speaks(self, classes: frozenset[str]) -> bool:
        return (self.evidence or self.touches)(classes)

    @property
    def name(self) -> str:
        return f"{self.row}.{self.field}"


def compute_units(model: Model, cls: str) -> frozenset[str]:
    """The units ``cls``'s compute uops may run on in ``model`` (empty for a class with none)."""
    return frozenset(u for p in model.classes[cls].ports if not p.role for u in p.units)


def _set_class(model: Model, name: str, **changes) -> Model:
    row = dataclasses.replace(model.classes[name], **changes)
    if "ports" in changes or "busy" in changes:
        row = dataclasses.replace(row, rthroughput=round(derived_rthroughput(row, model), 6))
    return dataclasses.replace(model, classes={**model.classes, name: row})


def _with_ports(row: ClassCost, units: tuple[str, ...]) -> tuple[Uop, ...]:
    return tuple(Uop(u.role, units) if not u.role else u for u in row.ports)


def _with_count(row: ClassCost, n: int) -> tuple[Uop, ...]:
    """The row's uops with ``n`` compute uops (copies of its first), its memory uops kept in place."""
    first = next(u for u in row.ports if not u.role)
    mem = [u for u in row.ports if u.role]
    return tuple(mem[:1] + [first] * n + mem[1:]) if mem and mem[0].role == "load" else tuple([first] * n + mem)


def pools(model: Model) -> list[frozenset[str]]:
    """The model's compute units grouped by the alternative sets that connect them (ALUs, vector pipes...)."""
    groups: list[set[str]] = []
    for c in model.classes.values():
        for u in c.ports:
            if u.role:
                continue
            s = set(u.units)
            touching = [g for g in groups if g & s]
            for g in touching:
                groups.remove(g)
                s |= g
            groups.append(s)
    return [frozenset(g) for g in groups]


def units_of(model: Model, cls: str) -> tuple[str, ...]:
    """The unit set of a class's first compute uop (the one ``ports`` sets on every compute uop); () for a
    class with none."""
    return next((tuple(p.units) for p in model.classes[cls].ports if not p.role), ())


def port_candidates(model: Model, cls: str) -> tuple[tuple[str, ...], ...]:
    """The unit sets a class's compute uops may be given: the model's sets inside its pool, single units, the pool."""
    if all(p.role for p in model.classes[cls].ports):
        return ()
    mine = set(units_of(model, cls))       # the first compute uop's pool (a second uop may sit in another:
    pool = next(p for p in pools(model) if mine <= p)       # goldencove's sha1msg, the SHA unit and p0|p1|p5)
    order = [u.name for u in model.units]
    sets = {tuple(p.units) for c in model.classes.values() for p in c.ports if not p.role and set(p.units) <= pool}
    sets |= {(u,) for u in pool} | {tuple(u for u in order if u in pool)}
    cur = units_of(model, cls)
    canon = {tuple(sorted(s, key=order.index)) for s in sets}
    return tuple([cur] + sorted((s for s in canon if set(s) != set(cur)), key=lambda s: (len(s), s)))


def busy_candidates(model: Model, cls: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(clocks held, unit set) pairs for a class's compute uops: its own first, then every other count of 1-4
    clocks on its own set (every compute uop keeping its units) or on one unit of its pool (every compute uop
    there, as ``ports`` sets them); its own count elsewhere is the ``ports`` parameter's.

    Held clocks and units move together: a uop not pipelined on a unit its mixes share with another class is
    refuted by those mixes, on an exclusive one it explains them, and one step at a time the fit could take
    neither (Zen 4's sha1rnds4: one every 2 clocks; on fp1 or fp2 with a vector<->GPR move moved there, two of
    its mixes price 72 clocks against 53-55 measured). Its evidence is a kernel of the class alone (``tput.X``,
    ``lat.X``; not one with helper instructions of another class): a uop that holds its unit shows in the
    throughput of its class alone."""
    cur = (model.classes[cls].busy, units_of(model, cls))
    sets = [cur[1]] + [s for s in port_candidates(model, cls) if len(s) == 1 and s != cur[1]]
    return tuple(dict.fromkeys([cur] + [(b, s) for b in (1, 2, 3, 4) if b != cur[0] for s in sets]))


def _class_params(model: Model, cls: str) -> list[Param]:
    row = model.classes[cls]
    out = []
    lat = int(row.latency)
    compute = sum(1 for u in row.ports if not u.role)
    low = 0 if not compute or row.latency == 0 else 1      # a computing instruction takes at least a clock
    lats = tuple(dict.fromkeys([row.latency] + list(range(low, max(lat + 4, 7) + 1))))
    if cls not in NO_RESULT:
        out.append(Param(f"classes.{cls}", "latency", lats, lambda m, c=cls: m.classes[c].latency,
                         lambda m, v, c=cls: _set_class(m, c, latency=float(v)), lambda cs, c=cls: c in cs))
    units = lambda m, c=cls: compute_units(m, c)  # noqa: E731
    ports = port_candidates(model, cls)
    if len(ports) > 1:
        out.append(Param(f"classes.{cls}", "ports", ports,
                         lambda m, c=cls: units_of(m, c),
                         lambda m, v, c=cls: _set_class(m, c, ports=_with_ports(m.classes[c], tuple(v))),
                         lambda cs, c=cls: c in cs, None, units))
    if compute and not model.in_order:
        out.append(Param(f"classes.{cls}", "compute_uops", tuple(dict.fromkeys([compute, 1, 2, 3, 4])),
                         lambda m, c=cls: sum(1 for u in m.classes[c].ports if not u.role),
                         lambda m, v, c=cls: _set_class(m, c, ports=_with_count(m.classes[c], int(v))),
                         lambda cs, c=cls: c in cs, None, units))
        out.append(Param(f"classes.{cls}", "busy", busy_candidates(model, cls),
                         lambda m, c=cls: (m.classes[c].busy, units_of(m, c)),
                         lambda m, v, c=cls: _set_class(m, c, busy=int(v[0])) if tuple(v[1]) == units_of(m, c)
                         else _set_class(m, c, busy=int(v[0]), ports=_with_ports(m.classes[c], tuple(v[1]))),
                         lambda cs, c=cls: c in cs, lambda cs, c=cls: cs == {c}, units,
                         lambda m, c=cls: m.classes[c].busy))
    elif compute:
        occ = tuple(dict.fromkeys([row.rthroughput, 1.0, 2.0, 3.0, 4.0]))
        out.append(Param(f"classes.{cls}", "rthroughput", occ, lambda m, c=cls: m.classes[c].rthroughput,
                         lambda m, v, c=cls: _set_class(m, c, rthroughput=float(v)), lambda cs, c=cls: c in cs,
                         None, units))
    return out


def _rule(model: Model, **changes) -> Model:
    return dataclasses.replace(model, rules=dataclasses.replace(model.rules, **changes))


def _sized(row: Scheduler | None, entries: int | None, source: str) -> Scheduler | None:
    """``row`` (its name kept) with ``entries``, a new row when there was none, absent for None."""
    if entries is None:
        return None
    return dataclasses.replace(row, entries=int(entries)) if row else Scheduler("scheduler full", int(entries), source)


def _rule_params(model: Model) -> list[Param]:
    r = model.rules
    lats = tuple(range(0, 16))
    stores = lambda cs: bool(cs & WRITES_MEMORY) and bool(cs & READS_MEMORY)  # noqa: E731
    # Out of order, the specific rules below speak for their own kernels (a read-modify-write's store, a vector
    # store, a plain reload): store_forwarding is evidenced only by the rest (a load-op of a plain store). It
    # still touches them while they are absent -- but a stage-1 sweep that ran it first on the read-modify-write
    # kernels set it 7 -> 4 on a Zen 4, pricing the load-op forward 40 % fast (rule.store_forwarding).
    specific = RMW_CLASSES | {"vec_store"}
    general = stores if model.in_order else \
        (lambda cs: stores(cs) and not cs & specific and not cs <= {"store", "load"})  # noqa: E731
    out = [Param("rules.store_forwarding", "latency", tuple(dict.fromkeys([r.store_forward_latency, *lats])),
                 lambda m: m.rules.store_forward_latency, lambda m, v: _rule(m, store_forward_latency=float(v)),
                 stores, general)]
    if not model.in_order:
        vsrc = r.vector_store_forwarding.source if r.vector_store_forwarding else "calibrated"
        cur = r.vector_store_forwarding.latency if r.vector_store_forwarding else None
        out.append(Param("rules.vector_store_forwarding", "latency", tuple(dict.fromkeys([cur, *lats])),
                         lambda m: m.rules.vector_store_forwarding.latency if m.rules.vector_store_forwarding else None,
                         lambda m, v, s=vsrc: _rule(m, vector_store_forwarding=None if v is None else
                                                    VectorForwarding(float(v), s)),
                         lambda cs: "vec_store" in cs and bool(cs & READS_MEMORY)))
        rsrc = r.rmw_forwarding.source if r.rmw_forwarding else "calibrated"
        cur = r.rmw_forwarding.latency if r.rmw_forwarding else None
        imm = lambda m: bool(m.rules.rmw_forwarding and m.rules.rmw_forwarding.immediate)  # noqa: E731
        out.append(Param("rules.rmw_forwarding", "latency", tuple(dict.fromkeys([cur, *lats])),
                         lambda m: m.rules.rmw_forwarding.latency if m.rules.rmw_forwarding else None,
                         lambda m, v, s=rsrc: _rule(m, rmw_forwarding=None if v is None else RmwForwarding(float(v), s, imm(m))),
                         lambda cs: bool(cs & RMW_CLASSES)))
        out.append(Param("rules.rmw_forwarding", "immediate", (imm(model), not imm(model)), imm,
                         lambda m, v: m if m.rules.rmw_forwarding is None else _rule(
                             m, rmw_forwarding=dataclasses.replace(m.rules.rmw_forwarding, immediate=bool(v))),
                         lambda cs: bool(cs & RMW_CLASSES)))
        nsrc = r.memory_renaming.source if r.memory_renaming else "calibrated"
        cur = r.memory_renaming.latency if r.memory_renaming else None
        out.append(Param("rules.memory_renaming", "latency", tuple(dict.fromkeys([cur, *lats])),
                         lambda m: m.rules.memory_renaming.latency if m.rules.memory_renaming else None,
                         lambda m, v, s=nsrc: _rule(m, memory_renaming=None if v is None else MemoryRenaming(float(v), s)),
                         lambda cs: {"store", "load"} <= cs))
        cur = r.scheduler.entries if r.scheduler else None
        ssrc = r.scheduler.source if r.scheduler else "calibrated"
        # absent is a candidate only where the base has no scheduler row: a literature size is never dropped
        out.append(Param("rules.scheduler", "entries", tuple(dict.fromkeys([cur, *SCHEDULER_SIZES])),
                         lambda m: m.rules.scheduler.entries if m.rules.scheduler else None,
                         lambda m, v, s=ssrc: _rule(m, scheduler=_sized(m.rules.scheduler, v, s)),
                         lambda cs: True, lambda cs: SCHEDULER in cs, screen_all_evidence=True))
        coded = frozenset(r.microcode.classes if r.microcode else MICROCODED & set(model.classes))
        if coded:
            cur = r.microcode.slots if r.microcode else None
            msrc = r.microcode.source if r.microcode else "calibrated"
            # as the scheduler's size: absent is a candidate only where the base has no microcode row
            out.append(Param("rules.microcode", "slots", tuple(dict.fromkeys([cur, *MICROCODE_SLOTS])),
                             lambda m: m.rules.microcode.slots if m.rules.microcode else None,
                             lambda m, v, c=coded, s=msrc: _rule(m, microcode=None if v is None else
                                                                 Microcode(c, int(v), s)),
                             lambda cs, c=coded: bool(cs & c), lambda cs: MICROCODE in cs,
                             screen_all_evidence=True))
    for cls in ("mov_rr", "vec_mov"):
        if cls in model.classes:
            now = cls in r.move_elimination
            out.append(Param("rules.move_elimination", cls, (now, not now),
                             lambda m, c=cls: c in m.rules.move_elimination,
                             lambda m, v, c=cls: _rule(m, move_elimination=(m.rules.move_elimination | {c}) if v
                                                       else (m.rules.move_elimination - {c})),
                             lambda cs, c=cls: c in cs))
    return out



def parameters(model: Model, evidence: Sequence[frozenset[str]]) -> list[Param]:
    """The free parameters ``evidence`` (per observation, the classes it is evidence for) can inform: the issue
    width first, then per class seen its units and uop counts, then its latency, then the rules some observation
    speaks for."""
    seen = sorted({c for cs in evidence for c in cs} & set(model.classes))
    out: list[Param] = []
    if not model.in_order:
        w = model.issue_width
        out.append(Param("issue_width", "value", tuple(dict.fromkeys([w, *range(max(1, w - 2), w + 3)])),
                         lambda m: m.issue_width, lambda m, v: dataclasses.replace(m, issue_width=int(v)),
                         lambda cs: True, lambda cs: ISSUE_WIDTH in cs, lambda m: FRONT_END))
    per_class = [p for cls in seen for p in _class_params(model, cls)]
    # throughput first (units, uop counts: the independent-copy kernels hardly depend on latency), then latencies
    out += sorted(per_class, key=lambda p: p.field == "latency")
    return out + [p for p in _rule_params(model) if any(p.speaks(cs) for cs in evidence)]
