"""The ``sha1opt`` console script: Ctrl-C for ``search`` is recorded from the process's first moment.

Importing the CLI and its libraries takes ~0.5-1.5 s here (Z3, OR-Tools, NumPy).
A Ctrl-C in that time would end ``sha1opt search`` with a traceback and
nothing stored, while the promise is that Ctrl-C at any moment stores and
prints the best proved result (the default schedule, that early). So for
``search`` (always ``argv[1]``: the group has no options that take values) the
handler is installed first, the CLI imported after it, and the event handed
to the command as ``ctx.obj["stop"]``; the search then sees the stop at once
and finishes with what it has. When ``search`` is done (store and cluster
closed, report printed) the process leaves with ``os._exit`` after flushing:
the interpreter's teardown of the loaded libraries would add ~1 s.
Every other command keeps Python's default behaviour.

Example: ``sha1opt search --uarch p4 --rounds 40-59`` interrupted 0.3 s in
prints a proved report of the default schedule (160 cycles) and exits 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading


def main() -> None:
    searching = sys.argv[1:2] == ["search"]
    stop = threading.Event()
    if searching:
        signal.signal(signal.SIGINT, lambda *_: stop.set())
    from sha1opt.cli import main as cli  # after the handler on purpose: this import is the ~1 s to cover
    try:
        cli(obj={"stop": stop})
    except SystemExit as e:
        if not searching:
            raise
        # The search has closed its store and its cluster and printed its report. The interpreter's
        # own teardown (Z3, OR-Tools, Dask modules) takes another 0.5-1.2 s here, more than Ctrl-C's
        # "within a second" leaves, and has nothing left to do for us: flush and leave at once.
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
