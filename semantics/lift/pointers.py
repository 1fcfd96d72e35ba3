"""Which values a function pointer of the object may hold: ``pointer_targets``, from the object's relocations
and every instruction of its code that refers to the pointer.

A word is a function pointer of the object when a relocation gives its initial value -- in a ``.o`` an
``R_X86_64_64`` / ``R_386_32`` data relocation, in a linked x86-64 object the loader's ``R_X86_64_RELATIVE``
relocation to the object's own code (``ObjectFile.loader_code_pointer``) -- and its values are bounded when
the object alone can change it:

* no global symbol covers it (a ``.o``'s ``.symtab`` or a shared object's ``.dynsym``: another object may store
  to it by name);
* no relocation holds an address within a word of it (a data word pointing at it, or, in a ``.o``, a GOT slot of
  it): it could be written through that pointer;
* every instruction that refers to it (a relocation in a ``.o``, a rip-relative displacement in a linked object)
  reads it, or is ``mov %reg, vec`` storing a symbol's address the register was given in the same straight
  stretch (``lea sym(%rip)``, ``mov sym@GOTPCREL(%rip)``, i386's ``lea sym@GOTOFF(%ebx)``, ``mov $sym``) -- no
  ``lea`` of it, no other write, nothing referring to part of it;
* every such instruction is found: in a ``.o`` no relocation to it lies in code no function symbol covers; in a
  linked object, which may be stripped, every 4 bytes of its code that read as a rip-relative displacement
  reaching within a word of it are looked at -- in a function its symbol or unwind entry (``.eh_frame_hdr``)
  delimits, decoded from the function's start, as the instruction there holding that displacement (no
  reference when the bytes are another part of an instruction); elsewhere (and past undecodable bytes) as
  every instruction that could hold it, any of which refuses.

The values are then the initial one and each one stored (in order, no repeats); a pointer's word accessed only
through another object's address (C's object bounds) is the one thing assumed, as for a ``.o``. In a linked
object a value stored from a GOT slot the loader fills with this object's own global (``mov
sym@GOTPCREL(%rip)`` not relaxed) is that definition's code, assuming no other object interposes one of that
name (``Target.bound``: the proof states it, ``FunctionProof.assumes``).

Example: libnettle.so's ``nettle_sha1_compress`` is ``jmp *0x1b34a(%rip)`` through the ``.data`` word 0x4d020
(no ``.dynsym`` entry); its ``R_X86_64_RELATIVE`` relocation gives the init stub at 0x315d0, and fat_init's
stores ``mov GOT(%rip),%rax; mov %rax,0x4d020`` give ``_nettle_sha1_compress_sha_ni`` and
``_nettle_sha1_compress_x86_64`` (both bound): three targets, each a path (``calls.Calls.pointer_target``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from functools import lru_cache

from sha1opt.semantics.lift.decode import GOT_SLOT_KINDS, Decoded, Function, decode_function, disassembler
from sha1opt.semantics.lift.elf import ObjectFile, Symbol
from sha1opt.semantics.lift.statics import ByIdentity, decoded_functions
from sha1opt.semantics.x86 import Imm, Mem, Reg


@dataclass(frozen=True)
class Target:
    """One value a function pointer may hold: this object's code (``section``, ``offset``) or an external symbol
    (``section`` None), and its name for messages; ``bound``, the global a linked object's GOT slot gave it (the
    value is that code where no other object interposes the name)."""

    name: str
    section: str | None
    offset: int = 0
    bound: str | None = None

    @property
    def key(self) -> tuple:
        """What it is, whatever it is called: the code's (section, offset), or an external symbol's name."""
        return (self.section, self.offset) if self.section is not None else (None, self.name)


def _add(out: list[Target], t: Target) -> None:
    if all(t.key != o.key for o in out):
        out.append(t)


def pointer_targets(obj: ObjectFile, section: str, offset: int, bits: int) -> tuple[Target, ...] | str:
    """Every value the function pointer at ``section + offset`` may hold (module docstring), in order (the initial
    value first); or why they cannot be bounded."""
    return _pointer_targets(id(obj), ByIdentity(obj), section, offset, bits)


def pointer_name(obj: ObjectFile, section: str, offset: int) -> str:
    """The pointer's name in messages: its data symbol (``nettle_sha1_compress_vec``), else ``.data+0x20`` in
    a ``.o`` and the linked address in a linked object (``.data@0x4d020``)."""
    for s in obj.symbols:
        if s.section == section and s.name and s.value <= offset < s.value + max(s.size, 1) and s.kind == "STT_OBJECT":
            return s.name if s.value == offset else f"{s.name}+{offset - s.value}"
    if not obj.relocatable:
        return f"{section}@0x{obj.addresses.get(section, 0) + offset:x}"
    return f"{section}+0x{offset:x}"


@lru_cache(maxsize=1024)
def _pointer_targets(_id: int, key: ByIdentity, section: str, offset: int, bits: int) -> tuple[Target, ...] | str:
    obj = key.obj
    w = bits // 8
    for s in obj.symbols:
        if s.section == section and s.name and s.value <= offset < s.value + max(s.size, 1) \
                and s.bind != "STB_LOCAL":
            return f"{s.name} is a global symbol (code in other objects may store to it)"
    if not obj.relocatable:
        return _linked_targets(obj, section, offset, w)
    # data relocations: the initial value, and no other pointer to it
    out: list[Target] = []
    init = obj.relocation_at(section, offset)
    if init is None or init.kind not in ("R_X86_64_64", "R_386_32"):
        return "its initial value is not a relocated address"
    out.append(target_at(obj, init.section, init.target + init.addend, init.symbol))
    for sec, relocs in obj.relocs.items():
        for r in relocs.values() if sec in obj.executable else ():
            if r.kind in GOT_SLOT_KINDS and r.section == section and offset - w < r.target < offset + w:
                return f"its address is taken through a GOT slot ({sec}+0x{r.target:x})"
        if sec in obj.executable or sec.startswith((".debug", ".eh_frame", ".rela")):
            continue
        for r in relocs.values():
            if r.section == section and offset - w < r.target + r.addend < offset + w:
                return f"its address is stored in {sec} (it may be written through that pointer)"
    # code: every instruction that refers to it (and no relocation in code no function symbol covers)
    covered: set[tuple[str, int]] = set()
    for fsym, fn, ins in decoded_functions(obj):
        covered.update((fsym.section, b) for b in range(fsym.value, fsym.value + obj.sized(fsym).size))
        for pos, a in enumerate(ins):
            d = fn.instructions[a]
            for ref in (d.mem_ref, d.imm_ref):
                if ref is None or ref.region != f"sec:{section}" or not offset - w < ref.offset < offset + w:
                    continue
                got = _use(obj, fn, ins, pos, f"{fsym.name}+0x{a - fsym.value:x}", ref.offset != offset,
                           ref is d.imm_ref)
                if isinstance(got, str):
                    return got
                if got is not None:
                    _add(out, got)
    for sec in obj.executable:
        for field, r in obj.relocs.get(sec, {}).items():
            if (sec, field) not in covered and r.section == section and \
                    offset - w - 16 < r.target + r.addend < offset + w:
                return f"code no function symbol covers refers to it ({sec}+0x{field:x})"
    return tuple(out)


def _use(obj: ObjectFile, fn: Function, ins: list[int], pos: int, where: str, part: bool,
         immediate: bool) -> Target | str | None:
    """What instruction ``ins[pos]`` of ``fn``, which refers to the pointer (``part``: not at its start;
    ``immediate``: its address as an immediate), does to it: None (a read), the value it stores, or why the
    values cannot be bounded (a message naming ``where``)."""
    d = fn.instructions[ins[pos]]
    if part:
        return f"{where} (`{d.text}`) refers to part of it"
    if immediate or d.mnemonic == "lea":
        return f"its address is taken at {where} (`{d.text}`)"
    ops = d.ins.operands
    if d.mnemonic in ("cmp", "test") or not isinstance(ops[-1], Mem):
        return None                    # a read
    if len(ops) == 1:
        return None if d.mnemonic in ("jmp", "call", "push") else f"{where} (`{d.text}`) changes it"
    if d.mnemonic != "mov" or len(ops) != 2:
        return f"{where} (`{d.text}`) changes it"
    if isinstance(ops[0], Imm) and d.imm_ref is not None:
        got = target_at(obj, d.imm_ref.region[4:] if d.imm_ref.region.startswith("sec:") else None,
                      d.imm_ref.offset, d.imm_ref.region[4:])
    else:
        got = _stored(obj, fn, ins[:pos], ops[0])
    if not isinstance(got, str) and got.section is not None and got.section not in obj.executable:
        got = f"an address of {got.section}, not code"
    return f"{where} (`{d.text}`) stores {got}" if isinstance(got, str) else got


def _linked_targets(obj: ObjectFile, section: str, offset: int, w: int) -> tuple[Target, ...] | str:
    """``pointer_targets`` of a linked x86-64 object (module docstring): the loader's relocation, the other
    dynamic relocations, and every rip-relative displacement of its code reaching within a word of it."""
    if obj.arch != "x86_64":
        return "a linked i386 object's function pointers are not bounded (not modelled)"
    addr = obj.addresses.get(section, 0) + offset
    init = obj.loader_code_pointer(addr)
    if init is None:
        return "its initial value is not an address of the object's code the loader relocates"
    out = [target_at(obj, init.section, init.target, "")]
    for at, r in obj.dynamic_relocations.items():
        if r.section == section and offset - w < r.target + r.addend < offset + w:
            return f"its address is stored at 0x{at:x} ({r.kind}: it may be written through that pointer)"
    for sec in sorted(obj.executable):
        for q in _displacements(ByIdentity(obj), sec, addr - w - 4 + 1, addr + w):
            got = _linked_use(obj, sec, q, addr, w)
            if isinstance(got, str):
                return got
            for t in got:
                _add(out, t)
    return tuple(out)


_IMMEDIATES = (0, 1, 2, 4)          # bytes of an immediate after a displacement (a rip target is past them)


@lru_cache(maxsize=64)
def _displacement_index(key: ByIdentity, section: str) -> dict[int, list[int]]:
    """Every offset q of ``section`` -> as a rip-relative displacement ending the instruction's operand bytes
    there, the address it reaches before an immediate: ``base + q + 4 + disp32``, kept where that falls in
    (or within 8 bytes of) a writable section."""
    obj = key.obj
    code = obj.sections[section]
    base = obj.addresses.get(section, 0)
    spans = [(obj.addresses[s] - 16, obj.addresses[s] + len(obj.sections[s]) + 16) for s in obj.writable
             if obj.addresses.get(s)]
    out: dict[int, list[int]] = {}
    for k in range(4):
        n = (len(code) - k) // 4
        for j, disp in enumerate(struct.unpack_from(f"<{n}i", code, k)):
            q = k + 4 * j
            t = base + q + 4 + disp
            if any(lo <= t < hi for lo, hi in spans):
                out.setdefault(t, []).append(q)
    return out


def _displacements(key: ByIdentity, section: str, lo: int, hi: int) -> list[int]:
    """Offsets of ``section`` whose 4 bytes, read as a rip-relative displacement (with any immediate after it),
    reach an address in [lo, hi)."""
    index = _displacement_index(key, section)
    return sorted({q for t in range(lo - max(_IMMEDIATES), hi) for q in index.get(t, ())})


def _extents(obj: ObjectFile, section: str) -> list[tuple[int, int, str]]:
    """(offset, size, name) of each function of a linked object's ``section``: its symbols and unwind entries."""
    out = {(s.value, obj.sized(s).size): s.name for s in obj.functions() if s.section == section}
    for off, size in obj.unwind_extents(section):
        out.setdefault((off, size), f"0x{obj.addresses.get(section, 0) + off:x}")
    return [(off, size, name) for (off, size), name in out.items()]


@lru_cache(maxsize=256)
def _decoded_extent(key: ByIdentity, section: str, off: int, size: int) -> Function:
    return decode_function(key.obj, Symbol(f"{section}+0x{off:x}", section, off, size, "STT_FUNC", "STB_LOCAL"))


def _linked_use(obj: ObjectFile, section: str, q: int, addr: int, w: int) -> list[Target] | str:
    """What the code holding a rip-relative displacement at ``section + q`` reaching near ``addr`` does to the
    pointer there (``_use``, in each function holding it): the values it stores (none: a read, or no instruction
    holds that displacement), or why the values cannot be bounded."""
    base = obj.addresses.get(section, 0)
    found, uses = False, []
    for off, size, name in _extents(obj, section):      # (every function holding it: each one's decoding)
        if not off <= q < off + size:
            continue
        fn = _decoded_extent(ByIdentity(obj), section, off, size)
        ins = sorted(fn.instructions)
        pos = next((k for k, a in enumerate(ins) if a <= q < fn.instructions[a].next), None)
        if pos is None:             # (past undecodable bytes: not read as this function's code)
            continue
        found = True
        reach = _rip_reach(obj, section, fn.instructions[ins[pos]], q) if ins[pos] < q else None
        if reach is not None and addr - w < reach < addr + w:
            uses.append(_use(obj, fn, ins, pos, f"{name}+0x{ins[pos] - off:x} (0x{base + ins[pos]:x})",
                             reach != addr, False))
    if found:
        return next((u for u in uses if isinstance(u, str)), [u for u in uses if u is not None])
    code = obj.sections[section]
    md = disassembler(obj.arch, False)
    for k in range(1, 12):
        i = next(md.disasm(code[q - k:q - k + 15], q - k), None) if q >= k else None
        if i is not None and i.disp_offset == k and i.address + i.size >= q + 4 and \
                addr - w < base + i.address + i.size + i.disp < addr + w and "rip" in i.op_str:
            return (f"code no symbol or unwind entry describes refers to it (0x{base + q - k:x}: "
                    f"`{i.mnemonic} {i.op_str}`)")
    return []


def _rip_reach(obj: ObjectFile, section: str, d: Decoded, q: int) -> int | None:
    """The linked address ``d``'s rip-relative memory operand reaches, when its displacement is at ``q``."""
    code = obj.sections[section]
    i = next(disassembler(obj.arch, False).disasm(code[d.address:d.next], d.address), None)
    if i is None or i.disp_offset != q - d.address or "rip" not in i.op_str:
        return None
    return obj.addresses.get(section, 0) + d.next + i.disp


def target_at(obj: ObjectFile, section: str | None, off: int, symbol: str) -> Target:
    """The value ``section + off`` of the object (named by the function symbol starting there, else by place),
    or, ``section`` None, the external ``symbol``."""
    if section is None:
        return Target(symbol, None, 0)
    sym = obj.covering(section, off)
    name = sym.name if sym is not None and sym.value == off else \
        f"{section}+0x{off:x}" if obj.relocatable else f"0x{obj.addresses.get(section, 0) + off:x}"
    return Target(name, section, off)


# Instructions that write registers no operand names (a value between its definition and its store is lost).
IMPLICIT = frozenset({"cpuid", "rdtsc", "rdtscp", "xgetbv", "mul", "div", "idiv", "imul", "xchg", "xadd", "cmpxchg",
                       "cdq", "cqo", "cdqe", "cwde", "syscall", "rdrand", "rdseed", "call", "leave", "pop", "push"})


def _stored(obj: ObjectFile, fn, before: list[int], src) -> Target | str:
    """The address a ``mov src, var`` stores: a register the nearest earlier instruction of the same straight
    stretch (no branch target, call or implicit register write between) sets to a symbol's address
    (``lea sym(%rip)``, ``mov sym@GOTPCREL(%rip)``, ``mov $sym``); else why not."""
    if not isinstance(src, Reg):
        return "a value that is not a register"
    joins = {d.target for d in fn.instructions.values() if d.target is not None}
    for a in reversed(before):
        d = fn.instructions[a]
        if d.next in joins or d.mnemonic in ("jmp", "ret") or d.mnemonic in IMPLICIT or d.mnemonic.startswith("j"):
            break
        ops = d.ins.operands
        last = ops[-1] if ops else None
        if not (isinstance(last, Reg) and last.name == src.name):
            continue
        relocs = [(off, r) for off, r in obj.relocs.get(fn.section, {}).items() if d.address <= off < d.next]
        if last == src and d.got_slot and d.mnemonic == "mov" and not obj.relocatable and d.mem_ref is not None:
            # a linked object's GOT slot the loader fills with a symbol's address (``decode.linked_got_address``)
            if d.mem_ref.region.startswith("sec:") and d.bound:
                return replace(target_at(obj, d.mem_ref.region[4:], d.mem_ref.offset, ""), name=d.bound, bound=d.bound)
            if d.mem_ref.region.startswith("ext:") and d.mem_ref.offset == 0 and d.bound is None:
                return target_at(obj, None, 0, d.mem_ref.region[4:])
        if last == src and d.mnemonic == "lea" and d.mem_ref is not None and not relocs \
                and d.mem_ref.region.startswith("sec:"):
            return target_at(obj, d.mem_ref.region[4:], d.mem_ref.offset, "")     # resolved by the assembler
        if last == src and len(relocs) == 1:
            field, r = relocs[0]
            if "GOTPCREL" in r.kind and d.mnemonic == "mov":
                return target_at(obj, r.section, r.target, r.symbol)
            if r.kind == "R_386_GOTOFF" and d.mnemonic == "lea":
                return target_at(obj, r.section, r.target + r.addend, r.symbol)
            if r.kind in ("R_X86_64_PC32", "R_386_PC32") and d.mnemonic == "lea":
                return target_at(obj, r.section, r.target + r.addend + d.next - field, r.symbol)
            if r.kind in ("R_X86_64_32S", "R_X86_64_32", "R_386_32") and d.mnemonic == "mov" and d.imm_ref:
                return target_at(obj, r.section, r.target + r.addend, r.symbol)
        return f"%{src.name}, set at 0x{d.address:x} (`{d.text}`) to a value that is not a symbol's address"
    return f"%{src.name}, whose value is set outside its straight-line stretch"


__all__ = ["IMPLICIT", "Target", "pointer_name", "pointer_targets", "target_at"]
