"""The fuzz tests' budget and CLI check (tests/cli/test_fuzz_cli.py, tests/semantics/test_fuzz_frontend.py).

``fuzz(n)``: the fixed CI budget (n examples, derandomized, no database; ``SHA1OPT_FUZZ_SCALE=N``
for a deeper randomized hunt by hand). ``run_cli(args)``: run ``sha1opt ARGS`` in-process and fail
on a traceback, a hang past the limit, or an exit code outside 0/1/2/3/130.
"""

from __future__ import annotations

import os
import signal
import traceback
from contextlib import contextmanager

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, settings
from hypothesis.control import currently_in_test_context

from sha1opt.cli import main

EXIT_CODES = {0, 1, 2, 3, 130}


LIMIT_S = 20.0      # one CLI call; every call here is well under a second when healthy


SCALE = float(os.environ.get("SHA1OPT_FUZZ_SCALE", "1"))


def fuzz(n: int):
    """The fixed CI budget: ``n`` examples, the same ones every run, no saved database."""
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, derandomize=SCALE == 1, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float):
    """Raise ``Hang`` in the main thread if the block runs longer than ``seconds``."""
    def fire(*_):
        raise Hang(f"no answer within {seconds:.0f} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_cli(args: list[str], limit: float = LIMIT_S):
    """Invoke ``sha1opt ARGS``; fail on a traceback, a hang or an exit code outside 0/1/2/3/130."""
    with time_limit(limit):
        r = CliRunner().invoke(main, args, catch_exceptions=True)
    exc = r.exception
    if exc is not None and not isinstance(exc, SystemExit):
        tb = "".join(traceback.format_exception(exc))
        pytest.fail(f"sha1opt {args!r} raised {type(exc).__name__}: {exc}\n{tb}")
    assert r.exit_code in EXIT_CODES, (args, r.exit_code, r.output)
    assert "Traceback" not in r.output, (args, r.output)
    if currently_in_test_context():       # plain tests call this too: events are for @given runs only
        event(f"exit {r.exit_code}")    # --hypothesis-show-statistics: how many inputs got how far
    return r
