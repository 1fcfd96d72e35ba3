"""The object's own writable data: which words a path reads as the file has them, and which as inputs.

A relocatable object's writable sections (``.data``, ``.bss``) hold at run time what the program stored
there; the file has only the initial value. A word a path reads there is the file's bytes only when
nothing the path does not see can have changed it: no global symbol covers it (another object may store to
it -- a feature flag a detection function elsewhere sets), and no instruction of the object writes it or
takes its address, and no data relocation holds its address. Otherwise it is an input named by its
symbol and offset (``g_flag+0``), as an undefined symbol's word is (``memory``: region ``ext:``); reading
it as its initial value would decide a dispatch by the file and leave the other paths unproved. (A
linked object's writable words are inputs already: ``decode.linked_ref``.)

A static only one function reads and writes (``own_static``: local, its address never taken, every
reference in that function, stores whole-word ``mov``s) is, in a one-block proof of that function, not any
input but one of the values it can hold: its initial value and the constants the function stores there
(``paths.Program.own_static``), by induction over calls made one at a time. A static buffer only that
function refers to (``own_scratch``, its address taken there too) may be written by it: a scratch copy whose
words the call reads after writing them -- one read before is an input, as above.

``decoded_functions(obj)`` decodes every function of an object once (``pointers.pointer_targets`` scans them
too).

Example: ``int has_fast;`` (global, ``.bss``) read by ``cmpl $0, has_fast(%rip)`` is the input
``has_fast+0``; ``static int table[4] = {...};`` never written is the file's bytes.
"""

from __future__ import annotations

from functools import lru_cache

from sha1opt.semantics.lift.decode import GOT_SLOT_KINDS, decode_function
from sha1opt.semantics.lift.elf import ObjectFile, Symbol
from sha1opt.semantics.x86 import Mem


class ByIdentity:
    """An object hashable by identity (an ``lru_cache`` key): one object's analysis is done once."""

    def __init__(self, obj: ObjectFile) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other) -> bool:
        return isinstance(other, ByIdentity) and other.obj is self.obj


def decoded_functions(obj: ObjectFile) -> tuple:
    """Every function of the object decoded: (symbol, decoded function, its addresses in order)."""
    return _decoded(ByIdentity(obj))


@lru_cache(maxsize=4)
def _decoded(key: ByIdentity) -> tuple:
    obj = key.obj
    out = []
    for fsym in obj.functions():
        if fsym.section in obj.executable:
            fn = decode_function(obj, obj.sized(fsym))
            out.append((fsym, fn, sorted(fn.instructions)))
    return tuple(out)


def run_time_name(obj: ObjectFile, section: str, offset: int) -> str | None:
    """The input name of the word at ``section + offset`` of a relocatable object's writable section when it may
    hold at run time other than the file's bytes (module docstring), else None."""
    if not obj.relocatable or section not in obj.writable:
        return None
    return _run_time_name(ByIdentity(obj), section, offset)


@lru_cache(maxsize=256)
def _run_time_name(key: ByIdentity, section: str, offset: int) -> str | None:
    obj = key.obj
    var = _variable(obj, section, offset)
    lo, hi = (var.value, var.value + max(var.size, 1)) if var is not None else (0, len(obj.sections[section]))
    name = f"{var.name}+{offset - var.value}" if var is not None else f"{section}+{offset}"
    if var is not None and var.bind != "STB_LOCAL":
        return name                                  # (another object may store to it)
    for sec, relocs in obj.relocs.items():
        if sec.startswith((".debug", ".eh_frame")):
            continue
        for r in relocs.values():
            at = r.target + (r.addend if sec not in obj.executable else 0)
            if r.section == section and lo <= at < hi and (sec not in obj.executable or r.kind in GOT_SLOT_KINDS):
                return name                          # (its address is held in data, or in a GOT slot)
    here = f"sec:{section}"
    for _, fn, _ in decoded_functions(obj):
        for d in fn.instructions.values():
            if d.imm_ref is not None and d.imm_ref.region == here and lo <= d.imm_ref.offset < hi:
                return name                          # (its address taken as an immediate)
            ref = d.mem_ref
            if ref is None or ref.region != here or not lo <= ref.offset < hi:
                continue
            ops = d.ins.operands
            if d.mnemonic == "lea" or (ops and isinstance(ops[-1], Mem) and d.mnemonic not in ("cmp", "test")):
                return name                          # (written, or its address taken)
    return None


def own_static(obj: ObjectFile, fsym: Symbol, section: str, offset: int, size: int) -> tuple[str, int] | None:
    """``(name, initial value)`` when the word at ``section + offset`` is a static only ``fsym``'s own code reads
    and writes -- a local data symbol of exactly ``size`` bytes in a relocatable object's writable section, every
    instruction referring to it inside ``fsym``'s extent, each a read or a whole-word ``mov`` store, its address
    never taken or held in data -- else None. Berkeley DB-style ``static int is_reverse = -1``, set on first use:
    ``("is_reverse.0", 0xffffffff)``. Its values at entry are its initial value and what the function stores
    (``paths.Program.own_static``)."""
    if not obj.relocatable or section not in obj.writable or fsym.section not in obj.executable:
        return None
    return _own_static(ByIdentity(obj), fsym.name, fsym.section, fsym.value, obj.sized(fsym).size, section, offset, size)


@lru_cache(maxsize=256)
def _own_static(key: ByIdentity, fname: str, fsec: str, start: int, length: int, section: str, offset: int,
                size: int) -> tuple[str, int] | None:
    obj = key.obj
    var = _variable(obj, section, offset)
    if var is None or var.bind != "STB_LOCAL" or var.kind != "STT_OBJECT" or var.value != offset \
            or var.size != size or any(obj.relocation_at(section, offset + i) for i in range(size)):
        return None                                  # (a relocated word is a pointer: ``calls.pointer_targets``)
    if not _only_this_code_refers_to(obj, fsec, start, length, section, offset, offset + size):
        return None
    here = f"sec:{section}"
    for fsym, fn, _ in decoded_functions(obj):
        for d in fn.instructions.values():
            refs = [r for r in (d.mem_ref, d.imm_ref) if r is not None and r.region == here
                    and offset - 8 < r.offset < offset + size]
            if not refs:
                continue
            ops = d.ins.operands
            inside = fsym.section == fsec and start <= d.address < start + length
            whole = d.mem_ref is not None and d.mem_ref.offset == offset and d.imm_ref is None and not d.got_slot
            store = bool(ops) and isinstance(ops[-1], Mem) and d.mnemonic not in ("cmp", "test")
            if not (inside and whole and d.mnemonic != "lea" and (not store or d.mnemonic == "mov")
                    and (d.msize in (0, size))):
                return None
    raw = obj.read(section, offset, size)
    return None if raw is None else (var.name, int.from_bytes(raw, "little"))


def own_scratch(obj: ObjectFile, fsym: Symbol, section: str, offset: int) -> str | None:
    """The name of the static buffer holding ``section + offset`` when only ``fsym``'s own code refers to it --
    a local data symbol of a relocatable object's writable section, no relocation in it, its address held in
    no data and taken (``lea``) only by that code -- else None. Berkeley DB-style ``static unsigned char
    workspace[64]``, a scratch copy of the block: written and read within a call, a word read before the call
    writes it an input of any value (``run_time_name``), never the file's bytes."""
    if not obj.relocatable or section not in obj.writable or fsym.section not in obj.executable:
        return None
    var = _variable(obj, section, offset)
    if var is None:
        return None
    return _own_scratch(ByIdentity(obj), fsym.section, fsym.value, obj.sized(fsym).size, section, var)


@lru_cache(maxsize=256)
def _own_scratch(key: ByIdentity, fsec: str, start: int, length: int, section: str, var: Symbol) -> str | None:
    obj = key.obj
    lo, hi = var.value, var.value + var.size
    if var.bind != "STB_LOCAL" or var.kind != "STT_OBJECT" or not var.size \
            or any(obj.relocation_at(section, a) for a in range(lo, hi)):
        return None
    return var.name if _only_this_code_refers_to(obj, fsec, start, length, section, lo, hi) else None


def _only_this_code_refers_to(obj: ObjectFile, fsec: str, start: int, length: int, section: str, lo: int,
                              hi: int) -> bool:
    """Whether no relocation but those inside the function at ``fsec + start`` (``length`` bytes) refers to
    ``section`` bytes ``lo..hi``: none from other code (or code no symbol covers; a reference a few bytes
    around counts, ``x+16(%rip)`` addressing) and none from data (its address is never held)."""
    for sec, relocs in obj.relocs.items():
        if sec.startswith((".debug", ".eh_frame")):
            continue
        for field, r in relocs.items():
            if r.section != section:
                continue
            if sec in obj.executable and lo - 16 < r.target + r.addend < hi + 8 \
                    and not (sec == fsec and start <= field < start + length):
                return False
            if sec not in obj.executable and lo <= r.target + r.addend < hi:
                return False
    return True


def _variable(obj: ObjectFile, section: str, offset: int) -> Symbol | None:
    """The data symbol whose extent holds ``section + offset`` (hand-written ``.globl`` labels have no type or
    size: to the next symbol, ``ObjectFile.sized``)."""
    held = [obj.sized(s) for s in obj.symbols if s.section == section and s.name and not s.name.startswith(".L")
            and s.kind in ("STT_OBJECT", "STT_NOTYPE") and s.value <= offset]
    return next((s for s in sorted(held, key=lambda s: -s.value) if offset < s.value + max(s.size, 1)), None)


__all__ = ["ByIdentity", "decoded_functions", "own_scratch", "own_static", "run_time_name"]
