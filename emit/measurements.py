"""Measured candidates per CPU: every candidate ``export --tune`` timed, kept for the model to learn from.

Issue 25's second stage fits what the microbenchmarks leave free to the measured c/B of whole SHA-1
loops; its training data are these rows. A row is one validated candidate as ``emit.tuning`` timed it
on one CPU: the CPU id (vendor, family, model, stepping) and brand, the model it was ranked under,
the arch and family, the function's text (``Family.path_text``) and its SHA-256, the reference's
digest (the textbook schedule it was paired against), the predicted c/B, the paired ratio to the
reference (median, p10, p90, pairs, bytes per call) and the measured core c/B (NULL without a clock).

Storage: a ``measurements`` table in the results database (``search.store``: one database by default,
``$SHA1OPT_DB`` or ``~/.cache/sha1opt/results.sqlite``); opening it goes through ``Store`` first, so
the file is checked (a regular SQLite file, the ``results`` schema) and created as a results database
when new. Rows are checked when read (``_check``): finite positive figures, p10 <= median <= p90, a
digest that is the code's -- a hand-edited row is refused with one ``StoreError`` line, never used.

Example: after ``export --uarch host --isa bmi2 --tune 2`` on a Zen 3, ``measured(host().id)`` holds
three rows: the textbook against itself (ratio about 1), the stored best and a recipe variant.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sha1opt.search.cost.calibrated import cpu_key as calibrated_key
from sha1opt.search.store import Store, StoreError, default_path
from sha1opt.emit.host_cpu import HostCpu

TABLE = """
CREATE TABLE IF NOT EXISTS measurements (
    cpu TEXT NOT NULL,
    brand TEXT NOT NULL,
    uarch TEXT NOT NULL,
    arch TEXT NOT NULL,
    family TEXT NOT NULL,
    code TEXT NOT NULL,
    digest TEXT NOT NULL,
    reference TEXT NOT NULL,
    predicted_cpb REAL NOT NULL,
    ratio_median REAL NOT NULL,
    ratio_p10 REAL NOT NULL,
    ratio_p90 REAL NOT NULL,
    measured_cpb REAL,
    pairs INTEGER NOT NULL,
    size INTEGER NOT NULL,
    created REAL NOT NULL
)
"""
COLUMNS = ("cpu", "brand", "uarch", "arch", "family", "code", "digest", "reference", "predicted_cpb",
           "ratio_median", "ratio_p10", "ratio_p90", "measured_cpb", "pairs", "size", "created")


@dataclass(frozen=True)
class Measured:
    """One timed candidate (module docstring); ``cpu`` is the CPU's key (``cpu_key``)."""

    cpu: str
    brand: str
    uarch: str
    arch: str
    family: str
    code: str
    digest: str
    reference: str
    predicted_cpb: float
    ratio_median: float
    ratio_p10: float
    ratio_p90: float
    measured_cpb: float | None
    pairs: int
    size: int
    created: float


def cpu_key(cpu: HostCpu) -> str:
    """The CPU a row was measured on, keyed as its calibrated model is (``calibrated.cpu_key``:
    ``authenticamd-25-1-1``), so the rows and the calibrated model of one CPU share one key."""
    return calibrated_key(cpu.id.vendor, cpu.id.family, cpu.id.model, cpu.stepping)


def digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _check(values: tuple, where: str) -> Measured:
    m = Measured(*values)
    figures = (m.predicted_cpb, m.ratio_median, m.ratio_p10, m.ratio_p90)
    ok = (all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in figures)
          and m.ratio_p10 <= m.ratio_median <= m.ratio_p90
          and (m.measured_cpb is None or (isinstance(m.measured_cpb, float) and math.isfinite(m.measured_cpb)
                                          and m.measured_cpb > 0))
          and isinstance(m.pairs, int) and m.pairs > 0 and isinstance(m.size, int) and m.size > 0
          and digest(m.code) == m.digest)
    if not ok:
        raise StoreError(f"{where}: an impossible measurements row (code {m.digest[:12]} on {m.cpu})")
    return m


def _open(path: Path) -> sqlite3.Connection:
    Store(path).close()                     # checks the file; creates it as a results database when new
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    db.execute(TABLE)
    cols = tuple(r[1] for r in db.execute("PRAGMA table_info(measurements)"))
    if cols != COLUMNS:
        db.close()
        raise StoreError(f"results database {path}: a measurements table of another schema")
    return db


def record(rows: list[Measured], path: str | Path | None = None) -> int:
    """Append ``rows`` in one transaction; the number written."""
    path = Path(path) if path else default_path()
    db = _open(path)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.executemany(f"INSERT INTO measurements VALUES ({', '.join('?' * len(COLUMNS))})",
                       [tuple(getattr(r, c) for c in COLUMNS) for r in rows])
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.close()
    return len(rows)


def measured(cpu: str | None = None, path: str | Path | None = None) -> list[Measured]:
    """The rows (of ``cpu``, a ``cpu_key``, when given), oldest first, each checked; [] without a database."""
    path = Path(path) if path else default_path()
    if not path.exists():
        return []
    db = _open(path)
    try:
        sql = f"SELECT {', '.join(COLUMNS)} FROM measurements"
        rows = db.execute(sql + (" WHERE cpu = ? ORDER BY created" if cpu else " ORDER BY created"),
                          (cpu,) if cpu else ()).fetchall()
    finally:
        db.close()
    return [_check(r, f"results database {path}") for r in rows]


@dataclass(frozen=True)
class ModelError:
    """How far a model's predictions were from this CPU's measurements: the mean absolute percentage error of
    predicted vs measured core c/B over ``codes`` distinct codes (their latest rows), on ``cpu``."""

    uarch: str
    cpu: str
    mape: float
    codes: int

    def text(self) -> str:
        return (f"the {self.uarch} model's measured error on {self.cpu}: MAPE {100 * self.mape:.1f} % over "
                f"{self.codes} codes (export --tune)")


def model_error(uarch: str, cpu: str, path: str | Path | None = None) -> ModelError | None:
    """``uarch``'s error on ``cpu`` (a ``cpu_key``) from the rows with a measured c/B, or None without any."""
    latest: dict[str, Measured] = {}
    for m in measured(cpu, path):
        if m.uarch == uarch and m.measured_cpb is not None:
            latest[m.digest] = m
    if not latest:
        return None
    errs = [abs(m.predicted_cpb - m.measured_cpb) / m.measured_cpb for m in latest.values()]
    return ModelError(uarch, cpu, sum(errs) / len(errs), len(errs))
