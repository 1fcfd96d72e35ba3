"""A frame realigned by arithmetic on the stack pointer's bits: the aligned stores and loads resolved.

Rule (issue 24; ``lift.executor.PathMachine._bits``): a stack address used as a number is ``stack_base + off``,
exact in the entry stack pointer whose alignment the ABI fixes (SysV: %rsp + 8 = 0 mod 16 at entry,
``interface.ENTRY_ALIGNMENT``), so libgcrypt's ``mov %rsp,%rax; mov %rax,%rcx; neg %rcx; and $15,%ecx;
add %rcx,%rax`` (round up to 16) gives a frame pointer z3 proves 16-byte aligned: its ``movdqa`` spills are
proved aligned, the slots resolved, and the whole function proves. The code is libgcrypt's
``_gcry_sha1_transform_intel_shaext`` from Debian's ``libgcrypt.a`` (libgcrypt20-dev, installed by
setup/system-packages.sh), read at test time.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.x86 import Mem

LIB = Path("/usr/lib/x86_64-linux-gnu/libgcrypt.a")
MEMBER = "sha1-intel-shaext.o"
SHAEXT = "_gcry_sha1_transform_intel_shaext"


def _lib() -> Path:
    if not LIB.exists():
        pytest.skip(f"{LIB} missing: libgcrypt20-dev (setup/system-packages.sh installs it as root)")
    return LIB


def test_libgcrypt_shaext_realigned_frame_proves_on_every_path():
    res = prove_object(_lib(), member=MEMBER, function=SHAEXT, native=False)
    assert res.proved, res.summary()
    assert [p.kind for p in res.proof.paths] == ["loop not entered", "loop"]


def test_libgcrypt_shaext_second_slot_off_its_alignment_is_not_proved():
    """Mutant: the second 16-byte slot of the realigned frame at +0x18 instead of +0x10 (bit 3 of the ``lea``
    displacement flipped): its ``movdqa`` is misaligned, so the function does not prove. (Flipping the mask
    instead gives an equivalent mutant: at entry + 0x48 the stack pointer is already 16-byte aligned.)"""
    raw = subprocess.run(["ar", "p", str(_lib()), MEMBER], capture_output=True, check=True, timeout=60).stdout
    obj = ObjectFile.parse(raw)
    sym = obj.find_function(SHAEXT)
    fn = decode_function(obj, obj.sized(sym))
    lea = next(d for d in fn.instructions.values() if d.mnemonic == "lea" and isinstance(d.ins.operands[0], Mem)
               and d.ins.operands[0].disp == 16 and d.ins.operands[0].base is not None)
    code = obj.sections[sym.section][sym.value:sym.value + obj.sized(sym).size]
    at = raw.index(code) + lea.address - sym.value + lea.size - 1          # (a disp8 ends the instruction)
    assert raw[at] == 16
    mutant = ObjectFile.parse(raw[:at] + bytes([16 ^ 8]) + raw[at + 1:])
    proof = prove_function(mutant, SHAEXT, lookup(SHAEXT, MEMBER).interface.contract("sysv"))
    assert not proof.proved, [p.outcome for p in proof.paths]
    assert any("align" in p.detail for p in proof.paths), [p.detail for p in proof.paths]


OVERLAP_S = """
        .text
        .globl  f
        .type   f, @function
f:      pushq   %rbx                    # the slot entry-8..entry
        movq    %rsp, %rbx
        andq    $-16, %rsp              # entry - 8 under SysV's alignment: a realigned (computed) stack address
        movdqu  %xmm0, -8(%rsp)         # 16 bytes over entry-16..entry: half of it is the %rbx slot
        movq    %rbx, %rsp
        popq    %rbx                    # not the caller's %rbx any more
        ret
        .size   f, .-f
        .section .note.GNU-stack,"",@progbits
"""


def test_regression_a_realigned_store_over_a_pushed_slot_was_not_seen(tmp_path):
    """Rule (``memory._overlap``): an access at a computed stack offset and one at a constant offset are asked of
    z3 for an overlap, [a, a + size) against [b, b + size2). Before, the new access's offset was not known yet
    when asked (never checked) and the sizes were swapped; a 16-byte store half over an 8-byte slot slipped by,
    and the reload of %rbx read the value the store had overwritten."""
    (tmp_path / "f.S").write_text(OVERLAP_S)
    subprocess.run(["gcc", "-c", "-o", str(tmp_path / "f.o"), str(tmp_path / "f.S")], check=True, timeout=60)
    from sha1opt.semantics.lift.interface import parse_interface
    proof = prove_function(ObjectFile.parse((tmp_path / "f.o").read_bytes()), "f",
                           parse_interface("(state, data)").contract("sysv"))
    assert [p.detail for p in proof.paths if "may overlap another stack slot" in p.detail], \
        [p.detail for p in proof.paths]
