"""An archive member that calls the C library or other members runs natively in the hosted archive harness.

Rule (issue 24; ``emit.harness.ArchiveHarness``, ``emit.confirm.harness_for``): an archive member whose code calls
functions the freestanding harness does not define (``confirm.stubbed_calls``: the C library's, another member's)
is linked as a libc program with the rest of the archive and the C library, so those calls run; the function
pointers a proved path jumped through are written back after the constructors as the file holds them, so each
record's first call takes the resolver (nettle's fat ``nettle_sha1_compress`` reaching
``nettle_sha1_compress_init``: before, its mutants could not be run at all). The archive is built here from the
tests' own ``csrc/sha1_archive_resolver.c`` and the project's ``emit/csrc/sha1_ref.c``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.confirm import Finding, confirm, expected
from sha1opt.emit.harness import ArchiveHarness, Record
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import csrc, host_is_x86_64

SOURCE = Path(__file__).resolve().parent.parent / "semantics" / "lift" / "csrc" / "sha1_archive_resolver.c"
STATE = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)
BLOCK = bytes(range(64))


def _archive(folder: Path, extra: str) -> Path:
    if shutil.which("gcc") is None or shutil.which("ar") is None or not host_is_x86_64():
        pytest.skip("needs gcc and ar (setup/system-packages.sh) and an x86-64 host")
    folder.mkdir()
    for src, out, defs in ((SOURCE, "fat.o", [f"-DEXTRA={extra}"] if extra else []),
                           (csrc("sha1_ref.c"), "sha1_ref.o", [])):
        subprocess.run(["gcc", "-O2", *defs, "-c", "-o", str(folder / out), str(src)], check=True, timeout=120)
    subprocess.run(["ar", "rcs", str(folder / "lib.a"), str(folder / "fat.o"), str(folder / "sha1_ref.o")],
                   check=True, timeout=60)
    return folder / "lib.a"


def _renamed(archive: Path, work: Path) -> Path:
    """The member with ``entry`` renamed as the block harness calls it."""
    out = work / "renamed.o"
    subprocess.run(["ar", "p", str(archive), "fat.o"], check=True, timeout=60, stdout=(work / "fat.o").open("wb"))
    subprocess.run(["objcopy", "--redefine-sym=entry=sha1_block_data_order", str(work / "fat.o"), str(out)],
                   check=True, timeout=60)
    return out


def _state_after_one_block(tmp_path: Path, extra: str, restore: tuple[str, ...]):
    tmp_path.mkdir(exist_ok=True)
    archive = _archive(tmp_path / "lib", extra)
    harness = ArchiveHarness(_renamed(archive, tmp_path), "x86_64", tmp_path, archive, restore=restore)
    return harness.run([Record(STATE, BLOCK)])


def test_resolver_path_runs_when_its_pointer_is_restored(tmp_path):
    good = _state_after_one_block(tmp_path / "good", "", ("vec",))
    assert isinstance(good, list) and good[0].state == expected(STATE, BLOCK) and good[0].flags == 0, good
    # the wrong resolver hashes one block too many: it reads past the data (the guard page) or hashes two
    bad = _state_after_one_block(tmp_path / "bad", "+1", ("vec",))
    assert not isinstance(bad, list) or bad[0].state != expected(STATE, BLOCK), bad


def test_without_restoring_the_constructor_chosen_pointer_skips_the_resolver(tmp_path):
    got = _state_after_one_block(tmp_path, "+1", ())
    assert isinstance(got, list) and got[0].state == expected(STATE, BLOCK) and got[0].flags == 0, got


def test_confirm_links_the_archive_and_agrees_on_the_correct_resolver(tmp_path):
    archive = _archive(tmp_path / "lib", "")
    proof = prove_object(archive, member="fat.o", function="entry", workdir=tmp_path, native=False)
    assert proof.outcome == "proved" and {t for p in proof.proof.paths for _, t in p.pointers} == \
        {"init", "sha1_ref_block_data_order"}, proof.summary()
    uo = load_object(archive, tmp_path, member="fat.o")
    assert confirm(uo, "entry", 0, tmp_path, lifted=proof.proof) is None


def test_confirm_finds_the_wrong_resolver_through_the_proofs_pointers(tmp_path):
    good = _archive(tmp_path / "good", "")
    proof = prove_object(good, member="fat.o", function="entry", workdir=tmp_path, native=False)
    bad = _archive(tmp_path / "bad", "+1")
    uo = load_object(bad, tmp_path, member="fat.o")
    assert isinstance(confirm(uo, "entry", 0, tmp_path, lifted=proof.proof), Finding)
    assert confirm(uo, "entry", 0, tmp_path) is None        # (unlifted: the constructor's value, never init)
