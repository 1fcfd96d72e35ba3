"""fprintf-family calls by contract: read-only calls that write only their stream; varargs in xmm lanes are data.

Rule (issue 24; ``lift.calls.KNOWN``, ``lift.vectors``): ``fprintf`` / ``__fprintf_chk`` (ISO C11 7.21.6.1; LSB
5.0) write no memory the caller can name -- their format must be a constant string of the object without ``%n``,
the one conversion that writes through an argument (else the path is refused, naming it) -- and clobber the
caller-saved registers; a string's address moved whole into a vector register (gcc gathering the varargs of a
verbose message in xmm lanes) becomes two data lanes of their own, never an address again, instead of stopping
the path. The nettle case is the fat build's ``NETTLE_FAT_VERBOSE`` paths of ``nettle_sha1_compress`` (Debian's
``libnettle.a``, nettle-dev, installed by setup/system-packages.sh, read at test time); the ``%n`` case is a
function written here, assembled with gcc.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface

_CALLER = """\
	.section .rodata.str1.1,"aMS",@progbits,1
.LCs:	.string "sha_ni"
.LCf:	.string "{fmt}"
	.text
	.globl f
f:	sub $8, %rsp
	lea .LCs(%rip), %rax
	movq %rax, %xmm0
	mov stderr@GOTPCREL(%rip), %rdi
	mov (%rdi), %rdi
	mov $1, %esi
	lea .LCf(%rip), %rdx
	xor %eax, %eax
	call __fprintf_chk@PLT
	add $8, %rsp
	ret
"""


def _caller(tmp_path: Path, fmt: str):
    if shutil.which("gcc") is None:
        pytest.skip("gcc missing (needed to assemble the caller)")
    src = tmp_path / "f.s"
    src.write_text(_CALLER.format(fmt=fmt))
    subprocess.run(["gcc", "-c", str(src), "-o", str(tmp_path / "f.o")], check=True, timeout=60)
    obj = ObjectFile.parse((tmp_path / "f.o").read_bytes())
    return prove_function(obj, "f", parse_interface("one-block").contract("sysv")).paths


def test_nettle_verbose_paths_print_through_fprintf_and_prove(nettle_fat_proof):
    nettle_proof = nettle_fat_proof
    verbose = [p for p in nettle_proof.paths if "not (getenv() at 0x25" in p.condition]
    assert verbose
    assert not any("__fprintf_chk" in p.detail or "moved whole into a vector register" in p.detail
                   for p in nettle_proof.paths), [p.detail for p in nettle_proof.paths if p.outcome != "proved"]
    # verbose paths get past the message to the tail call into an implementation, the caller's arguments intact
    reached = {p.outside for p in verbose if p.outside is not None}
    assert reached == {"_nettle_sha1_compress_sha_ni", "_nettle_sha1_compress_x86_64"}, \
        [(p.outcome, p.detail[:200]) for p in verbose]

def test_fprintf_format_with_percent_n_is_refused(tmp_path):
    said = [p.detail for p in _caller(tmp_path, "count:%n")]
    assert any("has %n" in d for d in said), said


def test_fprintf_format_without_percent_n_passes_the_call(tmp_path):
    said = [p.detail for p in _caller(tmp_path, "features:%s%%n")]
    assert not any("format" in d or "__fprintf_chk" in d or "vector register" in d for d in said), said
