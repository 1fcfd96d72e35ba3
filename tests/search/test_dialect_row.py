"""A vector dialect is one data row (``search.space.hybrid_dialects``): a throwaway row is searched, proved,
stored and exported with nothing else changed.

The row is the avx row under another name (``vex3``). The test's table is ssse3, ``vex3`` and avx512vl --
avx taken out, so that the search's three-operand dialect on zen3 (AVX, no AVX-512) can only be the new
row and the test does not depend on how the search breaks a tie between two equal rows.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sha1opt.emit.families import export_choice
from sha1opt.emit.family_hybrid import HYBRID, build_block
from sha1opt.emit.hybrid_export import function_text
from sha1opt.search.cost.model import load_model
from sha1opt.search.space import hybrid_dialects
from sha1opt.search.space.hybrid import HybridParams
from sha1opt.search.space.hybrid_caps import vector_dialects
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.store import Store
from tests.support.cpu import not_run_here

ROW = replace(hybrid_dialects.DIALECTS["avx"], name="vex3")


@pytest.fixture
def vex3(monkeypatch):
    table = {k: v for k, v in hybrid_dialects.DIALECTS.items() if k != "avx"}
    monkeypatch.setattr(hybrid_dialects, "DIALECTS", table)
    hybrid_dialects.register(ROW)
    return ROW


def test_the_row_is_a_dialect_everywhere(vex3):
    assert vector_dialects("avx") == ("ssse3k", "ssse3", "vex3") and vector_dialects("avx512")[-1] == "vex3"
    for arch in ("x86_64", "i386"):
        for rec in ("rol1", "rol2"):
            p = HybridParams(isa="vex3", arch=arch, recurrence=rec, ahead=arch == "x86_64")
            new = function_text(build_block(p))
            hybrid_dialects.DIALECTS["avx"] = replace(ROW, name="avx")       # the same row under its own name
            old = function_text(build_block(replace(p, isa="avx")))
            del hybrid_dialects.DIALECTS["avx"]
            assert new == old.replace("isa=avx,", "isa=vex3,") and "vzeroupper" in new   # the key names the row


@pytest.mark.slow   # ~35 s: a whole hybrid search on zen3. Fast: test_the_row_is_a_dialect_everywhere (the row is
#                    every table's dialect); the search, proof, store and export of a dialect: test_hybrid_search,
#                    test_store_families, test_hybrid_export
def test_a_new_row_is_searched_proved_stored_and_exported(vex3, tmp_path):
    db = tmp_path / "r.sqlite"
    Store(db).close()
    rep = HYBRID.search("zen3", "x86_64", "avx", evaluations=8, db=db)
    assert rep.proved and rep.search.params.isa == "vex3", (rep.proof, rep.search.params)
    stored = HYBRID.stored(db, load_model("zen3"), "x86_64", "avx")
    assert stored is not None and stored.params == rep.search.params
    assert prove_hybrid(stored.block).ok
    choice = export_choice("zen3", "x86_64", "avx", db)          # reads the stored row: no search
    assert any("stored result" in n for n in choice.notes), choice.notes
    if choice.family is not HYBRID:                                # the scalar best won on the model: export the row's block
        choice = replace(choice, family=HYBRID, code=stored.block)
    assert choice.code.params.isa == "vex3"
    result = choice.family.export(choice, tmp_path / "vex3.S", uarch="zen3")
    assert result.ok, [(c.name, c.detail) for c in result.validation.checks]
    text = (tmp_path / "vex3.S").read_text()
    assert "isa=vex3" in text and "vzeroupper" in text
    ran = not result.validation.not_run
    assert ran == (not_run_here("avx") is None), [c.statement for c in result.validation.not_run]
