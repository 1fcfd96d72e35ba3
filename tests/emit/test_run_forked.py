"""``toolchain.run_forked``: work in a forked child, its answer or why there is none, nothing left running.

Rules: the child's picklable answer comes back; past the limit the answer is ``Stopped("time limit", ...)``; an
exception in the work is raised in the caller as a RuntimeError naming it; a child killed at its limit leaves
nothing its ``run_child`` started running (they die with it: PR_SET_PDEATHSIG) -- the mutant bench judges each
mutant this way, as ``scan`` proves each function.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from sha1opt.emit.toolchain import TOOL_LIMITS, Stopped, run_child, run_forked


def test_the_answer_comes_back():
    assert run_forked(lambda: ("ok", os.getpid()), 30)[0] == "ok"


def test_past_the_limit_it_is_stopped():
    t0 = time.monotonic()
    got = run_forked(lambda: time.sleep(30), 0.5)
    assert isinstance(got, Stopped) and got.reason == "time limit" and time.monotonic() - t0 < 15, got


def test_an_error_in_the_work_is_raised_in_the_caller():
    with pytest.raises(RuntimeError, match="ValueError: bad input"):
        run_forked(lambda: (_ for _ in ()).throw(ValueError("bad input")), 30)


def test_a_stopped_child_kills_what_run_child_started(tmp_path):
    sleep = shutil.which("sleep")
    if sleep is None:
        pytest.skip("no sleep(1) here")
    mark = tmp_path / "pid"

    def work():
        mark.write_text(str(os.getpid()))
        return run_child([sleep, "300"], "sleeping", TOOL_LIMITS.with_seconds(600))

    assert isinstance(run_forked(work, 1.0), Stopped)
    time.sleep(0.5)
    alive = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p) == [sleep, "300"]]
    assert alive == [], alive


def _cmdline(pid: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode() for a in f.read().split(b"\0") if a]
    except OSError:
        return []
