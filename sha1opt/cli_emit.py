"""``sha1opt demo``, ``export`` and ``bench``: the main job, validated files, paired-ratio timing.

Click commands, not attached to a group: ``cli.main`` loads this module only when one of
its commands runs (so ``sha1opt prove`` does not import the search). Each parses its
arguments, makes one library call and formats the result.
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
import time
from pathlib import Path

import click

from sha1opt.cli_analyze import uarchs
from sha1opt.cli_types import Integer, OutputDir, OutputFile, Seconds, Sizes, TextSource
from sha1opt.emit.assembly import guess_arch
from sha1opt.emit.bench import WIDE_SPREAD, BenchRefusal
from sha1opt.emit.bench import bench as do_bench
from sha1opt.emit.dispatch_export import export_dispatch
from sha1opt.emit.dispatch_plan import best_path, plan_dispatch
from sha1opt.emit.families import export_choice
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.family import Choice
from sha1opt.emit.peers import OPENSSL_PATHS
from sha1opt.emit.host_cpu import host, host_refusal
from sha1opt.emit.robust_choice import describe as describe_robust, prediction as robust_prediction, robust_choice
from sha1opt.emit.robust_choice import tune_ordered as do_tune
from sha1opt.emit.tuning import describe as describe_tuning, host_level
from sha1opt.job import steps
from sha1opt.search.driver import default_arch
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.att import read_source
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.cli_common import (EXIT_FAIL, EXIT_OK, ProgressLine, Interrupted, cpp, cpp_options, fail,
                                resolve_uarch, shown, unwind_on_signals)


@click.command()
@click.option("--outdir", type=OutputDir(), default="out", show_default=True,
              help="For the exported .S files; created if missing; must take files (checked before any work).")
def demo(outdir: Path) -> None:
    """The main job: identify this CPU, prove, search its model a few seconds per round range (kept in the
    default results store, as `search` without --db), export the best and bench it (see the README)."""
    t0 = time.perf_counter()
    ok = True
    for step in steps(outdir):
        click.echo(f"[{'ok' if step.ok else 'FAIL'}] {step.title}: {step.detail} ({step.seconds:.2f} s)")
        ok = ok and step.ok
    click.echo(f"demo finished in {time.perf_counter() - t0:.1f} s: {'all proved' if ok else 'FAILURES above'}")
    sys.exit(EXIT_OK if ok else EXIT_FAIL)


@click.command()
@click.option("-o", "--output", required=True, type=OutputFile(),
              help="The .S file to write: a regular file or a new name (a device or FIFO is refused).")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="Default: x86_64, or the uarch's own (`arch` in its model; `sha1opt uarchs` lists them).")
@click.option("--uarch", default=None, help="Assemble the best stored schedule per range for this uarch "
              "(`host`: this CPU's model; the default with --tune).")
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="Results store (SQLite), opened read-only (with --tune the measured candidates are added to "
                   "it: emit/measurements.py); must exist if given.")
@click.option("--flavor", type=click.Choice(["elf", "macho"]), default="elf", show_default=True,
              help="Object format the text is written for (GNU as ELF, or Mach-O symbol and section names).")
@click.option("--isa", type=click.Choice(LEVELS), default=None,
              help="Cap the instructions used (default: all the model's CPU has). A vector level also considers "
                   "the hybrid family (x86-64) and exports it when it is predicted cheaper.")
@click.option("--dispatch", is_flag=True,
              help="One function holding every proved path the model's ISA allows (scalar, hybrid, SHA-NI; capped "
                   "by --isa), choosing at run time from a cpuid word filled once by a constructor (ELF only).")
@click.option("--tune", type=Integer(1, 16), default=None,
              help="Measured selection: per family --isa admits (default: the highest level this CPU runs), its "
                   "default and its N best distinct candidates, validated, timed against the textbook schedule on "
                   "this CPU (which must be --uarch's) and the fastest exported; a searched block measured slower "
                   "than its family's default never is. Ctrl-C keeps the best so far. The candidates are timed in "
                   "the order of their worst case over the model's uncertainty ensemble.")
@click.option("--robust", type=Integer(1, 16), default=None,
              help="Robust choice, where this CPU cannot measure --uarch's: per family --isa admits (default: the "
                   "highest level the model's CPU has), its default and its N best distinct candidates, priced on "
                   "the model and its uncertainty ensemble (corpus/uncertainty.toml); exports the lowest worst "
                   "case, the spread of each printed.")
def export(output, arch, uarch, db, flavor, isa, dispatch, tune, robust):
    """Write a validated sha1_block_data_order as GNU-as .S (nothing is written unless it validates).

    Without --isa or --dispatch: with --uarch, the path predicted fastest on that model among the scalar
    best, the hybrid block and SHA-NI (the code needs that CPU's features, as the scalar best always
    did); without --uarch, the textbook scalar schedule (runs on any x86).
    """
    # The header records the command as shell-quoted words; export escapes them into comment text.
    argv = sys.argv[1:] if sys.argv[1:2] == ["export"] else ["export"]
    command = "sha1opt " + shlex.join(argv)
    if dispatch and flavor != "elf":
        raise click.BadParameter("the dispatching function is written for ELF only (an .init_array constructor)",
                                 param_hint="--flavor")
    if dispatch and tune is not None:
        fail("--tune picks one function by timing it here; --dispatch writes every path: use one of them")
    if robust is not None and (tune is not None or dispatch):
        fail("--robust picks one function by the model's uncertainty; --tune times here, --dispatch writes every "
             "path: use one of them")
    with unwind_on_signals():
        uarch = resolve_uarch(uarch) if uarch or tune is not None or robust is not None else None
        arch_ = arch or (default_arch(uarch) if uarch else "x86_64")
        if tune is not None:
            cpu = host()
            refusal = host_refusal(uarch, cpu)
            if refusal:
                fail(refusal)
            level = isa or host_level(cpu)
            stop: list[int] = []

            def on_int(signum, _frame):       # the first Ctrl-C ends the timing rounds; a second one aborts
                if stop:
                    raise Interrupted(signum)
                stop.append(signum)
                click.echo("sha1opt: Ctrl-C: stopping the timing; exporting the best validated candidate so far "
                           "(Ctrl-C again aborts, writing nothing)", err=True)
            old = signal.signal(signal.SIGINT, on_int)
            try:
                with ProgressLine(f"export --tune {tune} --uarch {uarch} --isa {level}") as progress:
                    tuning = do_tune(uarch, arch_, level, tune, db=db, should_stop=lambda: bool(stop),
                                     progress=progress, flavor=flavor, cpu=cpu)
            finally:
                signal.signal(signal.SIGINT, old)
            for line in describe_tuning(tuning):
                click.echo(line)
            tuned = tuning.best.choice
            result = tuned.family.export(tuned, output, flavor=flavor, uarch=uarch, command=command)
        elif robust is not None:
            with ProgressLine(f"export --robust {robust} --uarch {uarch}") as progress:
                chosen = robust_choice(uarch, arch_, isa, robust, db, progress, flavor)
            for line in describe_robust(chosen):
                click.echo(line)
            pick = chosen.best.choice
            result = pick.family.export(pick, output, flavor=flavor, uarch=uarch, command=command,
                                        prediction=robust_prediction(chosen))
        elif dispatch:
            with ProgressLine(f"export --dispatch {uarch or ''}".rstrip()) as progress:
                plan = plan_dispatch(uarch, arch_, db, cap=isa, progress=progress)
            for line in plan.notes:
                click.echo(line)
            for k, c in enumerate(plan.paths):
                click.echo(f"path {k + 1}: {c.describe()}")
            for line in plan.dropped:
                click.echo(f"left out: {line}")
            result = export_dispatch(plan, output, command=command)
        elif isa is not None:
            with ProgressLine(f"export --isa {isa}" + (f" --uarch {uarch}" if uarch else "")) as progress:
                choice = export_choice(uarch, arch, isa, db, progress)
            for line in choice.notes:
                click.echo(line)
            refusal = choice.family.flavor_refusal(flavor, predicted=False)
            if refusal:
                raise click.BadParameter(refusal, param_hint="--flavor")
            result = choice.family.export(choice, output, flavor=flavor, uarch=uarch, prediction=choice.notes[0],
                                          command=command)
        elif uarch:
            with ProgressLine(f"export --uarch {uarch}") as progress:
                best, notes = best_path(uarch, arch_, db, progress)
            for line in notes:
                click.echo(line)
            click.echo(f"exporting {best.describe()}")
            family = best.choice.family
            refusal = family.flavor_refusal(flavor, predicted=True)
            if refusal:
                raise click.BadParameter(refusal, param_hint="--flavor")
            result = family.export(best.choice, output, flavor=flavor, uarch=uarch,
                                   prediction=f"{best.cycles_per_byte:.2f} cycles/byte on {uarch}", command=command)
        else:
            result = SCALAR.export(Choice(SCALAR, textbook(arch_), arch_), output, flavor=flavor, uarch=uarch,
                                   command=command)
    for c in result.validation.checks:
        click.echo(f"[{'not run' if c.not_run else 'ok' if c.ok else 'FAIL'}] {c.name} ({c.seconds:.2f} s): {c.detail}")
    if not result.ok:
        failed = result.validation.failure
        click.echo(f"sha1opt: refused: {failed.name if failed else 'validation'} failed; "
                   f"{shown(output)} was not written", err=True)
        sys.exit(EXIT_FAIL)
    click.echo(f"wrote {shown(result.path)} ({flavor}, {arch_}; "
               f"validated in {result.validation.seconds:.2f} s)")
    for c in result.validation.not_run:
        click.echo(f"note: {c.statement}")


@click.command()
@click.argument("source", type=TextSource())
@click.option("--arch", type=click.Choice(["auto", "x86_64", "i386"]), default="auto", show_default=True,
              help="The file's architecture; auto: guessed from the registers it uses.")
@click.option("--pairs", type=Integer(2), default=30, show_default=True, help="Interleaved pairs per size.")
@click.option("--sizes", type=Sizes(), default="64,1024,16384,1048576", show_default=True,
              help="Bytes per call (multiples of 64).")
@click.option("--openssl", "paths", default="integer,ssse3,avx2,default", show_default=True,
              help="OpenSSL code paths to compare with (x86-64 only): integer, ssse3, avx (Intel CPUs only), avx2, "
                   "shani, default (the one OpenSSL picks here, named in the output); a path this CPU cannot run "
                   "is not timed; 'none' for none.")
@click.option("--time-limit", type=Seconds(0.1, BENCH_SECONDS), default=BENCH_SECONDS,
              show_default=True, help="Wall seconds per timing process (it is killed past them).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output: the report as JSON on stdout.")
@cpp_options
def bench(source, arch, pairs, sizes, paths, time_limit, as_json, includes, defines):
    """Validate SOURCE (a .S with sha1_block_data_order), then measure it against OpenSSL and gcc as paired ratios.

    SOURCE must pass the checks export makes (assemble, lift, prove, native
    vectors) and be sha1opt's function shape around its proved loop body;
    anything else is refused (exit 2) before any timing run.
    """
    size_list = sizes
    path_list = [] if paths == "none" else [p.strip() for p in paths.split(",")]
    unknown = [p for p in path_list if p not in OPENSSL_PATHS]
    if unknown:
        raise click.BadParameter(f"unknown path {unknown[0]!r} (known: {', '.join(OPENSSL_PATHS)})", param_hint="--openssl")
    with unwind_on_signals():
        arch = guess_arch(read_source(source)) if arch == "auto" else arch
        report = do_bench(source, arch, sizes=size_list, pairs=pairs, openssl_paths=path_list, time_limit=time_limit,
                          cpp=cpp(includes, defines))
    if isinstance(report, BenchRefusal):
        if report.missing:
            fail(f"refused: {source} {report.reason}; nothing was timed")
        fail(f"refused: {source} did not validate ({report.reason}); nothing was timed")
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1))
        return
    click.echo(f"{source} ({arch}); TSC {report.tsc_hz / 1e9:.3f} GHz (TSC ticks are not core cycles); "
               f"{pairs} interleaved pairs per size; validated first: {', '.join(report.validated)}")
    if report.clock is not None:
        c = report.clock
        click.echo(f"core clock: {c.median:.3f} core cycles per TSC tick (p10 {c.p10:.3f}, p90 {c.p90:.3f}; "
                   f"{c.samples} samples, {c.method})")
    click.echo(f"{'peer':18s} {'bytes':>8s} {'ratio med':>9s} {'p10':>6s} {'p90':>6s} {'min/min':>7s} "
               f"{'ours t/B':>8s} {'peer t/B':>8s} {'ours c/B':>8s} {'peer c/B':>8s} {'ours ns/B':>9s}")
    for s in report.stats:
        click.echo(f"{s.peer:18s} {s.size:8d} {s.ratio_median:9.3f} {s.ratio_p10:6.3f} {s.ratio_p90:6.3f} "
                   f"{s.ratio_of_minima:7.3f} {s.ours_ticks_per_byte:8.3f} {s.peer_ticks_per_byte:8.3f} "
                   f"{s.ours_cycles_per_byte:8.3f} {s.peer_cycles_per_byte:8.3f} "
                   f"{report.ns_per_byte(s.ours_ticks_per_byte):9.3f}")
    for note in report.notes:
        click.echo(f"note: {note}")
    for s in report.stats:
        if s.spread >= WIDE_SPREAD:
            click.echo(f"warning: {s.peer} at {s.size} B: p10..p90 {s.ratio_p10:.3f}..{s.ratio_p90:.3f} is "
                       f"{100 * s.spread:.0f} % of the median {s.ratio_median:.3f}: the machine was busy or the "
                       f"size is too small to time; do not read the median as a finding (rerun on an idle "
                       f"machine, more --pairs)")
    click.echo("ratio = ours / peer in ticks per byte (< 1: ours is faster); t/B = TSC ticks per byte; "
               "c/B = estimated core cycles per byte (ticks x core cycles per tick)")
