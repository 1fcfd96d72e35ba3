"""The results database is trusted only when it is exactly ours: damaged files and impossible rows are refused.

Issue 13 item 5 (database reproductions, rows validated when read, the losing concurrent run).
Each broken database is refused by the store with one ``StoreError`` line, and by the CLI
(``show``) with one line and exit 2.
"""

from __future__ import annotations

import math
import sqlite3

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import search_range
from sha1opt.search.objective import model_version
from sha1opt.search.store import Put, Store, StoreError

KEY = dict(uarch="p4", arch="i386", first=40, last=44, model_version="v")
ROW = dict(recipe="r", offsets=((("40", "f", 0), 1),), code="x", evaluations=1, seconds=1.0, seed=0)


def db_with_rows(path, n: int = 1, code: str = "x") -> None:
    s = Store(path)
    for i in range(n):
        s.put(**{**KEY, "first": i, "last": i}, cycles=10.0 + i, proved=True, **{**ROW, "code": code})
    s.close()


def sql(path, statement: str, args: tuple = ()) -> None:
    con = sqlite3.connect(path)
    con.execute(statement, args)
    con.commit()
    con.close()


def show(db):
    return CliRunner().invoke(main, ["show", "--uarch", "p4", "--rounds", "0-0", "--db", str(db)])


def refused(db, needle: str) -> None:
    """Both the store (read-write and read-only) and `show` refuse ``db`` in one line containing ``needle``."""
    for readonly in (False, True):
        with pytest.raises(StoreError, match=needle) as e:
            s = Store(db, readonly=readonly)
            s.rows()
        assert "\n" not in str(e.value)
    r = show(db)
    assert r.exit_code == 2 and (r.exception is None or isinstance(r.exception, SystemExit)), r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("sha1opt: error: results database") and needle in lines[0]


# --- the file --------------------------------------------------------------------------------


def test_database_with_corrupt_pages_is_refused(tmp_path):
    """Regression: a page of garbage gave sqlite3.DatabaseError tracebacks (or, unread, nothing at all)."""
    db = tmp_path / "r.db"
    db_with_rows(db, n=10, code="x" * 3000)
    data = bytearray(db.read_bytes())
    data[2 * 4096:3 * 4096] = b"\xff" * 4096
    db.write_bytes(bytes(data))
    refused(db, "damaged")


def test_file_that_is_not_sqlite_is_refused(tmp_path):
    db = tmp_path / "r.db"
    db.write_bytes(b"not a database" * 100)
    refused(db, "file is not a database")


def test_database_with_an_extra_column_is_refused(tmp_path):
    db = tmp_path / "r.db"
    db_with_rows(db)
    sql(db, "ALTER TABLE results ADD COLUMN extra TEXT")
    refused(db, "unexpected column extra")


def test_database_of_another_schema_is_refused(tmp_path):
    db = tmp_path / "r.db"
    sql(db, "CREATE TABLE results (uarch TEXT, cycles REAL)")
    refused(db, "missing column")


def test_database_of_another_program_is_refused_and_not_written(tmp_path):
    db = tmp_path / "r.db"
    sql(db, "CREATE TABLE people (name TEXT)")
    refused(db, "not a sha1opt results database")
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["people"]


def test_a_device_as_database_is_refused(tmp_path):
    with pytest.raises(StoreError, match="not a regular file"):
        Store("/dev/null")


# --- the rows --------------------------------------------------------------------------------


@pytest.mark.parametrize("statement, needle", [
    ("UPDATE results SET offsets = '[[not json'", "offsets is not a JSON list"),
    ("UPDATE results SET offsets = '{\"a\": 1}'", "offsets is not a JSON list"),
    ("UPDATE results SET cycles = 'fast'", "cycles fast is not a positive finite number"),
    ("UPDATE results SET first = 'forty'", "first forty is not an integer"),
    ("UPDATE results SET first = 70, last = 90", "round range is not within 0-79"),
    ("UPDATE results SET arch = 'arm64'", "arch arm64 is not one of"),
])
def test_row_with_bad_fields_is_refused(tmp_path, statement, needle):
    db = tmp_path / "r.db"
    db_with_rows(db)
    sql(db, statement)
    refused(db, needle)


@pytest.mark.parametrize("cycles", [-1e9, 0.0, float("inf"), "NaN"])   # SQLite stores a float NaN as NULL
def test_row_with_impossible_cycles_does_not_win_for_ever(tmp_path, cycles):
    """Regression: a row claiming -1e9 cycles was never replaced (every put compared worse) and was
    exported as the best result; inf/"NaN" were read back as they were. Now the database is refused."""
    db = tmp_path / "r.db"
    db_with_rows(db)
    sql(db, "UPDATE results SET cycles = ?", (cycles,))
    with pytest.raises(StoreError, match="is not a positive finite number"):
        Store(db).put(**{**KEY, "first": 0, "last": 0}, cycles=5.0, proved=True, **ROW)
    refused(db, "is not a positive finite number")


@pytest.mark.parametrize("cycles", [-1e9, 0.0, math.nan, math.inf])
def test_store_refuses_to_write_impossible_cycles(tmp_path, cycles):
    with pytest.raises(StoreError, match="positive finite"):
        Store(tmp_path / "r.db").put(**KEY, cycles=cycles, proved=True, **ROW)


def test_rows_round_trip(tmp_path):
    db = tmp_path / "r.db"
    db_with_rows(db, n=3)
    rows = Store(db, readonly=True).rows()
    assert [(r.first, r.cycles, r.offsets) for r in rows] == [(i, 10.0 + i, ROW["offsets"]) for i in range(3)]


# --- read-only and concurrent use -----------------------------------------------------------


def test_readonly_store_of_a_missing_file_names_it_and_creates_nothing(tmp_path):
    db = tmp_path / "no" / "such" / "r.db"
    with pytest.raises(StoreError, match=f"no results database at {db}"):
        Store(db, readonly=True)
    assert not (tmp_path / "no").exists()


def test_readonly_store_refuses_to_write(tmp_path):
    db = tmp_path / "r.db"
    db_with_rows(db)
    with pytest.raises(StoreError, match="read-only"):
        Store(db, readonly=True).put(**KEY, cycles=1.0, proved=True, **ROW)


def test_losing_put_reports_the_winners_cycles(tmp_path):
    """Two stores on one file: the one that read 'nothing stored' and then lost learns what won."""
    db = tmp_path / "r.db"
    a, b = Store(db), Store(db)
    assert a.get(**KEY) is None
    assert b.put(**KEY, cycles=50.0, proved=True, **ROW) == Put(True, 50.0)
    assert a.put(**KEY, cycles=60.0, proved=True, **ROW) == Put(False, 50.0)
    assert a.get(**KEY).cycles == 50.0


def test_losing_concurrent_search_does_not_say_stored_in(tmp_path):
    """Regression: a search whose key was stored better by another run meanwhile still said "stored in"."""
    db = tmp_path / "r.db"
    version = model_version(load_model("atom"))

    def other_run_stores_a_better_result(event):
        if event["event"] == "start":
            Store(db).put(uarch="atom", arch="i386", first=40, last=44, model_version=version, cycles=1.0,
                          proved=True, **ROW)

    r = search_range("atom", 40, 44, time_limit=1, db=db, seed=0, use_exact=False,
                     progress=other_run_stores_a_better_result)
    assert r.proved and r.cycles > 1.0
    assert r.stored == f"kept the better stored result in {db} (1.0 cycles)"
    assert "the stored result is better than this run's" in r.notes
