"""``sha1opt synth``: the shortest x86 sequences for a SHA-1 fragment, minimal up to a bound and proved.

A click command, not attached to a group (``cli.main.add_command`` does
that): parse, one library call (``search.synth.synthesize``), format with
``views.synth``.
Exit codes: 0 found (minimal length proved), 1 none up to ``--max-len``,
3 unknown (time or the memory budget ran out before the bound was
exhausted, or Z3 gave up -- never success), 2 bad input (one line on stderr).
``--save`` writes the user's file (``search.synth.cegis.user_discovered_path``,
``$XDG_DATA_HOME/sha1opt/discovered.toml``) or ``--save PATH``, never the
installed package's ``corpus/``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sha1opt.cli_types import Integer, OutputFile, Seconds
from sha1opt.search.synth import ISAS, TARGETS, save_discovered, synthesize, user_discovered_path
from sha1opt.semantics.datafiles import output_dir
from sha1opt.semantics.errors import Sha1optError
from sha1opt.views.synth import as_dict, render

EXIT_FOUND, EXIT_NONE, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


class SavePath(OutputFile):
    """``--save`` alone: the user's discovered file (its directory created); ``--save PATH``: PATH."""

    def convert(self, value, param, ctx):
        if isinstance(value, Path):
            return value
        if value == "":
            try:
                value = output_dir(user_discovered_path().parent) / user_discovered_path().name
            except Sha1optError as e:
                self.fail(str(e), param, ctx)
        return Path(super().convert(value, param, ctx))


@click.command("synth")
@click.option("--target", type=click.Choice(list(TARGETS)), required=True, help="What to compute: f1 f2 f3 (any register), *-into-e (e += f), *-round (e += f+K+W), w-word.")
@click.option("--temps", type=Integer(0, 8), default=1, show_default=True, help="Free temporary registers.")
@click.option("--isa", type=click.Choice(ISAS), default="base", show_default=True, help="base i386, +BMI1 andn, +BMI2 rorx.")
@click.option("--destroy/--keep-inputs", default=False, show_default=True, help="May input registers be overwritten?")
@click.option("--max-len", type=Integer(0, 12), default=6, show_default=True, help="Longest sequence searched.")
@click.option("--time-limit", type=Seconds(0.001), default=None, help="Seconds; exit 3 if not done.")
@click.option("--show", type=Integer(0), default=8, show_default=True, help="Sequences to print.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (every sequence).")
@click.option("--save", type=SavePath(), is_flag=False, flag_value="", default=None, metavar="[PATH]",
              help="Add the proved minimal sequences to PATH (default $XDG_DATA_HOME/sha1opt/discovered.toml).")
@click.option("--save-limit", type=Integer(1), default=None, help="With --save: only the best N.")
def synth(target, temps, isa, destroy, max_len, time_limit, show, as_json, save, save_limit):
    """Find the shortest instruction sequences for TARGET, prove them with Z3, and prove none is shorter."""
    try:
        result = synthesize(target, temps=temps, isa=isa, destroy=destroy, max_len=max_len, time_limit=time_limit)
        saved = save_discovered([result], save, limit=save_limit) if save and result.status == "found" else None
    except Sha1optError as e:
        click.echo(f"sha1opt: error: {e}", err=True)
        sys.exit(EXIT_USAGE)
    if as_json:
        click.echo(json.dumps({**as_dict(result), "saved": str(saved) if saved else None}, indent=1))
    else:
        click.echo(render(result, show))
        if saved:
            click.echo(f"saved {len(result.solutions[:save_limit])} sequence(s) to {saved}")
    sys.exit({"found": EXIT_FOUND, "none": EXIT_NONE}.get(result.status, EXIT_UNKNOWN))
