"""How ``make test`` runs: on every core (pytest-xdist ``-n auto --dist loadgroup``), each session fixture made
once per run (tests/conftest.py puts its users in one xdist group)."""

import pytest

from tests.support.slow_list import load as load_slow_list


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


def _collected(request, files: list[str]) -> dict[str, bool]:
    """Every test of ``files`` -> marked slow by a decorator: this session's collection when it holds them all
    (``make test`` collects every file, slow tests included, before ``-m`` deselects), else one
    ``pytest --collect-only`` of them."""
    from tests.conftest import COLLECTED
    seen = request.config.stash.get(COLLECTED, {})
    if all(any(t.startswith(f + "::") for t in seen) for f in files):
        return seen
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p",
                           "no:cacheprovider", *sorted(set(files))], cwd=root, capture_output=True, text=True,
                          timeout=300)
    listed = set(load_slow_list())          # (a decorator's mark is not in this output: listed rows only)
    return {t: t in listed for t in (line.strip() for line in proc.stdout.splitlines() if "::" in line)}


def test_every_slow_list_row_is_a_slow_test_kept_by_fast_ones(request):
    """tests/slow.toml (tests/support/slow_list.py): each listed test exists (tests/conftest.py marks it slow, so
    ``make test`` leaves it out and bench/slow_checks.py runs it); each fast test it names exists and is neither
    listed nor marked slow, so the rule stays in ``make test``. A renamed test would otherwise drop silently out
    of both lists."""
    rows = load_slow_list()
    tests = _collected(request, [t.split("::")[0] for r in rows.values() for t in (r.test, *r.fast)])
    for r in rows.values():
        assert r.test in tests, f"{r.test}: no such test"
        for f in r.fast:
            ids = [t for t, slow in tests.items() if (t == f or t.startswith(f + "[")) and not slow and t not in rows]
            assert ids, f"{r.test}: its fast test {f} is not run by make test"


def test_the_slow_list_loader_refuses_unknown_keys_and_rows_without_a_reason(tmp_path):
    bad = tmp_path / "slow.toml"
    bad.write_text('[[check]]\ntest = "tests/x.py::t"\nwhy = "w"\nfast = ["tests/x.py::u"]\nseconds = 3\n')
    with pytest.raises(ValueError, match="unknown key"):
        load_slow_list(bad)
    bad.write_text('[[check]]\ntest = "tests/x.py::t"\nfast = ["tests/x.py::u"]\n')
    with pytest.raises(ValueError, match="needs test, why and fast"):
        load_slow_list(bad)


def test_regression_every_process_of_the_suite_compiled_its_imports_again():
    """On a host that sets PYTHONDONTWRITEBYTECODE (these VMs do), ``pip install --no-compile`` meant no process
    ever wrote bytecode: each of the suite's workers and subprocesses compiled z3, numpy, dask and the project
    from source (3.3 s of CPU to import the four heavy packages, 1.2 s with bytecode), about 60 CPU-s of a
    fresh-clone ``make test``. The Makefile unexports the variable, so under make (``MAKELEVEL`` set) the suite
    writes bytecode on first import."""
    import os
    import sys
    if "MAKELEVEL" not in os.environ:
        pytest.skip("not run by make (make test runs so)")
    assert not sys.flags.dont_write_bytecode and not os.environ.get("PYTHONDONTWRITEBYTECODE")
