"""The ``sha1opt`` console script: Ctrl-C for ``search`` is recorded from the process's first moment.

Importing the CLI and its libraries takes ~0.5-1.5 s here (Z3, OR-Tools, NumPy).
A Ctrl-C in that time would end ``sha1opt search`` with a traceback and
nothing stored, while the promise is that Ctrl-C at any moment stores and
prints the best proved result (the default schedule, that early). So for
``search`` (always ``argv[1]``: the group has no options that take values) the
handler is installed first, the CLI imported after it, and the event handed
to the command as ``ctx.obj["stop"]``; the search then sees the stop at once
and finishes with what it has. Every other command keeps Python's default.

Example: ``sha1opt search --uarch p4 --rounds 40-59`` interrupted 0.3 s in
prints a proved report of the default schedule (160 cycles) and exits 130.
"""

from __future__ import annotations

import signal
import sys
import threading


def main() -> None:
    stop = threading.Event()
    if sys.argv[1:2] == ["search"]:
        signal.signal(signal.SIGINT, lambda *_: stop.set())
    from sha1opt.cli import main as cli  # after the handler on purpose: this import is the ~1 s to cover
    cli(obj={"stop": stop})
