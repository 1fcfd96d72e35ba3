"""The ``sha1opt`` command line: parse arguments, make one library call, format.

Exit codes (every command): 0 success / proved; 1 counterexample or a
check that failed; 2 usage error or bad input (one line on stderr naming the
problem); 3 unknown (a solver gave up -- never reported as success).
All logic lives in ``sha1opt.semantics`` / ``search`` / ``emit``; nothing
here computes.
"""

from __future__ import annotations

import difflib
import importlib

import click

from sha1opt import __version__
from sha1opt.cli_common import EXIT_FAIL, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE, fail  # noqa: F401 (re-exported)
from sha1opt.semantics.errors import Sha1optError

# Every command, and the module that defines it. A command's module (and the libraries it
# needs) is imported only when that command runs or its help is shown: `sha1opt prove`
# does not pay for the search, Dask or the ELF reader. The architecture test reads these
# modules' imports like any other's.
COMMANDS: dict[str, str] = {
    "prove": "sha1opt.cli_prove",
    "demo": "sha1opt.cli_emit",
    "export": "sha1opt.cli_emit",
    "bench": "sha1opt.cli_emit",
    "search": "sha1opt.cli_search",
    "show": "sha1opt.cli_search",
    "analyze": "sha1opt.cli_analyze",
    "uarchs": "sha1opt.cli_analyze",
    "scan": "sha1opt.cli_analyze",
    "synth": "sha1opt.cli_synth",
    "calibrate": "sha1opt.cli_calibrate",
}


# The one line per command `sha1opt --help` lists (the group's listing, not the commands' docstrings:
# click cuts a docstring's first sentence mid-phrase to fit the terminal; these fit 80 columns whole,
# and listing them imports no command module).
SUMMARIES: dict[str, str] = {
    "analyze": "Predicted c/B per model of a SHA-1 function, and its proof",
    "bench": "Validate a .S, then time it against OpenSSL and gcc",
    "calibrate": "Measure this CPU, fit its model, write the calibrated model",
    "demo": "The main job: prove, search this CPU's model, export, bench",
    "export": "Write a validated sha1_block_data_order .S file",
    "prove": "Prove two formulas equal, the rewrite corpus, or machine code",
    "scan": "Find and prove the SHA-1 functions in files, archives, folders",
    "search": "Search the cheapest proved schedule per model (Dask)",
    "show": "Draw the best known schedule clock by clock",
    "synth": "Shortest proved instruction sequences for a SHA-1 fragment",
    "uarchs": "List the models, or this CPU's (--host)",
}


class _Group(click.Group):
    """Loads each command from ``COMMANDS`` on demand; turns every library misuse error, and every
    bad option value, into one line and exit code 2."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def format_commands(self, ctx, formatter):
        with formatter.section("Commands"):
            formatter.write_dl([(name, SUMMARIES[name]) for name in self.list_commands(ctx)])

    def resolve_command(self, ctx, args):
        if args and args[0] not in COMMANDS and not args[0].startswith("-"):
            close = difflib.get_close_matches(args[0], list(COMMANDS), n=2, cutoff=0.6)
            if close:
                ctx.fail(f"no such command {args[0]!r}; did you mean {' or '.join(close)}?")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx, name):
        module = COMMANDS.get(name)
        if module is None:
            return None
        return getattr(importlib.import_module(module), name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Sha1optError as e:
            fail(str(e))
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else "sha1opt"
            fail(f"{e.format_message()} (see '{where} --help')")


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="sha1opt")
def main() -> None:
    """sha1opt: a superoptimizer for SHA-1 round code on x86, with proofs."""
