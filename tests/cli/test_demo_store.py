"""The demo and the commands share one results store by default (issue 27, item 4)."""

from __future__ import annotations

from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.job import steps


def test_regression_demo_results_invisible(tmp_path, monkeypatch):
    """The demo stored its search in ``out/results.sqlite`` while every command reads the default store, so
    after ``make demo`` ``show --uarch U --rounds 40-59`` said "no stored result". The demo's search steps
    (run for real, 1 s per range, on a model named here: p4) now store where ``show`` without ``--db`` reads,
    and ``--outdir`` holds no database."""
    store = tmp_path / "cache" / "results.sqlite"
    monkeypatch.setenv("SHA1OPT_DB", str(store))      # the default path, as a user's ~/.cache would be
    outdir = tmp_path / "out"
    searched = []
    for step in steps(outdir, uarch="p4", search_seconds=1.0):
        if step.title.startswith("search"):
            searched.append(step)
            if len(searched) == 4:
                break                                 # the exports and the bench are not this test's
    assert all(s.ok for s in searched) and store.is_file()
    assert not (outdir / "results.sqlite").exists()
    r = CliRunner().invoke(main, ["show", "--uarch", "p4", "--rounds", "40-59"])
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0]
    assert "stored result" in first and "no stored result" not in first, first
