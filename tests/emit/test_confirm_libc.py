"""Native confirmation of objects that call the C library: memcpy, memset, __stack_chk_fail (issue 24).

The harness is freestanding; it defines memcpy and memset (and, on x86-64, __stack_chk_fail with the
%fs:0x28 guard in a block of its own), and ``confirm`` no longer defines those undefined symbols as
zero data stubs -- which is what made the link fail ("in function `memcpy'"). The C is ours
(``tests/semantics/lift/csrc/sha1_schedule.c`` with -DVIA_MEMCPY), compiled here with -fno-builtin so the call stays: the build agrees with
SHA-1 on every record (stack protector on), and a one-constant mutant is confirmed natively.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.emit.confirm import Finding, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import host_is_x86_64, run, which

SRC = Path(__file__).resolve().parents[1] / "semantics" / "lift" / "csrc" / "sha1_schedule.c"
FUNCTION = "sha1_schedule_block_data_order"

pytestmark = pytest.mark.skipif(not host_is_x86_64(), reason="native runs need an x86-64 host")


def _confirm(tmp_path, *flags: str):
    obj = tmp_path / "m.o"
    run([which("gcc"), "-O2", "-fno-builtin", "-DVIA_MEMCPY", *flags, "-c", "-o", str(obj), str(SRC)], "compiling the test C")
    uo = load_object(obj, tmp_path)
    assert {"memcpy"} <= {s.name for s in uo.obj.symbols if s.section is None}, "no call to memcpy: shows nothing"
    return confirm(uo, FUNCTION, 0, tmp_path)


def test_memcpy_and_stack_protector_build_runs_and_agrees(tmp_path):
    assert _confirm(tmp_path, "-fstack-protector-all") is None


def test_memcpy_build_mutant_is_confirmed_natively(tmp_path):
    found = _confirm(tmp_path, "-DK3=0x8f1bbcddu")
    assert isinstance(found, Finding) and found.got != found.want
