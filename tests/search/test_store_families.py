"""The store keeps every family's proved results: hybrid and SHA-NI rows, their parameters as data.

A hybrid or SHA-NI row holds the JSON object of its parameter dataclass, read back exactly (an extra or
mistyped field is refused in one line); an old scalar-only database is read as scalar rows read-only and
migrated on a writable open; ``export --isa`` reads a stored row and searches only when there is none.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from sha1opt.emit.families import export_choice
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_shani import SHANI
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.engines.shani import block_cycles
from sha1opt.search.cost import Simulator
from sha1opt.search.family_rows import (SHANI_FULL, family_version, params_json, put_hybrid, put_shani,
                                        stored_hybrid, stored_shani)
from sha1opt.search.objective import model_version
from sha1opt.search.space.candidate import Candidate, realize
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.space.shani import ShaniParams
from sha1opt.search.store import COLUMNS, OLD_COLUMNS, Store, StoreError


def _put_hybrid(db, uarch: str, cap: str, params: HybridParams):
    model = load_model(uarch)
    block = build_i386(params) if params.arch == "i386" else build(params)
    cycles = block_cost(block, model).cycles
    assert put_hybrid(db, model, cap, block, cycles, evaluations=7, seconds=1.0, seed=0, proved=True)
    return block, cycles


def test_a_hybrid_row_reads_back_exactly_and_is_not_a_scalar_row(tmp_path):
    db = tmp_path / "r.sqlite"
    params = HybridParams(isa="avx", lead=3, every=2, offsets=(((5, "kw"), 1),))
    block, cycles = _put_hybrid(db, "zen3", "avx", params)
    got = stored_hybrid(db, load_model("zen3"), "x86_64", "avx")
    assert got.params == params and got.block.code() == block.code() and got.cycles == cycles
    assert stored_hybrid(db, load_model("zen3"), "x86_64", "avx2") is None      # another cap: another key
    store = Store(db, readonly=True)
    assert store.rows() == [] and [r.variant for r in store.rows("hybrid")] == ["avx"]
    assert store.rows("hybrid")[0].model_version == family_version(load_model("zen3"), "hybrid")
    store.close()


def test_a_shani_row_reads_back_exactly(tmp_path):
    db = tmp_path / "r.sqlite"
    model = load_model("zen3")
    params = ShaniParams(msg1_lead=2, sched_after=True)
    cycles = block_cycles(params, "x86_64", Simulator(model))
    assert put_shani(db, model, "x86_64", SHANI_FULL, params, cycles, evaluations=3, seconds=1.0, seed=1,
                     proved=True)
    got = stored_shani(db, model, "x86_64", SHANI_FULL)
    assert got.params == params and got.cycles == cycles and got.block is None


def test_only_proved_results_are_stored(tmp_path):
    model = load_model("zen3")
    with pytest.raises(StoreError, match="unproved"):
        put_shani(tmp_path / "r.sqlite", model, "x86_64", SHANI_FULL, ShaniParams(), 100.0, evaluations=1,
                  seconds=1.0, seed=1, proved=False)


@pytest.mark.parametrize("edit, needle", [
    (lambda p: {**p, "colour": 1}, "are not HybridParams's fields"),
    (lambda p: {k: v for k, v in p.items() if k != "isa"}, "are not HybridParams's fields"),   # only shifts may lack
    (lambda p: {**p, "shifts": [[5]]}, "not a valid HybridParams"),
    (lambda p: {**p, "lead": "2"}, "params lead is not int"),
    (lambda p: {**p, "ahead": 1}, "params ahead is not bool"),
    (lambda p: {**p, "lead": 9}, "not a valid HybridParams"),
    (lambda p: {**p, "recipe": "f1=nonsense"}, "params recipe"),
])
def test_hand_edited_params_are_refused_in_one_line(tmp_path, edit, needle):
    db = tmp_path / "r.sqlite"
    _put_hybrid(db, "zen3", "avx", HybridParams(isa="avx"))
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET params=?", (json.dumps(edit(params_json(HybridParams(isa="avx")))),))
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=needle) as e:
        stored_hybrid(db, load_model("zen3"), "x86_64", "avx")
    assert "\n" not in str(e.value)


def test_regression_a_row_stored_before_the_shifts_field_refused_the_database(tmp_path):
    """A hybrid row written before ``HybridParams.shifts`` existed has no such member; it is the point without
    shifts (the field's default), not an impossible row (export stopped: "params are not HybridParams's fields")."""
    db = tmp_path / "r.sqlite"
    _put_hybrid(db, "zen3", "avx", HybridParams(isa="avx"))
    old = {k: v for k, v in params_json(HybridParams(isa="avx")).items() if k != "shifts"}
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET params=?", (json.dumps(old),))
    con.commit()
    con.close()
    assert stored_hybrid(db, load_model("zen3"), "x86_64", "avx").params == HybridParams(isa="avx")


@pytest.mark.parametrize("sql, needle", [
    ("UPDATE results SET params='[1]'", "params is not a JSON object"),
    ("UPDATE results SET family='multibuffer'", "family multibuffer is not one of"),
    ("UPDATE results SET first=1", "is not a whole block"),
])
def test_an_impossible_family_row_refuses_the_database(tmp_path, sql, needle):
    db = tmp_path / "r.sqlite"
    _put_hybrid(db, "zen3", "avx", HybridParams(isa="avx"))
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=needle):
        Store(db, readonly=True)


def _old_database(path):
    """A database of the scalar-only schema (before families) with one proved textbook row."""
    code = "\n".join(map(str, realize(Candidate(40, 59, "i386", TEXTBOOK)).code))
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE results (uarch TEXT NOT NULL, arch TEXT NOT NULL, first INTEGER NOT NULL, "
                "last INTEGER NOT NULL, model_version TEXT NOT NULL, cycles REAL NOT NULL, recipe TEXT NOT NULL, "
                "offsets TEXT NOT NULL, code TEXT NOT NULL, evaluations INTEGER NOT NULL, seconds REAL NOT NULL, "
                "seed INTEGER NOT NULL, created REAL NOT NULL, PRIMARY KEY (uarch, arch, first, last, model_version))")
    con.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                ("p4", "i386", 40, 59, model_version(load_model("p4"), 40, 59), 160.0, TEXTBOOK.key(), "[]", code,
                 1, 1.0, 0, 1.0))
    con.commit()
    con.close()


def _columns(path):
    con = sqlite3.connect(path)
    try:
        return tuple((r[1], r[2].upper(), r[5]) for r in con.execute("PRAGMA table_info(results)"))
    finally:
        con.close()


def test_an_old_database_is_read_as_scalar_rows_read_only_and_migrated_when_written(tmp_path):
    db = tmp_path / "old.sqlite"
    _old_database(db)
    before = db.read_bytes()
    store = Store(db, readonly=True)
    rows = store.rows()
    store.close()
    assert [(r.family, r.variant, r.params, r.cycles) for r in rows] == [("scalar", "", {}, 160.0)]
    assert db.read_bytes() == before and _columns(db) == OLD_COLUMNS      # read-only: nothing written
    store = Store(db)
    assert _columns(db) == COLUMNS
    assert store.get("p4", "i386", 40, 59, model_version(load_model("p4"), 40, 59)).cycles == 160.0
    store.close()


def test_an_old_database_with_a_bad_row_is_refused_not_migrated(tmp_path):
    db = tmp_path / "old.sqlite"
    _old_database(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET cycles=-1.0")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="cycles -1.0 is not a positive finite number"):
        Store(db)
    assert _columns(db) == OLD_COLUMNS


def _no_search(*_a, **_k):
    raise AssertionError("searched although the store holds the row")


def test_export_choice_reads_a_stored_hybrid_row_without_searching(tmp_path, monkeypatch):
    db = tmp_path / "r.sqlite"
    Store(db).close()
    params = HybridParams(isa="avx", lead=3, every=1)
    block, cycles = _put_hybrid(db, "zen3", "avx", params)
    monkeypatch.setattr("sha1opt.search.driver.search_hybrid", _no_search)
    choice = export_choice("zen3", "x86_64", "avx", db)
    assert choice.family is HYBRID and choice.code.params == params and choice.cycles == cycles
    assert any("stored result, 7 evaluations" in n for n in choice.notes)


def test_export_choice_reads_a_stored_i386_hybrid_row_without_searching(tmp_path, monkeypatch):
    db = tmp_path / "r.sqlite"
    Store(db).close()
    params = HybridParams(isa="ssse3", arch="i386")
    block, cycles = _put_hybrid(db, "core2", "ssse3", params)
    monkeypatch.setattr("sha1opt.emit.family_hybrid.search_hybrid_i386", _no_search)
    choice = export_choice("core2", "i386", "ssse3", db)
    assert any("stored result, 7 evaluations" in n for n in choice.notes), choice.notes
    assert choice.family is not HYBRID or choice.code.params == params


def test_export_choice_reads_a_stored_shani_row_without_searching(tmp_path, monkeypatch):
    db = tmp_path / "r.sqlite"
    model = load_model("zen3")
    params = ShaniParams(msg1_lead=2)
    cycles = block_cycles(params, "x86_64", Simulator(model))
    put_shani(db, model, "x86_64", SHANI_FULL, params, cycles, evaluations=3, seconds=1.0, seed=1, proved=True)
    monkeypatch.setattr("sha1opt.search.family_rows.best_shani", _no_search)
    choice = export_choice("zen3", "x86_64", "shani", db)
    assert choice.family is SHANI and choice.code == params and choice.cycles == cycles
