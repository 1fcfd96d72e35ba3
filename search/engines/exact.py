"""The exact engine: optimal modulo schedule of one steady-state round template (CP-SAT).

Rounds of one kind repeat with rotating register names, so in steady state a
round is a *template* started every II clocks (software pipelining). For a
round kind and recipe we take the operations of one round (the template) and
the dependences from it to the next round (loop-carried, distance 1), and
ask CP-SAT for start times ``s_i = II*q_i + r_i`` such that

* every true dependence i -> j waits for i's latency (plus II if carried;
  store -> load pairs wait for the store-forwarding latency); on in-order
  models write-after-read and write-after-write order is kept too;
* in every modulo slot r, no unit takes more uops than its speed (each uop
  picks one of its alternative units), and no more than ``issue_width``
  front-end slots issue.

On in-order models the template is taken on floating registers
(``search.space.assignment``): the dependences are the values' own, without
the write-after-read order the fixed rotating layout adds (round t+1's
``lea`` into d's register after round t's f has read d), and the candidate
it orders is a floating one. Out-of-order models ignore those edges anyway.

II is tried upward from a lower bound (uops / issue width, per-unit load);
the first feasible II whose smaller values were all proved infeasible is
optimal -- ``gap = 0`` is the certificate. If a smaller II timed out, that
II is the best bound and the gap is reported. This is a model of the model
(it ignores the window and the front end's finer rules), which is exactly
why the simulator re-scores everything the heuristic engine builds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

from sha1opt.semantics.sha1 import kind
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.decode import CLS, SKIND
from sha1opt.search.cost.simulator import decode
from sha1opt.search.space.assignment import flow
from sha1opt.search.space.candidate import REGS, Candidate
from sha1opt.search.space.order import build_graph
from sha1opt.search.space.recipe import Recipe, range_ops, recipes_for

MAX_II = 40
# Deterministic mode reads no clock, so it bounds the recipes tried per kind by count: about as many
# as the wall-clock mode reaches here in the same budget (~0.25 s per recipe on 2 loaded cores).
DET_SECONDS_PER_RECIPE = 0.25


@dataclass(frozen=True)
class TemplateResult:
    kind: str                  # "f1", "f2", "f3"
    round: int                 # the representative round
    recipe: Recipe
    ii: int | None             # optimal (or best found) cycles per round
    lower_bound: int           # proved lower bound on II
    status: str                # "optimal", "feasible", "unknown"
    starts: tuple[int, ...]    # start time of each template op (s_i)
    seconds: float
    candidate: Candidate | None = None   # a Candidate ordering a range by this template (set by solve_templates)
    work: float = 0.0          # CP-SAT deterministic time spent (what the deterministic mode budgets)

    @property
    def gap(self) -> float | None:
        if self.ii is None:
            return None
        return (self.ii - self.lower_bound) / self.ii


def _template(t: int, recipe: Recipe, arch: Arch, floating: bool = False):
    """Ops of rounds t and t+1 (same structure), the graph (of values, with ``floating``), and the split point."""
    ops = range_ops(t, t + 1, recipe, arch)
    n = sum(1 for o in ops if o.round == t)
    if len(ops) != 2 * n:
        return None
    graph = flow(ops, arch, t, t + 1).graph if floating else build_graph(ops)
    return ops, graph, n


def solve_template(model, arch: Arch, t: int, recipe: Recipe, time_limit: float = 10.0,
                   deterministic: bool = False, floating: bool = False) -> TemplateResult:
    """The template's optimal II within ``time_limit``: seconds, or with ``deterministic`` CP-SAT's
    deterministic time units (then the result does not depend on the machine or its load);
    ``floating``: over the floating-register graph (see the module docstring)."""
    # OR-Tools (with the pandas it pulls in) costs ~0.4 s to import: only a search pays it,
    # not every `sha1opt` command that imports this module's callers.
    from ortools.sat.python import cp_model

    t0 = time.monotonic()
    built = _template(t, recipe, arch, floating)
    k = kind(t)
    if built is None:
        return TemplateResult(k, t, recipe, None, 0, "unknown", (), 0.0)
    ops, graph, n = built
    dec = decode([o.ins for o in ops[:n]], model)     # the simulator's facts: class, store kind
    costs = [model.classes[d[CLS]] for d in dec]
    lat = [max(0, int(math.ceil(c.latency))) for c in costs]
    elim = getattr(model.rules, "move_elimination", frozenset())
    for i, d in enumerate(dec):
        if d[CLS] in elim:
            lat[i] = 0

    def forward(i: int, j: int) -> int:
        """Clocks from store ``i`` to load ``j`` (Rules.forward_latency, as the simulator: a plain reload "plain")."""
        return int(math.ceil(model.rules.forward_latency(dec[i][SKIND] or "other",
                                                          "plain" if dec[j][CLS] == "load" else "other")))
    # Edges: (i, j, latency, distance)
    edges = []
    for j in range(2 * n):
        for i in graph.preds[j]:
            raw = any(loc in graph.reads[j] for loc in graph.writes[i])
            if not raw and not model.in_order:
                continue
            li = lat[i % n]
            if raw and any(isinstance(loc, tuple) for loc in graph.writes[i] & graph.reads[j]):
                li = max(li, forward(i % n, j % n))
            if not raw:
                li = 0 if any(loc in graph.reads[i] for loc in graph.writes[j]) else 1
            if i < n and j < n:
                edges.append((i, j, li, 0))
            elif i < n <= j:
                edges.append((i, j - n, li, 1))
    units = {u.name: u.speed for u in model.units}
    slots = sum(c.uops for c in costs)
    per_unit: dict[str, float] = {}
    for c in costs:
        for u in c.ports:
            for name in u.units:
                per_unit[name] = per_unit.get(name, 0) + 1 / len(u.units)
    lb = max(1, math.ceil(slots / model.issue_width - 1e-9))
    # A unit set used by uops with no alternative bounds II too.
    for name, load in per_unit.items():
        lb = max(lb, math.ceil(load / units[name] - 1e-9))
    lower = lb
    best = None
    status = "unknown"
    budget_end = t0 + time_limit
    dleft = time_limit                       # deterministic units left (deterministic mode)
    for ii in range(lb, MAX_II + 1):
        left = dleft if deterministic else budget_end - time.monotonic()
        if left <= 0.05:
            break
        m = cp_model.CpModel()
        horizon = 6
        q = [m.NewIntVar(0, horizon, f"q{i}") for i in range(n)]
        b = [[m.NewBoolVar(f"b{i}_{c}") for c in range(ii)] for i in range(n)]
        r = []
        for i in range(n):
            m.AddExactlyOne(b[i])
            r.append(sum(c * b[i][c] for c in range(ii)))
        s = [ii * q[i] + r[i] for i in range(n)]
        for i, j, li, dist in edges:
            m.Add(s[j] + dist * ii >= s[i] + li)
        use: dict[tuple[str, int], list] = {}
        for i, c in enumerate(costs):
            for ui, uop in enumerate(c.ports):
                for cyc in range(ii):
                    zs = []
                    for name in uop.units:
                        z = m.NewBoolVar(f"z{i}_{ui}_{name}_{cyc}")
                        zs.append(z)
                        use.setdefault((name, cyc), []).append(z)
                    m.Add(sum(zs) == b[i][cyc])
        for (name, cyc), zs in use.items():
            m.Add(sum(zs) <= units[name])
        for cyc in range(ii):
            m.Add(sum(costs[i].uops * b[i][cyc] for i in range(n)) <= model.issue_width)
        # Prefer compact schedules (shorter latency from first to last op).
        span = m.NewIntVar(0, (horizon + 1) * ii, "span")
        for i in range(n):
            m.Add(span >= s[i])
        m.Minimize(span)
        solver = cp_model.CpSolver()
        if deterministic:
            solver.parameters.max_deterministic_time = max(0.05, left)
        else:
            solver.parameters.max_time_in_seconds = max(0.05, left)
        solver.parameters.num_workers = 1
        # CP-SAT must leave SIGINT alone: by default it installs its own handler and, when done,
        # resets SIGINT to the *default* action, so a later Ctrl-C killed the whole search unreported
        # (and one during the solve was swallowed). The caller stops us through ``should_stop``.
        solver.parameters.catch_sigint_signal = False
        st = solver.Solve(m)
        dleft -= solver.deterministic_time
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            starts = tuple(int(solver.Value(x)) for x in s)
            best = (ii, starts)
            status = "optimal" if lower == ii else "feasible"
            break
        if st == cp_model.INFEASIBLE:
            lower = ii + 1
            continue
        break   # UNKNOWN: out of time at this II; `lower` stays a proved bound
    work = time_limit - dleft
    if best is None:
        return TemplateResult(k, t, recipe, None, lower, "unknown", (), time.monotonic() - t0, work=work)
    return TemplateResult(k, t, recipe, best[0], min(lower, best[0]), status, best[1], time.monotonic() - t0,
                          work=work)


def solve_templates(model, arch: Arch, first: int, last: int, isa: str, time_limit: float = 10.0,
                    recipes: list[Recipe] | None = None,
                    should_stop: Callable[[], bool] = lambda: False,
                    deterministic: bool = False) -> list[TemplateResult]:
    """Best template per round kind present in first..last, over the recipes of the ISA.

    ``should_stop`` is looked at before each template solve; once it is true the best so far is returned.
    ``deterministic``: ``time_limit`` is shared out in CP-SAT's deterministic time and the recipes
    tried are bounded by count (``DET_SECONDS_PER_RECIPE``); no wall clock is read, so the same call
    gives the same templates on any machine under any load (what ``search --evaluations`` relies on).
    """
    kinds: dict[str, int] = {}
    for t in range(first, last + 1):
        kinds.setdefault(kind(t), t)
    # A representative round: in the middle of the kind's part of the range, away from t < 16.
    reps = {}
    for k in kinds:
        rounds = [t for t in range(max(first, 16), min(last, 76)) if kind(t) == k and kind(t + 1) == k]
        if rounds:
            reps[k] = rounds[len(rounds) // 2]
    pool = recipes or [r for r in recipes_for(isa)]
    out = []
    deadline = time.monotonic() + time_limit
    work, tried = 0.0, 0
    for k, t in reps.items():
        # One recipe per distinct choice of the fields this kind uses.
        seen, distinct = set(), []
        for r in pool:
            key = (getattr(r, k), r.rol5, r.brot, r.kw, r.wsrc)
            if key not in seen:
                seen.add(key)
                distinct.append(r)
        best: TemplateResult | None = None
        left = time_limit - work if deterministic else deadline - time.monotonic()
        per = max(0.2, left / max(1, len(reps) - len(out)) / max(1, len(distinct)))
        for r in distinct:
            out_of_budget = (work >= time_limit or tried >= time_limit / DET_SECONDS_PER_RECIPE) if deterministic \
                else time.monotonic() >= deadline
            if out_of_budget or should_stop():
                break
            tried += 1
            res = solve_template(model, arch, t, r, per, deterministic, floating=model.in_order)
            work += res.work
            if res.ii is not None and (best is None or (res.ii, -res.lower_bound) < (best.ii, -best.lower_bound)):
                best = res
        if best is not None:
            cand = Candidate(first, last, arch, best.recipe, ((REGS, 1),) if model.in_order else (),
                             ((k, best.ii, best.starts),))
            out.append(replace(best, candidate=cand))
    return out
