"""``sha1opt search`` and ``show``: the search on a Dask cluster, and the best known schedule clock by clock.

Click commands, not attached to a group: ``cli.main`` loads this module only when one of
its commands runs (so ``sha1opt prove`` does not import the search). Each parses its
arguments, makes one library call and formats the result.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from pathlib import Path

import click

from sha1opt.cli_analyze import uarchs
from sha1opt.cli_types import Integer, OutputFile, Seconds
from sha1opt.emit.families import FAMILIES, search_families, shown_at, shown_levels
from sha1opt.emit.peers import gcc_reference
from sha1opt.search.blocks import STANDARD_RANGES, best_known
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.driver import NO_BUDGET, default_arch, search_ranges
from sha1opt.search.measure import block_loop
from sha1opt.search.robust import loop_spread, range_spread
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.views.drawing import CHAIN_TITLES, columns, gantt_png, shown_lines, table, unit_gantt_png
from sha1opt.views.report import family_json, family_lines, report_json, report_lines
from sha1opt.cli_common import (EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK, ProgressLine, fail,
                                parse_rounds, resolve_uarch,
                                unwind_on_signals)


def _uarch_names() -> list[str]:

    return model_names()


@click.command()
@click.option("--uarch", default=None, help="Microarchitecture model (see `sha1opt uarchs`); default and "
              "`host`: this CPU's model (`sha1opt uarchs --host`).")
@click.option("--all-uarchs", is_flag=True, help="Every model (instead of --uarch), on one cluster.")
@click.option("--rounds", "rounds", default="0-79", show_default=True,
              help="Round range A-B within 0-79, or 'all' for the standard ranges 0-19, 20-39, 40-59, 60-79.")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="Default: the uarch's own (`arch` in its model; `sha1opt uarchs` lists them).")
@click.option("--time-limit", type=Seconds(1), default=60.0, show_default=True,
              help="Seconds per range (finite).")
@click.option("--evaluations", type=Integer(1), default=None,
              help="Evaluation budget per annealing run: with the same seed, the same result on any cluster.")
@click.option("--workers", type=Integer(1), default=None,
              help="Annealing runs per range (seeds SEED, SEED+1, ...); without --cluster also the number of "
                   "local worker processes. Default 1, or the cluster's worker count with --cluster.")
@click.option("--cluster", default=None, metavar="tcp://HOST:PORT",
              help="Run the tasks on this existing Dask scheduler instead of a local cluster.")
@click.option("--seed", type=Integer(), default=0, show_default=True, help="First annealing run's seed.")
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="Results store (SQLite).")
@click.option("--resume", is_flag=True, help="Start from the stored best for this key.")
@click.option("--isa", type=click.Choice(LEVELS), default=None,
              help="Cap the instructions used (default: all the model's CPU has). A vector level "
                   "(ssse3, avx, avx2, avx512, shani) with --rounds 0-79 or all also searches the hybrid "
                   "family (message schedule in xmm) and, at shani, the SHA-NI block; proved results are stored "
                   "for export and show.")
@click.option("--robust", is_flag=True,
              help="For a model of a CPU not here to measure: also price the final candidates on the model's "
                   "uncertainty ensemble (corpus/uncertainty.toml) and report the spread and the robust pick "
                   "(lowest worst case); the nominal optimum is what is stored.")
@click.option("--json", "as_json", is_flag=True,
              help="Machine-readable output: the report(s) as JSON on stdout, no progress line.")
@click.pass_context
def search(ctx, uarch, all_uarchs, rounds, arch, time_limit, evaluations, workers, cluster, seed, db, resume,
           isa, robust, as_json):
    """Find the cheapest proved schedule for round ranges under uarch cost models (tasks on a Dask cluster).

    Ctrl-C stops within about a second: the best result so far is proved, stored and printed (exit 130).
    """
    if all_uarchs and uarch is not None:
        raise click.UsageError("give at most one of --uarch U and --all-uarchs")
    ranges = list(STANDARD_RANGES) if rounds == "all" else [parse_rounds(rounds)]
    uarchs = model_names() if all_uarchs else [resolve_uarch(uarch)]
    keys = [(u, arch, first, last) for u in uarchs for first, last in ranges]
    # The console script (sha1opt.launcher) records Ctrl-C from the process's first moment in ctx.obj["stop"].
    stop = (ctx.obj or {}).get("stop") or threading.Event()
    old = signal.signal(signal.SIGINT, lambda *_: stop.set())
    t0 = time.monotonic()
    tty = sys.stderr.isatty() and not as_json
    done: set[int] = set()

    def progress(e):
        if e["event"] == "done":
            done.add(e["key"])
        if tty:
            if len(keys) == 1:
                frac, what = min(1.0, (time.monotonic() - t0) / time_limit), f"/{time_limit:.0f} s"
            else:
                frac, what = len(done) / len(keys), f" s  {len(done)}/{len(keys)} ranges done"
            bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
            u, _, f, l = keys[e["key"]]
            click.echo(f"\r[{bar}] {time.monotonic() - t0:5.1f}{what}  {u} {f}-{l}: best {e['best']:.1f} cycles ",
                       nl=False, err=True)

    try:
        reports = search_ranges(keys, time_limit=time_limit, workers=workers, cluster=cluster, seed=seed, db=db,
                                resume=resume, evaluations=evaluations or NO_BUDGET, should_stop=stop.is_set,
                                progress=progress, reference=gcc_reference, isa=isa, robust=robust)
        whole = rounds == "all" or parse_rounds(rounds) == (0, 79)
        found = [fr for u in uarchs if isa is not None and whole
                 for fr in _search_families(u, arch or default_arch(u), isa, evaluations or HYBRID_EVALUATIONS, seed,
                                            time_limit, stop.is_set, db, tty)]
    finally:
        signal.signal(signal.SIGINT, old)
        if tty:
            click.echo("", err=True)

    if as_json:
        out = [report_json(r) for r in reports]
        if found:       # one key per family with whole-block reports: its name (the store's family column)
            click.echo(json.dumps({"ranges": out, **{f.name: [family_json(r) for g, r in found if g is f]
                                                     for f in FAMILIES if f.reports}}, indent=1))
        else:
            click.echo(json.dumps(out[0] if len(out) == 1 else out, indent=1))
    else:
        click.echo("\n\n".join(["\n".join(report_lines(r)) for r in reports] +
                                ["\n".join(family_lines(r)) for _, r in found]))
    if stop.is_set():
        click.echo("sha1opt search: interrupted; the report above is the best so far (its result line says "
                   "where it is stored)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(EXIT_OK if all(r.proved for r in reports) and all(r.ok for _, r in found) else EXIT_FAIL)


HYBRID_EVALUATIONS = 300   # annealing moves after the grid when --evaluations is not given


def _search_families(uarch, arch, isa, evaluations, seed, time_limit, should_stop, db, tty):
    with ProgressLine(f"{uarch} --isa {isa}", enabled=tty) as progress:
        return search_families(uarch, arch, isa, evaluations=evaluations, seed=seed, time_limit=time_limit,
                               should_stop=should_stop, db=db, progress=progress)


@click.command()
@click.option("--uarch", default=None, help="Microarchitecture model whose best schedule to draw (see `sha1opt "
              "uarchs`); default and `host`: this CPU's model (`sha1opt uarchs --host`).")
@click.option("--rounds", default="40-44", show_default=True, help="Round range A-B within 0-79.")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="Default: the uarch's own (`arch` in its model).")
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="Results store (SQLite), opened read-only; must exist if given.")
@click.option("--png", type=OutputFile(), default=None, help="Also draw a Gantt chart (a regular file or a new name).")
@click.option("--isa", type=click.Choice(shown_levels()), default=None,
              help="Draw the whole block `export --isa LEVEL` considers instead (the hybrid block, or the SHA-NI "
                   "block on a model with SHA-NI): its loop, one column per unit class (scalar, vector); --rounds "
                   "does not apply.")
@click.option("--robust", is_flag=True,
              help="Also print the figure's spread over the model's uncertainty ensemble (corpus/uncertainty.toml): "
                   "min / median / max over its perturbed models.")
def show(uarch, rounds, arch, db, png, isa, robust):
    """Draw the best known schedule for a range, clock by clock, one column per dependency chain."""
    first, last = parse_rounds(rounds)
    uarch = resolve_uarch(uarch)
    arch = arch or default_arch(uarch)
    if isa:
        _show_block(uarch, arch, isa, db, png, robust)
        return
    known = best_known(uarch, arch, first, last, db)
    real = known.real
    sim = simulate(real.code, load_model(uarch))          # the clocks drawn: the range on its own
    click.echo(f"{uarch} ({arch}) rounds {first}-{last}: {known.source}; {known.cycles:.1f} cycles "
               f"({known.measure}); drawn alone below, bottleneck {sim.bottleneck}")
    if robust:
        spread = range_spread(load_model(uarch), first, last, arch, real.code)
        click.echo(f"  {spread.nominal:.1f} cycles nominal; {spread.text()} over {uarch}'s uncertainty")
    width = 30
    cols = columns(real)
    click.echo(f"{'clk':>4} | " + " | ".join(f"{CHAIN_TITLES[c]:{width}s}" for c in cols))
    for row in table(real, sim):
        depth = max(1, *(len(v) for v in row.cells.values()))
        for k in range(depth):
            cells = [(row.cells[c][k] if k < len(row.cells[c]) else "")[:width] for c in cols]
            click.echo(f"{row.cycle if k == 0 else '':>4} | " + " | ".join(f"{x:{width}s}" for x in cells))
    if png:
        click.echo(f"wrote {gantt_png(real, sim, png, f'{uarch} rounds {first}-{last}: {known.cycles:.1f} cycles')}")


def _show_block(uarch: str, arch: str, isa: str, db, png, robust: bool = False) -> None:
    """The whole block ``export --isa`` considers (``families.shown_at``: the family's stored report, else its
    search with export's seed and budget), by unit class; the figure is the report's."""
    with unwind_on_signals(), ProgressLine(f"{uarch} --isa {isa}") as progress:
        shown = shown_at(uarch, arch, isa, db, progress)
    if shown is None:
        fail(f"no family has a whole-block report for {uarch} ({arch}) under --isa {isa}")
    if shown.missing:
        fail(f"no {shown.family.name} block for {uarch} ({arch}) under --isa {isa}: {shown.missing}")
    sim = block_loop(shown.items, load_model(uarch))      # the clocks drawn
    click.echo("\n".join(shown_lines(uarch, shown, sim)))
    if robust:
        spread = loop_spread(load_model(uarch), shown.items, blocks=shown.blocks)
        click.echo(f"  {spread.nominal / 64:.2f} c/B nominal; {spread.text(64, 'c/B', 2)} over {uarch}'s uncertainty")
    if png:
        title = f"{uarch} {shown.family.name} --isa {isa}: {shown.cycles:.1f} cycles"
        click.echo(f"wrote {unit_gantt_png(shown.items, sim, png, title)}")
