"""The view of a search ``Report`` and of a family's whole-block report: the lines and JSON objects the CLI
prints (``family_lines`` / ``family_json`` take a ``HybridReport`` or a ``ShaniReport``, by its type).

(Library code does not print; these functions build the lines and the JSON
object the CLI writes, so the CLI command stays a thin wrapper.)
"""

from __future__ import annotations

from sha1opt.emit.host_cpu import host
from sha1opt.emit.measurements import cpu_key, model_error
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.bound import Bound, loop_bound, range_bound
from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import HybridReport, Report
from sha1opt.search.engines.shani import ShaniReport
from sha1opt.semantics.sha1 import kind


def _gain(base: float | None, ours: float) -> str:
    if not base:
        return "n/a"
    return f"{100.0 * (base - ours) / base:+.1f}%"


def template_cycles(report: Report) -> float | None:
    """The range's cycles if every round ran at its kind's template II (None if a kind has none).

    The template is a modulo-scheduling abstraction of the model (whole
    clocks, one template per kind, no window); the simulator's figure for
    the searched code is the authoritative one and may be lower.
    """
    per_kind = {t.kind: t.ii for t in report.template if t.ii}
    total = 0.0
    for t in range(report.first, report.last + 1):
        if kind(t) not in per_kind:
            return None
        total += per_kind[kind(t)]
    return total


def report_bound(r: Report) -> Bound:
    """The model's lower bound for the report's measure: a range's ``search.bound.range_bound`` (net of the
    context); the whole block 0-79, which the search judges as its steady-state loop, ``loop_bound``."""
    if (r.first, r.last) == (0, 79):
        return loop_bound(load_model(r.uarch), r.arch)
    return range_bound(load_model(r.uarch), r.first, r.last, r.arch)


def model_error_text(uarch: str) -> str:
    """What "optimal under the model" is worth here: the model's measured error on this CPU
    (``emit.measurements.model_error``), or that it was not measured (issue 25, item 4)."""
    cpu = host()
    try:
        err = model_error(uarch, cpu_key(cpu)) if cpu is not None else None
    except Sha1optError:                  # an unreadable results database: say nothing is known
        err = None
    return err.text() if err else f"the {uarch} model's error is not measured on this CPU (export --tune measures it)"


def bound_line(r: Report, b: Bound) -> str:
    """``lower bound  137.5 cycles (...); gap to bound +11.3%``; at gap 0 the result is proved optimal."""
    gap = b.gap(r.cycles)
    if gap is None:
        verdict = ("no bound above 0: net of the context rounds every part is 0, so nothing is proved "
                   "optimal (a longer range gets a real bound)")
    elif gap < -1e-9:
        # the loop figure is measured over a few iterations and can dip below the steady-state rate
        # every iteration obeys (search/bound.py, loop_bound): never call that optimal
        verdict = f"{100 * -gap:.1f}% below the bound: the measure dips below the steady-state rate"
    elif gap <= 1e-9:
        verdict = f"gap 0: proved optimal under the model ({model_error_text(r.uarch)})"
    else:
        verdict = f"gap to bound {100 * gap:+.1f}%"
    return (f"  lower bound      {b.cycles:8.1f} cycles  {verdict}  (critical path {b.critical_path:.1f}, "
            f"issue width {b.issue_width:.1f}, ports {b.port_set} {b.ports:.1f}; binding: {b.binding})")


def report_lines(r: Report) -> list[str]:
    lines = [f"sha1opt search: {r.uarch} ({r.arch}), rounds {r.first}-{r.last} ({r.rounds} rounds)"]
    lines.append(f"  predicted        {r.cycles:8.1f} cycles  = {r.cycles_per_round:.2f} cycles/round"
                 f" = {r.cycles_per_byte:.2f} cycles/byte at this rate")
    lines.append(f"  default schedule {r.textbook_cycles:8.1f} cycles  gain {_gain(r.textbook_cycles, r.cycles)}")
    if r.gcc_cycles is not None:
        lines.append(f"  gcc's code       {r.gcc_cycles:8.1f} cycles  gain {_gain(r.gcc_cycles, r.cycles)}  ({r.gcc_note})")
    else:
        lines.append(f"  gcc's code       n/a ({r.gcc_note})")
    lines.append(bound_line(r, report_bound(r)))
    for t in r.template:
        cert = "optimal: gap 0 (CP-SAT proved every smaller II infeasible)" if t.status == "optimal" else \
            f"{t.status}: gap {100 * t.gap:.0f}% (proved bound {t.lower_bound})"
        lines.append(f"  template {t.kind}      II = {t.ii} cycles/round, {cert}; recipe {t.recipe.key()} "
                     f"({t.seconds:.1f} s)")
    tc = template_cycles(r)
    if tc:
        lines.append(f"  vs template      {tc:8.0f} cycles at the template IIs; the searched code is "
                     f"{100.0 * (r.cycles - tc) / tc:+.1f}% (simulator, window and overlap included)")
    lines += robust_lines(r)
    lines.append(f"  recipe           {r.candidate.recipe.key()}; {len(r.candidate.offsets)} reordered groups")
    lines.append(f"  proof            {r.proof}")
    lines.append(f"  result           {r.stored}")
    lines.append(f"  search           {r.evaluations} evaluations in {r.seconds:.1f} s, {r.workers} run(s)"
                 f"{' on ' + r.cluster if r.cluster else ''}, seed {r.seed}, stopped: {r.stop_reason}")
    lines += [f"  note             {n}" for n in r.notes]
    return lines


def robust_lines(r: Report) -> list[str]:
    """``search --robust``: the nominal optimum's spread over the model's ensemble, then the robust pick (issue 25
    item 4) -- called a robust pick, never optimal, unless it is the nominal optimum itself."""
    pool = r.robust
    if pool is None:
        return []
    nom, pick = pool.nominal, pool.robust
    lines = [f"  ensemble         {nom.spread.nominal:8.1f} cycles nominal; {nom.spread.text()} over the "
             f"model's uncertainty (seed {pool.seed}, {len(pool.pooled)} final candidates priced)"]
    if pool.kept_nominal:
        lines.append(f"  robust pick      the nominal optimum: its worst case {nom.spread.worst:.1f} cycles is the "
                     f"lowest of the {len(pool.pooled)} final candidates")
        return lines
    lines += [f"  robust pick      {pick.label}, recipe {pick.candidate.recipe.key()}: {pick.spread.nominal:.1f} cycles "
              f"nominal; {pick.spread.text()}; worst case {pick.spread.worst:.1f} against the nominal optimum's "
              f"{nom.spread.worst:.1f} (a robust pick, not the optimum under the model)",
              f"  robust proof     {r.robust_proof}"]
    return lines


def _robust_json(r: Report) -> dict | None:
    pool = r.robust
    if pool is None:
        return None
    return {"members": pool.members, "seed": pool.seed, "pick": pool.pick, "kept_nominal": pool.kept_nominal,
            "proof": r.robust_proof if not pool.kept_nominal else r.proof,
            "candidates": [{"label": p.label, "recipe": p.candidate.recipe.key(),
                            "offsets": [[list(k), v] for k, v in p.candidate.offsets], **p.spread.json()}
                           for p in pool.pooled]}


def report_json(r: Report) -> dict:
    tc = template_cycles(r)
    b = report_bound(r)
    return {
        "uarch": r.uarch, "arch": r.arch, "rounds": [r.first, r.last],
        "cycles": r.cycles, "cycles_per_round": r.cycles_per_round, "cycles_per_byte": r.cycles_per_byte,
        "textbook_cycles": r.textbook_cycles, "gcc_cycles": r.gcc_cycles, "gcc_note": r.gcc_note,
        "gain_vs_textbook": (r.textbook_cycles - r.cycles) / r.textbook_cycles,
        "gain_vs_gcc": (r.gcc_cycles - r.cycles) / r.gcc_cycles if r.gcc_cycles else None,
        "templates": [{"kind": t.kind, "ii": t.ii, "lower_bound": t.lower_bound, "status": t.status,
                       "gap": t.gap, "recipe": t.recipe.key(), "seconds": t.seconds} for t in r.template],
        "template_cycles": tc,
        "bound": {"cycles": b.cycles, "critical_path": b.critical_path, "issue_width": b.issue_width,
                  "ports": b.ports, "port_set": b.port_set, "binding": b.binding, "context": b.context},
        "gap_to_bound": b.gap(r.cycles),
        "recipe": r.candidate.recipe.key(), "offsets": [[list(k), v] for k, v in r.candidate.offsets],
        "proved": r.proved, "proof": r.proof, "stored": r.stored,
        "evaluations": r.evaluations, "seconds": r.seconds, "stop_reason": r.stop_reason,
        "workers": r.workers, "cluster": r.cluster, "seed": r.seed, "notes": r.notes,
        "code": [str(i) for i in r.code], "robust": _robust_json(r),
    }


def path_table(costs) -> list[str]:
    """``analyze``'s paths x models table (c/B, steady state): one row per loop path, one column per model.

    Example row: ``loop at 0x13e0 (_ssse3_shortcut)  proved    5.79  3.96`` -- a model that cannot
    price a path shows ``n/a``; a path whose iteration was not lifted whole shows ``-`` in every
    column, and a line under the table says why (``PathCost.unlifted``).
    """
    models = list(dict.fromkeys(c.uarch for c in costs))
    paths = list(dict.fromkeys(c.path for c in costs))
    width = max(len(p) for p in paths)
    cell = {(c.path, c.uarch): c for c in costs}
    lines = [f"{'paths x models, c/B':{width}s} {'proof':9s} " + " ".join(f"{m:>11s}" for m in models)]
    for p in paths:
        outcome = next(c.outcome for c in costs if c.path == p)
        vals = [cell[(p, m)].cycles_per_byte for m in models]
        blank = "-" if cell[(p, models[0])].unlifted else "n/a"
        lines.append(f"{p:{width}s} {outcome:9s} " + " ".join(f"{v:11.2f}" if v is not None else f"{blank:>11s}"
                                                               for v in vals))
    lines += [f"{p}: not priced, not lifted whole: {cell[(p, models[0])].unlifted}"
              for p in paths if cell[(p, models[0])].unlifted]
    return lines


def _shani_lines(r: ShaniReport) -> list[str]:
    return [f"{r.uarch} ({r.arch}) SHA-NI {r.params.describe()}: {r.cycles_per_byte:.2f} cycles/byte predicted "
            f"({r.cycles:.1f} cycles/block; default point {r.default_cycles:.1f})",
            f"  search: {r.evaluations} evaluations in {r.seconds:.1f} s, stopped: {r.stop_reason}",
            f"  proof: {r.proof}"]


def _shani_json(r: ShaniReport) -> dict:
    return {"uarch": r.uarch, "arch": r.arch, "cycles": r.cycles, "cycles_per_byte": r.cycles_per_byte,
            "default_cycles": r.default_cycles, "params": r.params.describe(), "evaluations": r.evaluations,
            "seconds": r.seconds, "stop_reason": r.stop_reason, "proved": r.proved, "proof": r.proof}


def _hybrid_lines(h: HybridReport) -> list[str]:
    s = h.search
    if s.params is None:
        return [f"{h.uarch} hybrid: {s.reason}"]
    p = s.params
    return [
        f"{h.uarch} ({p.arch}) hybrid block, --isa {h.cap}: {s.cycles_per_byte:.2f} cycles/byte predicted "
        f"({s.cycles:.0f} cycles/block, bottleneck {s.bottleneck}) vs scalar best {h.scalar_cycles / 64:.2f} "
        f"(ratio {h.ratio:.3f}; winner: {h.winner})",
        f"  vector dialect {p.isa}, lead {p.lead} groups, one vector op every {p.every} scalar ops"
        + (f", {len(p.shifts)} groups' release shifted" if p.shifts else "")
        + f"; scalar recipe {p.recipe.key()}; {len(p.offsets)} priority offsets",
        f"  search: grid best {s.grid_best:.0f} cycles, {s.evaluations} evaluations in {s.seconds:.1f} s, "
        f"stopped: {s.reason}",
        f"  scalar best: {h.scalar_source}",
        f"  proof: {h.proof}",
    ]


def _hybrid_json(h: HybridReport) -> dict:
    s = h.search
    return {"uarch": h.uarch, "isa": h.cap, "cycles": s.cycles, "cycles_per_byte": s.cycles_per_byte,
            "bottleneck": s.bottleneck, "scalar_cycles": h.scalar_cycles, "ratio": h.ratio, "winner": h.winner,
            "params": s.params.key() if s.params else None, "offsets": len(s.params.offsets) if s.params else 0,
            "evaluations": s.evaluations, "seconds": s.seconds, "stop_reason": s.reason, "proved": h.proved,
            "proof": h.proof, "scalar_source": h.scalar_source}


_VIEWS = {HybridReport: (_hybrid_lines, _hybrid_json), ShaniReport: (_shani_lines, _shani_json)}


def family_lines(report: HybridReport | ShaniReport) -> list[str]:
    """The lines of a family's whole-block report (``emit.families.search_families``)."""
    return _VIEWS[type(report)][0](report)


def family_json(report: HybridReport | ShaniReport) -> dict:
    """The JSON object of a family's whole-block report."""
    return _VIEWS[type(report)][1](report)
