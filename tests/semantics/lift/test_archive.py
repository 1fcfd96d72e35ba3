"""``lift.archive.members``: an ``ar`` archive's members read in process, as ``ar`` itself lists and extracts them.

The rule (GNU ar format, what binutils writes and Debian ships): short names end in "/", long names come from
the "//" table, the symbol table "/" is not a member, each member's bytes are what ``ar p`` prints; a corrupt
or truncated archive is an ``ArchiveError``, never another exception.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from sha1opt.semantics.lift.archive import ArchiveError, members

pytestmark = pytest.mark.skipif(not (shutil.which("ar") and shutil.which("gcc")), reason="ar/gcc not installed")


def test_members_match_ar_t_and_ar_p(tmp_path):
    """Two objects with a symbol table (ar rcs), one name longer than 15 characters: names as `ar t` lists them,
    bytes as `ar p` prints them."""
    names = ["s.o", "a_member_name_longer_than_sixteen.o"]
    for i, n in enumerate(names):
        (tmp_path / f"{i}.c").write_text(f"int f{i}(void) {{ return {i}; }}\n")
        subprocess.run(["gcc", "-c", "-o", str(tmp_path / n), str(tmp_path / f"{i}.c")], check=True, timeout=60)
    lib = tmp_path / "lib.a"
    subprocess.run(["ar", "rcs", str(lib), *(str(tmp_path / n) for n in names)], check=True, timeout=60)
    data = lib.read_bytes()
    listed = subprocess.run(["ar", "t", str(lib)], capture_output=True, text=True, check=True, timeout=60).stdout
    got = members(data)
    assert [m.name for m in got] == listed.split() == names
    for m in got:
        want = subprocess.run(["ar", "p", str(lib), m.name], capture_output=True, check=True, timeout=60).stdout
        assert data[m.offset:m.offset + m.size] == want


@pytest.mark.parametrize("data", [b"!<thin>\n", b"not an archive", b"!<arch>\ngarbage that is no header",
                                  b"!<arch>\n" + b"x.o/" + b" " * 44 + b"999999    `\n"])
def test_corrupt_archives_are_archive_errors(data):
    with pytest.raises(ArchiveError):
        members(data)
