"""An ELF relocatable object as a value: its sections, symbols and relocations (read with pyelftools).

Two uses, both about trusting exactly what was validated:

* ``difference(a, b)`` -- the first way two objects differ (a section's
  bytes, flags or alignment; a symbol; a relocation), or None. Export
  re-assembles the file it is about to write and refuses unless it gives
  the validated object again, every section included (an ``-o`` path that
  smuggled ``.section .init_array`` into the header would add a section).
* ``runnable_problem(image, symbol)`` -- why an object must not be linked
  into a native run, or None. Only the function itself may run: no loaded
  section but ``.text`` may hold bytes (no ``.init_array``, ``.data``,
  ``.rodata``...), no relocations (the function calls and reads nothing
  outside itself: ``call system@PLT`` needs one), no global symbol but
  ``symbol`` (a global ``memcpy`` would replace libc's in the bench program),
  and ``symbol`` starts ``.text``.

The string tables are not compared as bytes: their content is what the
symbols and section names say. Example: ``as`` of ``ret`` gives ``.text``
= ``c3``, empty ``.data``/``.bss``, one symbol; that is runnable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import clip

SHF_ALLOC = 0x2
_TABLES = ("SHT_SYMTAB", "SHT_STRTAB")


class ObjectFileError(Sha1optError):
    """A file that is not a readable ELF object."""


@dataclass(frozen=True)
class Section:
    name: str
    type: str
    flags: int
    align: int
    size: int
    data: bytes            # empty for SHT_NOBITS and the string/symbol tables


@dataclass(frozen=True)
class Symbol:
    name: str
    section: str           # section name, or "UNDEF" / "ABS"
    value: int
    size: int
    type: str
    bind: str


@dataclass(frozen=True)
class Relocation:
    section: str           # the section it applies to
    offset: int
    type: int
    symbol: str
    addend: int


@dataclass(frozen=True)
class ObjectImage:
    sections: tuple[Section, ...]
    symbols: tuple[Symbol, ...]
    relocations: tuple[Relocation, ...]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)


def read_object(path: Path) -> ObjectImage:
    """The sections (in file order), symbols (in table order) and relocations of the object at ``path``."""
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            names = {i: s.name for i, s in enumerate(elf.iter_sections())}
            sections, symbols, relocations = [], [], []
            for s in elf.iter_sections():
                kind = s["sh_type"]
                if not s.name and kind == "SHT_NULL":
                    continue
                keep = kind not in ("SHT_NOBITS", *_TABLES) and not isinstance(s, RelocationSection)
                sections.append(Section(s.name, kind, s["sh_flags"], s["sh_addralign"], s["sh_size"],
                                        s.data() if keep else b""))
                if isinstance(s, SymbolTableSection):
                    for sym in s.iter_symbols():
                        shndx = sym["st_shndx"]
                        where = names.get(shndx, "") if isinstance(shndx, int) else str(shndx).replace("SHN_", "")
                        symbols.append(Symbol(sym.name, where, sym["st_value"], sym["st_size"],
                                              sym["st_info"]["type"], sym["st_info"]["bind"]))
            for s in elf.iter_sections():
                if isinstance(s, RelocationSection):
                    table = elf.get_section(s["sh_link"])
                    target = names.get(s["sh_info"], "?")
                    for r in s.iter_relocations():
                        sym = table.get_symbol(r["r_info_sym"]) if r["r_info_sym"] else None
                        relocations.append(Relocation(target, r["r_offset"], r["r_info_type"],
                                                      sym.name or names.get(sym["st_shndx"], "") if sym else "",
                                                      r["r_addend"] if s.is_RELA() else 0))
    except (OSError, ELFError) as e:
        raise ObjectFileError(clip(f"{path.name}: not a readable ELF object: {e}")) from None
    return ObjectImage(tuple(sections), tuple(symbols), tuple(relocations))


def difference(a: ObjectImage, b: ObjectImage) -> str | None:
    """The first difference between two objects, in words, or None when they are the same."""
    if [s.name for s in a.sections] != [s.name for s in b.sections]:
        return f"sections {[s.name for s in a.sections]} != {[s.name for s in b.sections]}"
    for x, y in zip(a.sections, b.sections):
        if x != y:
            what = "bytes" if x.data != y.data else "size" if x.size != y.size else "type, flags or alignment"
            return f"section {x.name}: {what} differ"
    if a.symbols != b.symbols:
        extra = [s for s in a.symbols if s not in b.symbols] + [s for s in b.symbols if s not in a.symbols]
        return f"symbols differ ({extra[0].name or 'unnamed'})" if extra else "symbol order differs"
    if a.relocations != b.relocations:
        return "relocations differ"
    return None


def runnable_problem(image: ObjectImage, symbol: str) -> str | None:
    """Why ``image`` must not be linked into a native run (only ``symbol`` in ``.text`` may run), or None."""
    for s in image.sections:
        if s.flags & SHF_ALLOC and s.name != ".text" and s.size:
            return f"section {s.name} holds {s.size} bytes; only .text may be linked and run"
    if image.relocations:
        r = image.relocations[0]
        return (f"{len(image.relocations)} relocation(s), the first against {r.symbol or '?'} in {r.section}: "
                f"the function must not refer to anything outside itself")
    text = image.section(".text")
    if text is None or not text.size:
        return "no .text section"
    funcs = [s for s in image.symbols if s.name == symbol and s.section == ".text"]
    if not funcs:
        return f"{symbol} is not defined in .text"
    if funcs[0].value != 0 or funcs[0].size not in (0, text.size):
        return f"{symbol} does not span .text (bytes outside the function)"
    others = [s for s in image.symbols if s.bind != "STB_LOCAL" and s.name != symbol]
    if others:
        where = "undefined" if others[0].section == "UNDEF" else "global"
        return f"{where} symbol {others[0].name}: the object may define only {symbol}"
    return None
