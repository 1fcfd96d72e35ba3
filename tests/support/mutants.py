"""One-instruction mutants of an installed library's object, made at test time (tests of other libraries' code).

``instruction_mutant(obj, function, mnemonic, operands, patch, out)``: the first instruction of
``function`` whose mnemonic is ``mnemonic`` and whose AT&T operands start with ``operands`` (capstone's
spelling: ``psrlw $8, %xmm4``, ``roll $5, %eax``) has its bytes replaced by ``patch(bytes)`` -- the same
length -- and the object is written to ``out``. The function is found through its symbol's own section
(gcc may put it in ``.text.hot``), so nothing of the library is copied into the project.

Example: ``instruction_mutant(o, "sha1_compress", "roll", "$5, %eax", lambda b: b[:-1] + b"\\x06", out)``
turns the first ``rol $5`` into ``rol $6``.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

import capstone
from elftools.elf.elffile import ELFFile

from sha1opt.semantics.lift.elf import ObjectFile


def instruction_mutant(obj: Path, function: str, mnemonic: str, operands: str,
                       patch: Callable[[bytes], bytes], out: Path) -> Path:
    raw = bytearray(obj.read_bytes())
    with open(obj, "rb") as fh:
        elf = ELFFile(fh)
        sym = elf.get_section_by_name(".symtab").get_symbol_by_name(function)[0]
        section = elf.get_section(sym["st_shndx"])
        start, offset, code = sym["st_value"], section["sh_offset"], section.data()
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    ins = next(i for i in md.disasm(code[start:], start) if i.mnemonic == mnemonic and i.op_str.startswith(operands))
    at = offset + ins.address
    old = bytes(raw[at:at + ins.size])
    new = patch(old)
    assert len(new) == ins.size and new != old, f"{mnemonic} {operands}: the patch must change its {ins.size} bytes"
    raw[at:at + ins.size] = new
    out.write_bytes(raw)
    return out


def patched_function(data: bytes, function: str, at: int, old: str, new: str) -> bytes:
    """An object's bytes ``data`` with the hex bytes ``old`` at ``function + at`` (an offset into the function, whose
    section offset the symbol gives) replaced by ``new``; the object's code must be the one the patch knows."""
    sym = ObjectFile.parse(data).find_function(function)
    off = ELFFile(io.BytesIO(data)).get_section_by_name(sym.section)["sh_offset"] + sym.value + at
    out = bytearray(data)
    assert out[off:off + len(old) // 2] == bytes.fromhex(old), "the member's code is not the one these patches know"
    out[off:off + len(new) // 2] = bytes.fromhex(new)
    return bytes(out)

