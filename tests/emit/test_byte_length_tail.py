"""A byte-length interface is run natively with lengths that are not multiples of 64.

Rule (``semantics.lift.interface``, role ``bytes``): the function hashes floor(length/64) whole blocks and
leaves the 0..63 trailing bytes alone. ``emit.confirm`` therefore passes every other record 64 * nblocks + r
bytes (r in 1..63; the r bytes in the buffer after the blocks, the buffer ending at a guard page:
``harness.Record.tail``, ``csrc/harness.c``'s ``sha1opt_tail``, added to the length by ``emit.adapter``).
Before, only multiples of 64 were passed, so a function that loses the rounding down (Crypto++'s
``SHA1_HashMultipleBlocks_SHANI`` without its ``and $-64, %rdx``) agreed on every record natively although the
prover refuted it. The functions are C written here (``csrc/sha1_byte_length.c``), built for each arch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cpu import needs
from sha1opt.emit.confirm import Finding, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.lift.interface import parse_interface

pytestmark = needs()

SOURCE = Path(__file__).parent / "csrc" / "sha1_byte_length.c"
BYTES = parse_interface("hash_bytes(state, data, bytes)")


def _confirm(tmp_path: Path, arch: str, *defines: str):
    out = tmp_path / "sha1_byte_length.o"
    run([which("gcc"), "-O2", "-m64" if arch == "x86_64" else "-m32", "-fno-stack-protector", *defines, "-c",
         "-o", str(out), str(SOURCE)], "compiling the test C")
    return confirm(load_object(out, tmp_path), "hash_bytes", 0, tmp_path, interface=BYTES)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_whole_blocks_of_a_byte_length_agree_with_sha1(tmp_path, arch):
    """The right function, passed lengths with 1..63 trailing bytes too: every record agrees."""
    assert _confirm(tmp_path, arch) is None


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
@pytest.mark.parametrize("defect", ["-DNO_MASK", "-DPAD_TAIL"])
def test_a_length_not_rounded_down_is_refuted_natively(tmp_path, arch, defect):
    """Each defect is right on every multiple of 64: the record that refutes it has bytes after its blocks,
    and the finding says the byte length."""
    found = _confirm(tmp_path, arch, defect)
    assert isinstance(found, Finding), found
    assert 0 < found.tail < 64 and f"byte length {64 * found.nblocks + found.tail}" in found.describe()
