"""The robust choice among the families' candidates (emit/robust_choice.py) and how its spread is printed.

Rules (issue 25, item 4: "prefer candidates that stay good when the model's fitted parameters move within
their uncertainty ... report the spread"): the robust pick's worst case over the ensemble is never above the
nominal optimum's; every candidate's spread is printed beside its figure (export --robust, export --tune, search
--robust, show --robust); a pick that is not the nominal optimum is called a robust pick, never optimal; with a
host to measure, the ensemble only orders the candidates timed, the reference first.
"""

from dataclasses import replace

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.family import Choice
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.robust_choice import RobustChoice, choose_robust, describe, worst_case_order
from sha1opt.emit.tuning import Candidate as Timed, Entry, Measurement, Tuning, describe as describe_tuning
from sha1opt.emit.validate import Validation
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.uncertainty import Spread
from sha1opt.search.driver import Report
from sha1opt.search.robust import Pooled, RobustPool
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.views.report import robust_lines


@pytest.fixture(scope="module")
def entries():
    out = [Entry(Choice(SCALAR, textbook("x86_64"), "x86_64"), True, 0.0)]
    for field, option in (("rol5", "rorx"), ("kw", "add")):
        real = realize(Candidate(0, 79, "x86_64", replace(TEXTBOOK, **{field: option})))
        if real is not None:
            out.append(Entry(Choice(SCALAR, block_schedule([real.code], "x86_64", f"{field}={option}"), "x86_64"),
                             False, 0.0))
    assert len(out) >= 2
    return out


def test_the_robust_pick_of_the_families_candidates_has_the_lowest_worst_case(entries):
    r = choose_robust(entries, load_model("zen1"), "bmi2", members=2)
    worst = [e.spread.worst for e in r.entries]
    assert r.members == 2 and all(len(e.spread.values) == 2 for e in r.entries)
    assert r.best.spread.worst == min(worst) <= r.entries[r.nominal].spread.worst
    assert r.entries[r.nominal].spread.nominal == min(e.spread.nominal for e in r.entries)


def _forced(entries) -> RobustChoice:
    """Two candidates where the nominal optimum (0) has the worse worst case: the pick is 1."""
    a = replace(entries[0], spread=Spread(100.0, (120.0, 130.0)))
    b = replace(entries[1], spread=Spread(110.0, (111.0, 112.0)))
    return RobustChoice("zen1", "bmi2", 2, 0, (a, b), 0, 1)


def test_export_robust_prints_every_spread_and_calls_a_moved_pick_a_robust_pick(entries):
    lines = describe(_forced(entries))
    assert sum("ensemble of 2: " in line and "c/B nominal" in line for line in lines) == 2
    assert "a robust pick, not the optimum under the model" in lines[-1]
    assert not any("proved optimal" in line for line in lines)


def test_search_robust_prints_the_spread_and_never_calls_a_moved_pick_optimal():
    c0, c1 = Candidate(40, 44, "x86_64", TEXTBOOK), Candidate(40, 44, "x86_64", replace(TEXTBOOK, rol5="rorx"))
    pool = RobustPool(2, 0, (Pooled("nominal optimum", c0, Spread(20.0, (25.0, 26.0))),
                             Pooled("run 1's best", c1, Spread(21.0, (22.0, 23.0)))), 1)
    r = Report("zen1", "x86_64", 40, 44, 20.0, 24.0, None, "", [], c0, [], "proved", True, "", 0, 0.0, "budget",
               1, 0, robust=pool, robust_proof="proved: whole block")
    text = "\n".join(robust_lines(r))
    assert "ensemble of 2: 25.0 / 25.5 / 26.0 cycles" in text and "ensemble of 2: 22.0 / 22.5 / 23.0 cycles" in text
    assert "a robust pick, not the optimum under the model" in text and "proved optimal" not in text
    kept = replace(r, robust=replace(pool, pick=0))
    assert "the nominal optimum" in robust_lines(kept)[1]


def test_with_a_host_the_ensemble_only_orders_the_timed_candidates_and_each_spread_is_printed(entries):
    ordered = worst_case_order(load_model("zen1"), members=2)(entries)
    assert sorted(map(id, (e.choice for e in ordered))) == sorted(map(id, (e.choice for e in entries)))
    assert [(e.spread.worst, e.spread.nominal) for e in ordered] == \
        sorted((e.spread.worst, e.spread.nominal) for e in ordered)
    m = Measurement(1.0, 0.99, 1.01, 4)
    t = Tuning(tuple(Timed(e, Validation()) for e in ordered), (m,) * len(ordered), 4.0, 0, "lowest", "done", 1)
    assert all("ensemble of 2: " in line for line in describe_tuning(t) if line.startswith("candidate"))


def test_show_robust_prints_the_spread_beside_the_figure():
    r = CliRunner().invoke(main, ["show", "--uarch", "zen1", "--rounds", "40-41", "--robust"])
    assert r.exit_code == 0, r.output
    assert "cycles nominal; ensemble of 12: " in r.output.splitlines()[1]


def test_the_timed_pool_keeps_the_reference_first_and_prices_every_entry(entries, monkeypatch):
    from sha1opt.emit.tuning import pool
    monkeypatch.setattr(SCALAR, "ranked", lambda *a, **k: [e.choice for e in entries[1:]][::-1])
    got = pool("zen1", "x86_64", "base", 2, order=worst_case_order(load_model("zen1"), members=2))
    assert got[0].default and got[0].choice.code.name == "textbook" and all(e.spread is not None for e in got)
    rest = [(e.spread.worst, e.spread.nominal) for e in got[1:]]
    assert rest == sorted(rest) and len(got) == len(entries)
