"""A local Dask cluster says nothing to the user and leaves Ctrl-C to the driver (issue 27, items 2 and 3).

One real ``search.engines.cluster.Cluster(None, 1)`` in a subprocess, with
127.0.0.1:8787 held by this test (Dask's default HTTP port: another cluster
on the machine), asked for its worker's pid; the worker's signal mask is read
from /proc. The slow real Ctrl-C of a whole search is tests/cli/test_interrupt.py.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os
    from sha1opt.search.engines.cluster import Cluster
    with Cluster(None, 1) as c:
        c.ready(120)
        for pid in c.client.run(os.getpid).values():
            with open(f"/proc/{pid}/status") as f:
                print(int(f.read().split("SigBlk:")[1].split()[0], 16))
""")


@pytest.fixture(scope="module")
def cluster_run():
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))     # taken already: held by someone else, which is the same case
        held.listen(1)
    except OSError:
        pass
    try:
        return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=180)
    finally:
        held.close()


def test_regression_dask_port_8787_warning(cluster_run):
    """With port 8787 taken, starting the local cluster printed Dask's "UserWarning: Port 8787 is already in
    use" on stderr (the scheduler's HTTP server defaulted to 8787 even without a dashboard): stderr is empty."""
    assert cluster_run.returncode == 0, cluster_run.stderr
    assert cluster_run.stderr == ""


def test_regression_ctrl_c_worker_traceback(cluster_run):
    """A terminal's Ctrl-C reached the local worker processes, which printed a KeyboardInterrupt traceback:
    every worker process starts with SIGINT blocked (multiprocessing's resource tracker used to unblock it
    in the thread that spawns the workers)."""
    masks = [int(x) for x in cluster_run.stdout.split()]
    assert len(masks) == 1, cluster_run.stdout + cluster_run.stderr
    assert all(m & (1 << (2 - 1)) for m in masks)     # SIGINT is signal 2: bit 1 of SigBlk
