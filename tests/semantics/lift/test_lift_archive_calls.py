"""A call into another member of the same archive is followed (``emit.objfile.with_called_members``).

The rule: an archive member whose code calls (``call rel32``) a function with
no contract that another member defines is proved linked (``ld -r``) with
that member, so the call runs the callee's code as a local function. The
case: i386 OpenSSL's ``sha1dgst.o`` ``SHA1_Transform`` calls
``sha1_block_data_order`` in ``sha1-586.o`` (refused before: "calls an
external function the lifter has no contract for"). Here: sha1opt's own
export as one member and a C wrapper written here as another.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.interface import KEYWORDS

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("ar") and shutil.which("ld")),
                                reason="gcc, ar or ld not installed")

WRAP = """typedef unsigned int u32;
void sha1_block_data_order(u32 *state, const void *data, unsigned long nblocks);
void sha1_one(u32 *state, const void *data) { sha1_block_data_order(state, data, 1); }
"""


def test_a_call_into_another_member_is_proved_through_its_code(tmp_path):
    (tmp_path / "block.S").write_text(function_text(textbook("x86_64")))
    (tmp_path / "wrap.c").write_text(WRAP)
    subprocess.run(["gcc", "-c", "-o", str(tmp_path / "block.o"), str(tmp_path / "block.S")], check=True,
                   timeout=60)
    subprocess.run(["gcc", "-O2", "-fno-optimize-sibling-calls", "-c", "-o", str(tmp_path / "wrap.o"),
                    str(tmp_path / "wrap.c")], check=True, timeout=60)
    subprocess.run(["ar", "rcs", str(tmp_path / "lib.a"), str(tmp_path / "wrap.o"), str(tmp_path / "block.o")],
                   check=True, timeout=60)
    work = tmp_path / "work"
    work.mkdir()
    res = prove_object(tmp_path / "lib.a", member="wrap.o", function="sha1_one", interface=KEYWORDS["one-block"],
                       workdir=work)
    assert res.proved, res.summary()
    assert "linked (ld -r) with block.o" in res.source
