"""The results store: the best proved result per (family, variant, uarch, arch, round range, model version).

Every family's results live here: ``family`` is ``scalar`` (a round range's
schedule: ``recipe`` and ``offsets`` rebuild it), ``hybrid`` or ``shani``
(a whole block, rounds 0-79: ``params`` is the JSON object of the family's
parameter dataclass, ``HybridParams`` / ``ShaniParams``, which
``search.family_rows`` writes and reads back exactly). ``variant`` names
what the search was capped to: "" for scalar rows, the ``--isa`` level of a
hybrid search, ``sha`` or ``sha-no-avx`` (the SHA-NI block without AVX) for
SHA-NI. ``code`` is the proved code's text: a row is used only if its
parameters still rebuild to it.

SQLite, one row per key; ``put`` keeps a row only if it is better (fewer
predicted cycles) than what is stored, inside one ``BEGIN IMMEDIATE``
transaction, so a crash or Ctrl-C never leaves a half-written result and
concurrent searches on the same key keep the better one -- and the loser
learns it (``Put.stored`` is False, ``Put.cycles`` is the winner's). Default
path ``$SHA1OPT_DB`` or ``~/.cache/sha1opt/results.sqlite``; ``--db``
overrides it.

Only proved results are stored (``put`` refuses ``proved=False``): nothing
unproved is ever reported as a result.

Invariant: nothing is read from a database that is not exactly this schema.
Opening checks the file (a regular file, SQLite, ``PRAGMA quick_check``),
the ``results`` table's columns and every row (types, a round range within
0-79, finite positive cycles, offsets JSON of the candidate's shape, a known
family, params a JSON object -- empty for scalar rows, and a whole block for
the others); rows
are checked again whenever read. Any failure is one ``StoreError`` line naming the
file and the row -- a damaged or hand-edited database is refused, never
half-trusted (a row claiming -1e9 cycles would otherwise win for ever).

``Store(path, readonly=True)`` (``show``, ``export``) opens with SQLite's
``mode=ro``: it never creates a directory or a file. A missing database
named explicitly is an error ("no results database at PATH"); a missing
default database is simply empty.

Example: ``Store(tmp / "r.db").put(..., cycles=90.0, proved=True)`` returns
``Put(stored=True, cycles=90.0)``; a second ``put`` of 120 cycles for the
same key returns ``Put(stored=False, cycles=90.0)``.

An older database (the scalar-only schema: ``OLD_COLUMNS``, no family,
variant or params) is migrated when opened for writing -- every old row
checked, then copied as a ``scalar`` row in one transaction -- and read
as such (scalar rows) when opened read-only, which never writes.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from sha1opt.semantics.errors import Sha1optError

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    family TEXT NOT NULL,
    variant TEXT NOT NULL,
    uarch TEXT NOT NULL,
    arch TEXT NOT NULL,
    first INTEGER NOT NULL,
    last INTEGER NOT NULL,
    model_version TEXT NOT NULL,
    cycles REAL NOT NULL,
    recipe TEXT NOT NULL,
    offsets TEXT NOT NULL,
    params TEXT NOT NULL,
    code TEXT NOT NULL,
    evaluations INTEGER NOT NULL,
    seconds REAL NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (family, variant, uarch, arch, first, last, model_version)
)
"""

# (name, declared type, position in the primary key or 0), as PRAGMA table_info reports them.
COLUMNS = (("family", "TEXT", 1), ("variant", "TEXT", 2), ("uarch", "TEXT", 3), ("arch", "TEXT", 4),
           ("first", "INTEGER", 5), ("last", "INTEGER", 6), ("model_version", "TEXT", 7), ("cycles", "REAL", 0),
           ("recipe", "TEXT", 0), ("offsets", "TEXT", 0), ("params", "TEXT", 0), ("code", "TEXT", 0),
           ("evaluations", "INTEGER", 0), ("seconds", "REAL", 0), ("seed", "INTEGER", 0), ("created", "REAL", 0))
# The scalar-only schema before families: migrated on a writable open, read as scalar rows read-only.
OLD_COLUMNS = (("uarch", "TEXT", 1), ("arch", "TEXT", 2), ("first", "INTEGER", 3), ("last", "INTEGER", 4),
               ("model_version", "TEXT", 5), ("cycles", "REAL", 0), ("recipe", "TEXT", 0), ("offsets", "TEXT", 0),
               ("code", "TEXT", 0), ("evaluations", "INTEGER", 0), ("seconds", "REAL", 0), ("seed", "INTEGER", 0),
               ("created", "REAL", 0))
# An old table's rows in this schema's column order.
OLD_AS_NEW = ("SELECT 'scalar' AS family, '' AS variant, uarch, arch, first, last, model_version, cycles, recipe, "
              "offsets, '{}' AS params, code, evaluations, seconds, seed, created FROM results")
ARCHS = ("x86_64", "i386")
FAMILIES = ("scalar", "hybrid", "shani")
RANGE_FAMILY = FAMILIES[0]      # its rows are round ranges (recipe, offsets); every other family's are whole blocks
KEY = "family=? AND variant=? AND uarch=? AND arch=? AND first=? AND last=? AND model_version=?"


class StoreError(Sha1optError):
    """A results database that cannot be used: missing, not SQLite, damaged, another schema, a bad row."""


@dataclass(frozen=True)
class Row:
    """One stored result (module docstring); ``params`` is the family's parameters as a JSON object."""

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
    family: str = "scalar"
    variant: str = ""
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Put:
    """What ``Store.put`` did: ``stored`` -- this row is now the key's; ``cycles`` -- the key's stored cycles after.

    ``bool(put)`` is ``stored``. When two searches race on one key, the loser
    gets ``stored=False`` and the winner's ``cycles``.
    """

    stored: bool
    cycles: float

    def __bool__(self) -> bool:
        return self.stored


def default_path() -> Path:
    env = os.environ.get("SHA1OPT_DB")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sha1opt" / "results.sqlite"


def _positive(v) -> bool:
    return isinstance(v, float) and math.isfinite(v) and v > 0


def _short(v) -> str:
    """A database value for a one-line message: plain if a short word or number, else a cut repr."""
    if isinstance(v, (int, float)) or (isinstance(v, str) and v.isascii() and v.replace("-", "").replace("_", "").isalnum()
                                       and len(v) <= 40):
        return str(v)
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _one_line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _check_row(vals: tuple, where: str) -> Row:
    """A database row as a ``Row``, or a ``StoreError`` saying which field is impossible."""
    (family, variant, uarch, arch, first, last, version, cycles, recipe, offsets, params, code, evaluations,
     seconds, seed, created) = vals
    key = f"row {_short(family)}/{_short(uarch)}/{_short(arch)}/{_short(first)}-{_short(last)}"

    def bad(what: str) -> StoreError:
        return StoreError(f"{where}: {key}: {what}; the database was not written by this sha1opt "
                          "(move it away to start afresh)")

    for name, v in (("variant", variant), ("uarch", uarch), ("model_version", version), ("recipe", recipe),
                    ("code", code), ("offsets", offsets), ("params", params)):
        if not isinstance(v, str):
            raise bad(f"{name} is not text")
    if family not in FAMILIES:
        raise bad(f"family {_short(family)} is not one of {', '.join(FAMILIES)}")
    if arch not in ARCHS:
        raise bad(f"arch {_short(arch)} is not one of {', '.join(ARCHS)}")
    for name, v in (("first", first), ("last", last), ("evaluations", evaluations), ("seed", seed)):
        if type(v) is not int:
            raise bad(f"{name} {_short(v)} is not an integer")
    if not 0 <= first <= last <= 79:
        raise bad("the round range is not within 0-79")
    if evaluations < 0:
        raise bad(f"evaluations {evaluations} is negative")
    if not _positive(cycles):
        raise bad(f"cycles {_short(cycles)} is not a positive finite number")
    for name, v in (("seconds", seconds), ("created", created)):
        if not (isinstance(v, float) and math.isfinite(v) and v >= 0):
            raise bad(f"{name} {_short(v)} is not a finite number >= 0")
    try:
        pairs = json.loads(offsets)
        offs = tuple((tuple(k), v) for k, v in pairs)
        if not all(type(v) is int and all(type(x) in (int, str) for x in k) for k, v in offs):
            raise TypeError
    except (ValueError, TypeError):
        raise bad("offsets is not a JSON list of [key, integer] pairs") from None
    try:
        fields = json.loads(params)
    except ValueError:
        fields = None
    if not isinstance(fields, dict):
        raise bad("params is not a JSON object")
    if family == RANGE_FAMILY and (fields or variant):
        raise bad("a scalar row has params or a variant")
    if family != RANGE_FAMILY and (not fields or (first, last) != (0, 79) or offs):
        raise bad(f"a {family} row is not a whole block with params")
    return Row(uarch, arch, first, last, version, cycles, recipe, offs, code, evaluations, seconds, seed, created,
               family, variant, fields)


class Store:
    def __init__(self, path: str | Path | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path else default_path()
        self.readonly = readonly
        self._where = f"results database {self.path}"
        self._db: sqlite3.Connection | None = None
        self._source = "results"                  # the rows in this schema's columns (OLD_AS_NEW: an old table)
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise StoreError(f"{self._where}: {e.strerror}") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise StoreError(f"{self._where}: not a regular file")
        if st is None and readonly:
            if path:
                raise StoreError(f"no results database at {self.path}")
            return                                  # the default database does not exist yet: no rows
        try:
            if readonly:
                uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self._check_schema()
        except OSError as e:
            self.close()
            raise StoreError(f"{self._where}: {_one_line(e.strerror or e)}") from None
        except sqlite3.Error as e:
            self.close()
            raise StoreError(f"{self._where}: {_one_line(e)}") from None
        except StoreError:
            self.close()
            raise

    def _check_schema(self) -> None:
        """Refuse a file that is not SQLite, is damaged, or holds another schema; create the table if new."""
        assert self._db is not None
        problems = [r[0] for r in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise StoreError(f"{self._where}: damaged ({_one_line(problems[0])})")
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "results" not in tables:
            if tables:
                raise StoreError(f"{self._where}: not a sha1opt results database (no 'results' table)")
            if self.readonly:
                self.close()                    # an empty database: no rows, and nothing to keep open
            else:
                self._db.execute(SCHEMA)
            return
        cols = tuple((r[1], r[2].upper(), r[5]) for r in self._db.execute("PRAGMA table_info(results)"))
        if cols == OLD_COLUMNS:
            self._source = f"({OLD_AS_NEW})"
            for r in self._db.execute(OLD_AS_NEW):  # all or nothing, as below
                _check_row(r, self._where)
            if not self.readonly:
                self._migrate()
            return
        if cols != COLUMNS:
            got = {c[0] for c in cols}
            want = {c[0] for c in COLUMNS}
            extra, missing = sorted(got - want), sorted(want - got)
            why = (f"unexpected column {_short(extra[0])}" if extra else f"missing column {missing[0]!r}" if missing
                   else "columns of other types or order")
            raise StoreError(f"{self._where}: not this version's schema ({why})")
        for r in self._db.execute("SELECT * FROM results"):  # all or nothing: a bad row refuses the file
            _check_row(r, self._where)

    def _migrate(self) -> None:
        """The old scalar-only table as this schema's, its rows as ``scalar`` rows: one transaction."""
        assert self._db is not None
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("ALTER TABLE results RENAME TO results_old")
            self._db.execute(SCHEMA)
            self._db.execute("INSERT INTO results " + OLD_AS_NEW.replace("FROM results", "FROM results_old"))
            self._db.execute("DROP TABLE results_old")
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self._source = "results"

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _query(self, sql: str, args: tuple = ()) -> list[tuple]:
        if self._db is None:
            return []
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"{self._where}: {_one_line(e)}") from None

    def get(self, uarch: str, arch: str, first: int, last: int, model_version: str, *, family: str = "scalar",
            variant: str = "") -> Row | None:
        rows = self._query(f"SELECT * FROM {self._source} WHERE {KEY}",
                           (family, variant, uarch, arch, first, last, model_version))
        return _check_row(rows[0], self._where) if rows else None

    def put(self, *, uarch: str, arch: str, first: int, last: int, model_version: str, cycles: float,
            recipe: str, offsets: tuple, code: str, evaluations: int, seconds: float, seed: int,
            proved: bool, family: str = "scalar", variant: str = "", params: dict | None = None) -> Put:
        """Store if better than the stored row (one immediate transaction); says what is stored after."""
        if not proved:
            raise StoreError("refusing to store an unproved schedule")
        cycles = float(cycles)
        if not _positive(cycles):
            raise StoreError(f"refusing to store {cycles!r} cycles (not a positive finite number)")
        if self._db is None or self.readonly:
            raise StoreError(f"{self._where}: opened read-only")
        key = (family, variant, uarch, arch, first, last, model_version)
        fields = json.dumps(params or {}, sort_keys=True)
        _check_row((*key, cycles, recipe, json.dumps([[list(k), v] for k, v in offsets]), fields, code, evaluations,
                    float(seconds), seed, 0.0), "refusing to store")      # misuse: never write a row read refuses
        try:
            self._db.execute("BEGIN IMMEDIATE")     # the write lock first: no other put between read and write
            try:
                old = self._db.execute(f"SELECT * FROM results WHERE {KEY}", key).fetchone()
                if old is not None:
                    kept = _check_row(old, self._where).cycles
                    if kept <= cycles:
                        self._db.execute("ROLLBACK")
                        return Put(False, kept)
                self._db.execute(
                    "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (*key, cycles, recipe, json.dumps([[list(k), v] for k, v in offsets]), fields, code,
                     evaluations, float(seconds), seed, time.time()))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise StoreError(f"{self._where}: {_one_line(e)}") from None
        return Put(True, cycles)

    def rows(self, family: str = "scalar") -> list[Row]:
        """Every stored row of ``family``."""
        return [_check_row(r, self._where)
                for r in self._query(f"SELECT * FROM {self._source} WHERE family=? "
                                     "ORDER BY uarch, arch, first, last, model_version, variant", (family,))]
