"""Inputs a new user tries first: an archive with several SHA-1-named members, a ``.o`` without a line table
(issue 27, item 7)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.objfile import MEMBER_HELP
from sha1opt.search.cost.classes import classify
from sha1opt.search.cost.model import UarchError, load_model
from sha1opt.semantics.opaque import Opaque
from sha1opt.semantics.x86 import Instr, Reg

RET = "\t.text\n\t.globl sha1_block_data_order\nsha1_block_data_order:\n\tret\n"


@pytest.fixture
def archive(tmp_path):
    """lib.a with two members whose names contain sha1 (as libcrypto.a has ten) and one that does not."""
    names = []
    for stem in ("aesni-sha1", "sha1-x86_64", "md5"):
        (tmp_path / f"{stem}.s").write_text(RET)
        subprocess.run([shutil.which("gcc"), "-c", "-o", str(tmp_path / f"{stem}.o"), str(tmp_path / f"{stem}.s")],
                       check=True)
        names.append(str(tmp_path / f"{stem}.o"))
    subprocess.run([shutil.which("ar"), "rcs", str(tmp_path / "lib.a"), *names], check=True)
    return tmp_path / "lib.a"


def test_regression_member_help_the_one_sha1_member(archive):
    """`--member`'s help said "the one SHA-1 member" (libcrypto.a has ten candidates) and the refusal did not say
    why none was taken: both say what the default is (the one member named like sha1), and the refusal names
    the candidates, one line, exit 2, for prove --object and analyze."""
    for args in (["prove", "--object", str(archive)], ["analyze", str(archive), "--uarch", "zen3"]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2, r.output
        err = r.output.strip()
        assert len(err.splitlines()) == 1, err
        assert '2 of its 3 members have "sha1" in their name' in err and "aesni-sha1.o, sha1-x86_64.o" in err, err
    assert 'the one member whose name contains "sha1"' in MEMBER_HELP
    for command in ("prove", "analyze"):
        help_text = " ".join(CliRunner().invoke(main, [command, "--help"]).output.split())
        assert " ".join(MEMBER_HELP.split()) in help_text


def test_regression_object_line_0():
    """A `.o` without a line table gave "line 0: sha1msg1 ... needs SHA, which core2 does not have" (analyze
    --json, each path's error): the lifter gives such instructions line 0, and the refusal prints no line
    then -- and the right one when there is one."""
    core2 = load_model("core2")
    vector = Opaque("sha1msg1", (Reg("xmm5", 128), Reg("xmm4", 128)), 0, "vector")
    scalar = Instr("rorx", (Reg("eax", 32), Reg("ebx", 32)), 0)
    for item in (vector, scalar):
        with pytest.raises(UarchError) as e:
            classify(item, core2)
        assert "line" not in str(e.value) and "which core2 does not have" in str(e.value)
    with pytest.raises(UarchError, match=r"^line 12: sha1msg1"):
        classify(Opaque("sha1msg1", (Reg("xmm5", 128), Reg("xmm4", 128)), 12, "vector"), core2)
