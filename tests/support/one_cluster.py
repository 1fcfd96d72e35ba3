"""One local Dask cluster for every search of a test module, instead of one per search.

Each search without ``--cluster`` starts a local cluster (``search.engines.cluster.Cluster(None, n)``:
n fresh worker processes that import the search's modules, ~2-3 CPU-s each) and ends it. A module
that runs several searches uses ``searches_share_one_cluster(module_clusters, monkeypatch)``: the
first search starts a real local cluster of n workers (kept until the module ends), and every search
connects to it as to a scheduler address (``Cluster(address)``: the same driver, tasks and workers; the
close only disconnects). The local start and close themselves stay tested where they are the rule
(tests/search/test_cluster_quiet.py, in a subprocess; the CLI subprocess tests).

An idle cluster costs CPU too (its processes' heartbeats: ~0.04 core per worker), so it is per
module, never per session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import sha1opt.search.driver as driver
from sha1opt.search.engines.cluster import Cluster

START = 120.0                           # seconds a start may take on a loaded machine


def module_clusters() -> Iterator[dict[int, Cluster]]:
    """The body of a module-scoped fixture: the clusters started (by worker count), closed at the end."""
    held: dict[int, Cluster] = {}
    try:
        yield held
    finally:
        for c in held.values():
            c.close()


def searches_share_one_cluster(held: dict[int, Cluster], monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the driver's local clusters of this test connections to ``held``'s (started on first use)."""
    def shared(address: str | None, workers: int = 1) -> Cluster:
        if address is not None:
            return Cluster(address, workers)
        if workers not in held:
            c = Cluster(None, workers)
            c.ready(START)
            held[workers] = c
        return Cluster(held[workers].client.scheduler.address, workers)

    monkeypatch.setattr(driver, "Cluster", shared)
