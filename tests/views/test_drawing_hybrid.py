"""``show --isa``'s drawing of hybrid code: one column per unit class (views.drawing.hybrid_table)."""

from __future__ import annotations

from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.semantics.x86 import SEMANTICS
from sha1opt.views.drawing import UNIT_CLASSES, hybrid_gantt_png, hybrid_table, unit_class


def _drawn():
    block = build(HybridParams(isa="avx"))
    return block, block_cost(block, load_model("goldencove"))


def test_every_instruction_is_drawn_once_in_its_unit_class():
    block, sim = _drawn()
    rows = hybrid_table(block.body, sim)
    cells = {c: [t for r in rows for t in r.cells[c]] for c in UNIT_CLASSES}
    assert sum(len(v) for v in cells.values()) == len(block.body)
    vector = sum(1 for i in block.body if SEMANTICS[i.mnemonic].vector)
    assert len(cells["vector"]) == vector and 0 < vector < len(block.body)
    assert all(t.startswith(("v", "movdq", "p")) for t in cells["vector"])


def test_the_class_comes_from_the_semantics_table():
    block, _ = _drawn()
    assert {unit_class(i) for i in block.body if i.mnemonic == "vpxor"} == {"vector"}
    assert {unit_class(i) for i in block.body if i.mnemonic == "rol"} == {"scalar"}


def test_rows_are_clocks_in_order():
    block, sim = _drawn()
    clocks = [r.cycle for r in hybrid_table(block.body, sim)]
    assert clocks == sorted(set(clocks)) and clocks[0] == 0


def test_the_gantt_chart_is_written(tmp_path):
    block, sim = _drawn()
    out = hybrid_gantt_png(block.body, sim, tmp_path / "h.png", "hybrid")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
