"""What the command modules share: exit codes, one-line failures, round ranges, signal unwinding."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from contextlib import contextmanager

import click

from sha1opt.emit.host_cpu import HOST_NAMES, host, host_model, uarch_name
from sha1opt.emit.toolchain import Preprocessor, preprocessor
from sha1opt.search.progress import Progress
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.numerals import decimal

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


def fail(message: str) -> None:
    """The one-line usage failure: ``sha1opt: error: MESSAGE`` on stderr, exit ``EXIT_USAGE``."""
    click.echo(f"sha1opt: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


class Interrupted(BaseException):
    """SIGINT or SIGTERM during a command that runs children: unwinds so they are killed and temp files go."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def shown(path) -> str:
    """A path as one printable line: shell-quoted, control characters escaped (``'a\\nb'``)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in shlex.quote(str(path)))


@contextmanager
def unwind_on_signals():
    """SIGINT/SIGTERM raise ``Interrupted`` (once; further ones are ignored while cleaning up).

    The library's ``finally`` blocks then kill each child's process group and
    remove temporary directories; the command exits 128 + the signal number
    (130 for Ctrl-C) with one line on stderr.
    """
    def on_signal(signum, _frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Interrupted(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except Interrupted as e:
        click.echo(f"sha1opt: interrupted by {signal.Signals(e.signum).name}; children stopped, "
                   f"temporary files removed", err=True)
        sys.exit(128 + e.signum)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def parse_rounds(text: str) -> tuple[int, int]:
    """A ``--rounds`` value ``A-B`` (ASCII decimal, 0 <= A <= B <= 79) as (A, B); else ``click.BadParameter``."""
    a, sep, b = text.partition("-")
    if not sep:      # "40" is not silently the one-round range 40-40
        one = text.strip().isascii() and text.strip().isdigit()
        raise click.BadParameter(f"{text!r} is not a range A-B; one round is written {text}-{text}" if one
                                 else f"{text!r} is not A-B (ASCII round numbers)", param_hint="--rounds")
    try:
        first, last = decimal(a), decimal(b)
    except Sha1optError:
        raise click.BadParameter(f"{text!r} is not A-B (ASCII round numbers)", param_hint="--rounds") from None
    if not (0 <= first <= last <= 79):
        raise click.BadParameter(f"{text!r} is not a range within 0-79", param_hint="--rounds")
    return first, last


def resolve_uarch(value: str | None) -> str:
    """A ``--uarch`` value as a model name; ``host``/``native`` (or None, where a command defaults to this
    machine) is the running CPU's model, said on stderr with the CPU and whether the model is its own."""
    if value is not None and value.lower() not in HOST_NAMES:
        return uarch_name(value)
    model, row = host_model()
    how = row.how if model == row.model else f"calibrated on this CPU from {row.model}, {row.how}"
    click.echo(f"sha1opt: --uarch host = {model} ({how}): this CPU is {host()}, {row.name}", err=True)
    return model


EXIT_INTERRUPTED = 130   # Ctrl-C: the best proved result so far was stored and printed


class ProgressLine:
    """A long library call's ``search.progress.Progress`` values as one stderr line, rewritten in place.

    Shown only where someone watches: stderr a terminal and not ``--json`` (``enabled`` None decides so),
    from ``after`` seconds on (a quick call prints nothing), at most every ``every`` seconds. ``close()``
    (or leaving the ``with`` block) ends the line. Example: ``zen3 hybrid --isa avx2: grid stage 2/4 7/12,
    best 171.0 (12 s)``.
    """

    def __init__(self, what: str, *, enabled: bool | None = None, after: float = 1.0, every: float = 0.2) -> None:
        self.what, self.after, self.every = what, after, every
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.t0 = time.monotonic()
        self._last = -every
        self._width = 0     # the longest line shown: what close() blanks

    def __call__(self, p: Progress) -> None:
        now = time.monotonic() - self.t0
        if not self.enabled or now < self.after or now - self._last < self.every:
            return
        self._last = now
        count = f" {p.done}/{p.total}" if p.total is not None else (f" {p.done}" if p.done else "")
        best = f", best {p.best:.1f}" if p.best is not None else ""
        text = f"{self.what}: {p.phase}{count}{best} ({now:.0f} s)"
        click.echo(f"\r{text:{self._width}s}", nl=False, err=True)     # padded over a longer previous line
        self._width = max(self._width, len(text))

    def close(self) -> None:
        if self._width:
            click.echo("\r" + " " * self._width + "\r", nl=False, err=True)
            self._width = 0

    def __enter__(self) -> "ProgressLine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def cpp_options(command):
    """``-I DIR`` and ``-D NAME[=VALUE]`` (repeatable) for a command that assembles a user's ``.S``; the
    command gets them as ``includes`` and ``defines`` and turns them into a ``Preprocessor`` with ``cpp``."""
    command = click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=VALUE]",
                           help="For a .S input: a cpp macro (repeatable).")(command)
    return click.option("-I", "--include-dir", "includes", multiple=True, metavar="DIR",
                        help="For a .S input: a directory #include searches (repeatable; the file's own "
                             "directory is searched first).")(command)


def cpp(includes, defines) -> Preprocessor:
    """The checked ``Preprocessor`` of ``-I``/``-D`` values; a bad one is ``toolchain.ToolchainError``."""
    return preprocessor(includes, defines)


# ``--interface`` of ``analyze`` and ``prove --object`` (the grammar: semantics/lift/interface.py)
INTERFACE_HELP = ("The arguments, e.g. 'sha_transform(state, data, workspace[16])', 'one-block', 'f(state@8, data)', "
                  "'f(state, words, bytes, 1)' (roles: state[@OFFSET], data, words, nblocks, bytes, workspace[N], a "
                  "constant). Default: the function's row in corpus/interfaces.toml, else blocks = (state, data, "
                  "nblocks).")
