"""bench/other_libraries.py (issue 24): the accounting of its mutants, on sha1opt's own export and one real library.

The rules: every mutant made is judged once and counted under exactly the verdict ``bench/lift_mutants.judge``
gives it (the log line and the count agree, the counts add up to the mutants made, none is UNSOUND); a library
that is not installed is one line, not a failure; a function found by its symbol in an archive is proved under
the catalogue's interface before any mutant is made. A function whose own code is one jump through a function
pointer (nettle's fat entry) is mutated in the code of the pointer's values in its member (the resolver), each
mutant judged in a copy of the archive; a mutant whose native runs agree with SHA-1 but show other bytes than
the unmutated function (``lift_mutants.output_differs``) is refuted by its output.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.archive import members
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import DEFAULT

ROOT = Path(__file__).resolve().parents[2]
VERDICTS = {"equivalent (proved)", "refuted, confirmed natively", "refuted natively (prover: not proved)",
            "refuted natively (prover refused)", "refuted natively by its output (prover refused)",
            "refuted natively by its output (prover: not proved)", "not proved, not refuted",
            "UNSOUND: proved, differs natively"}
RESOLVER = ROOT / "tests" / "semantics" / "lift" / "csrc" / "sha1_archive_resolver.c"
pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc not installed")


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        yield importlib.import_module("other_libraries")
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_mutants_of_our_export_are_each_counted_once_under_their_verdict(bench, tmp_path):
    """Two mutants of the textbook export: two log lines, two counted, each line's verdict the one counted."""
    src = tmp_path / "export.S"
    src.write_text(function_text(textbook("x86_64")))
    obj = tmp_path / "export.o"
    subprocess.run(["gcc", "-c", "-o", str(obj), str(src)], check=True, timeout=60)
    sym = ObjectFile.parse(obj.read_bytes()).find_function("sha1_block_data_order")
    loc = bench.Located(obj, "export.o", sym)
    orig = prove_object(obj, workdir=tmp_path, native=False)
    assert orig.proved
    lines: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    counts = bench.mutant_counts(loc, orig, None, 2, 2026, work, lines.append)
    assert sum(counts.values()) == len(lines) == 2, lines
    said = [re.search(r"\]: (.*?) -- ", ln).group(1) for ln in lines]
    assert {k: said.count(k) for k in said} == counts
    assert set(counts) <= VERDICTS and "UNSOUND: proved, differs natively" not in counts


def test_a_library_not_installed_is_one_line(bench, tmp_path):
    """A target whose file is missing: "not run: ... not installed", no exception, nothing counted."""
    lines: list[str] = []
    totals = bench.run([bench.Target("nowhere", tmp_path / "libnothing.a", "f")], 20, 1, lines.append)
    assert totals == {} and lines == [f"nowhere f: not run: {tmp_path / 'libnothing.a'} not installed "
                                      "(setup/system-packages.sh)"]


@pytest.mark.skipif(not Path("/usr/lib/x86_64-linux-gnu/libgcrypt.a").exists(),
                    reason="libgcrypt.a not installed (setup/system-packages.sh: libgcrypt20-dev)")
def test_libgcrypt_ssse3_is_found_in_its_member_proved_and_mutated(bench):
    """libgcrypt's SSSE3 transform: located in its archive member by symbol, proved (every path), one mutant."""
    target = next(t for t in bench.TARGETS if t.symbol.endswith("amd64_ssse3"))
    lines: list[str] = []
    totals = bench.run([target], 1, 2026, lines.append)
    assert lines[0].startswith("libgcrypt libgcrypt.a(sha1-ssse3-amd64.o) _gcry_sha1_transform_amd64_ssse3, "), lines
    assert ": proved: proved SHA-1" in lines[0], lines
    assert sum(totals.values()) == 1 and set(totals) <= VERDICTS, lines


def _resolver_archive(folder: Path, extra: str) -> Path:
    folder.mkdir()
    for src, out, defs in ((RESOLVER, "fat.o", [f"-DEXTRA={extra}"] if extra else []),
                           (ROOT / "emit" / "csrc" / "sha1_ref.c", "sha1_ref.o", [])):
        subprocess.run(["gcc", "-O2", *defs, "-c", "-o", str(folder / out), str(src)], check=True, timeout=120)
    subprocess.run(["ar", "rcs", str(folder / "lib.a"), str(folder / "fat.o"), str(folder / "sha1_ref.o")],
                   check=True, timeout=60)
    return folder / "lib.a"


def test_resolver_entry_is_mutated_in_its_resolver_and_judged_in_the_archive(bench, tmp_path):
    """The entry is one ``jmp *vec(%rip)``: the mutants are made in ``init`` (the pointer's initial value), each
    judged with the archive around it (init has two sites: the GOT load and the store); both counted, none UNSOUND."""
    archive = _resolver_archive(tmp_path / "lib", "")
    member = tmp_path / "fat.o"
    member.write_bytes((tmp_path / "lib" / "fat.o").read_bytes())
    sym = ObjectFile.parse(member.read_bytes()).find_function("entry")
    offset = next(m.offset for m in members(archive.read_bytes()) if m.name == "fat.o")
    loc = bench.Located(member, "lib.a(fat.o)", sym, archive, "fat.o", offset)
    orig = prove_object(archive, member="fat.o", function="entry", workdir=tmp_path, native=False)
    assert orig.proved, orig.summary()
    lines: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    counts = bench.mutant_counts(loc, orig, None, 2, 2026, work, lines.append)
    assert sum(counts.values()) == len(lines) == 2, lines
    # (gcc -O2 puts init before entry, whose one jump has nothing to mutate: every site is init's)
    assert all(int(re.search(r" at 0x([0-9a-f]+)", ln).group(1), 16) < sym.value for ln in lines), lines
    assert set(counts) <= VERDICTS and "UNSOUND: proved, differs natively" not in counts, lines


def test_output_differs_compares_the_mutant_with_the_unmutated_function(bench, tmp_path):
    """Run on the same records with the same words, a resolver that hashes a block too many shows other bytes
    than the correct one (answers or exit status); the correct one against itself shows none."""
    lift_mutants = sys.modules["lift_mutants"]
    good = _resolver_archive(tmp_path / "good", "")
    bad = _resolver_archive(tmp_path / "bad", "+1")
    proof = prove_object(good, member="fat.o", function="entry", workdir=tmp_path, native=False).proof
    words = [("entry", ())]
    assert lift_mutants.output_differs(good, good, "entry", tmp_path, words, DEFAULT, proof, "fat.o") is None
    seen = lift_mutants.output_differs(good, bad, "entry", tmp_path, words, DEFAULT, proof, "fat.o")
    assert seen is not None and seen[0] == "entry", seen
