"""The search on a real Dask cluster (issue 11, "Beyond one machine"), against real processes.

A `dask scheduler` and two `dask worker` processes on 127.0.0.1 (free ports,
each in its own process group, killed in the fixture's finalizer); a search
with an evaluation budget runs against them; once both annealing runs are on
their workers one worker is killed (SIGKILL to its group: nanny and worker
process). The scheduler gives the lost run to the surviving worker, the
search finishes, stores a proved result and leaves no process of its own.
The same search on a local cluster (`--workers 2`, no --cluster) then stores
the same result -- cycles, code, recipe and offsets -- for the same seed and
budget: with a budget, a run is a function of its inputs, not of the cluster.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import distributed
import pytest

from tests.support.groups import SHA1OPT, kill_group, wait_group_gone

DASK = str(Path(sys.executable).with_name("dask"))
pytestmark = pytest.mark.slow     # ~1-2 min on 2 shared cores; also run by bench/search_cluster.py

SEARCH = ["search", "--uarch", "p4", "--rounds", "40-44", "--time-limit", "60", "--evaluations", "300",
          "--seed", "5", "--workers", "2", "--json"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """(scheduler address, [worker Popen, worker Popen]); every process killed (by group) at the end."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = []
    logs = open(tmp_path / "dask.log", "w")
    try:
        procs.append(subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                       "--no-dashboard"], stdout=logs, stderr=logs, start_new_session=True))
        for i in range(2):
            procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                                           "--no-dashboard", "--name", f"w{i}"],
                                          stdout=logs, stderr=logs, start_new_session=True))
        with distributed.Client(address, timeout=60) as c:
            c.wait_for_workers(2, timeout=120)
        yield address, procs[1:]
    finally:
        for p in procs:
            kill_group(p.pid)
            p.wait()
        logs.close()


def stored(db: Path) -> tuple:
    rows = sqlite3.connect(db).execute(
        "SELECT cycles, code, recipe, offsets FROM results WHERE uarch='p4' AND first=40 AND last=44").fetchall()
    assert len(rows) == 1
    return rows[0]


def run_search(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([SHA1OPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_a_cluster_search_survives_a_killed_worker_and_matches_the_local_search(tmp_path, dask_cluster):
    address, workers = dask_cluster
    db_cluster, db_local = tmp_path / "cluster.sqlite", tmp_path / "local.sqlite"

    p = run_search([*SEARCH, "--cluster", address, "--db", str(db_cluster)])
    try:
        # Wait until both annealing runs are on a worker, then kill the first worker's whole group.
        with distributed.Client(address, timeout=30) as c:
            end = time.monotonic() + 120
            while time.monotonic() < end and p.poll() is None:
                busy = {w for w, keys in c.processing().items() if any("-run-" in str(k) for k in keys)}
                if len(busy) == 2:
                    break
                time.sleep(0.1)
            assert len(busy) == 2, "the two annealing runs never ran at once"
            time.sleep(1.0)
            os.killpg(workers[0].pid, signal.SIGKILL)
        out, err = p.communicate(timeout=300)
        left = wait_group_gone(p.pid)
    finally:
        kill_group(p.pid)
        p.wait()
    assert p.returncode == 0, err
    assert left == [], f"the search left processes behind: {left}"
    report = json.loads(out)
    print("cluster search:", {k: report[k] for k in ("cycles", "evaluations", "seconds", "stop_reason", "notes")})
    assert report["proved"] and report["stop_reason"] == "budget", report
    assert address in report["cluster"]
    on_cluster = stored(db_cluster)
    assert on_cluster[0] == report["cycles"]

    p = run_search([*SEARCH, "--db", str(db_local)])
    try:
        out, err = p.communicate(timeout=300)
        left = wait_group_gone(p.pid)
    finally:
        kill_group(p.pid)
        p.wait()
    assert p.returncode == 0, err
    assert left == [], f"the local search left processes behind: {left}"
    assert json.loads(out)["cluster"].startswith("local cluster of 2")
    assert stored(db_local) == on_cluster
