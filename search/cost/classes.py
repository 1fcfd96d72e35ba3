"""The instruction class an item is priced as: one key of ``model.classes`` per instruction.

``class_of(item)`` depends on the instruction alone (mnemonic and operand
shapes); ``classify(item, model)`` also checks that the model can run it --
an instruction whose ISA level (``x86.required_isa``) the model lacks is a
``UarchError`` naming the extension.

Examples: ``roll $1, %eax`` -> ``"rot1"``; ``rorl $2, %eax`` -> ``"rot_imm"``;
``leal 0x5a827999(%eax,%ebx), %eax`` -> ``"lea_complex"`` (three terms);
``xorl 4(%esp), %eax`` -> ``"logic_rm"``; an opaque ``decl %ecx`` ->
``"counter"``; ``andn`` on pentium -> ``UarchError("... needs BMI1 ...")``.
"""

from __future__ import annotations

from sha1opt.search.cost.model import Model, UarchError
from sha1opt.semantics.listing import Opaque
from sha1opt.semantics.x86 import CL, Imm, Instr, Mem, required_isa

Item = Instr | Opaque

_LOGIC = {"and", "or", "xor"}
_ADD = {"add", "sub"}


def classify(item: Item, model: Model) -> str:
    """The instruction class ``item`` is priced as on ``model`` (a key of ``model.classes``)."""
    if isinstance(item, Instr):
        level = required_isa(item)
        if level != "base" and not model.has_isa(level):
            where = f"line {item.line}: " if item.line else ""
            raise UarchError(f"{where}{item} needs {level.upper()}, which {model.name} does not have")
    cls = class_of(item)
    if cls not in model.classes:     # unreachable for a loaded model: the loader requires every class
        raise UarchError(f"{model.name} has no cost row for class {cls!r}")
    return cls


def class_of(item: Item) -> str:
    """The instruction class of ``item``, whatever the model (see the module docstring)."""
    if isinstance(item, Opaque):
        k, m = item.kind, item.mnemonic
        if k == "stack":
            return "push" if m.startswith("push") else "pop"
        if k in ("compare", "counter", "branch", "jump", "nop"):
            return k
        if k in ("call", "return"):
            return "jump"
        if k == "move":
            return "load" if item.memory else "mov_rr"
        return "opaque"
    m, ops = item.mnemonic, item.operands
    dst = ops[-1]
    src = ops[0] if len(ops) > 1 else None
    if m == "mov":
        if isinstance(dst, Mem):
            return "store"
        if isinstance(src, Mem):
            return "load"
        return "mov_ri" if isinstance(src, Imm) else "mov_rr"
    if m in _ADD or m in _LOGIC:
        if isinstance(dst, Mem):
            return "alu_mr"
        if isinstance(src, Mem):
            return "add_rm" if m in _ADD else "logic_rm"
        return "add_rr" if m in _ADD else "logic_rr"
    if m == "not":
        return "alu_mr" if isinstance(dst, Mem) else "not"
    if m in ("rol", "ror", "shl", "shr"):
        if isinstance(dst, Mem):
            return "shift_mr"
        if src == CL:
            return "shift_cl"
        if m in ("shl", "shr"):
            return "shift_imm"
        one = len(ops) == 1 or (isinstance(src, Imm) and src.value % 32 == 1)
        return "rot1" if one else "rot_imm"
    if m == "lea":
        a = ops[0]
        terms = (a.base is not None) + (a.index is not None) + (a.disp != 0)
        scaled = a.index is not None and a.scale != 1
        return "lea_complex" if terms == 3 or scaled else "lea_simple"
    if m == "bswap":
        return "bswap"
    if m == "andn":
        return "andn_rm" if isinstance(ops[0], Mem) else "andn"
    if m == "rorx":
        return "rorx_rm" if isinstance(ops[1], Mem) else "rorx"
    raise UarchError(f"no cost class for {m}")  # unreachable: x86.SEMANTICS is closed
