"""The Dask cluster a search runs on: an existing scheduler, or a local one this object owns.

One code path for both: ``Cluster("tcp://host:8786")`` connects a client to a
running scheduler; ``Cluster(None, workers=2)`` starts ``distributed.LocalCluster``
with two worker processes of one thread each (no dashboard, on 127.0.0.1) and
connects to that. The search submits the same tasks through ``client`` either way.

Starting takes seconds (each local worker is a fresh Python process), so it
happens in a background thread: the constructor returns at once, the driver
does its own set-up meanwhile and then waits with ``ready(timeout)``, looking
at its stop flag between waits -- a Ctrl-C during start-up is not held up.

Ctrl-C is the driver's alone: local worker processes start with SIGINT blocked (``_start``), so a
terminal's Ctrl-C to the whole group prints no worker traceback; the driver stops the tasks.

``close()`` ends exactly what this object started, at any moment. A remote
cluster keeps running (only our client disconnects). A local cluster gets
``GRACE`` s to close; then its worker processes (this process's children
started by multiprocessing's spawn) are killed by pid -- a graceful close of a
busy worker waits for its task, and by then the driver holds every result it
wants anyway. While the start
is still under way, the processes it spawned (this process's children started
by multiprocessing's spawn) are killed, which makes the start fail at once.
When ``close`` returns, no process of ours is left.

Example: ``with Cluster(None, 2) as c: c.ready(60); c.client.submit(pow, 2, 10).result()``
gives 1024 from a worker process; ``c.workers == 2``; after the block both
worker processes are gone.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from multiprocessing import resource_tracker

from sha1opt.semantics.errors import Sha1optError

CONNECT_TIMEOUT = 10.0
# Imported by each local worker as it starts (part of the start-up the driver waits for), so a
# task's time budget is not spent importing the search's modules on a cold worker.
PRELOAD = ("sha1opt.search.engines.portfolio",)
GRACE = 0.5          # seconds a local cluster gets to close before its worker processes are killed


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    """True while ``pid`` is a live process (a zombie counts as gone)."""
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def _spawned_children() -> list[int]:
    """This process's children started by multiprocessing's spawn (what a LocalCluster start creates)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _stat(int(d))
            if st is not None and int(st[1]) == os.getpid():
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        if b"spawn_main" in f.read():
                            out.append(int(d))
                except OSError:
                    pass
    return out


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    end = time.monotonic() + 2.0
    while any(_alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.02)


class Cluster:
    """A Dask client on ``address`` (an existing scheduler) or, when ``address`` is None, on a local cluster."""

    def __init__(self, address: str | None = None, workers: int = 1) -> None:
        if workers < 1:
            raise Sha1optError("workers must be at least 1")
        self.address, self.client, self.workers = address, None, 0
        self.where = f"Dask cluster {address}" if address else \
            f"local cluster of {workers} worker process{'es' if workers > 1 else ''}"
        self._n = workers
        self._local = None
        self._error: str | None = None
        self._closing = False
        self._close_lock = threading.Lock()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._start, name="sha1opt-cluster-start", daemon=True)
        self._thread.start()

    def _start(self) -> None:
        # A terminal's Ctrl-C goes to the whole process group, local workers included; their asyncio
        # runner turns it into a KeyboardInterrupt traceback on our stderr while the driver is still
        # collecting their results. Blocking SIGINT in this thread blocks it in every thread it creates
        # (Dask's event loop and executors) and in every process they spawn (the worker processes, now
        # and on a restart: the signal mask survives fork and exec), so a worker never sees SIGINT; the
        # main thread keeps it, and the driver's stop flag ends the tasks and ``close`` the processes.
        # multiprocessing's resource tracker, launched by the first spawn, *unblocks* SIGINT in the
        # thread that launches it (resource_tracker.ensure_running): launched here first, before the block.
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        import distributed  # lazy: importing Dask costs ~0.8 s, paid by a search only, not by every command
        for name in ("distributed", "tornado", "asyncio"):   # Dask's own log lines are not our output
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if self._closing:
                raise Sha1optError("closed before it started")
            if self.address is None:
                self._local = distributed.LocalCluster(
                    n_workers=self._n, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=logging.CRITICAL, preload=list(PRELOAD),
                    # The scheduler serves HTTP (health, metrics) even without a dashboard, on 8787 unless
                    # told otherwise, and warns "Port 8787 is already in use" when another cluster holds it:
                    # any free port instead, and no dashboard.
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
                self.client = distributed.Client(self._local, set_as_default=False)
            else:
                self.client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
                self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            self.workers = len(self.client.scheduler_info()["workers"])
            if self.address is not None:
                self.where = f"Dask cluster {self.address} ({self.workers} worker{'s' if self.workers > 1 else ''})"
        except Exception as e:  # noqa: BLE001 -- reported by ready() as a Sha1optError, never lost
            self._error = "stopped" if self._closing else f"{type(e).__name__}: {e}"
        finally:
            self._started.set()

    def ready(self, timeout: float) -> bool:
        """True once the client is connected (within ``timeout`` s); a failed start raises ``Sha1optError``."""
        if not self._started.wait(timeout):
            return False
        if self._error is not None:
            where = f"the Dask scheduler at {self.address}" if self.address else "a local Dask cluster"
            raise Sha1optError(f"cannot use {where}: {self._error}")
        return True

    def close(self) -> None:
        """Disconnect; for a local cluster, end every worker process too (see the module docstring).

        Safe to call again and from several threads: a second call returns when the first has ended.
        """
        with self._close_lock:
            self._close()

    def _close(self) -> None:
        self._closing = True
        if self.address is None:
            # Killing what the start spawned makes it fail at once; it may spawn more until it sees that.
            end = time.monotonic() + CONNECT_TIMEOUT
            while not self._started.wait(0.05) and time.monotonic() < end:
                _kill(_spawned_children())
        else:
            self._started.wait(1.0)
        local, self._local = self._local, None
        client, self.client = self.client, None
        # Closing is best effort: whatever fails or hangs here, no process of ours outlives it.
        if client is not None:
            try:
                client.close(timeout=GRACE)
            except Exception:  # noqa: BLE001 -- the cluster itself is ended below either way
                pass
        if local is not None:
            closer = threading.Thread(target=self._close_local, args=(local,), daemon=True)
            closer.start()
            closer.join(GRACE)               # idle workers close in well under a second
            if closer.is_alive():            # busy or stuck: the nannies are closing (no restarts), so kill
                _kill(_spawned_children())
                closer.join(CONNECT_TIMEOUT)
        if self.address is None:
            _kill(_spawned_children())

    @staticmethod
    def _close_local(local) -> None:
        try:
            local.close(timeout=CONNECT_TIMEOUT)
        except Exception:  # noqa: BLE001 -- see close()
            pass

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
