"""``-I DIR`` and ``-D NAME[=VALUE]`` for a ``.S`` input of ``prove --object``, ``analyze`` and ``bench`` (issue 24).

The rule: the ``.S`` goes through cpp with the given include directories (its own directory first: the file is
assembled from a copy) and macros, passed to gcc as argument-list items; a NAME that is not a C identifier or a
DIR that is not a directory is one line and exit 2 before anything runs (``emit.toolchain.preprocessor``). The
source here is sha1opt's own export split into a file that needs both: an ``#include`` of the body from another
folder and an ``#error`` unless the macro is defined.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.emit.toolchain import Preprocessor, ToolchainError, preprocessor
from sha1opt.emit.validate import validate_source
from sha1opt.search.space.candidate import textbook
from tests.support.cli import one_line_error

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc not installed")


@pytest.fixture
def split(tmp_path) -> tuple[Path, Path]:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "body.inc").write_text(function_text(textbook("x86_64")))
    src = tmp_path / "src"
    src.mkdir()
    (src / "local.h").write_text("#define FROM_LOCAL 1\n")
    top = src / "top.S"
    top.write_text('#include "local.h"\n#ifndef WANT\n#error WANT not defined\n#endif\n'
                   '#if ROUNDS != 80\n#error ROUNDS\n#endif\n#include "body.inc"\n')
    return top, inc


def test_prove_object_and_analyze_take_include_dirs_and_defines(split):
    """Without -I/-D the file does not assemble (the #error line is quoted); with them the function is proved,
    and the file's own directory is searched for its local include."""
    top, inc = split
    r = CliRunner().invoke(main, ["prove", "--object", str(top), "--arch", "x86_64"])
    assert r.exit_code == 2 and "#error WANT not defined" in r.stderr, r.output
    args = ["--arch", "x86_64", "-I", str(inc), "-D", "WANT", "--define", "ROUNDS=80"]
    r = CliRunner().invoke(main, ["prove", "--object", str(top), *args])
    assert r.exit_code == 0 and "proved SHA-1 (whole function sha1_block_data_order" in r.stdout, r.output
    r = CliRunner().invoke(main, ["analyze", str(top), "--uarch", "zen3", *args])
    assert r.exit_code == 0 and "proved SHA-1" in r.stdout, r.output


@pytest.mark.parametrize("bad, needle", [(["-D", "W-X=1"], "is not a macro name"),
                                         (["-D", "-fplugin=x.so"], "is not a macro name"),
                                         (["-D", "A=1\nB"], "newline"),
                                         (["-I", "/nonexistent-dir"], "not a directory")])
def test_bad_define_or_include_is_one_line_exit_2(split, bad, needle):
    """Our own check of NAME (a C identifier: nothing can become a gcc option) and DIR, for each command."""
    top, _ = split
    for cmd in (["prove", "--object", str(top)], ["analyze", str(top)], ["bench", str(top)]):
        r = CliRunner().invoke(main, [*cmd, *bad])
        one_line_error(r, needle)


def test_flags_are_argument_list_items():
    """``Preprocessor.flags``: "-I" and the absolute directory as two items, the source's directory first,
    "-DNAME" / "-DNAME=VALUE" as one item each (a value with spaces stays one argument)."""
    cpp = preprocessor(["/tmp"], ["A", "B=two words"])
    assert cpp.flags(Path("/usr/src/x.S")) == ["-I", "/usr/src", "-I", "/tmp", "-DA", "-DB=two words"]
    assert Preprocessor().flags() == []
    with pytest.raises(ToolchainError):
        preprocessor([], ["=1"])


def test_bench_validation_assembles_with_them(split, tmp_path):
    """``bench``'s first step (``validate.validate_source``) assembles the .S with -I/-D: the assemble, lift and
    prove checks pass with them and the assemble check fails without."""
    top, inc = split
    work = tmp_path / "w"
    work.mkdir()
    v = validate_source(top, "x86_64", work, native=False, cpp=preprocessor([inc], ["WANT", "ROUNDS=80"]))
    done = {c.name: c.ok for c in v.checks}
    assert done.get("assemble") and done.get("prove"), [(c.name, c.ok, c.detail) for c in v.checks]
    work2 = tmp_path / "w2"
    work2.mkdir()
    v = validate_source(top, "x86_64", work2, native=False)
    assert [(c.name, c.ok) for c in v.checks] == [("assemble", False)]
