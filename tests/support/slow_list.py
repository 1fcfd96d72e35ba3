"""The checks ``make test`` leaves out, as data: ``tests/slow.toml``.

``make test`` must finish in 8 minutes on 2 cores, and the suite is CPU-bound, so its heaviest checks whose
rule a cheaper test already keeps in the run are marked ``slow`` (``bench/slow_checks.py`` runs them). Each row
names the test (a pytest node id, with its parameter id where only one case is slow), why it is slow, and the
fast tests that keep its rule in ``make test``; ``tests/conftest.py`` adds the ``slow`` mark to each listed test
at collection, so the list is the one place that says what ``make test`` skips and why.

Example row::

    [[check]]
    test = "tests/search/test_hybrid_search.py::test_cli_search_isa_runs_the_hybrid_family"
    why = "a whole core2 hybrid grid in a Dask worker (no memo shared with the test process)"
    fast = ["tests/search/test_hybrid_search.py::test_the_driver_proves_and_ranks_the_winner"]

The loader refuses unknown keys, a row without ``why`` or ``fast``, and a test listed twice.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

SLOW_TOML = Path(__file__).resolve().parent.parent / "slow.toml"
KEYS = {"test", "why", "fast"}


@dataclass(frozen=True)
class SlowCheck:
    """One test ``make test`` leaves out: its node id, why, and the fast tests that keep its rule."""

    test: str
    why: str
    fast: tuple[str, ...]


def load(path: Path = SLOW_TOML) -> dict[str, SlowCheck]:
    """The listed checks by node id (``ValueError`` naming the row for a malformed one)."""
    rows = tomllib.loads(path.read_text()).get("check", [])
    out: dict[str, SlowCheck] = {}
    for k, row in enumerate(rows):
        unknown = set(row) - KEYS
        if unknown:
            raise ValueError(f"{path.name} row {k + 1}: unknown key(s) {sorted(unknown)}")
        if not row.get("test") or not row.get("why") or not row.get("fast"):
            raise ValueError(f"{path.name} row {k + 1}: needs test, why and fast")
        if row["test"] in out:
            raise ValueError(f"{path.name} row {k + 1}: {row['test']} listed twice")
        out[row["test"]] = SlowCheck(row["test"], row["why"], tuple(row["fast"]))
    return out
