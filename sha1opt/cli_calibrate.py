"""``sha1opt calibrate``: measure this CPU, fit its model, write it beside the literature model (``emit.calibrate``)."""

from __future__ import annotations

import json
import sys

import click

from sha1opt.cli_common import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK, fail
from sha1opt.emit.calibrate import BUDGET, PASSES, Agreement, Run, calibrate as run_calibration, check


@click.command("calibrate")
@click.option("--budget", type=float, default=BUDGET, show_default=True, help="Seconds for the whole run.")
@click.option("--passes", type=click.IntRange(1, 50), default=PASSES, show_default=True,
              help="Passes over every microbenchmark (7 samples each per pass).")
@click.option("--only", multiple=True, help="Only kernels whose name starts with this (repeatable; e.g. lat., tput.).")
@click.option("--check", "check_mode", is_flag=True,
              help="Measure and fit again, write nothing: do the rows agree with the stored ones within noise?")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def calibrate(budget, passes, only, check_mode, as_json):
    """Time microbenchmarks of every class and rule of this CPU's model and whole SHA-1 loops of sha1opt's own
    codes, fit the model to both, write the calibrated model (only if it prices those loops no worse)."""
    if not budget > 0:
        fail(f"--budget must be a positive number of seconds, not {budget:g}")
    say = None if as_json else (lambda s: click.echo(f"sha1opt calibrate: {s}", err=True))
    if check_mode:
        a = check(budget=budget, passes=passes, progress=say)
        click.echo(json.dumps(_agreement_json(a), indent=1) if as_json else "\n".join(_agreement_lines(a)))
        sys.exit(EXIT_OK if a.agree else EXIT_FAIL)
    run = run_calibration(budget=budget, passes=passes, only=tuple(only), progress=say)
    click.echo(json.dumps(_run_json(run), indent=1) if as_json else "\n".join(_run_lines(run)))
    sys.exit(EXIT_INTERRUPTED if run.interrupted else EXIT_OK)


def _run_json(run: Run) -> dict:
    cal = run.calibration
    return {"cpu": str(run.cpu), "base": run.base, "file": str(run.path) if run.path else None,
            "seconds": round(run.seconds, 1), "interrupted": run.interrupted, "skipped": run.skipped,
            "changes": [{"row": c.row, "field": c.field, "old": c.old, "new": c.new, "measurements": list(c.measurements)}
                        for c in (cal.changes if cal else ())],
            "measurements": {n: vars(m) for n, m in (cal.measurements.items() if cal else ())},
            "loop_check": None if run.loop_check is None else {
                "passed": run.loop_check.passed, "base_mape": run.loop_check.base_mape,
                "calibrated_mape": run.loop_check.calibrated_mape,
                "loops": [vars(x) for x in run.loop_check.loops]}}


def _run_lines(run: Run) -> list[str]:
    cal = run.calibration
    out = [f"{run.cpu}: {run.base} calibrated in {run.seconds:.0f} s" + (" (interrupted)" if run.interrupted else ""),
           f"  {len(run.samples)} kernels measured, {len(run.skipped)} skipped; {len(run.loops)} whole SHA-1 loops "
           f"timed (stage 2)"] + [f"  {n}" for n in run.notes]
    for c in cal.changes if cal else ():
        out.append(f"  {c.row}.{c.field}: {c.old} -> {c.new}  (from {', '.join(c.measurements)})")
    if cal and not cal.changes:
        out.append("  no row changed: the literature model explains the measurements within noise")
    if run.loop_check is not None:
        out.append(f"  {run.loop_check.text()}")
        out += [f"    {x.name}: measured {x.measured:.2f} c/B; predicted {x.base:.2f} ({run.base}), "
                f"{x.calibrated:.2f} (calibrated)" for x in run.loop_check.loops]
    out.append(f"  written: {run.path}" if run.path else "  nothing written")
    return out


def _agreement_json(a: Agreement) -> dict:
    return {"agree": a.agree, "kernels": a.kernels, "rows": a.rows,
            "kernel_disagreements": [list(k) for k in a.kernel_disagreements],
            "row_disagreements": [[r, str(x), str(y)] for r, x, y in a.row_disagreements]}


def _agreement_lines(a: Agreement) -> list[str]:
    out = [f"{'agree' if a.agree else 'DISAGREE'}: {a.rows} rows, {a.kernels} kernels compared "
           f"({len(a.kernel_disagreements)} kernels beyond noise)"]
    out += [f"  row {r}: stored {x}, now {y}" for r, x, y in a.row_disagreements]
    out += [f"  kernel {n}: stored {x:.2f}, now {y:.2f} (noise {t:.2f})" for n, x, y, t in a.kernel_disagreements]
    return out
