"""How ``make test`` runs: on every core (pytest-xdist ``-n auto --dist loadgroup``), each session fixture made
once per run (tests/conftest.py puts its users in one xdist group)."""

import pytest


@pytest.mark.xdist_group("probe")
def test_regression_xdist_groups_were_silently_ignored(request):
    """With pytest 9.2 and pytest-xdist 3.8, ``--dist loadgroup`` left the node ids without their ``@group``
    suffix, so a session fixture's users ran on both workers and each made the fixture (the dispatching export
    twice: 60 s of CPU). Under ``--dist loadgroup`` a grouped test's id carries its group."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run with --dist loadgroup (make test runs so)")
    assert request.node.nodeid.endswith("@probe"), request.node.nodeid


def test_the_session_fixtures_users_are_grouped(request):
    """A test using a shared session fixture joins its group (tests/conftest.py ``SHARED``)."""
    from tests.conftest import SHARED
    items = [i for i in request.session.items if set(SHARED) & set(getattr(i, "fixturenames", ()))]
    for item in items:
        used = [n for n in SHARED if n in item.fixturenames]
        assert [m.args[0] for m in item.iter_markers("xdist_group")] == [used[0]], item.nodeid


def _group(item) -> str:
    mark = item.get_closest_marker("xdist_group")
    return mark.kwargs.get("name") or mark.args[0]


def test_regression_heavy_few_test_groups_ran_last_as_the_runs_tail(request):
    """xdist (3.6+) orders the groups by test count unless told not to, which put the heaviest groups -- a few
    long tests each (the calibration, the any-host children, other libraries) -- at the end: one worker busy
    for a minute, the other idle. ``make test`` passes ``--no-loadscope-reorder`` and tests/conftest.py puts
    ``HEAVY_FIRST`` at the head of the collection, in that order."""
    from pathlib import Path

    from tests.conftest import HEAVY_FIRST
    assert "--no-loadscope-reorder" in (Path(__file__).parent.parent / "Makefile").read_text()
    order: list[str] = []
    for item in request.session.items:
        if not order or order[-1] != _group(item):
            order.append(_group(item))
    heavy = [g for g in HEAVY_FIRST if g in order]
    assert order[:len(heavy)] == heavy, order[:len(heavy) + 2]
    assert len(order) == len(set(order))                    # each group in one run of the collection
