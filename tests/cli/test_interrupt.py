"""Ctrl-C in `sha1opt search` keeps the best result (issue 13, item 1), on real processes.

The promise: SIGINT at any moment stops the search within about a second,
proves and stores the best result so far (the default schedule counts as a
start), prints the report, exits 130 and leaves no process of its group
behind (the local Dask cluster's workers included). The search runs as a
real `sha1opt` subprocess in its own process group; SIGINT goes to the whole
group (what a terminal's Ctrl-C does: the workers get it too) or to the
search process alone (`kill -INT`), and the group is scanned in /proc after.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.groups import SHA1OPT, group_members, kill_group, wait_group_gone

EXIT_INTERRUPTED = 130


@pytest.mark.slow     # ~40 s in all; also run by bench/search_cluster.py
@pytest.mark.parametrize("at, to_group", [(1.0, True), (5.0, False), (15.0, True)],
                         ids=["1s-ctrl-c-to-group", "5s-kill-int-to-search", "15s-ctrl-c-to-group"])
def test_sigint_in_search_stores_the_proved_best_prints_it_and_exits_130(tmp_path, at, to_group):
    db = tmp_path / "r.sqlite"
    p = subprocess.Popen([SHA1OPT, "search", "--uarch", "p4", "--rounds", "40-59", "--time-limit", "30",
                          "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        time.sleep(at)
        t0 = time.monotonic()
        if to_group:
            os.killpg(p.pid, signal.SIGINT)
        else:
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        took = time.monotonic() - t0
        left = wait_group_gone(p.pid)
    finally:
        kill_group(p.pid)
        p.wait()
    print(f"SIGINT at {at:.0f} s ({'group' if to_group else 'search process'}): exit after {took:.2f} s")
    assert p.returncode == EXIT_INTERRUPTED, err
    # test_regression_ctrl_c_worker_traceback: the workers printed 33-35 lines of a KeyboardInterrupt
    # traceback; a clean Ctrl-C says one line on stderr, from the search itself
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("sha1opt search: interrupted"), err
    assert left == [], f"processes of the search's group left after exit: {left}"
    assert "sha1opt search: p4 (i386), rounds 40-59" in out and "stopped: interrupted" in out, out + err
    assert "proof            proved" in out, out
    rows = sqlite3.connect(db).execute(
        "SELECT cycles, code FROM results WHERE uarch='p4' AND arch='i386' AND first=40 AND last=59").fetchall()
    assert len(rows) == 1
    assert f"predicted        {rows[0][0]:8.1f} cycles" in out      # what is stored is what was printed
    # "About a second" on an idle machine (bench/search_cluster.py measures it); the bound leaves room for a
    # CI sharing 2 cores with other jobs -- today's main fails long before it (30 s, or no result at all).
    assert took < 10.0, f"took {took:.2f} s from SIGINT to exit"


def test_cp_sat_leaves_the_sigint_handler_in_place(tmp_path):
    """After the exact engine ran, Ctrl-C still reaches the program's own handler (CP-SAT used to reset it)."""
    script = textwrap.dedent("""
        import os, signal, time
        from sha1opt.search.cost.model import load_model
        from sha1opt.search.engines.exact import solve_templates
        seen = []
        signal.signal(signal.SIGINT, lambda *_: seen.append(1))
        solve_templates(load_model("p4"), "i386", 40, 44, "base", time_limit=1.0)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        print("handled" if seen else "not handled")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "handled", (r.returncode, r.stdout, r.stderr)
