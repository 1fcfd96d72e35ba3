"""Parser for AT&T-syntax straight-line code (the GNU as spelling) into ``x86.Instr``, and the bounded source reader.

No proof reads user text through this module: ``prove --asm``, ``prove
--object``, ``analyze``, export's and bench's validation all assemble the
text with the system toolchain and prove the decoded machine code
(``semantics.lift``). What still uses it, and why: ``read_source`` (every
command that takes a source file: the size/line limits and the
regular-file check); ``parse_text`` for the search's own sequences
(``search.synth.discovered``: corpus/discovered.toml, code sha1opt wrote
itself and never proves from text either -- the export of any schedule
is validated through the object); ``listing`` (cost-model listings of gcc's
``-S`` output for the peers and the calibration); and tests, which spell
instruction lists in AT&T.

Accepted: ``%``-registers (xmm/ymm too), ``$``-immediates (decimal, ``0x`` hex, ``0b``
binary, leading-``0`` octal as GNU as reads them, negative; ASCII digits
only -- ``$٣`` is a symbol to as, so it is refused, never read as 3),
memory operands ``disp(base,index,scale)``, size suffixes ``l`` (and ``q`` on
64-bit pointer registers), ``#`` and ``/* */`` comments, ``;``-separated
statements, labels (ignored: the code is straight-line) and assembler
directives that emit nothing (``.text``, ``.globl``, ``.cfi_*``...; ignored).
``movq`` is the SSE2 row when an operand is an xmm register, else a 64-bit
pointer move (``mov`` with suffix ``q``).

Refused, with ``file:line`` and the offending word: any mnemonic outside the
semantics table (``x86.SEMANTICS``), data directives inside code (``.byte``,
``.long``...), symbolic displacements, unknown registers, operand shapes the
instruction does not take. The whole file is parsed before anything is
returned, and the first error wins.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from sha1opt.semantics.errors import ParseError, UnsupportedError
from sha1opt.semantics.numerals import describe, non_ascii_digit
from sha1opt.semantics.limits import SOURCE_BYTES, SOURCE_LINES, clip, size_text
from sha1opt.semantics.x86 import (SEMANTICS, Arch, Imm, Instr, Mem, Operand, Reg, check_operands, register,
                                   split_mnemonic)

# Directives that put bytes into the section: code hidden in data is not
# straight-line code we can reason about.
_DATA_DIRECTIVES = {".byte", ".word", ".short", ".long", ".int", ".quad", ".ascii",
                    ".asciz", ".string", ".zero", ".fill", ".skip", ".space", ".inst",
                    ".octa", ".value", ".incbin"}

# A label at the start of a statement (``name:`` or a numeric ``1:``); group 1 is its name.
LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$]*|[0-9]+)\s*:")
# GNU as integer spellings, ASCII only (numerals.py): hex, binary, octal (a leading 0), decimal.
_NUM = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$")
_MEM = re.compile(r"^(?P<disp>[^()]*)\((?P<inner>[^()]*)\)$")


def _number(text: str, what: str) -> int:
    """An AT&T integer as GNU as reads it: ``0x1f``, ``0b101``, ``017`` (octal), ``42``, signed.

    Only ASCII digits: ``$٣`` is a symbol to as (a relocation), so it is
    refused here, never read as 3.
    """
    t = text.strip()
    value = integer(t)
    if value is None:
        bad = non_ascii_digit(t)
        if bad is not None:
            raise ParseError(f"{what} {t!r}: {describe(t[bad])}")
        raise UnsupportedError(f"{what} {t!r} is not a number (symbols are not modelled)")
    return value


def integer(text: str) -> int | None:
    """An AT&T integer as GNU as reads it (``0x1f``, ``0b101``, ``017`` octal, ``-42``), or None for
    anything else (a symbol, a Unicode digit)."""
    t = text.strip()
    if not _NUM.match(t):
        return None
    sign, body = (-1, t[1:]) if t[0] == "-" else (1, t.lstrip("+"))
    if body[:2].lower() in ("0x", "0b"):
        return sign * int(body, 0)
    return sign * int(body, 8 if body.startswith("0") else 10)


def split_operands(text: str) -> list[str]:
    """An operand list's operands: split on the commas that are not inside parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


def parse_operand(text: str, arch: Arch) -> Operand:
    t = text.strip()
    if not t:
        raise ParseError("empty operand")
    if t.startswith("%"):
        return register(t[1:], arch)
    if t.startswith("$"):
        v = _number(t[1:], "immediate")
        if not -(1 << 31) <= v < (1 << 32):
            raise UnsupportedError(f"immediate {t} does not fit in 32 bits")
        return Imm(v & 0xFFFFFFFF)
    if t.startswith("*"):
        raise UnsupportedError(f"indirect operand {t!r} is not modelled")
    m = _MEM.match(t)
    if m:
        disp = _number(m.group("disp"), "displacement") if m.group("disp").strip() else 0
        parts = [p.strip() for p in m.group("inner").split(",")]
        if len(parts) > 3:
            raise ParseError(f"memory operand {t!r} has too many parts")
        base = register(parts[0][1:], arch) if parts[0] else None
        if parts[0] and not parts[0].startswith("%"):
            raise ParseError(f"memory operand {t!r}: base must be a %register")
        index = None
        scale = 1
        if len(parts) >= 2 and parts[1]:
            if not parts[1].startswith("%"):
                raise ParseError(f"memory operand {t!r}: index must be a %register")
            index = register(parts[1][1:], arch)
            if index.name == "esp":
                raise UnsupportedError(f"memory operand {t!r}: %esp cannot be an index")
        if len(parts) == 3:
            scale = _number(parts[2], "scale") if parts[2] else 1
            if scale not in (1, 2, 4, 8):
                raise ParseError(f"memory operand {t!r}: scale must be 1, 2, 4 or 8")
        for r in (base, index):
            if r is not None and r.width == 8:
                raise UnsupportedError(f"memory operand {t!r}: 8-bit address register")
            if r is not None and r.width in (128, 256):
                raise UnsupportedError(f"memory operand {t!r}: vector registers do not address memory "
                                       "(gathers are not modelled)")
        return Mem(base, index, scale, disp)
    if _NUM.match(t):
        # An absolute address as a memory operand: nothing in round code does this.
        raise UnsupportedError(f"absolute memory operand {t!r} is not modelled")
    raise UnsupportedError(f"operand {t!r} is not modelled (symbols and labels are not)")


def strip_block_comments(text: str) -> str:
    """Blank out /* ... */ comments but keep newlines, so line numbers stay right."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/", blank, text, flags=re.S)


def parse_statement(stmt: str, arch: Arch, line: int) -> Instr | None:
    """One statement (no comment, no label) -> an ``Instr``, or None for a no-op directive."""
    s = stmt.strip()
    if not s:
        return None
    word, _, rest = s.partition(" ")
    if "\t" in word:
        word, _, more = word.partition("\t")
        rest = more + " " + rest
    if word.startswith("."):
        if word.lower() in _DATA_DIRECTIVES:
            raise UnsupportedError(f"data directive {word} inside code")
        return None
    mnemonic, suffix = split_mnemonic(word)
    operands = tuple(parse_operand(o, arch) for o in split_operands(rest))
    if mnemonic == "movq" and not any(isinstance(o, Reg) and o.width in (128, 256) for o in operands):
        mnemonic, suffix = "mov", "q"    # movq without an xmm operand is a 64-bit (pointer) move
    if suffix == "q" or any(isinstance(o, Reg) and o.width == 64 for o in operands[-1:]):
        # 64-bit operand size is modelled only where it is pointer handling:
        # moves, add/sub of a constant, lea of base+constant -- and vector rows' 64-bit forms.
        first = operands[0] if operands else None
        ok = mnemonic == "mov" or (mnemonic in ("add", "sub") and isinstance(first, Imm)) or (
            mnemonic == "lea" and isinstance(first, Mem) and first.index is None) or (
            mnemonic in SEMANTICS and SEMANTICS[mnemonic].vector)
        if not ok or any(isinstance(o, Reg) and o.width == 32 for o in operands):
            raise UnsupportedError(f"{word}: 64-bit operand size is only modelled for pointer moves and constant offsets")
    ins = Instr(mnemonic, operands, line)
    check_operands(ins)
    return ins


def refuse_non_ascii_digits(code: str, filename: str, lineno: int) -> None:
    """``file:line:column`` ParseError for a Unicode digit outside comments: as would read it as a symbol."""
    col = non_ascii_digit(code)
    if col is not None:
        raise ParseError(f"{filename}:{lineno}:{col + 1}: {describe(code[col])}")


def parse_text(text: str, arch: Arch, filename: str = "<input>") -> list[Instr]:
    """Parse a whole file's text; errors say ``file:line: message``."""
    out: list[Instr] = []
    for lineno, raw in enumerate(strip_block_comments(text).splitlines(), start=1):
        code = raw.split("#", 1)[0]
        refuse_non_ascii_digits(code, filename, lineno)
        for stmt in code.split(";"):
            while True:  # any number of labels may precede a statement
                m = LABEL.match(stmt)
                if not m:
                    break
                stmt = stmt[m.end():]
            try:
                ins = parse_statement(stmt, arch, lineno)
            except (ParseError, UnsupportedError) as e:
                raise type(e)(clip(f"{filename}:{lineno}: {e}")) from None
            if ins is not None:
                out.append(ins)
    return out


def read_source(path: str | Path, limit: int = SOURCE_BYTES) -> str:
    """A source file's text, or a one-line ParseError naming the file.

    Only a regular file of at most ``limit`` bytes (``limits.SOURCE_BYTES``) and
    ``limits.SOURCE_LINES`` lines is accepted, and never more than ``limit + 1``
    bytes of it are read: ``/dev/zero`` or a FIFO is refused before reading, a
    5 MB file after 4 MiB + 1 byte.
    """
    p = Path(path)
    try:
        with open(p, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ParseError(clip(f"{p}: not a regular file"))
            data = f.read(limit + 1)
    except OSError as e:
        raise ParseError(clip(f"{p}: cannot read: {e.strerror}")) from None
    if len(data) > limit:
        raise ParseError(clip(f"{p}: larger than the {size_text(limit)} source limit"))
    if data.count(b"\n") + (not data.endswith(b"\n")) > SOURCE_LINES:
        raise ParseError(clip(f"{p}: more than the {SOURCE_LINES} line source limit"))
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise ParseError(clip(f"{p}: not a text file")) from None
