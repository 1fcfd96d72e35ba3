"""``sha1opt analyze`` and ``sha1opt uarchs``: predicted cost per microarchitecture, and the models.

Two click commands, not attached to a group (``cli.main.add_command`` does
that). Each parses its arguments, makes one library call
(``sha1opt.analyze.analyze_file`` / ``search.cost.model.load_model``) and
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

EXIT_USAGE = 2
EXIT_CODES = {"proved": 0, "counterexample": 1, "unknown": 3, "refused": 2}


def _fail(message: str) -> None:
    click.echo(f"sha1opt: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


@click.command("analyze")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--uarch", "uarchs", multiple=True, help="Model to predict for (repeatable); see `sha1opt uarchs`.")
@click.option("--all-uarchs", is_flag=True, help="Predict for every model.")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="For text input: default guessed from the registers used.")
@click.option("--function", default=None, help="Default: sha1_block_data_order, else the only global function.")
@click.option("--abi", type=click.Choice(["sysv", "cdecl"]), default=None, help="Default: sysv on x86-64, cdecl on i386.")
@click.option("--member", default=None, help="For a .a archive: the member (default: the one SHA-1 member).")
@click.option("--interface", default=None,
              help="The arguments, e.g. 'sha_transform(state, data, workspace[16])', 'one-block' "
                   "(default: blocks = (state, data, nblocks)).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--timeline", is_flag=True, help="Also print each instruction's issue/complete cycle and unit.")
def analyze(file, uarchs, all_uarchs, arch, function, abi, member, interface, as_json, timeline):
    """Predict cycles/byte of a SHA-1 block function per microarchitecture, and say whether it is proved.

    FILE is .s/.S text (assembled with the system toolchain), a .o, a .a
    (with --member) or a shared object; the proof is of the whole function.
    """
    if bool(uarchs) == all_uarchs:
        raise click.UsageError("give --uarch U (one or more) or --all-uarchs")
    try:
        declared = parse_interface(interface) if interface is not None else None
        results = analyze_file(file, model_names() if all_uarchs else list(uarchs), arch, function=function, abi=abi,
                               member=member, interface=declared)
        paths = path_costs(results[0].proof, [a.uarch for a in results])
    except Sha1optError as e:
        _fail(str(e))
    if as_json:
        rows = [{"uarch": a.uarch, "arch": a.arch, "loop": a.loop, "instructions": a.instructions,
                 "cycles": a.cycles, "cycles_per_byte": a.cycles_per_byte, "bottleneck": a.bottleneck,
                 "breakdown": a.simulation.breakdown if a.simulation else {}, "error": a.error,
                 **({"timeline": [vars(s) for s in a.simulation.timeline]} if timeline and a.simulation else {})}
                for a in results]
        click.echo(json.dumps({"file": file, "proved": results[0].proved, "proof": results[0].proof.summary(),
                               "outcome": results[0].proof.outcome, "contract": results[0].proof.contract.describe(),
                               "results": rows, "paths": [vars(c) for c in paths]}, indent=1))
        sys.exit(EXIT_CODES[results[0].proof.outcome])
    first = results[0]
    what = "per block (loop, steady state)" if first.loop else "once (the function has no loop)"
    click.echo(f"{file}: {first.proof.source}, function {first.proof.function}, {first.arch}, "
               f"{first.instructions} instructions {what}")
    click.echo(f"  {'uarch':12s} {'cycles':>9s} {'c/byte':>7s}  bottleneck")
    for a in results:
        if a.error:
            click.echo(f"  {a.uarch:12s} {'-':>9s} {'-':>7s}  {a.error}")
        else:
            click.echo(f"  {a.uarch:12s} {a.cycles:9.1f} {a.cycles_per_byte:7.2f}  {a.bottleneck}")
        if timeline and a.simulation:
            for s in a.simulation.timeline:
                click.echo(f"      {s.issue:8.1f} {s.complete:8.1f}  {s.unit:14s} {s.text}")
    if len({c.path for c in paths}) > 1:
        for line in path_table(paths):
            click.echo("  " + line)
    click.echo(f"  SHA-1: {first.proof.summary()}")
    click.echo(f"  contract: {first.proof.contract.describe()}")
    for f in first.proof.findings:
        click.echo(f"  finding: {f}")
    sys.exit(EXIT_CODES[first.proof.outcome])


@click.command("uarchs")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def uarchs(as_json):
    """List the microarchitecture models: issue width, units and notable rules."""
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
