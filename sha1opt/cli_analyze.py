"""``sha1opt analyze``, ``sha1opt scan`` and ``sha1opt uarchs``: predicted cost and proof of one function, of
every SHA-1 function found under some paths, and the models.

Three click commands, not attached to a group (``cli.main.add_command`` does
that). Each parses its arguments, makes one library call
(``sha1opt.analyze.analyze_file`` / ``sha1opt.scan.scan`` / ``search.cost.model.load_model``) and
formats the result. Exit codes as in ``cli.py``: 0 proved, 1 counterexample
(confirmed natively), 3 not proved for another reason, 2 bad input (unknown
uarch, a file that does not assemble, a refused instruction: one line on
stderr).
"""

from __future__ import annotations

import json
import sys

import click

from sha1opt.analyze import analyze_file, path_costs
from sha1opt.views.report import path_table
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.views import uarch_notes
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.cli_common import EXIT_INTERRUPTED, ProgressLine, cpp, cpp_options, resolve_uarch, shown
from sha1opt.cli_types import Seconds
from sha1opt.scan import TIME_LIMIT, Found, Unreadable
from sha1opt.scan import scan as scan_paths
from sha1opt.emit.families import levels_of
from sha1opt.emit.family_shani import SHANI
from sha1opt.emit.host_cpu import LACKS_ENV, calibrated_model, host, identify, levels
from sha1opt.emit.objfile import MEMBER_HELP
from sha1opt.cli_common import INTERFACE_HELP

EXIT_USAGE = 2
EXIT_CODES = {"proved": 0, "counterexample": 1, "unknown": 3, "refused": 2}


def _fail(message: str) -> None:
    click.echo(f"sha1opt: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


@click.command("analyze")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--uarch", "uarchs", multiple=True, help="Model to predict for (repeatable); see `sha1opt uarchs`. "
              "Default and `host`: this CPU's model.")
@click.option("--all-uarchs", is_flag=True, help="Predict for every model.")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="For text input: default guessed from the registers used.")
@click.option("--function", default=None, help="Default: sha1_block_data_order, else the only global function, else "
              "the one SHA-1 function scan finds; a stripped function as scan names it, sub_<hex address>.")
@click.option("--abi", type=click.Choice(["sysv", "cdecl"]), default=None, help="Default: sysv on x86-64, cdecl on i386.")
@click.option("--member", default=None, help=MEMBER_HELP)
@click.option("--interface", default=None,
              help=INTERFACE_HELP)
@click.option("--min-blocks", type=click.IntRange(0, 1), default=None,
              help="The contract's least nblocks (default 0, or 1 when 0 enters the loop).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--timeline", is_flag=True, help="Also print each instruction's issue/complete cycle and unit.")
@cpp_options
def analyze(file, uarchs, all_uarchs, arch, function, abi, member, interface, min_blocks, as_json, timeline, includes,
            defines):
    """Predict cycles/byte of a SHA-1 block function per microarchitecture, and say whether it is proved.

    FILE is .s/.S text (assembled with the system toolchain), a .o, a .a
    (with --member) or a shared object; the proof is of the whole function.
    """
    if uarchs and all_uarchs:
        raise click.UsageError("give --uarch U (one or more) or --all-uarchs, not both")
    try:
        pre = cpp(includes, defines)      # a bad -I/-D is refused before the model is resolved (and said)
        names = model_names() if all_uarchs else [resolve_uarch(u) for u in uarchs or [None]]
        declared = parse_interface(interface) if interface is not None else None
        results = analyze_file(file, names, arch, function=function, abi=abi,
                               member=member, interface=declared, min_blocks=min_blocks, cpp=pre)
        paths = path_costs(results[0].proof, [a.uarch for a in results])
    except Sha1optError as e:
        _fail(str(e))
    if as_json:
        rows = [{"uarch": a.uarch, "arch": a.arch, "loop": a.loop, "instructions": a.instructions,
                 "cycles": a.cycles, "cycles_per_byte": a.cycles_per_byte, "bottleneck": a.bottleneck,
                 "breakdown": a.simulation.breakdown if a.simulation else {}, "error": a.error,
                 "unlifted": a.unlifted, "path": a.path,
                 **({"timeline": [vars(s) for s in a.simulation.timeline]} if timeline and a.simulation else {})}
                for a in results]
        click.echo(json.dumps({"file": file, "proved": results[0].proved, "proof": results[0].proof.summary(),
                               "outcome": results[0].proof.outcome, "contract": results[0].proof.contract.describe(),
                               "interface": results[0].proof.interface,
                               "interface_origin": results[0].proof.interface_origin,
                               "function": results[0].proof.function,
                               "function_origin": results[0].proof.function_origin,
                               "results": rows, "paths": [vars(c) for c in paths]}, indent=1))
        sys.exit(EXIT_CODES[results[0].proof.outcome])
    first = results[0]
    what = (f"not priced: {first.unlifted}" if first.unlifted
            else f"{first.instructions} instructions per block (loop, steady state)" if first.loop and first.blocks == 1
            else f"{first.instructions} instructions per iteration of {first.blocks} blocks (loop, steady state)"
            if first.loop
            else f"{first.instructions} instructions once (the function has no loop)")
    if first.path and len({c.path for c in paths}) > 1:
        what += f"; priced below: {first.path}"
    chosen = f" ({first.proof.function_origin})" if first.proof.function_origin else ""
    click.echo(f"{file}: {first.proof.source}, function {first.proof.function}{chosen}, {first.arch}, {what}")
    click.echo(f"  {'uarch':12s} {'cycles':>9s} {'c/byte':>7s}  bottleneck")
    for a in results:
        if a.error:
            click.echo(f"  {a.uarch:12s} {'-':>9s} {'-':>7s}  {'not lifted whole' if a.unlifted else a.error}")
        else:
            click.echo(f"  {a.uarch:12s} {a.cycles:9.1f} {a.cycles_per_byte:7.2f}  {a.bottleneck}")
        if timeline and a.simulation:
            for s in a.simulation.timeline:
                click.echo(f"      {s.issue:8.1f} {s.complete:8.1f}  {s.unit:14s} {s.text}")
    if len({c.path for c in paths}) > 1:
        for line in path_table(paths):
            click.echo("  " + line)
    click.echo(f"  SHA-1: {first.proof.summary()}")
    click.echo(f"  interface: {first.proof.interface}, from {first.proof.interface_origin}")
    click.echo(f"  contract: {first.proof.contract.describe()}")
    for f in first.proof.findings:
        click.echo(f"  finding: {f}")
    sys.exit(EXIT_CODES[first.proof.outcome])


def _scan_line(f: Found) -> str:
    cpb = f"{f.cycles_per_byte:.2f}" if f.cycles_per_byte is not None else "-"
    paths = f"{f.proved_paths}/{f.paths} proved" if f.paths else "-"
    iface = f"{f.interface} ({'catalogue' if f.catalogued else 'guessed'})"
    assumes = f"\n    assuming no other object interposes {', '.join(f.assumes)}" if f.assumes else ""
    return (f"{f.where}  {f.function} @0x{f.address:x}  {iface} [{f.evidence}]  {f.verdict}  {paths}  "
            f"{f.seconds:.1f} s  {cpb} c/B {f.uarch}" + (assumes if f.verdict == "proved" else f"\n    {f.detail}"))


@click.command("scan")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--uarch", default=None, help="Model the c/B column predicts for. Default and `host`: this CPU's.")
@click.option("--time-limit", type=Seconds(1), default=TIME_LIMIT, show_default=True,
              help="Seconds per function; past it the proof is stopped and the row says so.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (no progress line).")
def scan(paths, uarch, time_limit, as_json):
    """Find the SHA-1 compression functions in files, ar archives and folders (recursively), and prove each.

    One row per function: file (member), function, interface, verdict, paths, time, predicted c/B. Exit 0 when
    every function found is proved, 1 when one has a counterexample (said only under a catalogued interface: under
    a guessed one the row is "interface unknown"), 3 otherwise, 2 when no file could be read;
    Ctrl-C prints what it has (130).
    """
    found, unread, done, code = [], [], None, None
    try:
        with ProgressLine("scan", enabled=False if as_json else None) as progress:
            for ev in scan_paths(paths, uarch=resolve_uarch(uarch), time_limit=time_limit, progress=progress):
                progress.close()
                if isinstance(ev, Unreadable):
                    unread.append(ev)
                    click.echo(f"sha1opt: cannot read {shown(ev.path)}: {ev.reason}", err=True)
                elif isinstance(ev, Found):
                    found.append(ev)
                    None if as_json else click.echo(_scan_line(ev))
                else:
                    done = ev
    except Sha1optError as e:
        _fail(str(e))
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    verdicts = [f.verdict for f in found]
    code = code or (1 if "counterexample" in verdicts else 3 if any(v != "proved" for v in verdicts)
                    else EXIT_USAGE if unread and done is not None and done.files == 0 else 0)
    if as_json:
        click.echo(json.dumps({"functions": [vars(f) | {"where": f.where} for f in found], "interrupted": done is None,
                               "unreadable": [vars(u) for u in unread], "done": vars(done) if done else None},
                              indent=1))
    elif done is None:
        click.echo(f"interrupted: {len(found)} function(s) found so far", err=True)
    else:
        click.echo(f"{len(found)} function(s), {verdicts.count('proved')} proved; {done.files} file(s), "
                   f"{done.parsed} object(s) parsed, {len(unread)} unreadable; {done.seconds:.1f} s")
    sys.exit(code)


@click.command("uarchs")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--host", "show_host", is_flag=True,
              help="Only this CPU: vendor, family, model, brand string (cpuid), its model (exact or nearest) "
                   "and the features and --isa levels it runs (cpuid and xgetbv, not the model).")
def uarchs(as_json, show_host):
    """List the microarchitecture models: issue width, units and notable rules."""
    if show_host:
        _host_lines(as_json)
        return
    try:
        models = [load_model(n) for n in model_names()]
    except Sha1optError as e:
        _fail(str(e))
    if as_json:
        click.echo(json.dumps([{"name": m.name, "aliases": list(m.aliases), "description": m.description,
                                "engine": m.engine, "issue_width": m.issue_width, "window": m.window,
                                "units": {u.name: u.what for u in m.units}, "bmi1": m.has_bmi1,
                                "bmi2": m.has_bmi2, "vector_isa": list(m.vector_isa),
                                "rules": uarch_notes.notable(m), "source": m.source}
                               for m in models], indent=1))
        return
    for m in models:
        for line in uarch_notes.lines(m):
            click.echo(line)


def _host_lines(as_json: bool) -> None:
    cpu = host()
    if cpu is None:
        _fail("this CPU's identification could not be read (not an x86 CPU, or cpuid unavailable)")
    row = identify(cpu.id)
    info = {"vendor": cpu.id.vendor, "family": cpu.id.family, "model": cpu.id.model, "stepping": cpu.stepping,
            "brand": cpu.brand, "read_from": cpu.source, "uarch": row.model if row else None,
            "match": row.match if row else None, "cpus": row.name if row else None,
            "reason": row.reason if row else None, "source": row.source if row else None,
            "features": sorted(cpu.features), "removed_by_env": sorted(cpu.removed), "isa_levels": list(levels(cpu)),
            "calibrated": calibrated_model(cpu)}
    if as_json:
        click.echo(json.dumps(info, indent=1))
        return
    click.echo(f"CPU:      {cpu.brand or '(no brand string)'}")
    click.echo(f"          {cpu.id.vendor} family {cpu.id.family} (0x{cpu.id.family:x}) model {cpu.id.model} "
               f"(0x{cpu.id.model:x}) stepping {cpu.stepping}; read from {cpu.source}")
    if row is None:
        click.echo("model:    none: this CPU is in no row of corpus/cpus.toml (--uarch host is refused; name a model)")
    else:
        click.echo(f"model:    {row.model} ({row.match}{': ' + row.reason if row.match == 'nearest' else ''})")
        click.echo(f"          row: {row.name}; source: {row.source}")
        cal = calibrated_model(cpu)
        click.echo(f"          --uarch host: {cal}, calibrated on this CPU from {row.model} (sha1opt calibrate)" if cal
                   else f"          --uarch host: {row.model} (literature; `sha1opt calibrate` measures this CPU)")
    click.echo(f"features: {' '.join(sorted(cpu.features)) or 'none of the SSE/AVX/BMI/SHA family'}"
               f" (AVX family only where the OS saves its state: xgetbv)")
    if cpu.removed:
        click.echo(f"          removed by {LACKS_ENV}: {' '.join(sorted(cpu.removed))}")
    click.echo(f"--isa:    {' '.join(levels(cpu))} (the levels all of whose code runs here)")
    sha_levels = levels_of(SHANI)
    if "sha" in cpu.features and not set(sha_levels) & set(levels(cpu)):
        click.echo(f"          SHA-NI code runs here; the level `{sha_levels[0]}` is not listed because it also admits "
                   "AVX-512, which this CPU lacks")
