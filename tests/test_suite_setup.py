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
