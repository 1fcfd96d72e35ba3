"""A known function's arguments are checked at the call: their kinds, and what it reads of the object's data.

Rule (issue 24; ``lift.calls.Known.reads``, ``calls._checked``): a known function (``lift.calls.KNOWN``) runs by its
contract only with the arguments the contract is for -- a pointer where it reads or writes through one, a stream of
the C library (the value of ``stdin``, ``stdout`` or ``stderr``, ISO C11 7.21.1/7.21.5.1) where it takes a
``FILE*``, an integer elsewhere -- and where it reads from a constant place of the object's data (a string up to
its NUL, fwrite's ``size * nmemb`` bytes) that place lies inside the section. Else the path is refused, naming the
function and the argument. SysV passes the first six integer arguments in registers: fwrite's stream is the
fourth, in %rcx. Regression (bench/other_libraries.py on nettle's fat ``nettle_sha1_compress``): a mutant without
the ``mov (%rax),%rcx`` that loads ``stderr`` before its ``NETTLE_FAT_VERBOSE`` fwrite passed a register the
getenv call had clobbered as the ``FILE*``, and was "equivalent (proved)". The callers are functions written
here, assembled with gcc.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface

# a one-block function that prints a message with fwrite when getenv("V") is set, then returns
_CALLER = """\
	.section .rodata.str1.1,"aMS",@progbits,1
.LCv:	.string "V"
.LCm:	.string "verbose!\\n"
	.text
	.globl f
f:	sub $8, %rsp
	lea {name}(%rip), %rdi
	call getenv@PLT
	test %rax, %rax
	je 1f
	mov stderr@GOTPCREL(%rip), %rax
	{size}
	mov $1, %esi
	lea .LCm(%rip), %rdi
	{load}
	call fwrite@PLT
1:	add $8, %rsp
	ret
"""
_LOAD = "mov (%rax), %rcx"


def _details(tmp_path: Path, name: str = ".LCv", load: str = _LOAD, size: str = "mov $9, %edx") -> list[str]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc missing (needed to assemble the caller)")
    src = tmp_path / "f.s"
    src.write_text(_CALLER.format(name=name, load=load, size=size))
    subprocess.run(["gcc", "-c", str(src), "-o", str(tmp_path / "f.o")], check=True, timeout=60)
    obj = ObjectFile.parse((tmp_path / "f.o").read_bytes())
    return [p.detail for p in prove_function(obj, "f", parse_interface("one-block").contract("sysv")).paths]


def test_fwrite_to_stderr_passes_the_call(tmp_path):
    said = _details(tmp_path)
    assert not any("fwrite" in d or "getenv" in d for d in said), said


def test_regression_fwrite_stream_clobbered_by_getenv_is_refused(tmp_path):
    said = _details(tmp_path, load="nop")
    assert any("fwrite's argument stream is not a stream of the C library" in d and "clobbered by the call to "
               "getenv" in d for d in said), said


def test_fwrite_stream_that_is_the_address_of_stderr_is_refused(tmp_path):
    said = _details(tmp_path, load="mov %rax, %rcx")       # &stderr, not stderr
    assert any("fwrite's argument stream is not a stream" in d for d in said), said


def test_fwrite_reading_past_the_strings_section_is_refused(tmp_path):
    said = _details(tmp_path, size="mov $0x1000, %edx")
    assert any("fwrite reads past the end of .rodata.str1.1 through its argument ptr" in d for d in said), said


def test_getenv_name_not_terminated_in_the_section_is_refused(tmp_path):
    # the name one byte past the last NUL: "V\0verbose!\n\0" + 1 byte past the end
    said = _details(tmp_path, name=".LCm+10")
    assert any("getenv reads past the end of .rodata.str1.1 through its argument name" in d for d in said), said


def test_clobbered_integer_argument_is_refused(tmp_path):
    said = _details(tmp_path, size="nop")                  # %edx: what getenv left there
    assert any("fwrite's argument size is not" in d or "fwrite's argument nmemb is not" in d for d in said), said
