"""Process-group helpers for tests that run ``sha1opt`` as real subprocesses (Ctrl-C, Dask workers)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

SHA1OPT = str(Path(sys.executable).with_name("sha1opt"))


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``, from /proc."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(st[2]) == pgid and st[0] != "Z":
            out.append(int(d))
    return out


def wait_group_gone(pgid: int, seconds: float = 5.0) -> list[int]:
    end = time.monotonic() + seconds
    while group_members(pgid) and time.monotonic() < end:
        time.sleep(0.05)
    return group_members(pgid)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
