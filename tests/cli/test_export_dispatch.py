"""``sha1opt export --dispatch`` and the default ``export --uarch U`` (the predicted-best path of U's ISA)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import sha1opt.emit.dispatch_plan as dispatch_plan
from sha1opt.cli import main
from sha1opt.emit.families import export_choice
from tests.support.cpu import needs

native = needs()


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def no_search(monkeypatch):
    """Each ``--isa`` level's default point instead of its search (the searches take minutes)."""
    monkeypatch.setattr(dispatch_plan, "export_choice", lambda uarch, arch, level, db=None, progress=None:
                        export_choice(None, arch, level, db))


@native
def test_export_dispatch_writes_every_path_in_preference_order(dispatch_runs):
    # `export --dispatch -o F`, run once for the session (tests/conftest.py)
    out, r = dispatch_runs["x86_64"].path, dispatch_runs["x86_64"].export
    assert r.exit_code == 0, r.output
    paths = [ln.split(":")[0] + ":" + ln.split(":")[1] for ln in r.output.splitlines() if ln.startswith("path ")]
    assert [p.split(": ")[1] for p in paths] == ["shani", "avx512", "avx", "ssse3", "scalar"]
    assert "[ok] constructor" in r.output and "[ok] vectors" in r.output and out.exists()
    text = out.read_text()
    assert "sha1opt_cpu_init" in text and ".init_array" in text and "dispatching: 5 paths" in text


@native
@needs("sha", "sse4.1")
def test_on_this_host_the_i386_dispatch_picks_sha_ni(dispatch_runs):
    # `export --dispatch --arch i386 -o F`, run once for the session (tests/conftest.py)
    r = dispatch_runs["i386"].export
    assert r.exit_code == 0, r.output
    assert "this CPU takes path shani" in r.output and "hybrid hybrid-i386:isa=ssse3" in r.output


@native
def test_prove_object_proves_every_path_of_the_i386_dispatching_file(dispatch_reproof):
    # `prove --object F` on the i386 file of `export --dispatch --arch i386 -o F` (tests/conftest.py)
    p, _ = dispatch_reproof
    assert p.exit_code == 0, p.output
    assert "(sha1opt_block_shani)" in p.output and "(sha1opt_block_scalar)" in p.output
    assert "(sha1opt_block_ssse3)" in p.output


@native
def test_isa_caps_the_paths_of_the_dispatch(tmp_path):
    r = run("export", "--dispatch", "--isa", "avx", "-o", str(tmp_path / "d.S"))
    assert r.exit_code == 0, r.output
    assert [ln.split(": ")[0] for ln in r.output.splitlines() if ln.startswith("path ")] == ["path 1", "path 2",
                                                                                                "path 3"]
    assert "path 1: avx:" in r.output and "path 3: scalar:" in r.output and "shani" not in r.output.split("path 1")[1]


def test_dispatch_is_elf_only(tmp_path):
    r = run("export", "--dispatch", "--flavor", "macho", "-o", str(tmp_path / "d.S"))
    assert r.exit_code == 2 and "ELF only" in r.output and not (tmp_path / "d.S").exists()


@native
def test_default_export_with_a_model_writes_its_predicted_best_path(tmp_path, no_search):
    """goldencove has SHA-NI, predicted far below its scalar and hybrid code: plain export writes SHA-NI
    (before, plain export was scalar code whatever the model's ISA)."""
    out = tmp_path / "gc.S"
    r = run("export", "--uarch", "goldencove", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "exporting shani: shani" in r.output and "code: SHA-NI" in out.read_text()


def test_default_export_refuses_macho_when_the_best_path_is_sha_ni(tmp_path, no_search):
    r = run("export", "--uarch", "goldencove", "--flavor", "macho", "-o", str(tmp_path / "gc.S"))
    assert r.exit_code == 2 and "--isa avx512" in r.output


@native
def test_default_export_without_a_vector_isa_is_the_scalar_best_as_before(tmp_path):
    out = tmp_path / "p4.S"
    r = run("export", "--uarch", "p4", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "rounds 0-19: default schedule" in r.output and "exporting scalar:" in r.output
    assert "arch: i386   uarch: p4" in out.read_text()
