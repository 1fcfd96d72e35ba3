"""``show --isa``'s drawing of a whole block's loop: one column per unit class (views.drawing.unit_table)."""

from __future__ import annotations

from sha1opt.search.cost.model import load_model
import pytest

from sha1opt.search.measure import hybrid_loop_items
from sha1opt.search.engines.hybrid import block_cost, build_on, dialects_for, scalars_for
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import SEMANTICS
from sha1opt.views.drawing import UNIT_CLASSES, unit_class, unit_gantt_png, unit_table


def _drawn():
    block = build(HybridParams(isa="avx"))
    return block, block_cost(block, load_model("goldencove"))


def test_every_instruction_is_drawn_once_in_its_unit_class():
    block, sim = _drawn()
    rows = unit_table(hybrid_loop_items(block), sim)
    cells = {c: [t for r in rows for t in r.cells[c]] for c in UNIT_CLASSES}
    assert sum(len(v) for v in cells.values()) == len(block.body) + 3     # and add / decq / jnz
    assert {t.split()[0] for t in cells["scalar"]} >= {"add", "decq", "jne"}
    vector = sum(1 for i in block.body if SEMANTICS[i.mnemonic].vector)
    assert len(cells["vector"]) == vector and 0 < vector < len(block.body)
    assert all(t.startswith(("v", "movdq", "p")) for t in cells["vector"])


def test_the_class_comes_from_the_semantics_table():
    block, _ = _drawn()
    assert {unit_class(i) for i in block.body if i.mnemonic == "vpxor"} == {"vector"}
    assert {unit_class(i) for i in block.body if i.mnemonic == "rol"} == {"scalar"}


def test_rows_are_clocks_in_order():
    block, sim = _drawn()
    clocks = [r.cycle for r in unit_table(hybrid_loop_items(block), sim)]
    assert clocks == sorted(set(clocks)) and clocks[0] == 0


def test_the_gantt_chart_is_written(tmp_path):
    block, sim = _drawn()
    out = unit_gantt_png(hybrid_loop_items(block), sim, tmp_path / "h.png", "hybrid")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# The families the search returns (module docstring of engines.hybrid): with read-ahead the simulated
# loop body is ``body + main``, which the fixture above (no read-ahead: ``main`` empty) never had.
REAL = [("zen3", "avx2", dict(ahead=True, recurrence="rol2", scalar="rotate-bmi-early-majn-keep")),  # what
        # `show --uarch zen3 --isa avx2` drew
        ("skylake", "ssse3", dict(ahead=True, recurrence="rol1")),
        ("skylake", "avx", dict(ahead=True, recurrence="rol2", scalar="rotate-bmi-early-majn-keep")),
        ("zen3", "avx", dict(ahead=False, recurrence="rol1"))]


@pytest.mark.parametrize("uarch,cap,family", REAL)
def test_regression_show_isa_index_error(uarch, cap, family):
    """`show --isa avx2` died with IndexError in the unit table: it drew ``block.body`` against the simulation
    of ``block.loop_body()`` (``body + main`` with read-ahead). Real blocks of several levels, models and
    families (built on the model as the search builds them): every simulated instruction is drawn once, in
    its unit class, and the Gantt chart's colours come from the same instructions."""
    model = load_model(uarch)
    assert family.get("scalar", "recipe") in scalars_for(model.isa)
    block = build_on(HybridParams(isa=dialects_for(model, cap)[-1], **family), model)
    sim = block_cost(block, model)
    rows = unit_table(hybrid_loop_items(block), sim)
    code = hybrid_loop_items(block)           # the block's loop, its loop control included
    assert family["ahead"] == bool(block.main)
    drawn = {c: sum(len(r.cells[c]) for r in rows) for c in UNIT_CLASSES}
    assert drawn["vector"] == sum(1 for i in code if unit_class(i) == "vector")
    assert drawn["scalar"] + drawn["vector"] == len(code)


def test_a_simulation_of_other_code_is_refused_by_name():
    """unit_table draws only the simulation of the items' loop: any other is a misuse (one line),
    never an IndexError or a drawing against the wrong instructions."""
    block, _ = _drawn()
    other = block_cost(build(HybridParams(isa="avx", ahead=True)), load_model("goldencove"))
    with pytest.raises(Sha1optError, match="block's loop"):
        unit_table(hybrid_loop_items(block), other)
