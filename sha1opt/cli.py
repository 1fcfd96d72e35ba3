"""The ``sha1opt`` command line: parse arguments, make one library call, format.

Exit codes (every command): 0 success / proved; 1 counterexample or a
check that failed; 2 usage error or bad input (one line on stderr naming the
problem); 3 unknown (a solver gave up -- never reported as success).
All logic lives in ``sha1opt.semantics`` / ``search`` / ``emit``; nothing
here computes.
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import click

from sha1opt import __version__
from sha1opt.analyze import prove_object
from sha1opt.cli_analyze import analyze, uarchs
from sha1opt.cli_synth import synth
from sha1opt.cli_types import Integer, OutputDir, OutputFile, Seconds, Sizes, TextSource
from sha1opt.emit.assembly import guess_arch
from sha1opt.emit.bench import BenchRefusal
from sha1opt.emit.bench import bench as do_bench
from sha1opt.emit.export import export as do_export
from sha1opt.emit.peers import OPENSSL_PATHS, gcc_reference
from sha1opt.job import steps
from sha1opt.search.blocks import STANDARD_RANGES, best_block, best_known
from sha1opt.search.cost.model import canonical_name, load_model, model_names
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.driver import NO_BUDGET, default_arch, search_ranges
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics import identities
from sha1opt.semantics.att import parse_file, read_source
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.numerals import decimal
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.semantics.prove import Counterexample, Proved, Unknown, prove_exprs, prove_program
from sha1opt.views.drawing import CHAIN_TITLES, gantt_png, table
from sha1opt.views.report import report_json, report_lines

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


def _exit_code(outcome) -> int:
    if isinstance(outcome, Proved):
        return EXIT_OK
    return EXIT_FAIL if isinstance(outcome, Counterexample) else EXIT_UNKNOWN


def _outcome_json(outcome) -> dict:
    if isinstance(outcome, Proved):
        return {"result": "proved", "seconds": round(outcome.seconds, 6), "method": outcome.method}
    if isinstance(outcome, Counterexample):
        return {"result": "counterexample", "inputs": {k: f"{v:#010x}" for k, v in sorted(outcome.inputs.items())},
                "lhs": f"{outcome.lhs:#010x}", "rhs": f"{outcome.rhs:#010x}", "found_by": outcome.found_by}
    return {"result": "unknown", "reason": outcome.reason}


def _outcome_text(outcome, lhs_name: str = "lhs", rhs_name: str = "rhs") -> str:
    if isinstance(outcome, Proved):
        return f"proved ({outcome.method}, {outcome.seconds:.3f} s)"
    if isinstance(outcome, Counterexample):
        inputs = ", ".join(f"{k}={v:#010x}" for k, v in sorted(outcome.inputs.items()))
        return (f"counterexample ({outcome.found_by}): {inputs}\n"
                f"  {lhs_name} = {outcome.lhs:#010x}\n  {rhs_name} = {outcome.rhs:#010x}")
    return f"unknown: {outcome.reason} (not a proof)"


def _fail(message: str) -> None:
    click.echo(f"sha1opt: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


class _Group(click.Group):
    """Turns every library misuse error, and every bad option value, into one line and exit code 2."""
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Sha1optError as e:
            _fail(str(e))
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else "sha1opt"
            _fail(f"{e.format_message()} (see '{where} --help')")


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="sha1opt")
def main() -> None:
    """sha1opt: a superoptimizer for SHA-1 round code on x86, with proofs."""


def _parse_map(text: str) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        var, eq, reg = item.partition("=")
        if not eq or not var.strip() or not reg.strip():
            raise click.BadParameter(f"{item!r} is not VAR=REG", param_hint="--map")
        var = var.strip()
        if var in mapping:
            raise click.BadParameter(f"variable {var!r} mapped twice", param_hint="--map")
        mapping[var] = reg.strip().lstrip("%").lower()
    return mapping


@main.command()
@click.argument("exprs", nargs=-1)
@click.option("--corpus", "use_corpus", is_flag=True, help="Prove every identity in the rewrite corpus.")
@click.option("--asm", "asm_file", type=TextSource(), help="AT&T straight-line code to prove.")
@click.option("--out", "out_reg", help="With --asm: the register holding the result (e.g. eax).")
@click.option("--expr", help="With --asm: the formula the result must equal.")
@click.option("--map", "mapping", default="", help="With --asm: variables to registers, e.g. b=ebx,c=ecx,d=edx.")
@click.option("--object", "object_file", type=click.Path(dir_okay=False),
              help="A whole block function: .s/.S (assembled), .o, .a (with --member) or shared object.")
@click.option("--function", default=None, help="With --object: default sha1_block_data_order, else the only global function.")
@click.option("--abi", type=click.Choice(["sysv", "cdecl"]), default=None, help="With --object: default by arch.")
@click.option("--member", default=None, help="With --object on a .a: the member.")
@click.option("--min-blocks", type=click.IntRange(0, 1), default=None,
              help="With --object: the contract's least nblocks (default 0, or 1 when 0 enters the loop).")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="--asm: default x86_64; --object text: default guessed.")
@click.option("--timeout", type=Seconds(0.001), default=10.0, show_default=True, help="Seconds per Z3 query.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def prove(exprs, use_corpus, asm_file, object_file, function, abi, member, min_blocks, out_reg, expr, mapping, arch,
          timeout, as_json):
    """Prove EXPR1 == EXPR2 for all 32-bit inputs, the corpus, or code against a formula.

    \b
    sha1opt prove "(b&c)|(d&(b|c))" "(b&c)+(d&(b^c))"
    sha1opt prove --corpus
    sha1opt prove --asm f3.s --out eax --expr "(b&c)|(d&(b|c))" --map b=ebx,c=ecx,d=edx
    sha1opt prove --object libcrypto.a --member libcrypto-lib-sha1-x86_64.o
    """

    modes = sum([bool(exprs), use_corpus, asm_file is not None, object_file is not None])
    if modes != 1:
        raise click.UsageError("give EXPR1 EXPR2, or --corpus, or --asm FILE, or --object FILE")
    if object_file is not None:
        _prove_object(object_file, function, abi, member, min_blocks, arch, as_json)
        return
    arch = arch or "x86_64"
    if use_corpus:
        results = identities.check(identities.load(), timeout)
        _report_corpus(results, as_json)
        return
    if asm_file is not None:
        if not out_reg or not expr:
            raise click.UsageError("--asm needs --out REG and --expr EXPR")
        outcome = prove_program(parse_file(asm_file, arch), out_reg.lstrip("%").lower(), expr,
                                _parse_map(mapping), timeout)
        names = (f"%{out_reg.lstrip('%')}", "expr")
    else:
        if len(exprs) != 2:
            raise click.UsageError(f"expected two expressions, got {len(exprs)}")
        outcome = prove_exprs(exprs[0], exprs[1], timeout)
        names = ("lhs", "rhs")
    click.echo(json.dumps(_outcome_json(outcome)) if as_json else _outcome_text(outcome, *names))
    sys.exit(_exit_code(outcome))


def _prove_object(path, function, abi, member, min_blocks, arch, as_json) -> None:
    try:
        res = prove_object(path, function=function, abi=abi, member=member, arch=arch, min_blocks=min_blocks)
    except Sha1optError as e:
        _fail(str(e))
    code = {"proved": EXIT_OK, "counterexample": EXIT_FAIL, "refused": EXIT_USAGE}.get(res.outcome, EXIT_UNKNOWN)
    if as_json:
        click.echo(json.dumps({
            "file": path, "source": res.source, "function": res.function, "arch": res.arch, "result": res.outcome,
            "summary": res.summary(), "contract": res.contract.describe(), "findings": list(res.findings),
            "seconds": round(res.seconds, 3),
            "paths": [{"name": p.name, "condition": p.condition, "result": p.outcome, "detail": p.detail,
                       "instructions": p.instructions, "seconds": round(p.seconds, 3)} for p in res.proof.paths]},
            indent=1))
        sys.exit(code)
    click.echo(f"{path}: {res.source}, function {res.function} ({res.arch})")
    click.echo(f"  contract: {res.contract.describe()}")
    for p in res.proof.paths:
        click.echo(f"  path {p.name} [{p.condition}]: {p.outcome} ({p.instructions} instructions, {p.seconds:.2f} s)"
                   f" -- {p.detail}")
    for f in res.findings:
        click.echo(f"  finding: {f}")
    click.echo(f"  SHA-1: {res.summary()}")
    if res.outcome == "refused":
        click.echo(f"sha1opt: error: {res.proof.refusal}", err=True)
    sys.exit(code)


def _report_corpus(results, as_json: bool) -> None:
    bad = [r for r in results if not r.ok]
    if as_json:
        rows = [{"name": r.identity.name, "expect": r.identity.expect, "ok": r.ok, **_outcome_json(r.outcome)}
                for r in results]
        click.echo(json.dumps({"identities": rows, "failed": [r.identity.name for r in bad]}, indent=1))
    else:
        for r in results:
            status = "ok  " if r.ok else "FAIL"
            click.echo(f"{status} {r.identity.name:34s} expect {r.identity.expect:6s} "
                       f"{_outcome_text(r.outcome).splitlines()[0]}")
            if not r.ok:
                click.echo("     " + _outcome_text(r.outcome).replace("\n", "\n     "))
        click.echo(f"{len(results) - len(bad)}/{len(results)} identities as expected")
    if any(not r.ok and not isinstance(r.outcome, Unknown) for r in bad):
        sys.exit(EXIT_FAIL)
    sys.exit(EXIT_UNKNOWN if bad else EXIT_OK)


@main.command()
@click.option("--outdir", type=OutputDir(), default="out", show_default=True,
              help="Created if missing; must take files (checked before any work).")
def demo(outdir: Path) -> None:
    """The main job: prove, export and bench the default schedule (see the README)."""
    t0 = time.perf_counter()
    ok = True
    for step in steps(outdir):
        click.echo(f"[{'ok' if step.ok else 'FAIL'}] {step.title}: {step.detail} ({step.seconds:.2f} s)")
        ok = ok and step.ok
    click.echo(f"demo finished in {time.perf_counter() - t0:.1f} s: {'all proved' if ok else 'FAILURES above'}")
    sys.exit(EXIT_OK if ok else EXIT_FAIL)


class _Interrupted(BaseException):
    """SIGINT or SIGTERM during a command that runs children: unwinds so they are killed and temp files go."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _shown(path) -> str:
    """A path as one printable line: shell-quoted, control characters escaped (``'a\\nb'``)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in shlex.quote(str(path)))


@contextmanager
def _unwind_on_signals():
    """SIGINT/SIGTERM raise ``_Interrupted`` (once; further ones are ignored while cleaning up).

    The library's ``finally`` blocks then kill each child's process group and
    remove temporary directories; the command exits 128 + the signal number
    (130 for Ctrl-C) with one line on stderr.
    """
    def on_signal(signum, _frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise _Interrupted(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except _Interrupted as e:
        click.echo(f"sha1opt: interrupted by {signal.Signals(e.signum).name}; children stopped, "
                   f"temporary files removed", err=True)
        sys.exit(128 + e.signum)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@main.command()
@click.option("-o", "--output", required=True, type=OutputFile(),
              help="The .S file to write: a regular file or a new name (a device or FIFO is refused).")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="Default: x86_64, or the uarch's own (`arch` in its model; `sha1opt uarchs` lists them).")
@click.option("--uarch", default=None, help="Assemble the best stored schedule per range for this uarch.")
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="Results store (SQLite), opened read-only; must exist if given.")
@click.option("--flavor", type=click.Choice(["elf", "macho"]), default="elf", show_default=True)
def export(output, arch, uarch, db, flavor):
    """Write a validated sha1_block_data_order as GNU-as .S (nothing is written unless it validates)."""
    # The header records the command as shell-quoted words; export escapes them into comment text.
    argv = sys.argv[1:] if sys.argv[1:2] == ["export"] else ["export"]
    command = "sha1opt " + shlex.join(argv)
    with _unwind_on_signals():
        if uarch:
            uarch = canonical_name(uarch)
            schedule, sources = best_block(uarch, arch or default_arch(uarch), db)
            for line in sources:
                click.echo(f"rounds {line}")
        else:
            schedule = textbook(arch or "x86_64")
        result = do_export(schedule, output, flavor=flavor, uarch=uarch, command=command)
    for c in result.validation.checks:
        click.echo(f"[{'ok' if c.ok else 'FAIL'}] {c.name} ({c.seconds:.2f} s): {c.detail}")
    if not result.ok:
        failed = result.validation.failure
        click.echo(f"sha1opt: refused: {failed.name if failed else 'validation'} failed; "
                   f"{_shown(output)} was not written", err=True)
        sys.exit(EXIT_FAIL)
    click.echo(f"wrote {_shown(result.path)} ({flavor}, {schedule.arch}; "
               f"validated in {result.validation.seconds:.2f} s)")


@main.command()
@click.argument("source", type=TextSource())
@click.option("--arch", type=click.Choice(["auto", "x86_64", "i386"]), default="auto", show_default=True)
@click.option("--pairs", type=Integer(2), default=30, show_default=True, help="Interleaved pairs per size.")
@click.option("--sizes", type=Sizes(), default="64,1024,16384,1048576", show_default=True,
              help="Bytes per call (multiples of 64).")
@click.option("--openssl", "paths", default="integer,ssse3,avx2,default", show_default=True,
              help="OpenSSL code paths to compare with (x86-64 only); 'none' for none.")
@click.option("--time-limit", type=Seconds(0.1, BENCH_SECONDS), default=BENCH_SECONDS,
              show_default=True, help="Wall seconds per timing process (it is killed past them).")
@click.option("--json", "as_json", is_flag=True)
def bench(source, arch, pairs, sizes, paths, time_limit, as_json):
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
    with _unwind_on_signals():
        arch = guess_arch(read_source(source)) if arch == "auto" else arch
        report = do_bench(source, arch, sizes=size_list, pairs=pairs, openssl_paths=path_list, time_limit=time_limit)
    if isinstance(report, BenchRefusal):
        _fail(f"refused: {source} did not validate ({report.reason}); nothing was timed")
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=1))
        return
    click.echo(f"{source} ({arch}); TSC {report.tsc_hz / 1e9:.3f} GHz (TSC ticks are not core cycles); "
               f"{pairs} interleaved pairs per size; validated first: {', '.join(report.validated)}")
    click.echo(f"{'peer':18s} {'bytes':>8s} {'ratio med':>9s} {'p10':>6s} {'p90':>6s} {'min/min':>7s} "
               f"{'ours t/B':>8s} {'peer t/B':>8s} {'ours ns/B':>9s}")
    for s in report.stats:
        click.echo(f"{s.peer:18s} {s.size:8d} {s.ratio_median:9.3f} {s.ratio_p10:6.3f} {s.ratio_p90:6.3f} "
                   f"{s.ratio_of_minima:7.3f} {s.ours_ticks_per_byte:8.3f} {s.peer_ticks_per_byte:8.3f} "
                   f"{report.ns_per_byte(s.ours_ticks_per_byte):9.3f}")
    for note in report.notes:
        click.echo(f"note: {note}")
    click.echo("ratio = ours / peer in ticks per byte (< 1: ours is faster)")


def _parse_rounds(text: str) -> tuple[int, int]:
    a, sep, b = text.partition("-")
    try:
        first, last = decimal(a), decimal(b) if sep else decimal(a)
    except Sha1optError:
        raise click.BadParameter(f"{text!r} is not A-B (ASCII round numbers)", param_hint="--rounds") from None
    if not (0 <= first <= last <= 79):
        raise click.BadParameter(f"{text!r} is not a range within 0-79", param_hint="--rounds")
    return first, last


def _uarch_names() -> list[str]:

    return model_names()


EXIT_INTERRUPTED = 130   # Ctrl-C: the best proved result so far was stored and printed


@main.command()
@click.option("--uarch", default=None, help="Microarchitecture model (see `sha1opt uarchs`).")
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
@click.option("--seed", type=Integer(), default=0, show_default=True)
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="Results store (SQLite).")
@click.option("--resume", is_flag=True, help="Start from the stored best for this key.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def search(ctx, uarch, all_uarchs, rounds, arch, time_limit, evaluations, workers, cluster, seed, db, resume,
           as_json):
    """Find the cheapest proved schedule for round ranges under uarch cost models (tasks on a Dask cluster).

    Ctrl-C stops within about a second: the best result so far is proved, stored and printed (exit 130).
    """
    if all_uarchs == (uarch is not None):
        raise click.UsageError("give exactly one of --uarch U and --all-uarchs")
    ranges = list(STANDARD_RANGES) if rounds == "all" else [_parse_rounds(rounds)]
    uarchs = model_names() if all_uarchs else [canonical_name(uarch)]
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
                                progress=progress, reference=gcc_reference)
    finally:
        signal.signal(signal.SIGINT, old)
        if tty:
            click.echo("", err=True)

    if as_json:
        out = [report_json(r) for r in reports]
        click.echo(json.dumps(out[0] if len(out) == 1 else out, indent=1))
    else:
        click.echo("\n\n".join("\n".join(report_lines(r)) for r in reports))
    if stop.is_set():
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(EXIT_OK if all(r.proved for r in reports) else EXIT_FAIL)


@main.command()
@click.option("--uarch", required=True)
@click.option("--rounds", default="40-44", show_default=True, help="Round range A-B within 0-79.")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None)
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="Results store (SQLite), opened read-only; must exist if given.")
@click.option("--png", type=OutputFile(), default=None, help="Also draw a Gantt chart (a regular file or a new name).")
def show(uarch, rounds, arch, db, png):
    """Draw the best known schedule for a range, clock by clock, one column per dependency chain."""
    first, last = _parse_rounds(rounds)
    uarch = canonical_name(uarch)
    arch = arch or default_arch(uarch)
    real, where = best_known(uarch, arch, first, last, db)
    sim = simulate(real.code, load_model(uarch))
    click.echo(f"{uarch} ({arch}) rounds {first}-{last}: {where}; {sim.cycles:.1f} cycles, bottleneck {sim.bottleneck}")
    width = 30
    click.echo(f"{'clk':>4} | " + " | ".join(f"{CHAIN_TITLES[c]:{width}s}" for c in CHAIN_TITLES))
    for row in table(real, sim):
        depth = max(1, *(len(v) for v in row.cells.values()))
        for k in range(depth):
            cells = [(row.cells[c][k] if k < len(row.cells[c]) else "")[:width] for c in CHAIN_TITLES]
            click.echo(f"{row.cycle if k == 0 else '':>4} | " + " | ".join(f"{x:{width}s}" for x in cells))
    if png:
        click.echo(f"wrote {gantt_png(real, sim, png, f'{uarch} rounds {first}-{last}: {sim.cycles:.0f} cycles')}")


def _register() -> None:
    """Commands kept in their own modules (each a thin wrapper like the ones above)."""
    main.add_command(analyze)
    main.add_command(uarchs)
    main.add_command(synth)


_register()
