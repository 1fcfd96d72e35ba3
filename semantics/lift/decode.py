"""Machine code to instructions: capstone decodes, the table decides what is modelled.

``decode_function(obj, symbol)`` decodes every instruction of one function
(capstone, Intel detail, operands turned into AT&T order) into ``Decoded``
records: the address (an offset in the function's section), the size, the
mnemonic, an ``x86.Instr`` with our operand types, the direct branch target,
and the references relocations or rip-relative addressing make
(``Ref(region, offset)``: ``"sec:.rodata"`` for a section of this object,
``"ext:OPENSSL_ia32cap_P"`` for an undefined symbol or a capability word of
``CAPABILITY_SYMBOLS`` -- an input of the function, whatever the object
initialises it to -- ``"got"`` for i386's global offset table). Nothing is refused here: an instruction the executor
cannot model carries ``problem`` (why), and is refused only if a path
reaches it -- so one unsupported vector path does not hide the integer one.

Example: ``8b 0d 00 00 00 00`` with an ``R_X86_64_PC32`` against
``OPENSSL_ia32cap_P - 4`` decodes to ``Decoded(mnemonic="mov", ins=mov
0(%rip-ref), %ecx, mem_ref=Ref("ext:OPENSSL_ia32cap_P", 0))``.

``line`` is the source line from DWARF (``.debug_line``, present when the
text was assembled with ``-g``), else 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import capstone
from capstone import x86 as cx

from sha1opt.semantics.lift.canary import CANARY_REGION, is_guard
from sha1opt.semantics.lift.canary import describe as describe_guard
from sha1opt.semantics.lift.elf import ObjectFile, Reloc, Symbol
from sha1opt.semantics.x86 import BYTE_NAMES, CL, I386_REGS, R64_TO_R32, X64_EXTRA, Imm, Instr, Mem, Reg

_CONDS = {"je", "jne", "js", "jns", "jb", "jae", "ja", "jbe", "jl", "jge", "jg", "jle", "jo", "jno", "jp", "jnp"}
BRANCHES = frozenset(_CONDS)
_CMOV = {"cmov" + c[1:] for c in _CONDS}
_SETCC = {"set" + c[1:] for c in _CONDS}
_BYTE_OF = {b: r for r, b in BYTE_NAMES.items()}          # "r12b" -> "r12d"


@dataclass(frozen=True)
class Ref:
    """An absolute reference: ``offset`` bytes into ``region``."""

    region: str
    offset: int


@dataclass(frozen=True)
class Decoded:
    address: int
    size: int
    mnemonic: str                 # capstone's Intel mnemonic ("mov", "jne", "push", "endbr64")
    ins: Instr                    # operands in AT&T order (Mem of a rip/absolute reference: base None)
    text: str                     # AT&T text, for messages
    width: int                    # operand size in bytes of the widest operand (8 for push %rbx)
    target: int | None = None     # direct jump/call target (section offset)
    mem_ref: Ref | None = None    # the memory operand is absolute: this region + offset (+ index)
    imm_ref: Ref | None = None    # the immediate is an address (or i386 GOT anchor)
    gotpc: bool = False           # ``add $_GLOBAL_OFFSET_TABLE_, %reg`` (i386 PIC)
    gotoff: bool = False          # the displacement is @GOTOFF: ``mem_ref`` is relative to the GOT
    problem: str | None = None    # why the executor cannot model it (refused when reached)
    line: int = 0
    msize: int = 0                # bytes of the memory operand (movzbl: 1), 0 without one
    pcrel: Ref | None = None      # i386 PIC ``sym-.L_pic(%ebp)``: address = base + pcrel - pcrel_at
    pcrel_at: int = 0             # section offset of the relocated field (the P of S + A - P)
    got_slot: bool = False        # the memory operand is a GOT slot (``sym@GOTPCREL(%rip)``, ``sym@GOT(%ebx)``):
    #                               its value is the address ``mem_ref`` (``got_address``), read only by ``mov``
    bound: str | None = None      # a linked object's PLT call or GOT slot taken to this object's own global
    #                               definition: proved assuming no other object interposes one of that name
    base: int = 0                 # the section's address (a linked object's; 0 in a .o): messages name
    #                               ``base + address``, the address objdump shows (``text`` too)
    rewritten: str | None = None  # a relocation the linker applies to bytes of it that are not its address
    #                               field: the bytes here are not the ones that run (refused when reached,
    #                               even a ``nop``: a dropped instruction whose relocation remains)

    @property
    def next(self) -> int:
        return self.address + self.size

    def where(self) -> str:
        """The instruction's address for messages: the linked address in an executable or shared object (what
        ``objdump`` and ``scan``'s ``@0x...`` show; ``address`` is the section offset), the section offset in a
        ``.o``. Example: libnettle.so's ``nettle_sha1_compress`` at 0x31cd0 is ``.text`` offset 0x24030."""
        return f"0x{self.address + self.base:x}" + (f" (line {self.line})" if self.line else "")


@dataclass
class Function:
    obj: ObjectFile
    symbol: Symbol
    instructions: dict[int, Decoded] = field(default_factory=dict)   # address -> decoded, in order

    @property
    def entry(self) -> int:
        return self.symbol.value

    @property
    def section(self) -> str:
        return self.symbol.section or ""


def _reg(name: str) -> Reg | None:
    n = name.lower()
    if n == "cl":
        return CL
    if n in I386_REGS or n in X64_EXTRA:
        return Reg(n, 32)
    if n in R64_TO_R32:
        return Reg(R64_TO_R32[n], 64)
    if n[:3] in ("xmm", "ymm") and n[3:].isdigit() and int(n[3:]) < 16:
        return Reg(f"xmm{n[3:]}", 128 if n[0] == "x" else 256)
    return None


def disassembler(arch: str, syntax_att: bool) -> capstone.Cs:
    """A capstone disassembler for ``arch``: with instruction details (Intel syntax), or AT&T text only."""
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64 if arch == "x86_64" else capstone.CS_MODE_32)
    md.detail = not syntax_att
    if syntax_att:
        md.syntax = capstone.CS_OPT_SYNTAX_ATT
    return md


# Capability words defined in the object but written at run time (sha1opt's dispatching export fills
# ``sha1opt_ia32cap`` from cpuid in a constructor): read as inputs, like an undefined OPENSSL_ia32cap_P.
CAPABILITY_SYMBOLS = frozenset({"sha1opt_ia32cap"})


def _ref_of(obj: ObjectFile, r: Reloc, pc_adjust: int) -> Ref:
    if r.section is None or r.symbol in CAPABILITY_SYMBOLS:
        return Ref(f"ext:{r.symbol}", r.addend + pc_adjust)
    return Ref(f"sec:{r.section}", r.target + r.addend + pc_adjust)


# Relocations of a GOT slot (the linker fills it with the symbol's address): x86-64 ``sym@GOTPCREL(%rip)``
# (and the relaxable forms), i386 ``sym@GOT(%ebx)``.
GOT_SLOT_KINDS = frozenset({"R_X86_64_GOTPCREL", "R_X86_64_GOTPCRELX", "R_X86_64_REX_GOTPCRELX", "R_386_GOT32",
                            "R_386_GOT32X"})


def got_address(obj: ObjectFile, r: Reloc) -> Ref:
    """The address a GOT slot holds: the symbol's (the slot's relocation addend is about the slot, not the symbol).
    A symbol this object defines in a read-only section is its bytes there (``sec:``); one it does not define, or
    defines in a writable section (a global flag another object may set at run time: the file holds only its
    initial value), is an input named by the symbol (``ext:g_hasSHA``): an unconstrained value at every read."""
    if r.section is not None and r.section not in obj.writable:
        return Ref(f"sec:{r.section}", r.target)
    return Ref(f"ext:{r.symbol or r.section}", r.target if not r.symbol else 0)


def linked_got_address(obj: ObjectFile, sym: Symbol) -> Ref:
    """``got_address`` for a linked object's GOT slot the loader fills with ``sym``'s address (the slot's
    relocation's own entry, ``ObjectFile.got_slots``): where this object defines it, its address as
    ``linked_ref`` gives it (a read-only section's bytes; a writable word an input named by its address,
    which a native run can set); undefined here, an input named by the symbol (another object's)."""
    if sym.section is not None:
        return linked_ref(obj, (sym.section, sym.value), obj.addresses.get(sym.section, 0) + sym.value)
    return Ref(f"ext:{sym.name}", 0)


_LINKED_WORD = re.compile(r"mem_([0-9a-f]+)")


def linked_word(addr: int) -> str:
    """The input name of a linked object's run-time word at ``addr`` (``linked_ref``): ``mem_4895a4``."""
    return f"mem_{addr:x}"


def linked_word_address(name: str) -> int | None:
    """The address ``linked_word`` named (a native run writes a path's words there), or None for another name."""
    hit = _LINKED_WORD.fullmatch(name)
    return int(hit[1], 16) if hit else None


def linked_ref(obj: ObjectFile, hit: tuple[str, int] | None, addr: int) -> Ref:
    """An address with no relocation: a section's bytes -- except a writable section's in a linked object
    (``.bss``, ``.data``, ``.got``), whose word at run time is not the file's: an input named by its
    address, ``ext:mem_4895a0`` (the capability words of a shared object, OpenSSL's hidden
    ``OPENSSL_ia32cap_P``, read as zero from the file, would decide the dispatch) -- but for a function pointer
    the loader initialises to the object's code (``ObjectFile.loader_code_pointer``), a word of its section as a
    ``.o``'s pointer is (``pointers.pointer_targets`` bounds its values; where it cannot, a read is an input
    named as any other writable word, ``calls.load_pointer``)."""
    if hit is None:
        return Ref("unmapped", addr)
    if not obj.relocatable and hit[0] in obj.writable and obj.loader_code_pointer(addr) is None:
        return Ref(f"ext:{linked_word(addr)}", 0)
    return Ref(f"sec:{hit[0]}", hit[1])


def decode_function(obj: ObjectFile, sym: Symbol, lines: dict[int, int] | None = None) -> Function:
    sec = sym.section or ""
    code = obj.sections[sec][sym.value:sym.value + sym.size]
    base = obj.addresses.get(sec, 0)
    fn = Function(obj, sym)
    md, att = disassembler(obj.arch, False), disassembler(obj.arch, True)
    att_text = {i.address - base: f"{i.mnemonic} {i.op_str}".strip() for i in att.disasm(code, base + sym.value)}
    pos = sym.value
    for i in md.disasm(code, sym.value):
        fn.instructions[i.address] = _convert(obj, sec, base, i, att_text.get(i.address, i.mnemonic),
                                              (lines or {}).get(i.address, 0))
        pos = i.address + i.size
    cut = next(md.disasm(obj.sections[sec][pos:pos + 16], pos), None) if pos < sym.value + sym.size else None
    if cut is not None and pos + cut.size > sym.value + sym.size:
        # an instruction straddles the extent's end: the extent is not the code's own (a window ``candidates``
        # gave code no symbol names), so the code goes on, read along its branches
        fn.instructions.update(decode_reachable(obj, sec, {pos}, lines, fn.instructions))
    elif pos < sym.value + sym.size:
        # capstone stops at undecodable bytes: the first one is refused when reached
        fn.instructions[pos] = Decoded(pos, 1, "(bad)", Instr("(bad)", ()), "(bad)", 0,
                                       problem=f"undecodable bytes {code[pos - sym.value:pos - sym.value + 4].hex()}",
                                       line=(lines or {}).get(pos, 0), base=base)
    return fn


# A stripped function is decoded from its entry along the branches (``decode_reachable``), at most this much.
REACHABLE_INSTRUCTIONS = 60_000
_ENDS = frozenset({"jmp", "ret", "ud2", "hlt"})


def decode_reachable(obj: ObjectFile, section: str, entries: set[int], lines: dict[int, int] | None = None,
                     known: dict[int, Decoded] | None = None) -> dict[int, Decoded]:
    """The instructions reachable from ``entries`` in ``section``, following fall-through and direct jump and
    branch targets (not calls: a called function is decoded when a path reaches it), each stretch up to a
    ``jmp``, ``ret`` or an address already in ``known``.

    This is how code no symbol describes is read: a stripped shared object's internal block function
    (OpenSSL's ``SHA1_Transform`` is ``mov $1, %edx; jmp`` into one). Without a symbol there is no size, so
    only what is reachable is decoded -- padding and data between functions never are. Undecodable bytes end
    their stretch with a ``(bad)`` record, refused when a path reaches it. Example: from ``SHA1_Transform``'s
    jump target in ``libcrypto.so.3``, the dispatch on the capability words and every path's code (integer,
    SSSE3, AVX, AVX2, SHA-NI) with their loops.
    """
    code = obj.sections[section]
    base = obj.addresses.get(section, 0)
    md, att = disassembler(obj.arch, False), disassembler(obj.arch, True)
    known = known or {}
    out: dict[int, Decoded] = {}
    work = sorted(entries, reverse=True)
    while work and len(out) < REACHABLE_INSTRUCTIONS:
        pos = work.pop()
        if pos in out or pos in known or not 0 <= pos < len(code):
            continue
        stretch = code[pos:pos + 4096]
        texts = {i.address - base: f"{i.mnemonic} {i.op_str}".strip() for i in att.disasm(stretch, base + pos)}
        end = pos
        for i in md.disasm(stretch, pos):
            if i.address != end or (i.address in out or i.address in known):
                break
            d = _convert(obj, section, base, i, texts.get(i.address, i.mnemonic), (lines or {}).get(i.address, 0))
            out[i.address] = d
            end = d.next
            if d.target is not None and d.mnemonic != "call":
                work.append(d.target)
            if d.mnemonic in _ENDS:
                break
        else:
            if len(stretch) == 4096 and end > pos + 4096 - 16:
                work.append(end)       # the stretch ran to the end of the 4 KB window: go on from there
            elif end < len(code):
                out[end] = Decoded(end, 1, "(bad)", Instr("(bad)", ()), "(bad)", 0,
                                   problem=f"undecodable bytes {code[end:end + 4].hex()}",
                                   line=(lines or {}).get(end, 0), base=base)
    return out


def decode_reach(obj: ObjectFile, sym: Symbol, lines: dict[int, int] | None = None) -> Function:
    """``decode_function`` and the code its direct jumps and branches reach outside the symbol's extent
    (``decode_reachable``): the whole of a function that tail-jumps into another body, e.g. a stripped
    shared object's ``SHA1_Transform`` (``mov $1, %edx; jmp`` into the block function), or OpenSSL's
    dispatch into its ``_ssse3_shortcut``."""
    fn = decode_function(obj, sym, lines)
    out = {d.target for d in fn.instructions.values() if d.target is not None and d.mnemonic != "call"
           and not sym.value <= d.target < sym.value + sym.size}
    fn.instructions.update(decode_reachable(obj, fn.section, out, lines, fn.instructions))
    return fn


def _convert(obj: ObjectFile, sec: str, base: int, i, text: str, line: int) -> Decoded:
    mnem = i.mnemonic
    if mnem.startswith(("notrack ", "bnd ", "rep ", "repz ", "repe ")):
        _, mnem = mnem.split(" ", 1)
        if i.mnemonic.startswith(("rep ", "repz ", "repe ")) and mnem != "ret":   # "repz ret": AMD's 2-byte ret
            return Decoded(i.address, i.size, i.mnemonic, Instr(i.mnemonic, ()), text, 0,
                           problem="string instructions are not modelled", line=line, base=base)
    mnem = {"sal": "shl"}.get(mnem, mnem)
    ops, problem, width, msize = [], None, 0, 0
    pcrel, pcrel_at = None, 0
    mem_ref = imm_ref = None
    gotpc = gotoff = got_slot = False
    target = bound = None
    next_ip = i.address + i.size
    for o in i.operands:
        width = max(width, o.size)
        if o.type == cx.X86_OP_REG:
            r = _reg(i.reg_name(o.reg))
            if r is None and mnem in _SETCC and i.reg_name(o.reg) in _BYTE_OF:
                r = Reg(_BYTE_OF[i.reg_name(o.reg)], 8)      # (``sete %r12b``: the low byte of %r12d)
            if r is None:
                problem = problem or f"register %{i.reg_name(o.reg)} is not modelled"
                r = Reg(i.reg_name(o.reg), 32)
            ops.append(r)
        elif o.type == cx.X86_OP_IMM:
            v = o.imm
            reloc = obj.relocation_at(sec, i.address + i.imm_offset) if i.imm_offset else None
            if reloc is not None:
                if reloc.kind == "R_386_GOTPC":
                    gotpc = True
                    imm_ref = Ref("gotpc", reloc.addend - (i.address + i.imm_offset))
                else:
                    imm_ref = _ref_of(obj, reloc, 0)
            if mnem in ("jmp", "call") or mnem in BRANCHES:
                target = v                   # (capstone decodes at section offsets: v is one)
                if reloc is not None:
                    target = None
                    imm_ref = _ref_of(obj, reloc, next_ip - (i.address + i.imm_offset))
                elif mnem in ("jmp", "call") and (plt := obj.plt_names.get(base + v)) is not None:
                    # a linked object's PLT entry: its symbol -- undefined here, an external function (its
                    # contract, if known); defined here, this object's own code (bound: no interposition)
                    target = None
                    if plt.section is None or plt.section not in obj.executable:
                        imm_ref = Ref(f"ext:{plt.name}", 0)
                    else:
                        imm_ref, bound = Ref(f"sec:{plt.section}", plt.value), plt.name
            ops.append(Imm(v))
        elif o.type == cx.X86_OP_MEM:
            msize = o.size
            m = o.mem
            breg = i.reg_name(m.base) if m.base else None
            ireg = i.reg_name(m.index) if m.index else None
            reloc = obj.relocation_at(sec, i.address + i.disp_offset) if i.disp_offset else None
            b = None
            if m.segment:
                if breg is None and ireg is None and reloc is None and \
                        is_guard(obj.arch, i.reg_name(m.segment), m.disp):
                    ops.append(Mem(None, None, 1, 0))      # the stack guard (``canary``): nothing else
                    mem_ref = Ref(CANARY_REGION, 0)
                    continue
                problem = problem or (f"segment-relative memory is not modelled (only the stack guard "
                                      f"{describe_guard(obj.arch)})")
            if breg == "rip":
                if reloc is not None and reloc.kind in GOT_SLOT_KINDS:
                    got_slot, mem_ref = True, got_address(obj, reloc)
                elif reloc is not None:
                    mem_ref = _ref_of(obj, reloc, next_ip - (i.address + i.disp_offset))
                elif base and (slot := obj.got_slots.get(next_ip + m.disp + base)) is not None:
                    got_slot, mem_ref = True, linked_got_address(obj, slot)
                    bound = slot.name if slot.section is not None else bound
                else:
                    addr = next_ip + m.disp + base
                    hit = obj.section_at(addr) if base else (sec, next_ip + m.disp)
                    mem_ref = linked_ref(obj, hit, addr)
            elif breg is not None:
                b = _reg(breg)
                if b is None:
                    problem = problem or f"address register %{breg} is not modelled"
            if reloc is not None and breg != "rip":
                if reloc.kind == "R_386_GOTOFF":
                    gotoff = True
                    mem_ref = _ref_of(obj, reloc, 0)
                elif reloc.kind in GOT_SLOT_KINDS and b is not None and ireg is None:
                    got_slot, mem_ref = True, got_address(obj, reloc)
                elif reloc.kind in ("R_386_32", "R_X86_64_32", "R_X86_64_32S"):
                    mem_ref = _ref_of(obj, reloc, 0)
                elif reloc.kind in ("R_386_PC32", "R_X86_64_PC32") and b is not None:
                    pcrel, pcrel_at = _ref_of(obj, reloc, 0), i.address + i.disp_offset
                else:
                    problem = problem or f"relocation {reloc.kind} against {reloc.symbol} is not modelled"
            elif breg is None and ireg is None and reloc is None and obj.arch == "i386":
                hit = obj.section_at(m.disp)
                mem_ref = linked_ref(obj, hit, m.disp)
            idx = _reg(ireg) if ireg else None
            if ireg and idx is None:
                problem = problem or f"index register %{ireg} is not modelled"
            ops.append(Mem(b, idx, m.scale, 0 if ((mem_ref is not None and not gotoff) or pcrel) else m.disp))
        else:  # pragma: no cover - capstone has no other operand kinds on x86
            problem = problem or "operand kind not modelled"
    ins = Instr(mnem, tuple(reversed(ops)), line)
    # a relocation the linker applies to bytes of this instruction other than its address fields changes the
    # instruction itself (its bytes here are not the ones that run): refused by name
    # (a field starts where capstone says an immediate or a displacement does -- its sizes are not reliable: 2 for
    # the disp32 of ``movdqa (%rip)`` -- and a relocation there must end inside the instruction, before any other
    # field; one of no bytes -- R_X86_64_NONE, TLSDESC_CALL markers -- rewrites nothing)
    starts = sorted(i.address + o for o in (i.imm_offset, i.disp_offset) if o)

    def fits(a: int, size: int) -> bool:
        return a in starts and a + size <= next_ip and not any(a < f < a + size for f in starts)

    stray = next((a for a in range(i.address, next_ip) if (r := obj.relocation_at(sec, a)) is not None and r.size
                  and not fits(a, r.size)), None)
    rewritten = None if stray is None else (f"a relocation ({obj.relocation_at(sec, stray).kind}) at 0x{stray:x} "
                                            "rewrites bytes of it that are not its address field")
    if got_slot and mnem in ("call", "jmp"):
        # ``call *sym@GOTPCREL(%rip)`` (-fno-plt): a call of the symbol the slot holds, as ``call sym@PLT``
        got_slot, imm_ref, mem_ref = False, mem_ref, None
    if got_slot and mnem != "mov":
        problem = problem or f"a GOT slot is read by {mnem} (only a mov of the address it holds is modelled)"
    return Decoded(i.address, i.size, mnem, ins, text, width, target, mem_ref, imm_ref, gotpc, gotoff, problem, line,
                   msize, pcrel, pcrel_at, got_slot, bound, base, rewritten)


def line_table(obj: ObjectFile) -> dict[int, int]:
    """Section offset -> source line (``ObjectFile.lines``: DWARF ``.debug_line``, read once per object)."""
    return obj.lines
