"""Shared fixtures: one Prover per test module is enough (each owns a z3.Context); the expensive
end-to-end runs that several test files check (the dispatching export of each arch, the proof of
OpenSSL's x86-64 SHA-1) are made once per session, through the CLI, and recorded for all of them.

With ``make test``'s ``-n auto --dist loadgroup`` each xdist worker has its own session: the tests that use one
of these fixtures are put in one xdist group (``pytest_collection_modifyitems``), so each is made once per run,
on one worker, whichever files its users live in.

A recording wraps the library function the CLI calls (``spy``): the call runs as it would, with the
CLI's own arguments; the fixture only keeps its arguments and result. Nothing is replaced.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import sha1opt.analyze as analyze_module
import sha1opt.cli_emit as cli_emit
import sha1opt.cli_prove as cli_prove
from sha1opt.analyze import ObjectProof
from sha1opt.cli import main
from sha1opt.emit.dispatch_plan import DispatchPlan
from sha1opt.emit.export import ExportResult, export
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import FunctionProof, prove_function
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.prove import Prover
from tests.support.cpu import not_run_here
from tests.support.slow_list import load as load_slow_list

OPENSSL_X86_64 = (Path("/usr/lib/x86_64-linux-gnu/libcrypto.a"), "libcrypto-lib-sha1-x86_64.o")
NETTLE_FAT = (Path("/usr/lib/x86_64-linux-gnu/libnettle.a"), "fat-x86_64.o")


COLLECTED = pytest.StashKey[dict]()   # every collected node id (before -m deselects) -> decorated slow

SHARED = ("textbook_exports", "dispatch_runs", "openssl_x86_64_analysis",   # session fixtures made once per run
          "nettle_fat_proof")

# The groups that take longest (pytest --durations on 2 cores, 2026-12-03), handed out first. ``--dist loadgroup``
# gives groups to the workers in collection order (``make test`` passes ``--no-loadscope-reorder``: xdist would
# otherwise order them by test count, which put these few-test, heavy groups last -- the run's tail, one worker
# busy and the other idle); every other group follows, the largest first.
HEAVY_FIRST = ("openssl_x86_64_analysis", "dispatch_runs", "tests/emit/test_calibrate.py",
               "tests/semantics/lift/test_lift_calls.py", "tests/search/test_search.py", "tests/test_any_host.py",
               "tests/cli/test_other_libraries.py", "tests/search/test_shani.py",
               "tests/semantics/lift/test_lift_openssl.py", "tests/semantics/lift/test_lift_cc.py",
               "tests/cli/test_demo_store.py", "tests/semantics/lift/test_lift_libgcrypt.py",
               "tests/cli/test_show_equals_search.py", "tests/emit/test_tuning.py", "textbook_exports")


@pytest.hookimpl(tryfirst=True)          # before xdist reads the marks into the node ids (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    """Each test that uses a ``SHARED`` fixture (directly or through another fixture) joins that fixture's xdist
    group, so ``--dist loadgroup`` sends all of its users to one worker (a test using two joins the first); every
    other test without a group joins its file's, so a module's fixtures and the process's memos (the block-loop
    measure, ``bound.round_choices``, the models) are made on one worker, not on both."""
    slow = load_slow_list()             # tests/slow.toml: the checks make test leaves out, each with its reason
    config.stash[COLLECTED] = {item.nodeid: item.get_closest_marker("slow") is not None for item in items}
    group = {}
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
        used = [name for name in SHARED if name in getattr(item, "fixturenames", ())]
        if used:
            item.add_marker(pytest.mark.xdist_group(used[0]))
        elif item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
        group[item] = item.get_closest_marker("xdist_group").kwargs.get("name") or \
            item.get_closest_marker("xdist_group").args[0]
    size: dict[str, int] = {}
    for g in group.values():
        size[g] = size.get(g, 0) + 1
    rank = {g: k for k, g in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda it: (rank.get(group[it], len(rank)), -size[group[it]], group[it]))   # stable in a group


@pytest.fixture(scope="session", autouse=True)
def _session_results_db(tmp_path_factory):
    """The default results store of the session's fixtures: never the user's ``~/.cache`` (``show``, ``export``
    and ``--dispatch`` store the hybrid and SHA-NI blocks they search)."""
    old = os.environ.get("SHA1OPT_DB")
    os.environ["SHA1OPT_DB"] = str(tmp_path_factory.mktemp("results") / "results.sqlite")
    yield
    if old is None:
        os.environ.pop("SHA1OPT_DB", None)
    else:
        os.environ["SHA1OPT_DB"] = old


@pytest.fixture(autouse=True)
def _results_db(tmp_path_factory, monkeypatch):
    """Each test's default results store is its own, outside its ``tmp_path`` (a row one test stores is never
    another's, and a test that lists its directory finds only its own files)."""
    monkeypatch.setenv("SHA1OPT_DB", str(tmp_path_factory.mktemp("results") / "results.sqlite"))


@pytest.fixture(scope="module")
def prover():
    return Prover(timeout=20.0)


@pytest.fixture(scope="session")
def textbook_exports(tmp_path_factory) -> dict[str, ExportResult]:
    """``export(textbook(arch), F)`` of each arch, made once per session (assembled, lifted, proved, run
    against the vectors): tests/emit/test_emit.py checks the result; the bench tests time a copy of F."""
    if (reason := not_run_here()) is not None:          # base x86 code, validated natively
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("textbook")
    return {arch: export(textbook(arch), d / f"sha1-{arch}.S") for arch in ("x86_64", "i386")}


@pytest.fixture
def textbook_file(textbook_exports, tmp_path):
    """``textbook_file(arch)``: a copy, in the test's own directory, of the validated textbook export."""
    def copy(arch: str, name: str | None = None) -> Path:
        res = textbook_exports[arch]
        assert res.ok, res.validation.failure
        out = tmp_path / (name or res.path.name)
        out.write_text(res.path.read_text())
        return out
    return copy


def spy(mp: pytest.MonkeyPatch, module, name: str) -> list:
    """Wrap ``module.name`` so each call runs unchanged and its ``(args, kwargs, result)`` is appended to the list."""
    real = getattr(module, name)
    calls: list = []

    def recorded(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append((args, kwargs, result))
        return result

    mp.setattr(module, name, recorded)
    return calls


@dataclass(frozen=True)
class DispatchRun:
    """``sha1opt export --dispatch [--arch A] -o F``, run once.

    ``path``: F; ``export``: the CLI result; ``plan`` / ``result``: what the export command's
    ``export_dispatch(plan, F)`` got and returned.
    """

    path: Path
    export: Result
    plan: DispatchPlan
    result: ExportResult


@pytest.fixture(scope="session")
def dispatch_runs(tmp_path_factory) -> dict[str, DispatchRun]:
    """The model-free dispatching export of each arch (x86-64: the CLI's default arch, no ``--arch``), made once
    per session: each export assembles, proves every path whole, runs the constructor and the vectors once per
    path (tests/cli/test_export_dispatch.py and tests/emit/test_dispatch_export.py check the same runs).
    ``prove --object`` on the written file is ``dispatch_reproof`` (slow checks only: the export's own ``prove``
    check is the same prover on the object the written file re-assembles to, ``export.write_checked``)."""
    if (reason := not_run_here()) is not None:          # the fallback path runs on any x86-64
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("dispatch")
    runs = {}
    for arch, flags in (("x86_64", []), ("i386", ["--arch", "i386"])):
        out = d / f"dispatch_{arch}.S"
        with pytest.MonkeyPatch.context() as mp:
            exported = spy(mp, cli_emit, "export_dispatch")
            ex = CliRunner().invoke(main, ["export", "--dispatch", *flags, "-o", str(out)])
        assert len(exported) == 1, ex.output
        (plan, _), _, result = exported[0]
        runs[arch] = DispatchRun(out, ex, plan, result)
    return runs


@pytest.fixture(scope="session")
def dispatch_reproof(dispatch_runs) -> tuple[Result, ObjectProof]:
    """``sha1opt prove --object F`` on the i386 dispatching file ``dispatch_runs`` wrote (cdecl, the hybrid i386
    path): the CLI result and what its ``prove_object(F)`` returned."""
    with pytest.MonkeyPatch.context() as mp:
        proved = spy(mp, cli_prove, "prove_object")
        pr = CliRunner().invoke(main, ["prove", "--object", str(dispatch_runs["i386"].path)])
    assert len(proved) == 1, pr.output
    return pr, proved[0][2]


@dataclass(frozen=True)
class OpensslAnalysis:
    """``sha1opt analyze libcrypto.a --member libcrypto-lib-sha1-x86_64.o --uarch skylake --uarch zen1``, run once.

    ``cli``: the CLI result; ``proof``: what its ``prove_object(libcrypto.a, member=...)`` returned.
    """

    cli: Result
    proof: ObjectProof


@pytest.fixture(scope="session")
def openssl_x86_64_analysis() -> OpensslAnalysis:
    """OpenSSL's x86-64 SHA-1 (five dispatch paths) proved once per session, through ``analyze`` (the
    paths x models table: tests/cli/test_lift_analyze.py; the proof of each path:
    tests/semantics/lift/test_lift_openssl.py)."""
    lib, member = OPENSSL_X86_64
    if not lib.exists():
        pytest.skip(f"{lib} missing: libssl-dev (setup/system-packages.sh installs it as root)")
    with pytest.MonkeyPatch.context() as mp:
        proved = spy(mp, analyze_module, "prove_object")
        r = CliRunner().invoke(main, ["analyze", str(lib), "--member", member, "--uarch", "skylake", "--uarch", "zen1"])
    assert len(proved) == 1, r.output
    args, kwargs, proof = proved[0]
    assert Path(args[0]) == lib and kwargs["member"] == member, (args, kwargs)
    assert all(kwargs[k] is None for k in ("function", "abi", "arch", "interface")), kwargs
    return OpensslAnalysis(r, proof)


@pytest.fixture(scope="session")
def nettle_fat_proof() -> FunctionProof:
    """nettle's fat-build ``nettle_sha1_compress`` (Debian's ``libnettle.a`` member ``fat-x86_64.o``, nettle-dev)
    proved once per session under one-block SysV: its init paths through getenv, fprintf and the ``sete`` index
    (tests/semantics/lift/test_lift_known_calls.py, test_lift_setcc_fork.py, test_lift_fprintf_contract.py)."""
    lib, member = NETTLE_FAT
    if not lib.exists():
        pytest.skip(f"{lib} missing: nettle-dev (setup/system-packages.sh installs it as root)")
    raw = subprocess.run(["ar", "p", str(lib), member], capture_output=True, check=True, timeout=60).stdout
    return prove_function(ObjectFile.parse(raw), "nettle_sha1_compress", parse_interface("one-block").contract("sysv"))
