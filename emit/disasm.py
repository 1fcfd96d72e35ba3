"""Machine code back to text: ``objdump -d`` of an object, as a ``Listing``.

The validator never trusts the text it emitted: it proves what the assembler
*produced*. Each disassembled instruction becomes a line ``L<addr>: <insn>``
(addresses as labels, so objdump's branch targets ``1c <f+0x1c>`` resolve)
and the result is read by ``semantics.listing`` with the same parser and
semantics table as everything else.
"""

from __future__ import annotations

import re
from pathlib import Path

from sha1opt.semantics.listing import Listing, parse_listing
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.toolchain import ToolchainError, run, which

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
_PREFIXES = re.compile(r"^(?:(?:cs|ds|data16|addr32|notrack|bnd)\s+)+")


def disassemble(obj: Path, arch: Arch, symbol: str) -> Listing:
    proc = run([which("objdump"), "-d", "-w", "--no-show-raw-insn",
                f"--disassemble={symbol}", str(obj)], "disassembler")
    lines, inside = [], False
    for raw in proc.stdout.splitlines():
        if raw.endswith(f"<{symbol}>:"):
            inside = True
            continue
        if not inside:
            continue
        if not raw.strip():
            if lines:
                break
            continue
        m = _LINE.match(raw)
        if not m:
            continue
        addr, insn = m.group(1).lstrip("0") or "0", _PREFIXES.sub("", m.group(2))
        if insn.startswith("(bad)"):
            raise ToolchainError(f"disassembler: undecodable bytes at {symbol}+0x{addr}")
        lines.append(f"L{addr}: {insn}")
    if not lines:
        raise ToolchainError(f"disassembler: symbol {symbol} not found in {obj.name}")
    return parse_listing("\n".join(lines), arch, f"{obj.name}<{symbol}>")


def text_bytes(obj: Path) -> bytes:
    """The raw .text section (to compare two assemblies of the same code)."""
    out = obj.with_suffix(".text.bin")
    run([which("objcopy"), "-O", "binary", "--only-section=.text", str(obj), str(out)], "objcopy")
    return out.read_bytes()
