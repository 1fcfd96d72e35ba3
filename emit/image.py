"""What an ELF relocatable object must be to be trusted as validated, over the one ELF reader.

The object is read by ``semantics.lift.elf.ObjectFile`` (pyelftools), the
same reader the lifter and the prover use, so what is checked here, what is
proved and what is run are one parse of one file (``validate`` reads it once
and hands the value on). Two uses, both about trusting exactly what was
validated:

* ``difference(a, b)`` -- the first way two objects differ (a section's
  bytes, flags or alignment; a symbol; a relocation), or None. Export
  re-assembles the file it is about to write and refuses unless it gives
  the validated object again, every section included (an ``-o`` path that
  smuggled ``.section .init_array`` into the header would add a section).
* ``runnable_problem(obj, symbol)`` -- why an object must not be linked
  into a native run, or None. Only the function itself may run: no loaded
  section but ``.text`` may hold bytes (no ``.init_array``, ``.data``,
  ``.rodata``...), no relocations (the function calls and reads nothing
  outside itself: ``call system@PLT`` needs one), no global symbol but
  ``symbol`` (a global ``memcpy`` would replace libc's in the bench program),
  and ``symbol`` starts ``.text``.

The string and symbol tables and the relocation sections are not compared as
bytes: their content is what the symbols, section names and relocations say.
Example: ``as`` of ``ret`` gives ``.text`` = ``c3``, empty ``.data``/``.bss``,
one symbol; that is runnable.
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.lift.elf import ObjectError, ObjectFile
from sha1opt.semantics.limits import clip

SHF_ALLOC = 0x2
# section kinds whose bytes are not compared: what they hold is compared as symbols, names and relocations
_NOT_BYTES = ("SHT_NOBITS", "SHT_SYMTAB", "SHT_STRTAB", "SHT_REL", "SHT_RELA")


class ObjectFileError(ObjectError):
    """A file that is not a readable ELF object."""


def read_object(path: Path) -> ObjectFile:
    """The object at ``path``, parsed once by the one ELF reader (``ObjectFile.parse``)."""
    try:
        return ObjectFile.parse(Path(path).read_bytes())
    except (OSError, ObjectError) as e:
        raise ObjectFileError(clip(f"{Path(path).name}: not a readable ELF object: {e}")) from None


def _sections(obj: ObjectFile) -> list[tuple]:
    return [(h.name, h.type, h.flags, h.align, h.size, b"" if h.type in _NOT_BYTES else h.data) for h in obj.headers]


def _relocations(obj: ObjectFile) -> list[tuple]:
    """(section applied to, offset, kind, symbol -- or the section of a section symbol --, addend), in file order."""
    return [(sec, off, r.kind, r.symbol or r.section or "", r.addend)
            for sec, table in obj.relocs.items() for off, r in table.items()]


def difference(a: ObjectFile, b: ObjectFile) -> str | None:
    """The first difference between two objects, in words, or None when they are the same."""
    sa, sb = _sections(a), _sections(b)
    if [s[0] for s in sa] != [s[0] for s in sb]:
        return f"sections {[s[0] for s in sa]} != {[s[0] for s in sb]}"
    for x, y in zip(sa, sb):
        if x != y:
            what = "bytes" if x[5] != y[5] else "size" if x[4] != y[4] else "type, flags or alignment"
            return f"section {x[0]}: {what} differ"
    if a.symbols != b.symbols:
        extra = [s for s in a.symbols if s not in b.symbols] + [s for s in b.symbols if s not in a.symbols]
        return f"symbols differ ({extra[0].name or 'unnamed'})" if extra else "symbol order differs"
    if _relocations(a) != _relocations(b):
        return "relocations differ"
    return None


def runnable_problem(obj: ObjectFile, symbol: str) -> str | None:
    """Why ``obj`` must not be linked into a native run (only ``symbol`` in ``.text`` may run), or None."""
    for h in obj.headers:
        if h.flags & SHF_ALLOC and h.name != ".text" and h.size:
            return f"section {h.name} holds {h.size} bytes; only .text may be linked and run"
    relocations = _relocations(obj)
    if relocations:
        sec, _, _, target, _ = relocations[0]
        return (f"{len(relocations)} relocation(s), the first against {target or '?'} in {sec}: "
                f"the function must not refer to anything outside itself")
    tables = [h for h in obj.headers if h.type in ("SHT_REL", "SHT_RELA") and h.size]
    if tables:              # a relocation section the reader could not apply to a section still refuses
        return f"relocation section {tables[0].name}: the function must not refer to anything outside itself"
    text = next((h for h in obj.headers if h.name == ".text"), None)
    if text is None or not text.size:
        return "no .text section"
    funcs = [s for s in obj.symbols if s.name == symbol and s.section == ".text"]
    if not funcs:
        return f"{symbol} is not defined in .text"
    if funcs[0].value != 0 or funcs[0].size not in (0, text.size):
        return f"{symbol} does not span .text (bytes outside the function)"
    others = [s for s in obj.symbols if s.bind != "STB_LOCAL" and s.name != symbol]
    if others:
        where = "undefined" if others[0].special == "UNDEF" else "global"
        return f"{where} symbol {others[0].name}: the object may define only {symbol}"
    return None
