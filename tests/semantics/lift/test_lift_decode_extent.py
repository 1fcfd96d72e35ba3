"""Where decoding a function's extent stops (``decode.decode_function``).

The rules: undecodable bytes inside the extent end it with a ``(bad)`` record
(refused when a path reaches it); an instruction that straddles the extent's
end means the extent is not the code's own -- ``lift.candidates`` gives code
no symbol names an 8 KB window -- so the code is read on along its branches.
The bug: Debian's i386 ``libcrypto.so.3``'s stripped block function is longer
than its window, whose end cut ``add %ebp, %ebx`` in two; the path reaching
it was refused as "(bad)" (4 of 5 paths proved; now 5 of 5).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import pytest

from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

TEXT = """\t.text
\t.globl f
\t.type f, @function
f:
\tmovl $0x12345678, %eax
\t.byte 0x06
\tret
\t.size f, .-f
"""


@pytest.fixture(scope="module")
def obj(tmp_path_factory) -> ObjectFile:
    d = tmp_path_factory.mktemp("extent")
    (d / "f.S").write_text(TEXT)
    subprocess.run(["gcc", "-c", "-o", str(d / "f.o"), str(d / "f.S")], check=True, timeout=60)
    return ObjectFile.parse((d / "f.o").read_bytes())


def test_regression_a_made_up_extent_that_cuts_an_instruction_was_read_as_undecodable(obj):
    sym = obj.find_function("f")
    cut = replace(sym, size=2)                       # ends inside the 5-byte movl
    fn = decode_function(obj, cut)
    assert fn.instructions[0].mnemonic == "mov" and fn.instructions[0].problem is None


def test_undecodable_bytes_inside_the_extent_are_bad(obj):
    """0x06 (``push %es``) does not exist in 64-bit mode: the record at its offset is ``(bad)``."""
    fn = decode_function(obj, obj.find_function("f"))
    assert fn.instructions[5].mnemonic == "(bad)" and "undecodable" in fn.instructions[5].problem
