"""Long calls report progress as values, and the CLI shows them only on a terminal (issue 27, item 5)."""

from __future__ import annotations

import math

from sha1opt.cli_common import ProgressLine
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import search_hybrid
from sha1opt.search.progress import Progress


def test_regression_silent_minutes():
    """`show --isa` / `export --isa` searched the hybrid family for 20-70 s printing nothing: search_hybrid hands
    a Progress per point it scores -- the grid's stage, how many of its points, the best cycles so far -- to its
    ``progress`` callback (here stopped after three points: the rest of the grid is skipped, stage by stage)."""
    seen: list[Progress] = []
    found = search_hybrid(load_model("zen3"), cap="avx2", evaluations=0, should_stop=lambda: len(seen) >= 3,
                          progress=seen.append)
    assert found.reason == "interrupted"
    first = [p for p in seen if p.phase == "grid stage 1/4"]
    assert [p.done for p in first] == list(range(1, len(first) + 1)) and len(first) >= 3
    assert all(p.total is not None and p.done <= p.total for p in first)
    assert all(math.isfinite(p.best) for p in seen)
    assert math.isclose(seen[-1].best, found.cycles, abs_tol=1.0)   # the score adds < 1 cycle per tie-break


def test_the_progress_line_is_for_a_terminal_only(capsys):
    """ProgressLine writes one rewritten stderr line when enabled (a terminal, no --json) and clears it on close;
    disabled (stderr not a terminal, or --json), it writes nothing."""
    with ProgressLine("zen3 hybrid --isa avx2", enabled=True, after=0.0, every=0.0) as line:
        line(Progress("grid stage 2/4", 7, 12, 171.0))
    err = capsys.readouterr().err
    assert "\rzen3 hybrid --isa avx2: grid stage 2/4 7/12, best 171.0 (" in err and err.endswith("\r" + " " * len(err.split("\r")[1]) + "\r")
    with ProgressLine("quiet", enabled=False, after=0.0, every=0.0) as line:
        line(Progress("grid stage 1/4", 1, 18, 200.0))
    assert capsys.readouterr().err == ""


def test_regression_export_silent_minutes_progress_reaches_the_hybrid_search(monkeypatch, tmp_path):
    """`export --uarch zen3 --isa avx2` (and plain `export --uarch`, `--dispatch`) printed nothing for 40-120 s:
    the export's choice hands its ``progress`` to the hybrid search it runs (here a stand-in search that
    reports one step and finds nothing, so the scalar best is chosen)."""
    from types import SimpleNamespace

    from sha1opt.emit import families
    from sha1opt.emit.family_scalar import SCALAR
    from sha1opt.search import driver

    def fake_search(uarch, *, cap, evaluations, seed, db, progress):
        progress(Progress("grid stage 1/4", 1, 18, 300.0))
        return SimpleNamespace(search=SimpleNamespace(params=None, reason="stand-in"))
    # the search the export's choice runs when the store has no row (``driver.known_hybrid_block``)
    monkeypatch.setattr(driver, "search_hybrid_block", fake_search)
    from sha1opt.search.store import Store
    Store(tmp_path / "empty.sqlite").close()
    seen: list[Progress] = []
    choice = families.export_choice("zen3", "x86_64", "avx2", tmp_path / "empty.sqlite", seen.append)
    assert [p.phase for p in seen] == ["grid stage 1/4"] and choice.family is SCALAR
