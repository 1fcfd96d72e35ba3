"""The results store: best proved schedule per (uarch, arch, round range, model version).

SQLite, one row per key; ``put`` keeps a row only if it is better (fewer
predicted cycles) than what is stored, inside one transaction, so a crash or
Ctrl-C never leaves a half-written result and concurrent searches on the
same key keep the better one. Default path ``$SHA1OPT_DB`` or
``~/.cache/sha1opt/results.sqlite``; ``--db`` overrides it.

Only proved results are stored (``put`` refuses ``proved=False``): nothing
unproved is ever reported as a result.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    uarch TEXT NOT NULL,
    arch TEXT NOT NULL,
    first INTEGER NOT NULL,
    last INTEGER NOT NULL,
    model_version TEXT NOT NULL,
    cycles REAL NOT NULL,
    recipe TEXT NOT NULL,
    offsets TEXT NOT NULL,
    code TEXT NOT NULL,
    evaluations INTEGER NOT NULL,
    seconds REAL NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (uarch, arch, first, last, model_version)
)
"""


@dataclass(frozen=True)
class Row:
    uarch: str
    arch: str
    first: int
    last: int
    model_version: str
    cycles: float
    recipe: str
    offsets: tuple
    code: str
    evaluations: int
    seconds: float
    seed: int
    created: float


def default_path() -> Path:
    env = os.environ.get("SHA1OPT_DB")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sha1opt" / "results.sqlite"


class Store:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30)
            self._db.execute(SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as e:
            raise Sha1optError(f"results store {self.path}: {e}") from None

    def close(self) -> None:
        self._db.close()

    def get(self, uarch: str, arch: str, first: int, last: int, model_version: str) -> Row | None:
        cur = self._db.execute(
            "SELECT * FROM results WHERE uarch=? AND arch=? AND first=? AND last=? AND model_version=?",
            (uarch, arch, first, last, model_version))
        r = cur.fetchone()
        if r is None:
            return None
        vals = list(r)
        vals[7] = tuple((tuple(k), v) for k, v in json.loads(vals[7]))
        return Row(*vals)

    def put(self, *, uarch: str, arch: str, first: int, last: int, model_version: str, cycles: float,
            recipe: str, offsets: tuple, code: str, evaluations: int, seconds: float, seed: int,
            proved: bool) -> bool:
        """Store if better than the stored row; returns True when stored."""
        if not proved:
            raise Sha1optError("refusing to store an unproved schedule")
        with self._db:   # one transaction
            cur = self._db.execute(
                "SELECT cycles FROM results WHERE uarch=? AND arch=? AND first=? AND last=? AND model_version=?",
                (uarch, arch, first, last, model_version))
            old = cur.fetchone()
            if old is not None and old[0] <= cycles:
                return False
            self._db.execute(
                "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (uarch, arch, first, last, model_version, cycles, recipe,
                 json.dumps([[list(k), v] for k, v in offsets]), code, evaluations, seconds, seed, time.time()))
        return True

    def rows(self) -> list[Row]:
        cur = self._db.execute("SELECT uarch, arch, first, last, model_version FROM results ORDER BY uarch, arch, first")
        return [self.get(*k) for k in cur.fetchall()]
