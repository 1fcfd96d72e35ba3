"""``show`` prints the figure ``search`` stored for the same key, never a figure of its own.

A range's search minimises its cycles inside the block (between default rounds, ``objective.objective``)
and stores that figure; ``show`` used to print the range simulated alone beside it (p4 40-59: "stored
result (153.0 cycles); 158.5 cycles", zen5 40-59: 44 vs 55). Now it prints the stored figure, carried as
data (``blocks.Known``), in its first line and in the Gantt chart's title.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.search.blocks import best_known
from sha1opt.search.cost.model import load_model
from sha1opt.search.objective import objective
from sha1opt.search.space.candidate import Candidate, realize
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.store import Store


@pytest.mark.parametrize("uarch", ["p4", "zen5"])
def test_show_prints_the_figure_search_stored(tmp_path, uarch, monkeypatch):
    db = str(tmp_path / "r.sqlite")
    r = CliRunner().invoke(main, ["search", "--uarch", uarch, "--rounds", "40-59", "--time-limit", "2",
                                  "--evaluations", "30", "--workers", "1", "--db", db, "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output[r.output.index("{"):])
    assert report["proved"] and report["stored"].startswith("stored in")
    known = best_known(uarch, report["arch"], 40, 59, db)
    assert known.row is not None and known.cycles == report["cycles"]
    titles = []
    monkeypatch.setattr("sha1opt.cli_search.gantt_png", lambda real, sim, png, title: titles.append(title) or png)
    r = CliRunner().invoke(main, ["show", "--uarch", uarch, "--rounds", "40-59", "--db", db,
                                  "--png", str(tmp_path / "g.png")])
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0]
    figure = f"{report['cycles']:.1f} cycles"
    assert first.startswith(f"{uarch} ({report['arch']}) rounds 40-59: stored result ({figure}, "), first
    assert f"; {figure} (inside the block" in first, first
    assert titles == [f"{uarch} rounds 40-59: {figure}"]


def test_without_a_stored_row_show_prints_the_default_under_the_same_objective(tmp_path):
    """No row: the default schedule's figure as the search measures it (a report's ``textbook_cycles``)."""
    db = tmp_path / "empty.sqlite"
    Store(db).close()
    known = best_known("p4", "i386", 40, 59, db)
    obj = objective(load_model("p4"), 40, 59, "i386")
    code = realize(Candidate(40, 59, "i386", TEXTBOOK)).code
    assert known.row is None and known.cycles == obj.cost(code) - obj.context
    assert known.source == "default schedule (no stored result for this key)"
