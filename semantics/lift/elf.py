"""An ELF object in memory: sections, symbols, relocations and source lines, read with pyelftools.

This is the project's one ELF reader: the lifter, the prover, ``emit``'s
object checks (``emit.image``) and its inputs (``emit.objfile``) all read
objects through ``ObjectFile``.

``ObjectFile.parse(data)`` reads a relocatable object (``.o``), an
executable or a shared object of either x86 architecture. Every address
used by the lifter is a *section address*: ``(section name, offset)``, so a
``.o`` (whose sections all start at 0) and a linked file (real addresses)
are handled alike.

Invariants: the bytes are only read; ``relocation_at(section, offset)``
gives the relocation whose field starts exactly at that byte (or None);
the addend is the explicit ``r_addend`` (RELA, x86-64) or the value stored
in the field (REL, i386), so both give the same ``Reloc``.

Example: in OpenSSL's ``libcrypto-lib-sha1-x86_64.o``, the instruction
``mov OPENSSL_ia32cap_P+0(%rip),%r9d`` carries a ``Reloc(symbol=
"OPENSSL_ia32cap_P", section=None, addend=-4, kind="R_X86_64_PC32")``:
``section`` is None because the symbol is undefined (an input of the
function), while a reference to ``K_XX_XX`` resolves to ``section=".text"``
and the symbol's offset plus the addend.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field, replace
from functools import cached_property

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch


class ObjectError(Sha1optError):
    """The bytes are not an x86 ELF object we can read, or a symbol is missing."""


class NoFunction(ObjectError):
    """``find_function`` found no function to take: the message is short (a count, never the whole list of
    a shared object's thousands); ``lift.function`` adds the SHA-1 candidates (``lift.candidates``)."""


@dataclass(frozen=True)
class Symbol:
    name: str
    section: str | None      # None: in no section of this file (undefined, absolute or common)
    value: int               # offset in its section
    size: int
    kind: str                # "STT_FUNC", "STT_OBJECT", "STT_NOTYPE", ...
    bind: str                # "STB_GLOBAL", "STB_LOCAL", "STB_WEAK"
    special: str = ""        # with ``section`` None: its special index, "UNDEF", "ABS" or "COMMON"


@dataclass(frozen=True)
class SectionHeader:
    """One section as the file lists it (file order, duplicate names kept): what ``emit.image`` compares."""

    name: str
    type: str                # "SHT_PROGBITS", "SHT_NOBITS", "SHT_SYMTAB", "SHT_RELA", ...
    flags: int               # sh_flags (SHF_ALLOC 0x2, SHF_EXECINSTR 0x4, ...)
    align: int               # sh_addralign as written (0 or 1: no alignment)
    size: int                # sh_size
    data: bytes              # the contents (zeros for SHT_NOBITS)


@dataclass(frozen=True)
class Reloc:
    """One relocation, resolved to a section offset where its symbol is defined here."""

    kind: str                # "R_X86_64_PC32", "R_386_GOTOFF", ...
    symbol: str              # symbol name ("" for a section symbol: then ``section`` names it)
    section: str | None      # section the symbol lives in (None: undefined)
    target: int              # symbol offset in ``section`` (0 when undefined)
    addend: int
    size: int                # bytes of the relocated field


_PC_KINDS = {"R_X86_64_PC32", "R_X86_64_PLT32", "R_X86_64_GOTPCREL", "R_X86_64_GOTPCRELX",
             "R_X86_64_REX_GOTPCRELX", "R_386_PC32", "R_386_PLT32", "R_386_GOTPC"}


@dataclass
class ObjectFile:
    arch: Arch
    relocatable: bool
    sections: dict[str, bytes]
    addresses: dict[str, int]                          # section name -> sh_addr (0 in a .o)
    executable: set[str]                               # sections with SHF_EXECINSTR
    symbols: list[Symbol]
    relocs: dict[str, dict[int, Reloc]] = field(default_factory=dict)  # section -> offset -> reloc
    elf_bytes: bytes = b""
    alignments: dict[str, int] = field(default_factory=dict)  # section name -> sh_addralign
    headers: tuple[SectionHeader, ...] = ()            # every named section, in file order

    @classmethod
    def parse(cls, data: bytes) -> "ObjectFile":
        """The object ``data`` holds; bytes that are not a readable x86 ELF file (a truncated or corrupt one
        too: pyelftools reads section headers lazily) are an ``ObjectError``, never another exception."""
        try:
            return cls._parse(data)
        except (ELFError, struct.error, ValueError, IndexError, KeyError) as e:
            raise ObjectError(f"not a readable ELF file ({e})") from None

    @classmethod
    def _parse(cls, data: bytes) -> "ObjectFile":
        try:
            elf = ELFFile(io.BytesIO(data))
            machine = elf["e_machine"]
        except (ELFError, struct.error, ValueError) as e:
            raise ObjectError(f"not an ELF file ({e})") from None
        if machine not in ("EM_X86_64", "EM_386"):
            raise ObjectError(f"not an x86 object (e_machine {machine})")
        arch: Arch = "x86_64" if machine == "EM_X86_64" else "i386"
        secs = list(elf.iter_sections())
        headers = tuple(SectionHeader(s.name, s["sh_type"], s["sh_flags"], s["sh_addralign"], s["sh_size"],
                                      s.data() if s["sh_type"] != "SHT_NOBITS" else bytes(s["sh_size"]))
                        for s in secs if s.name)
        sections = {h.name: h.data for h in headers}
        addresses = {s.name: s["sh_addr"] for s in secs if s.name}
        execu = {s.name for s in secs if s.name and s["sh_flags"] & 0x4}
        symbols: list[Symbol] = []
        symtabs = [s for s in secs if isinstance(s, SymbolTableSection)]
        for tab in symtabs:
            for sym in tab.iter_symbols():
                shndx = sym["st_shndx"]
                sec = secs[shndx].name if isinstance(shndx, int) and 0 < shndx < len(secs) else None
                special = "" if sec else str(shndx).replace("SHN_", "")
                symbols.append(Symbol(sym.name, sec, sym["st_value"] - (addresses.get(sec, 0) if sec else 0),
                                      sym["st_size"], sym["st_info"]["type"], sym["st_info"]["bind"], special))
        obj = cls(arch, elf["e_type"] == "ET_REL", sections, addresses, execu, symbols, {}, data,
                  {s.name: max(1, s["sh_addralign"]) for s in secs if s.name}, headers)
        for rs in secs:
            if not isinstance(rs, RelocationSection) or rs["sh_info"] == 0 or rs["sh_info"] >= len(secs):
                continue
            applies = secs[rs["sh_info"]].name
            tab = elf.get_section(rs["sh_link"])
            if not isinstance(tab, SymbolTableSection):
                continue
            for r in rs.iter_relocations():
                kind = _reloc_kind(arch, r["r_info_type"])
                sym = tab.get_symbol(r["r_info_sym"])
                shndx = sym["st_shndx"]
                sec = secs[shndx].name if isinstance(shndx, int) and 0 < shndx < len(secs) else None
                off = r["r_offset"]
                size = 8 if kind in ("R_X86_64_64",) else 4
                if r.is_RELA():
                    addend = r["r_addend"]
                else:
                    raw = sections[applies][off:off + 4]
                    addend = struct.unpack("<i", raw)[0] if len(raw) == 4 else 0
                target = sym["st_value"] if sec else 0
                obj.relocs.setdefault(applies, {})[off] = Reloc(kind, sym.name, sec, target, addend, size)
        return obj

    # -- queries -------------------------------------------------------------
    @cached_property
    def lines(self) -> dict[int, int]:
        """Section offset -> source line, from DWARF ``.debug_line`` (empty without ``-g``); read on first use
        and kept, so one object's line table is parsed once whoever asks (lift, proof, validation)."""
        out: dict[int, int] = {}
        try:
            elf = ELFFile(io.BytesIO(self.elf_bytes))
            if not elf.has_dwarf_info():
                return out
            dw = elf.get_dwarf_info()
            for cu in dw.iter_CUs():
                prog = dw.line_program_for_CU(cu)
                if prog is None:
                    continue
                for e in prog.get_entries():
                    st = e.state
                    if st is not None and not st.end_sequence:
                        out.setdefault(st.address, st.line)
        except Exception:  # noqa: BLE001 - DWARF is a courtesy for messages; never fatal
            return {}
        return out

    @cached_property
    def got_slots(self) -> dict[int, Symbol]:
        """Linked address of each x86-64 GOT slot the loader fills with a symbol's address
        (``R_X86_64_GLOB_DAT`` / ``R_X86_64_JUMP_SLOT``) -> the relocation's own ``.dynsym`` entry: its
        section None when it is undefined here (another object's), else where this object defines it (a
        global the loader binds here unless another object interposes one of the same name). Never looked
        up by name: a local symbol of the same name is another thing. Empty for a ``.o`` and i386."""
        return {at: sym for at, kind, sym, _ in self._dynamic_entries
                if kind in (6, 7) and sym is not None and sym.name}     # R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT

    @cached_property
    def plt_names(self) -> dict[int, Symbol]:
        """Linked address of each x86-64 PLT entry (``.plt``, ``.plt.sec``, ``.plt.got``) -> the symbol it jumps
        to: the entry's ``jmp *slot(%rip)`` (after ``endbr64``/``bnd``) reads a GOT slot, and the dynamic
        relocation at that slot names the symbol (``got_slots``). Empty for a ``.o``, i386 and an entry of any
        other shape. Example: mbedTLS's ``libmbedcrypto.so`` calls ``mbedtls_platform_zeroize`` at its ``.plt``
        entry 0x16090."""
        slots = self.got_slots
        out: dict[int, Symbol] = {}
        for sec, step in ((".plt", 16), (".plt.sec", 16), (".plt.got", 8)):
            code, base = self.sections.get(sec), self.addresses.get(sec, 0)
            for at in range(0, len(code or b""), step):
                entry = code[at:at + step]
                k = entry.find(b"\xff\x25")
                if k < 0 or k + 6 > len(entry):
                    continue
                slot = base + at + k + 6 + struct.unpack("<i", entry[k + 2:k + 6])[0]
                if slot in slots:
                    out[base + at] = slots[slot]
        return out

    @cached_property
    def writable(self) -> frozenset[str]:
        """Sections written at run time (SHF_WRITE: ``.data``, ``.bss``, ``.got``): in a linked object their
        bytes are what the loader or the program put there, not what the file holds."""
        return frozenset(h.name for h in self.headers if h.flags & 0x1)

    def covering(self, section: str, offset: int) -> Symbol | None:
        """The function or label symbol whose extent holds ``section + offset`` (``sized``: a symbol without a
        size runs to the next one), or None: code no symbol names (a stripped shared object's internal
        functions)."""
        best = max((s for s in self.symbols if s.section == section and s.name and s.value <= offset
                    and s.kind in ("STT_FUNC", "STT_NOTYPE") and not s.name.startswith(".L")),
                   key=lambda s: s.value, default=None)
        return best if best is not None and offset < best.value + self.sized(best).size else None

    def functions(self) -> list[Symbol]:
        return [s for s in self.symbols if s.kind == "STT_FUNC" and s.section]

    def find_function(self, name: str | None) -> Symbol:
        """``name``, else ``sha1_block_data_order``, else the only global function."""
        funcs = self.functions()
        defined = [s for s in self.symbols if s.section in self.executable and s.name]
        if name is not None:
            hit = [s for s in defined if s.name == name]
            if not hit:
                names = sorted({s.name for s in funcs})
                raise NoFunction(f"no function {name!r} in the object (functions: "
                                 f"{_few(names) if names else 'none'})")
            return self.sized(hit[0])
        for s in defined:
            if s.name == "sha1_block_data_order":
                return self.sized(s)
        glob = [s for s in funcs if s.bind in ("STB_GLOBAL", "STB_WEAK")]
        if len(glob) == 1:
            return self.sized(glob[0])
        raise NoFunction("no sha1_block_data_order and not exactly one global function "
                         f"({_few(sorted(s.name for s in glob)) if glob else 'none'}): name one with --function")

    def sized(self, s: Symbol) -> Symbol:
        """``s`` with its extent: a symbol without ``.size`` (hand-written text) extends to the next
        symbol of its section or the section end; one with a size is returned as it is."""
        if s.size:
            return s
        later = sorted({t.value for t in self.symbols if t.section == s.section and t.value > s.value})
        end = later[0] if later else len(self.sections[s.section])
        return replace(s, size=end - s.value)

    @cached_property
    def _unwind(self) -> dict[str, list[tuple[int, int]]]:
        """Section -> sorted (offset, size) of every function ``.eh_frame_hdr``'s table lists (see
        ``unwind_extents``)."""
        out: dict[str, list[tuple[int, int]]] = {}
        hdr, frames = self.sections.get(".eh_frame_hdr"), self.sections.get(".eh_frame")
        if self.relocatable or not hdr or not frames or len(hdr) < 12 or hdr[0] != 1 or hdr[3] != 0x3B:
            return out       # no table, or not the datarel sdata4 pairs gcc and ld write
        hdr_at, frames_at = self.addresses[".eh_frame_hdr"], self.addresses[".eh_frame"]
        if hdr[2] != 0x03:   # fde_count: udata4, after the encoded eh_frame_ptr (4 bytes for the 0x1b ld writes)
            return out
        count = struct.unpack_from("<I", hdr, 8)[0]
        for i in range(min(count, (len(hdr) - 12) // 8)):
            start, fde = (hdr_at + v for v in struct.unpack_from("<ii", hdr, 12 + 8 * i))
            at = fde - frames_at
            if not 0 <= at <= len(frames) - 16:
                continue
            begin, size = struct.unpack_from("<iI", frames, at + 8)     # pc_begin (pcrel sdata4), pc_range
            if fde + 8 + begin != start:                                # not that encoding: no extent known
                continue
            where = self.section_at(start)
            if where is not None and where[0] in self.executable:
                out.setdefault(where[0], []).append((where[1], size))
        return {k: sorted(v) for k, v in out.items()}

    def unwind_extents(self, section: str) -> list[tuple[int, int]]:
        """(offset, size) of each function of ``section`` its unwind table lists: in a linked object
        (``.eh_frame_hdr``'s sorted table, each FDE's pc_range), even a stripped one's internal functions.
        Empty for a ``.o`` or an object without the table."""
        return self._unwind.get(section, [])

    def symbol_at(self, section: str, offset: int) -> Symbol | None:
        for s in self.symbols:
            if s.section == section and s.value == offset and s.name:
                return s
        return None

    def section_at(self, address: int) -> tuple[str, int] | None:
        """(section, offset) of a linked address (executables, shared objects)."""
        for name, base in self.addresses.items():
            if base and base <= address < base + len(self.sections[name]):
                return name, address - base
        return None

    @cached_property
    def read_only_after_relocation(self) -> tuple[tuple[int, int], ...]:
        """(start, end) of each ``PT_GNU_RELRO`` segment of a linked object: sections written by the loader
        (``.got``, ``.data.rel.ro``) that it then makes read-only; () for a ``.o``."""
        if self.relocatable:
            return ()
        try:
            elf = ELFFile(io.BytesIO(self.elf_bytes))
            return tuple((seg["p_vaddr"], seg["p_vaddr"] + seg["p_memsz"]) for seg in elf.iter_segments()
                         if seg["p_type"] == "PT_GNU_RELRO")
        except (ELFError, struct.error, ValueError) as e:
            raise ObjectError(f"not a readable ELF file ({e})") from None

    def relocation_at(self, section: str, offset: int) -> Reloc | None:
        """The relocation of the field at ``section + offset``: a ``.o``'s; in a linked object, a writable
        section's word the loader relocates (``dynamic_relocations``)."""
        hit = self.relocs.get(section, {}).get(offset)
        if hit is None and not self.relocatable and section in self.writable and section in self.addresses:
            hit = self.dynamic_relocations.get(self.addresses[section] + offset)
        return hit

    @cached_property
    def dynamic_relocations(self) -> dict[int, Reloc]:
        """Linked address -> the loader's relocation of the word there (``.rela.dyn``, ``.rela.plt``), resolved
        as a ``.o``'s: ``R_X86_64_RELATIVE`` (the load base plus the addend, an address of this object) gives the
        section and offset the addend falls in, ``section`` None when it falls in none; a symbol's relocation its
        ``.dynsym`` entry (``section`` None: undefined here). Empty for a ``.o`` and i386 (REL: not read).
        Example: libnettle.so's ``.data`` word 0x4d020 (``_nettle_sha1_compress_vec``) has
        ``Reloc("R_X86_64_RELATIVE", "", ".text", 0x23930, 0, 8)``: the init stub at 0x315d0."""
        out: dict[int, Reloc] = {}
        for at, kind, sym, addend in self._dynamic_entries:
            if sym is not None:
                out[at] = Reloc(_reloc_kind(self.arch, kind), sym.name, sym.section, sym.value if sym.section else 0,
                                addend, 8)
            else:
                hit = self.section_at(addend)
                out[at] = Reloc(_reloc_kind(self.arch, kind), "", hit[0] if hit else None,
                                hit[1] if hit else addend, 0, 8)
        return out

    @cached_property
    def _dynamic_entries(self) -> list[tuple[int, int, Symbol | None, int]]:
        """Each RELA relocation of a linked x86-64 object, read once for ``got_slots`` and
        ``dynamic_relocations``: (linked address, type, its ``.dynsym`` entry -- section None when undefined
        here, value its section offset -- or None, addend). Empty for a ``.o`` and i386 (REL: not read)."""
        if self.relocatable or self.arch != "x86_64":
            return []
        out = []
        elf = ELFFile(io.BytesIO(self.elf_bytes))
        secs = list(elf.iter_sections())
        for rs in secs:
            if not isinstance(rs, RelocationSection) or not rs.is_RELA():
                continue
            tab = elf.get_section(rs["sh_link"]) if rs["sh_link"] else None
            for r in rs.iter_relocations():
                sym = None
                if r["r_info_sym"] and isinstance(tab, SymbolTableSection):
                    e = tab.get_symbol(r["r_info_sym"])
                    shndx = e["st_shndx"]
                    sec = secs[shndx].name if isinstance(shndx, int) and 0 < shndx < len(secs) else None
                    sym = Symbol(e.name, sec, e["st_value"] - (self.addresses.get(sec, 0) if sec else 0),
                                 e["st_size"], e["st_info"]["type"], e["st_info"]["bind"])
                out.append((r["r_offset"], r["r_info_type"], sym, r["r_addend"]))
        return out

    def loader_code_pointer(self, address: int) -> Reloc | None:
        """The ``R_X86_64_RELATIVE`` relocation of a linked object's writable word at ``address`` when it holds
        an address of the object's own code (a function pointer the loader initialises: nettle's
        ``_nettle_sha1_compress_vec``), outside the segments made read-only after relocation; else None."""
        r = self.dynamic_relocations.get(address)
        if r is None or r.kind != "R_X86_64_RELATIVE" or r.section not in self.executable or address % 8 or \
                any(lo <= address < hi for lo, hi in self.read_only_after_relocation):
            return None
        return r

    def aligned(self, section: str, offset: int, size: int) -> bool:
        """Whether ``section + offset`` is a multiple of ``size`` wherever the section is placed."""
        if not self.relocatable:
            return (self.addresses.get(section, 0) + offset) % size == 0
        return self.alignments.get(section, 1) % size == 0 and offset % size == 0

    def read(self, section: str, offset: int, size: int) -> bytes | None:
        data = self.sections.get(section)
        if data is None or offset < 0 or offset + size > len(data):
            return None
        return data[offset:offset + size]


def _few(names: list[str], most: int = 8) -> str:
    """``a, b, c`` -- or, past ``most``, only how many (a shared object exports thousands)."""
    return ", ".join(names) if len(names) <= most else f"{len(names):,} of them"


_X64 = {1: "R_X86_64_64", 2: "R_X86_64_PC32", 4: "R_X86_64_PLT32", 6: "R_X86_64_GLOB_DAT", 7: "R_X86_64_JUMP_SLOT",
        8: "R_X86_64_RELATIVE", 9: "R_X86_64_GOTPCREL", 10: "R_X86_64_32", 11: "R_X86_64_32S",
        41: "R_X86_64_GOTPCRELX", 42: "R_X86_64_REX_GOTPCRELX"}
_I386 = {1: "R_386_32", 2: "R_386_PC32", 3: "R_386_GOT32", 4: "R_386_PLT32", 9: "R_386_GOTOFF",
         10: "R_386_GOTPC", 43: "R_386_GOT32X"}


def _reloc_kind(arch: Arch, t: int) -> str:
    return (_X64 if arch == "x86_64" else _I386).get(t, f"R_{arch}_{t}")


def is_pc_relative(kind: str) -> bool:
    return kind in _PC_KINDS
