"""Fitting a model's free parameters to measured loops: coordinate search over discrete choices.

Input: a model and any list of ``Observation`` -- a loop body as the simulator's items (loop control
included) and its measured core cycles per iteration with their p10/p90. The microbenchmarks of
``sha1opt calibrate`` are one such list (``emit.microbench``); whole SHA-1 block loops timed on the
host (a DiffTune-style second stage) are another, and fit the same way. Nothing here runs native
code: the prediction of every observation is ``Simulator(model).simulate(items, loop=True).cycles``,
the same simulator the search prices candidates with.

The free parameters (``parameters``; ``fit_params`` defines them): per class seen, its ``latency``, its
unit set (``ports``), how many uops it puts there (``compute_uops``) and, out of order, the clocks each holds
its unit with the unit set (``busy``); the ``issue_width`` (moved only on the
evidence of observations whose ``classes`` name ``ISSUE_WIDTH``: a front-end kernel); the rule constants
(store-forwarding, vector store-forwarding, read-modify-write and memory-renaming latencies, whether an RMW
by an immediate forwards as one by a register, move elimination), the scheduler's size (moved only on
the evidence of observations whose ``classes`` name ``SCHEDULER``: the scheduler kernels) and the integer-side
dispatch slots of a microcoded instruction (``rules.microcode``, on the evidence of those naming ``MICROCODE``).
A class's
front-end slots are not fitted (``fit_params`` says why).

The objective is the weighted sum over observations of (log predicted / measured)^2, each weight
1 / max(``MIN_SPREAD``, relative p10-p90 spread)^2 -- the p90 taken no further above the median than
twice the spread below it (``Observation.top``) -- so a noisy measurement pulls less (an error of one
band counts 1). Coordinate search: for each parameter in turn, every candidate is tried with the others held (only the
observations the parameter can affect are re-simulated) and the admissible one with the lowest objective is
kept if it lowers the objective by more than ``MIN_GAIN`` x sqrt(observations hit) -- what noise alone moves
such a sum by --
otherwise the literature value stays (the prior: a change needs evidence); a parameter whose own evidence
(the observations whose ``classes`` name it) is already explained within noise is not tried. The order of
a sweep: the parameters whose own evidence is worst explained first (the given order breaks ties), so a
deadline cuts those with the least to explain. Sweeps repeat until one changes nothing (at most
``max_sweeps``) or the deadline passes.

Admissible (the rule that keeps the fit from inventing hardware; ``admissible``):

1. *Refutation* (every parameter): the change must not price any observation it touches slower than the
   machine ran it (above its ``ceiling``: its p90, or less where its samples spread less below the median
   than above -- interference only slows -- by more than ``MIN_SPREAD``) where the current model did not. A resource count or a latency is a lower bound on time: a loop cannot run
   faster than its units or its dependency chain allow, so a value that says it must be slower than it was
   measured is refuted by that measurement, however much it helps the sum of the others. (Measured slower
   than predicted is no refutation: the front end, loop control, a busy sibling hardware thread, anything
   the model does not express can slow a loop.)
2. *Witness* (structural parameters: unit sets, uops on units, clocks held, the issue width): the change must
   be required by one of the parameter's own evidence observations that the current model prices faster than
   measured (below its p10), that is bound by a resource of the same kind under the current model (a unit for
   a unit change, the front end for the issue width -- not its dependency chain, nor the loop control's, nor the
   front end for a unit change: those say nothing about a class's units), and whose binding resource under
   the new value -- the simulator's bottleneck -- is the resource the parameter sets: one of the class's
   units, or the front end.

3. *Constraints* (the second stage): observations given as ``constraints`` are not in the objective, but
   a change may not refute one (rule 1) nor move one the current model explains within its band (p10..p90,
   with ``MIN_SPREAD``) out of it: ``holds``. The second stage (``emit.calibrate``) fits whole SHA-1 loops
   timed on the host with the microbenchmarks as constraints, so it moves only what the kernels leave free
   (a row no kernel pins, or one whose kernels stage 1 could not explain) -- DiffTune's second stage on
   top of the first, never against it.

Regression (tests/search/test_fit_admissible.py): the first calibration on a Zen 3 put ``add_rr`` on one ALU
(the pair kernels with adds ran at 2 per clock; ``tput.add_rr``, measured at 24 clocks for 48 adds, was priced
48 by that row and is now its refutation).

Invariant: the fitted model loads like any other (the rows it changes are complete rows) and the
objective of the result is never above the base model's. Example: observations simulated with zen3
whose ``rot_imm`` latency is 2 fit, from zen3, to exactly that change (tests/search/test_cost_fit.py).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sha1opt.search.cost.classes import Item, classify
from sha1opt.search.cost.fit_params import (FRONT_END, ISSUE_WIDTH, MICROCODE, SCHEDULER, Param,  # noqa: F401
                                            parameters as _parameters, pools, port_candidates, units_of)
from sha1opt.search.cost.fit_pool import Evaluator
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import Simulator

__all__ = ["ISSUE_WIDTH", "MIN_SPREAD", "Observation", "Param", "Fit", "predict", "objective", "parameters",
           "pools", "port_candidates", "refuted", "witness", "holds", "admissible", "fit"]

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
    def top(self) -> float:
        """The p90 without interference: interference (a sibling hardware thread, the host) only ever slows a
        sample, so the spread below the median is the measurement's own noise, and the p90 counts only up to
        twice that spread above the median."""
        top = self.p90
        if 0 < self.p10 <= self.cycles:
            top = min(top, self.cycles + 2 * (self.cycles - self.p10))
        return top

    @property
    def weight(self) -> float:
        """1 / the relative p10..``top`` spread squared (at least ``MIN_SPREAD``). Example: rule.scheduler.80 on a
        Zen 4, median 35.6, p10 35.3, p90 59.8 (a run with slowed samples): top 36.2, spread 2.5 %, not 69 % --
        with the p90 the scheduler kernels of that run weighed 1/1000 of a quiet run's, and their
        knee moved nothing."""
        spread = (self.top - self.p10) / self.cycles if self.cycles > 0 and self.top >= self.p10 else 0.0
        return 1.0 / max(MIN_SPREAD, spread) ** 2

    @property
    def ceiling(self) -> float:
        """The slowest this loop ran, with noise: a prediction above it is refuted (module docstring, 1): ``top``
        with ``MIN_SPREAD``. Example: tput.logic_rm on a Zen 4, median 16.5, p10 16.3, p90 25.0 (a few slowed
        samples): ceiling 17.4, so a unit set that prices it 24 is refuted -- with the p90 it was not, and was
        fitted."""
        return max(self.top, self.cycles) * (1 + MIN_SPREAD)

    @property
    def floor(self) -> float:
        """The fastest this loop ran, with noise: a prediction below it is too fast (module docstring, 2)."""
        low = self.p10 if 0 < self.p10 <= self.cycles else self.cycles
        return low / (1 + MIN_SPREAD)


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



def parameters(model: Model, observations: Sequence[Observation]) -> list[Param]:
    """The free parameters the observations can inform (``fit_params.parameters``), globals first."""
    return _parameters(model, [_classes_of(model, o) for o in observations])


def _classes_of(model: Model, o: Observation) -> frozenset[str]:
    """The classes ``o`` is evidence for: which parameters it makes free."""
    return o.classes if o.classes is not None else _priced(model, o)


def _priced(model: Model, o: Observation) -> frozenset[str]:
    """Every class in ``o``'s items: whose parameters change its prediction."""
    return frozenset(classify(it, model) for it in o.items)


def _screen(p: Param, model: Model, now: Any, hit: Sequence[Observation], evidence: set[str],
            err: dict[str, float], pred: dict[str, float], ev: Evaluator) -> list[Any]:
    """The candidates worth trying on every observation ``hit``: all of them when few observations are hit,
    else the ``SCREEN_KEEP`` best on ``SCREEN`` probes -- the parameter's own evidence (observations whose
    ``classes`` name its class), the worst-explained first, then the worst-explained others -- or on all its
    own evidence (``Param.screen_all_evidence``), where a candidate that evidence refutes (rule 1) is not kept."""
    others = [v for v in p.candidates if v != now]
    if len(hit) <= SCREEN:
        return others
    whole = p.screen_all_evidence          # (``_fit`` screens only a parameter with evidence in ``hit``)
    probe = [o for o in hit if o.name in evidence] if whole else \
        sorted(hit, key=lambda o: (o.name not in evidence, -err[o.name]))[:SCREEN]
    names = [o.name for o in probe]
    got = ev.many([p.set(model, v) for v in others], [names] * len(others))
    scored = sorted(((sum(_error(tp[o.name], o) for o in probe), k) for k, tp in enumerate(got)
                     if tp is not None and not (whole and refuted(tp, pred, probe))))
    return [others[k] for _, k in scored[:SCREEN_KEEP]]


# --- admissibility ----------------------------------------------------------------------------------------

def _binds(bottleneck: str, resource: frozenset[str]) -> bool:
    """Whether a simulation's bottleneck (``"port alu1|alu2"``, ``"front end"``, ``"critical path"``...) is one
    of ``resource`` (unit names, or ``fit_params.FRONT_END``)."""
    if bottleneck.startswith("port "):
        return bool(set(bottleneck[5:].split("|")) & resource)
    return bottleneck in resource


def refuted(new: dict[str, float], now: dict[str, float], obs: Sequence[Observation]) -> str | None:
    """The first observation ``new`` prices above its ceiling where ``now`` was not above it (rule 1), or None."""
    for o in obs:
        if new[o.name] > o.ceiling and new[o.name] > now[o.name] + 1e-9:
            return o.name
    return None


def _kind(bottleneck: str) -> str:
    return "units" if bottleneck.startswith("port ") else bottleneck


def witness(p: Param, now_model: Model, model: Model, evidence: Sequence[Observation],
            now: dict[str, float]) -> str | None:
    """An observation of ``evidence`` that ``now`` (``now_model``'s predictions) prices too fast, bound by a
    resource of ``p``'s kind under ``now_model`` and by ``p``'s resource under ``model`` (the candidate value
    set): rule 2; None when there is none. Only for structural ``p`` (else the first of ``evidence``)."""
    if not p.structural:
        return evidence[0].name if evidence else None
    resource = p.resource(model)
    kind = "units" if resource != FRONT_END else next(iter(FRONT_END))
    was, new = Simulator(now_model), Simulator(model)
    for o in sorted(evidence, key=lambda o: now[o.name] / o.cycles):
        if now[o.name] >= o.floor:
            break
        try:
            if _kind(was.simulate(o.items, loop=True).bottleneck) == kind and \
                    _binds(new.simulate(o.items, loop=True).bottleneck, resource):
                return o.name
        except Exception:       # noqa: BLE001 -- a candidate the engine cannot run witnesses nothing
            return None
    return None


def _within(pred: float, o: Observation) -> bool:
    return o.floor <= pred <= o.ceiling


def holds(new: dict[str, float], now: dict[str, float], constraints: Sequence[Observation]) -> str | None:
    """The first constraint ``new`` refutes or moves out of its band where ``now`` had it inside (rule 3), or
    None."""
    for o in constraints:
        if (new[o.name] > o.ceiling and new[o.name] > now[o.name] + 1e-9) or \
                (_within(now[o.name], o) and not _within(new[o.name], o)):
            return o.name
    return None


def admissible(p: Param, value: Any, model: Model, hit: Sequence[Observation], evidence: Sequence[Observation],
               now: dict[str, float], new: dict[str, float]) -> bool:
    """Rules 1 and 2 of the module docstring for ``p`` set to ``value`` on ``model`` (``now``/``new``: the
    predictions of ``hit`` before and after)."""
    if refuted(new, now, hit) is not None:
        return False
    return witness(p, model, p.set(model, value), evidence, now) is not None


# --- the search -------------------------------------------------------------------------------------------

def _by_error(params: Sequence[Param], model: Model, observations: Sequence[Observation],
              kinds: dict[str, frozenset[str]], err: dict[str, float]) -> list[Param]:
    """``params`` in the order of a sweep: the worst-explained own evidence first (so a deadline leaves the
    parameters with the least to explain), ties in the given order."""
    def own(p: Param) -> float:
        return sum(err[o.name] for o in observations
                   if p.touches(kinds[o.name]) and p.speaks(_classes_of(model, o)))
    score = {id(p): own(p) for p in params}
    return sorted(params, key=lambda p: -score[id(p)])


def fit(model: Model, observations: Sequence[Observation], *, max_sweeps: int = 4, deadline: float | None = None,
        params: Sequence[Param] | None = None, progress: Callable[[str], None] | None = None,
        workers: int = 1, constraints: Sequence[Observation] = ()) -> Fit:
    """The model whose parameters best explain ``observations`` (module docstring) among the admissible ones;
    ``deadline`` is a ``time.monotonic()`` value past which the search stops with what it has (``complete``
    False); ``workers`` processes price a parameter's candidates side by side (``fit_pool``); ``constraints``
    bound what may move (rule 3)."""
    with Evaluator({o.name: tuple(o.items) for o in [*observations, *constraints]}, workers) as ev:
        return _fit(model, observations, max_sweeps, deadline, params, progress, ev, constraints)


def _fit(model: Model, observations: Sequence[Observation], max_sweeps: int, deadline: float | None,
         params: Sequence[Param] | None, progress: Callable[[str], None] | None, ev: Evaluator,
         constraints: Sequence[Observation]) -> Fit:
    params = list(params) if params is not None else parameters(model, observations)
    kinds = {o.name: _priced(model, o) for o in [*observations, *constraints]}
    cpred = ev.all(model, [o.name for o in constraints])
    before = ev.all(model, [o.name for o in observations])
    pred = dict(before)
    err = {o.name: _error(pred[o.name], o) for o in observations}
    cur = model
    complete = True
    for sweep in range(max_sweeps):
        moved = False
        for p in _by_error(params, model, observations, kinds, err):
            if deadline is not None and time.monotonic() > deadline:
                complete = False
                break
            hit = [o for o in observations if p.touches(kinds[o.name])]
            if not hit:
                continue
            now = p.get(cur)
            base = sum(err[o.name] for o in hit)
            # a move must gain more than noise over the current value; among those, the lowest objective
            best, best_val, best_pred = base - max(MIN_GAIN * math.sqrt(len(hit)), REL_GAIN * base), now, None
            evidence = [o for o in hit if p.speaks(_classes_of(model, o))]
            if all(err[o.name] < 1.0 for o in evidence):
                continue        # its own evidence is explained within noise: nothing to move it for
            tried = _screen(p, cur, now, hit, {o.name for o in evidence}, err, pred, ev)
            if deadline is not None and time.monotonic() > deadline:
                complete = False
                break
            names = [o.name for o in hit]
            chit = [o for o in constraints if p.touches(kinds[o.name])]
            got = ev.many([p.set(cur, v) for v in tried], [names] * len(tried))
            for e, k in sorted((sum(_error(tp[o.name], o) for o in hit), k) for k, tp in enumerate(got)
                               if tp is not None):
                if e >= best:
                    break
                if not admissible(p, tried[k], cur, hit, evidence, pred, got[k]):
                    continue
                tc = ev.many([p.set(cur, tried[k])], [[o.name for o in chit]])[0] if chit else {}
                if tc is None or holds(tc, cpred, chit) is not None:
                    continue
                best, best_val, best_pred = e, tried[k], got[k]
                cpred.update(tc)
                break
            if best_pred is not None:
                cur = p.set(cur, best_val)
                pred.update(best_pred)
                err.update({o.name: _error(pred[o.name], o) for o in hit})
                moved = True
                if progress:
                    progress(f"sweep {sweep + 1}: {p.name} {now} -> {best_val} (objective {sum(err.values()):.4g})")
        if not complete or not moved:
            break
    after = ev.all(cur, [o.name for o in observations])
    changes = []
    for p in params:
        value = p.recorded or p.get
        old, new = value(model), value(cur)
        if old != new:
            hit = [o for o in observations if p.touches(kinds[o.name])]
            own = [o for o in hit if p.speaks(_classes_of(model, o))]     # cited first: its own evidence
            gain = sorted(((abs(math.log(before[o.name] / o.cycles)) - abs(math.log(after[o.name] / o.cycles)), o.name)
                           for o in (own or hit)), reverse=True)
            changes.append((p.name, old, new, tuple(n for g, n in gain[:3] if g > 0) or tuple(n for _, n in gain[:1])))
    named = {name for name, *_ in changes}
    for c in cur.classes:       # a unit set a joint parameter moved (``busy``'s) while the ``ports`` parameter
        was, now = units_of(model, c), units_of(cur, c)     # was not in ``params``: recorded as that field still
        if was != now and f"classes.{c}.ports" not in named:
            changes.append((f"classes.{c}.ports", was, now, ()))
    return Fit(cur, tuple(changes), before, after, sum(_error(before[o.name], o) for o in observations),
               sum(_error(after[o.name], o) for o in observations), complete)
