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


def test_regression_the_demo_exported_a_searched_block_this_cpu_runs_slower_than_the_textbook():
    """Issue 25 ("a searched block measured slower than the default schedule is never exported"): the demo
    exported the model's scalar pick unmeasured; on a Zen 3 it ran 1.07x the textbook schedule. The demo now
    times both here (``job.measured_best``); a timer that measures the searched block slower keeps the
    textbook, one that measures it faster exports it."""
    import numpy as np

    from sha1opt.emit.tuning import Timed
    from sha1opt.job import measured_best
    from sha1opt.emit.family_scalar import recipe_variants
    from sha1opt.search.cost.model import load_model
    from sha1opt.search.space.candidate import textbook

    searched = recipe_variants("x86_64", "base", load_model("zen3"))[0][1]

    def timer(ratio_of_searched):
        def run(cand, ref, arch, pairs):
            return Timed(np.full(pairs, 1.0 if cand == ref else ratio_of_searched), 4.0)
        return run

    slower, detail = measured_best("zen3", searched, pairs=4, timer=timer(1.07))
    assert slower.name == "textbook" and "exporting the textbook schedule" in detail and "1.070" in detail
    faster, detail = measured_best("zen3", searched, pairs=4, timer=timer(0.9))
    assert faster is searched and "exporting the searched block" in detail
    same, detail = measured_best("zen3", textbook("x86_64"))
    assert detail == ""                                   # no searched improvement: nothing timed
