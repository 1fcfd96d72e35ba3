"""Straight-line code from machine code: the instructions an assembled snippet really contains.

``snippet_code(obj, filename)`` decodes the one code section of an object
(what ``gcc -c`` made of a user's ``.s``/``.S``: cpp, macros, ``.rept``,
``.if``, constant expressions and ``.byte``-encoded instructions already
expanded by the assembler) with the lifter's decoder and returns it as
``x86.Instr`` values for ``machine.Machine`` -- the straight-line proofs
(``prove.prove_program``, ``block.prove_block``) run on what the CPU
would run, never on the text as written.

Refused (``UnsupportedError``, one line: file, source line from DWARF,
address, the instruction as decoded), because the straight-line model
would otherwise compute something else than the CPU:

* an instruction outside the semantics table (``adc``, ``movzbl``...), an
  undecodable byte, an 8/16-bit register, a memory operand that is not
  32 bits wide;
* any control flow: a jump (``indirect jump`` for ``jmp *%rax``), a
  branch, ``call``, ``ret``, ``push``/``pop`` -- a snippet runs once,
  top to bottom; ``nop`` and ``endbr`` (``.balign`` padding) are skipped;
* a relocation (``unresolved symbol 'K'`` for a symbol not defined in the
  object, else a reference to a defined one): addresses are not modelled;
* 64-bit operand size except where it is pointer handling (``mov``,
  ``add``/``sub`` of a constant, ``lea`` of base + constant), as the
  interpreter keeps 32-bit values;
* code in more than one section.

Example: ``mov %ebx,%eax; .rept 2; add %ecx,%eax; .endr`` assembles to
three instructions, so ``snippet_code`` gives ``[mov, add, add]`` and the
register proof finds ``eax = b + 2c``, not the ``b + c`` the text seems to say.
"""

from __future__ import annotations

from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.lift.decode import Decoded, decode_function, line_table
from sha1opt.semantics.lift.elf import ObjectFile, Symbol
from sha1opt.semantics.control import CONTROL
from sha1opt.semantics.x86 import SEMANTICS, Imm, Instr, Mem, Reg

MASK32 = 0xFFFFFFFF
_SKIPPED = ("nop", "endbr64", "endbr32")


def _refuse(filename: str, d: Decoded, why: str) -> UnsupportedError:
    line = f"{d.line}: " if d.line else ""
    return UnsupportedError(clip(f"{filename}:{line}{why} at 0x{d.address:x} (`{d.text}`)"))


def _pointer_sized_ok(ins: Instr) -> bool:
    """64-bit operand size only where it is pointer handling (the interpreter's values are 32-bit)."""
    m, ops = ins.mnemonic, ins.operands
    first = ops[0] if ops else None
    if any(isinstance(o, Reg) and o.width == 32 for o in ops):
        return False
    return m == "mov" or (m in ("add", "sub") and isinstance(first, Imm)) or (
        m == "lea" and isinstance(first, Mem) and first.index is None)


def _instruction(filename: str, d: Decoded, relocated: dict[int, str]) -> Instr | None:
    m = d.mnemonic
    hit = next((name for off, name in relocated.items() if d.address <= off < d.next), None)
    if hit is not None:
        raise _refuse(filename, d, hit)
    if d.mem_ref is not None or d.pcrel is not None:
        raise _refuse(filename, d, "absolute or PC-relative address (addresses are not modelled in straight-line code)")
    if d.problem:
        raise _refuse(filename, d, d.problem)
    if m in _SKIPPED:
        return None
    if m in CONTROL:
        if m in ("jmp", "call") and d.target is None:
            raise _refuse(filename, d, f"indirect {'jump' if m == 'jmp' else 'call'} in straight-line code")
        raise _refuse(filename, d, f"{m} in straight-line code (a snippet runs once, top to bottom)")
    if m not in SEMANTICS:
        raise _refuse(filename, d, f"unsupported instruction '{m}'")
    ins = d.ins
    if d.msize not in (0, 4) and m != "lea" and not (d.msize == 8 and m == "mov"):
        raise _refuse(filename, d, f"{d.msize}-byte memory operand (memory is modelled as 32-bit words)")
    if any(isinstance(o, Reg) and o.width == 64 for o in ins.operands) and not _pointer_sized_ok(ins):
        raise _refuse(filename, d, "64-bit operand size is only modelled for pointer moves and constant offsets")
    ops = tuple(Imm(o.value & MASK32) if isinstance(o, Imm) else o for o in ins.operands)
    return Instr(ins.mnemonic, ops, d.line)


def snippet_code(obj: ObjectFile, filename: str = "<input>") -> list[Instr]:
    """The instructions of ``obj``'s one code section, in address order (see the module docstring)."""
    code = [name for name in sorted(obj.executable) if obj.sections.get(name)]
    if len(code) > 1:
        raise UnsupportedError(clip(f"{filename}: code in more than one section ({', '.join(code)}): "
                                    "straight-line code is one section"))
    if not code:
        return []
    sec = code[0]
    relocated = {}
    for off, r in obj.relocs.get(sec, {}).items():
        relocated[off] = (f"unresolved symbol '{r.symbol}'" if r.section is None
                          else f"reference to {r.symbol or r.section} (addresses are not modelled in straight-line code)")
    fn = decode_function(obj, Symbol("", sec, 0, len(obj.sections[sec]), "STT_NOTYPE", "STB_LOCAL"), line_table(obj))
    out = []
    for addr in sorted(fn.instructions):
        ins = _instruction(filename, fn.instructions[addr], relocated)
        if ins is not None:
            out.append(ins)
    return out
