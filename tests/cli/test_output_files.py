"""Every file sha1opt writes: only a regular file or a new name, all or nothing, with the user's mode.

Issue 13 item 4. ``semantics.datafiles.atomic_output`` is the one writer; these tests check it
directly and through each command that writes (export -o, show --png, synth --save, demo --outdir),
and that commands which only read the results database open it read-only.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import one_line_error
from sha1opt.cli import main
from sha1opt.search import synth as cegis
from sha1opt.semantics.datafiles import atomic_write, check_output, corpus_dir, output_dir
from sha1opt.semantics.errors import OutputError


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def umask():
    """Set the process umask for one test; restored afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda m: os.umask(m)
    os.umask(old)


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


@pytest.fixture
def unwritable_dir(tmp_path):
    """A directory nothing can be created in: mode 0555, or /proc when running as root."""
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o555)
    try:
        fd, probe = tempfile.mkstemp(dir=d)
    except OSError:
        yield d
    else:                                   # root ignores the mode bits
        os.close(fd)
        os.unlink(probe)
        if not Path("/proc/self").is_dir():
            pytest.skip("no directory is unwritable here")
        yield Path("/proc")
    finally:
        d.chmod(0o755)


# --- the writer ------------------------------------------------------------------------------


def test_new_file_honours_the_umask_not_0600(tmp_path, umask):
    umask(0o027)
    p = atomic_write(tmp_path / "new.S", "x\n")
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_existing_file_keeps_its_mode(tmp_path, umask):
    p = tmp_path / "old.S"
    p.write_text("old\n")
    p.chmod(0o644)
    umask(0o077)
    atomic_write(p, "new\n")
    assert p.read_text() == "new\n" and stat.S_IMODE(p.stat().st_mode) == 0o644


def test_set_id_bits_are_not_carried_onto_new_content(tmp_path):
    p = tmp_path / "tool"
    p.write_text("old\n")
    p.chmod(0o4755)
    atomic_write(p, "new\n")
    assert stat.S_IMODE(p.stat().st_mode) == 0o755


def test_a_fifo_is_refused_and_left_a_fifo(fifo):
    with pytest.raises(OutputError, match="a FIFO, not a regular file"):
        atomic_write(fifo, "x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_character_device_is_refused():
    # check_output only (no write is attempted): /dev/null must never be replaced, even as root.
    with pytest.raises(OutputError, match="a character device, not a regular file"):
        check_output("/dev/null")


def test_proc_self_fd_of_a_pipe_is_refused():
    r, w = os.pipe()
    try:
        with pytest.raises(OutputError, match="a FIFO"):
            atomic_write(f"/proc/self/fd/{w}", "x")
    finally:
        os.close(r)
        os.close(w)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(OutputError, match="a directory"):
        atomic_write(tmp_path, "x")


def test_a_symlink_is_written_through_not_replaced(tmp_path):
    """Regression: the rename replaced the link itself with a regular file (a shell's > writes through)."""
    target = tmp_path / "real.S"
    target.write_text("old\n")
    link = tmp_path / "link.S"
    link.symlink_to(target)
    atomic_write(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_symlink_to_a_device_is_refused(tmp_path):
    link = tmp_path / "null.S"
    link.symlink_to("/dev/null")
    with pytest.raises(OutputError, match="character device"):
        check_output(link)


def test_output_dir_refuses_an_unwritable_directory(unwritable_dir):
    with pytest.raises(OutputError, match="cannot"):
        output_dir(unwritable_dir / "out")


# --- export -o ----------------------------------------------------------------------------------


def test_export_onto_a_fifo_is_refused_before_validating(fifo):
    r = run("export", "-o", str(fifo))
    one_line_error(r, "a FIFO, not a regular file")
    assert "validated" not in r.output and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_export_onto_dev_null_is_refused():
    one_line_error(run("export", "-o", "/dev/null"), "character device")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_new_file_honours_the_umask(tmp_path, umask):
    umask(0o027)
    r = run("export", "-o", str(tmp_path / "t.S"))
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE((tmp_path / "t.S").stat().st_mode) == 0o640


def test_export_over_an_existing_file_keeps_its_mode(tmp_path, umask):
    p = tmp_path / "t.S"
    p.write_text("old\n")
    p.chmod(0o644)
    umask(0o077)
    assert run("export", "-o", str(p)).exit_code == 0
    assert stat.S_IMODE(p.stat().st_mode) == 0o644 and "sha1_block_data_order" in p.read_text()


def test_export_into_an_unwritable_directory_is_one_line(unwritable_dir):
    one_line_error(run("export", "-o", str(unwritable_dir / "t.S")), str(unwritable_dir))


def test_export_with_a_mistyped_db_creates_nothing(tmp_path):
    db = tmp_path / "typo" / "dir" / "r.db"
    one_line_error(run("export", "--uarch", "p4", "--db", str(db), "-o", str(tmp_path / "t.S")),
                   f"no results database at {db}")
    assert not (tmp_path / "typo").exists() and not (tmp_path / "t.S").exists()


# --- show --png and show --db ------------------------------------------------------------------


def test_show_png_onto_a_fifo_is_refused(fifo):
    one_line_error(run("show", "--uarch", "p4", "--png", str(fifo)), "a FIFO")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_show_png_honours_the_umask(tmp_path, umask):
    umask(0o027)
    png = tmp_path / "g.png"
    r = run("show", "--uarch", "p4", "--rounds", "40-41", "--png", str(png))
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and stat.S_IMODE(png.stat().st_mode) == 0o640


def test_show_png_into_an_unwritable_directory_is_one_line(unwritable_dir):
    one_line_error(run("show", "--uarch", "p4", "--png", str(unwritable_dir / "g.png")), str(unwritable_dir))


def test_show_with_a_mistyped_db_creates_nothing(tmp_path):
    db = tmp_path / "typo" / "r.db"
    one_line_error(run("show", "--uarch", "p4", "--db", str(db)), f"no results database at {db}")
    assert not (tmp_path / "typo").exists()


def test_show_opens_the_db_read_only(tmp_path):
    """Regression: show created the results table (and a journal) in whatever file --db named."""
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    assert run("show", "--uarch", "p4", "--rounds", "40-41", "--db", str(db)).exit_code == 0
    assert db.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_show_without_db_and_no_default_database_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("SHA1OPT_DB", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    r = run("show", "--uarch", "p4", "--rounds", "40-41")
    assert r.exit_code == 0 and "default schedule" in r.output
    assert not (tmp_path / "cache").exists()


# --- synth --save -------------------------------------------------------------------------------

SYNTH = ("synth", "--target", "f1", "--temps", "1", "--max-len", "4", "--save-limit", "1")


def test_synth_save_writes_the_user_file_not_the_package(tmp_path, monkeypatch, umask):
    """Regression: --save rewrote corpus/discovered.toml inside the installed package, mode 0600."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shipped = corpus_dir() / "discovered.toml"
    before = shipped.read_bytes()
    umask(0o022)
    r = run(*SYNTH, "--save")
    user = tmp_path / "data" / "sha1opt" / "discovered.toml"
    assert r.exit_code == 0 and f"saved 1 sequence(s) to {user}" in r.output, r.output
    assert shipped.read_bytes() == before
    assert stat.S_IMODE(user.stat().st_mode) == 0o644
    assert [(row.target, row.length) for row in cegis.load_discovered(user)] == [("f1", 4)]


def test_synth_save_to_a_path(tmp_path):
    path = tmp_path / "mine.toml"
    assert run(*SYNTH, "--save", str(path)).exit_code == 0
    assert len(cegis.load_discovered(path)) == 1


def test_synth_save_onto_a_fifo_is_refused(fifo):
    one_line_error(run(*SYNTH, "--save", str(fifo)), "a FIFO")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# --- demo --outdir ------------------------------------------------------------------------------


def test_demo_into_an_unwritable_directory_is_one_line_before_any_work(unwritable_dir):
    r = run("demo", "--outdir", str(unwritable_dir / "out"))
    one_line_error(r, str(unwritable_dir / "out"))
    assert "[ok]" not in r.output


def test_demo_outdir_that_is_a_file_is_refused(tmp_path):
    f = tmp_path / "out"
    f.write_text("")
    one_line_error(run("demo", "--outdir", str(f)), "not a directory")
