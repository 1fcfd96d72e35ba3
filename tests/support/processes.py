"""Test helpers: run ``sha1opt`` as a real subprocess in its own session and find what it left behind.

``started(args)`` starts the command as a session leader (so every process it
starts, in any process group, shares its session id unless it calls setsid);
``session_members(sid)`` lists the live processes of that session from
/proc; ``reap(sid)`` kills those (by pid: only processes the test started).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SHA1OPT = str(Path(sys.executable).with_name("sha1opt"))


def session_members(sid: int) -> list[tuple[int, str]]:
    """(pid, command name) of every live, non-zombie process whose session id is ``sid``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1: stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            out.append((int(d.name), comm))
    return out


def wait_for_member(sid: int, name: str, timeout: float) -> bool:
    """True once a process called ``name`` is in session ``sid`` (polled for ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(comm == name for _, comm in session_members(sid)):
            return True
        time.sleep(0.05)
    return False


def settle(sid: int, timeout: float = 5.0) -> list[tuple[int, str]]:
    """The session's members once it is empty, or what is still there after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    left = session_members(sid)
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = session_members(sid)
    return left


def reap(sid: int) -> None:
    """Kill whatever the test's command left in its session (each pid found, nothing by name)."""
    for pid, _ in session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def started(args: list[str], tmpdir: Path, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    """``sha1opt args`` as a session leader, with ``TMPDIR=tmpdir`` so its temporary files can be counted."""
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.Popen([SHA1OPT, *args], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True, text=True)


def finished(proc: subprocess.Popen, timeout: float) -> tuple[int | None, str, str]:
    """(exit code or None if still running after ``timeout``, stdout, stderr); a running one is killed."""
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        reap(proc.pid)
        out, err = proc.communicate()
        return None, out, err
