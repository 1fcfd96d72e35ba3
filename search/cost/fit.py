"""Fitting a model's free parameters to measured loops: coordinate search over discrete choices.

Input: a model and any list of ``Observation`` -- a loop body as the simulator's items (loop control
included) and its measured core cycles per iteration with their p10/p90. The microbenchmarks of
``sha1opt calibrate`` are one such list (``emit.microbench``); whole SHA-1 block loops timed on the
host (a DiffTune-style second stage) are another, and fit the same way. Nothing here runs native
code: the prediction of every observation is ``Simulator(model).simulate(items, loop=True).cycles``,
the same simulator the search prices candidates with.

The free parameters (``parameters``), each a finite list of candidate values:

* per instruction class seen in the observations: ``latency`` (whole clocks 0 .. max(literature + 4, 7)),
  ``ports`` -- the unit set every compute uop of the class may use: a set the model already names, a
  single unit, or the whole pool (units connected through the model's sets: the integer ALUs, the
  vector pipes) -- ``compute_uops`` (how many uops the class puts on those units, 1-4: the out-of-order
  engine's way to say a unit is busy for several clocks; ``rthroughput`` follows what the ports imply; on
  an in-order model ``rthroughput`` itself, the clocks a unit is held) -- and ``uops`` (front-end slots,
  1-4);
* ``issue_width`` (out-of-order models), judged on every observation but moved only on the evidence of
  those whose ``classes`` name ``ISSUE_WIDTH`` (a front-end kernel: a taken-branch limit, which the models
  do not express, must not pass for a narrower machine);
* the rule constants: ``store_forwarding``, ``vector_store_forwarding`` and ``rmw_forwarding`` latencies,
  and ``move_elimination`` (whether a ``mov_rr`` / ``vec_mov`` is renamed away).

The objective is the weighted sum over observations of (log predicted / measured)^2, each weight
1 / max(``MIN_SPREAD``, relative p10-p90 spread)^2, so a noisy measurement pulls less (an error of one
band counts 1). Coordinate search: for each parameter in turn, every candidate is tried with the others
held (only the observations the parameter can affect are re-simulated) and the best is kept if it lowers
the objective by more than ``MIN_GAIN`` x sqrt(observations hit) -- what noise alone moves such a sum by --
otherwise the literature value stays (the prior: a change needs evidence); a parameter whose own evidence
(the observations whose ``classes`` name it) is already explained within noise is not tried. The order:
the issue width, every class's units and uop counts, every class's latency, the rules. Sweeps
repeat until one changes nothing (at most ``max_sweeps``) or the deadline passes.

Invariant: the fitted model loads like any other (the rows it changes are complete rows) and the
objective of the result is never above the base model's. Example: observations simulated with zen3
whose ``rot_imm`` latency is 2 fit, from zen3, to exactly that change (tests/search/test_cost_fit.py).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sha1opt.search.cost.classes import Item, classify
from sha1opt.search.cost.model import READS_MEMORY, WRITES_MEMORY, ClassCost, Model, RmwForwarding, Uop, \
    VectorForwarding, derived_rthroughput
from sha1opt.search.cost.simulator import Simulator

ISSUE_WIDTH = "issue_width"     # named in an observation's ``classes``: it is evidence for the issue width
MIN_SPREAD = 0.02       # a measurement's relative spread is taken as at least 2 % (the weight's floor)
MIN_GAIN = 2.0          # a change must lower the objective by more than MIN_GAIN x sqrt(observations it hits)
#                         (weight 1 / spread^2: an error of one spread is 1.0; noise alone moves a sum of n such
#                         errors by about sqrt(n)), else the literature value stays
REL_GAIN = 0.01         # ... and by more than this share of the affected observations' error
SCREEN = 4              # a parameter hitting more observations is screened on its 4 worst-explained ones
SCREEN_KEEP = 3         # ... and only its 3 best candidates there are tried on all


@dataclass(frozen=True)
class Observation:
    """One measured loop: ``items`` (one iteration, loop control included), core cycles per iteration."""
    name: str
    items: tuple[Item, ...]
    cycles: float           # median
    p10: float = 0.0
    p90: float = 0.0
    classes: frozenset[str] | None = None   # the classes it is evidence for (None: every class in it)

    @property
    def weight(self) -> float:
        spread = (self.p90 - self.p10) / self.cycles if self.cycles > 0 and self.p90 >= self.p10 else 0.0
        return 1.0 / max(MIN_SPREAD, spread) ** 2


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

    def speaks(self, classes: frozenset[str]) -> bool:
        return (self.evidence or self.touches)(classes)

    @property
    def name(self) -> str:
        return f"{self.row}.{self.field}"


@dataclass(frozen=True)
class Fit:
    """The result: the fitted model, what changed (name, old, new, evidence), predictions before and after."""
    model: Model
    changes: tuple[tuple[str, Any, Any, tuple[str, ...]], ...]
    before: dict[str, float]
    after: dict[str, float]
    objective_before: float
    objective_after: float
    complete: bool              # False when the deadline stopped the search


def predict(model: Model, observations: Sequence[Observation]) -> dict[str, float]:
    """Predicted cycles per iteration of every observation under ``model``."""
    sim = Simulator(model)
    return {o.name: sim.simulate(o.items, loop=True).cycles for o in observations}


def _error(pred: float, o: Observation) -> float:
    return o.weight * math.log(max(pred, 1e-6) / o.cycles) ** 2


def objective(model: Model, observations: Sequence[Observation]) -> float:
    p = predict(model, observations)
    return sum(_error(p[o.name], o) for o in observations)


# --- the parameters ---------------------------------------------------------------------------------------

def _set_class(model: Model, name: str, **changes) -> Model:
    row = dataclasses.replace(model.classes[name], **changes)
    if "ports" in changes:
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


def port_candidates(model: Model, cls: str) -> tuple[tuple[str, ...], ...]:
    """The unit sets a class's compute uops may be given: the model's sets inside its pool, single units, the pool."""
    mine = {u for p in model.classes[cls].ports if not p.role for u in p.units}
    if not mine:
        return ()
    pool = next(p for p in pools(model) if mine <= p)
    order = [u.name for u in model.units]
    sets = {tuple(p.units) for c in model.classes.values() for p in c.ports if not p.role and set(p.units) <= pool}
    sets |= {(u,) for u in pool} | {tuple(u for u in order if u in pool)}
    cur = next(tuple(p.units) for p in model.classes[cls].ports if not p.role)
    canon = {tuple(sorted(s, key=order.index)) for s in sets}
    return tuple([cur] + sorted((s for s in canon if set(s) != set(cur)), key=lambda s: (len(s), s)))


def _class_params(model: Model, cls: str) -> list[Param]:
    row = model.classes[cls]
    out = []
    lat = int(row.latency)
    lats = tuple(dict.fromkeys([row.latency] + list(range(0, max(lat + 4, 7) + 1))))
    out.append(Param(f"classes.{cls}", "latency", lats, lambda m, c=cls: m.classes[c].latency,
                     lambda m, v, c=cls: _set_class(m, c, latency=float(v)), lambda cs, c=cls: c in cs))
    ports = port_candidates(model, cls)
    if len(ports) > 1:
        out.append(Param(f"classes.{cls}", "ports", ports,
                         lambda m, c=cls: next(tuple(p.units) for p in m.classes[c].ports if not p.role),
                         lambda m, v, c=cls: _set_class(m, c, ports=_with_ports(m.classes[c], tuple(v))),
                         lambda cs, c=cls: c in cs))
    compute = sum(1 for u in row.ports if not u.role)
    if compute and not model.in_order:
        out.append(Param(f"classes.{cls}", "compute_uops", tuple(dict.fromkeys([compute, 1, 2, 3, 4])),
                         lambda m, c=cls: sum(1 for u in m.classes[c].ports if not u.role),
                         lambda m, v, c=cls: _set_class(m, c, ports=_with_count(m.classes[c], int(v))),
                         lambda cs, c=cls: c in cs))
    elif compute:
        occ = tuple(dict.fromkeys([row.rthroughput, 1.0, 2.0, 3.0, 4.0]))
        out.append(Param(f"classes.{cls}", "rthroughput", occ, lambda m, c=cls: m.classes[c].rthroughput,
                         lambda m, v, c=cls: _set_class(m, c, rthroughput=float(v)), lambda cs, c=cls: c in cs))
    out.append(Param(f"classes.{cls}", "uops", tuple(dict.fromkeys([row.uops, 1, 2, 3, 4])),
                     lambda m, c=cls: m.classes[c].uops, lambda m, v, c=cls: _set_class(m, c, uops=int(v)),
                     lambda cs, c=cls: c in cs))
    return out


def _rule(model: Model, **changes) -> Model:
    return dataclasses.replace(model, rules=dataclasses.replace(model.rules, **changes))


def _rule_params(model: Model) -> list[Param]:
    r = model.rules
    lats = tuple(range(0, 16))
    stores = lambda cs: bool(cs & WRITES_MEMORY) and bool(cs & READS_MEMORY)  # noqa: E731
    out = [Param("rules.store_forwarding", "latency", tuple(dict.fromkeys([r.store_forward_latency, *lats])),
                 lambda m: m.rules.store_forward_latency, lambda m, v: _rule(m, store_forward_latency=float(v)),
                 stores)]
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
        out.append(Param("rules.rmw_forwarding", "latency", tuple(dict.fromkeys([cur, *lats])),
                         lambda m: m.rules.rmw_forwarding.latency if m.rules.rmw_forwarding else None,
                         lambda m, v, s=rsrc: _rule(m, rmw_forwarding=None if v is None else RmwForwarding(float(v), s)),
                         lambda cs: bool(cs & {"alu_mr", "shift_mr"})))
    for cls in ("mov_rr", "vec_mov"):
        if cls in model.classes:
            now = cls in r.move_elimination
            out.append(Param("rules.move_elimination", cls, (now, not now),
                             lambda m, c=cls: c in m.rules.move_elimination,
                             lambda m, v, c=cls: _rule(m, move_elimination=(m.rules.move_elimination | {c}) if v
                                                       else (m.rules.move_elimination - {c})),
                             lambda cs, c=cls: c in cs))
    return out


def parameters(model: Model, observations: Sequence[Observation]) -> list[Param]:
    """The free parameters the observations can inform (see the module docstring), globals first."""
    seen = sorted({c for o in observations for c in _classes_of(model, o)} & set(model.classes))
    out: list[Param] = []
    if not model.in_order:
        w = model.issue_width
        out.append(Param("issue_width", "value", tuple(dict.fromkeys([w, *range(max(1, w - 2), w + 3)])),
                         lambda m: m.issue_width, lambda m, v: dataclasses.replace(m, issue_width=int(v)),
                         lambda cs: True, lambda cs: ISSUE_WIDTH in cs))
    per_class = [p for cls in seen for p in _class_params(model, cls)]
    # throughput first (units, uop counts: the independent-copy kernels hardly depend on latency), then latencies
    out += sorted(per_class, key=lambda p: p.field == "latency")
    return out + [p for p in _rule_params(model) if any(p.speaks(_classes_of(model, o)) for o in observations)]


def _classes_of(model: Model, o: Observation) -> frozenset[str]:
    """The classes ``o`` is evidence for: which parameters it makes free."""
    return o.classes if o.classes is not None else _priced(model, o)


def _priced(model: Model, o: Observation) -> frozenset[str]:
    """Every class in ``o``'s items: whose parameters change its prediction."""
    return frozenset(classify(it, model) for it in o.items)


def _screen(p: Param, model: Model, now: Any, hit: Sequence[Observation], evidence: set[str],
            err: dict[str, float]) -> list[Any]:
    """The candidates worth trying on every observation ``hit``: all of them when few observations are hit,
    else the ``SCREEN_KEEP`` best on ``SCREEN`` probes -- the parameter's own evidence (observations whose
    ``classes`` name its class), the worst-explained first, then the worst-explained others."""
    others = [v for v in p.candidates if v != now]
    if len(hit) <= SCREEN:
        return others
    probe = sorted(hit, key=lambda o: (o.name not in evidence, -err[o.name]))[:SCREEN]
    scored = []
    for v in others:
        try:
            tp = predict(p.set(model, v), probe)
        except Exception:       # noqa: BLE001 -- a candidate the engine cannot run is no candidate
            continue
        scored.append((sum(_error(tp[o.name], o) for o in probe), v))
    scored.sort(key=lambda ev: ev[0])
    return [v for _, v in scored[:SCREEN_KEEP]]


# --- the search -------------------------------------------------------------------------------------------

def fit(model: Model, observations: Sequence[Observation], *, max_sweeps: int = 4, deadline: float | None = None,
        params: Sequence[Param] | None = None, progress: Callable[[str], None] | None = None) -> Fit:
    """The model whose parameters best explain ``observations`` (module docstring); ``deadline`` is a
    ``time.monotonic()`` value past which the search stops with what it has (``complete`` False)."""
    params = list(params) if params is not None else parameters(model, observations)
    kinds = {o.name: _priced(model, o) for o in observations}
    before = predict(model, observations)
    pred = dict(before)
    err = {o.name: _error(pred[o.name], o) for o in observations}
    cur = model
    complete = True
    for sweep in range(max_sweeps):
        moved = False
        for k, p in enumerate(params):
            if deadline is not None and time.monotonic() > deadline:
                complete = False
                break
            hit = [o for o in observations if p.touches(kinds[o.name])]
            if not hit:
                continue
            now = p.get(cur)
            base = sum(err[o.name] for o in hit)
            best, best_val, best_pred = base, now, None
            evidence = {o.name for o in hit if p.speaks(_classes_of(model, o))}
            if all(err[n] < 1.0 for n in evidence):
                continue        # its own evidence is explained within noise: nothing to move it for
            for v in _screen(p, cur, now, hit, evidence, err):
                if deadline is not None and time.monotonic() > deadline:
                    complete = False
                    break
                try:
                    tp = predict(p.set(cur, v), hit)
                except Exception:       # noqa: BLE001 -- a candidate the engine cannot run is no candidate
                    continue
                e = sum(_error(tp[o.name], o) for o in hit)
                if e < best - max(MIN_GAIN * math.sqrt(len(hit)), REL_GAIN * base):
                    best, best_val, best_pred = e, v, tp
            if best_pred is not None:
                cur = p.set(cur, best_val)
                pred.update(best_pred)
                err.update({o.name: _error(pred[o.name], o) for o in hit})
                moved = True
                if progress:
                    progress(f"sweep {sweep + 1}: {p.name} {now} -> {best_val} (objective {sum(err.values()):.4g})")
        if not complete or not moved:
            break
    after = predict(cur, observations)
    changes = []
    for p in params:
        old, new = p.get(model), p.get(cur)
        if old != new:
            gain = sorted(((abs(math.log(before[o.name] / o.cycles)) - abs(math.log(after[o.name] / o.cycles)), o.name)
                           for o in observations if p.touches(kinds[o.name])), reverse=True)
            changes.append((p.name, old, new, tuple(n for g, n in gain[:3] if g > 0) or tuple(n for _, n in gain[:1])))
    return Fit(cur, tuple(changes), before, after, sum(_error(before[o.name], o) for o in observations),
               sum(_error(after[o.name], o) for o in observations), complete)
