"""The instruction class an item is priced as: one key of ``model.classes`` per instruction.

``class_of(item)`` depends on the instruction alone (mnemonic and operand
shapes); ``classify(item, model)`` also checks that the model can run it --
an instruction whose ISA level (``x86.required_isa``) the model lacks is a
``UarchError`` naming the extension.

Examples: ``roll $1, %eax`` -> ``"rot1"``; ``rorl $2, %eax`` -> ``"rot_imm"``;
``leal 0x5a827999(%eax,%ebx), %eax`` -> ``"lea_complex"`` (three terms);
``xorl 4(%esp), %eax`` -> ``"logic_rm"``; ``shldl $5, %eax, %eax`` -> ``"double_rot"`` and
``shldl $5, %ebx, %eax`` -> ``"double_shift"``; an opaque ``decl %ecx`` ->
``"counter"``; ``andn`` on pentium -> ``UarchError("... needs BMI1 ...")``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.search.cost.model import REFINED_CLASSES, Model, UarchError
from sha1opt.semantics.opaque import Opaque, Symbol, gpr_name
from sha1opt.semantics.x86 import CL, Imm, Instr, Mem, Reg, required_isa

Item = Instr | Opaque

_LOGIC = {"and", "or", "xor"}
_ADD = {"add", "sub"}


# Vector and SHA-NI instructions, until semantics/vector.py gives them rows: mnemonic (GNU objdump
# spelling, AVX "v" forms included) -> (class family, extension needed, the destination is also read).
# A family becomes a class by operand kinds: "vec_alu" with a memory source is "vec_alu_rm"; "vec_mov"
# is a load from memory, a store to memory, or a register copy. Replace this table by the semantics
# rows when they land (same keys).
VECTOR_TABLE: dict[str, tuple[str, str, bool]] = {
    **{m: ("vec_alu", "sse2", True) for m in ("paddd", "psubd", "pxor", "pand", "por", "pandn", "paddq")},
    **{m: ("vec_alu", "avx", False) for m in ("vpaddd", "vpsubd", "vpxor", "vpand", "vpor", "vpandn", "vpaddq")},
    **{m: ("vec_alu", "avx512vl", False) for m in ("vpxord", "vpord", "vpandd", "vpandnd")},
    "vpternlogd": ("vec_alu", "avx512vl", True),
    **{m: ("vec_shift", "sse2", True) for m in ("pslld", "psrld", "psllq", "psrlq", "pslldq", "psrldq")},
    **{m: ("vec_shift", "avx", False) for m in ("vpslld", "vpsrld", "vpsllq", "vpsrlq", "vpslldq", "vpsrldq")},
    **{m: ("vec_shift", "avx512vl", False) for m in ("vprold", "vprord")},
    **{m: ("vec_shuffle", "sse2", True) for m in ("punpcklqdq", "punpckhqdq", "punpckldq", "punpckhdq", "shufps",
                                                  "unpcklps", "unpckhps", "movlhps", "movhlps")},
    "pshufd": ("vec_shuffle", "sse2", False),
    **{m: ("vec_shuffle", "ssse3", True) for m in ("pshufb", "palignr")},
    **{m: ("vec_shuffle", "avx", False) for m in ("vpshufb", "vpalignr", "vpshufd", "vpunpcklqdq", "vpunpckhqdq",
                                                  "vshufps", "vinserti128", "vextracti128", "vperm2i128",
                                                  "vpermq", "vbroadcasti128", "vpbroadcastd")},
    **{m: ("vec_mov", "sse2", False) for m in ("movdqa", "movdqu", "movaps", "movups", "movq")},
    "vmovq": ("vec_mov", "avx", False),
    **{m: ("vec_mov", "avx", False) for m in ("vmovdqa", "vmovdqu", "vmovaps", "vmovups")},
    **{m: ("vec_mov", "avx512vl", False) for m in ("vmovdqa32", "vmovdqu32", "vmovdqa64", "vmovdqu64")},
    **{m: ("vec_gpr", "sse2", False) for m in ("movd",)},
    **{m: ("vec_gpr", "sse4_1", False) for m in ("pextrd",)},
    "vpextrd": ("vec_gpr", "avx", False),
    **{m: ("vec_gpr", "sse4_1", True) for m in ("pinsrd", "pinsrq")},
    **{m: ("vec_gpr", "avx", False) for m in ("vpinsrd", "vpinsrq", "vpextrq", "vmovd")},
    "pextrq": ("vec_gpr", "sse4_1", False),
    "sha1rnds4": ("sha1rnds4", "sha", True),
    **{m: ("sha1msg", "sha", True) for m in ("sha1msg1", "sha1msg2", "sha1nexte")},
    "vzeroupper": ("vzeroupper", "avx", False),
    "vzeroall": ("vzeroupper", "avx", False),
}
# Mnemonics a model may price apart from their family's class (``model.REFINED_CLASSES``: the refined
# class -> the class it refines); used only when the model has the refined row.
REFINED_BY_MNEMONIC: dict[str, str] = {"palignr": "vec_palignr", "vpalignr": "vec_palignr", "sha1msg2": "sha1msg2"}


@dataclass(frozen=True)
class VectorEffects:
    """Operand effects of a vector item for the engines (vector registers named ``v0``..``v31``).

    Example: ``paddd %xmm3, %xmm9`` reads ("v3", "v9") and writes ("v9",); ``movdqa %xmm9, 48(%rsp)``
    reads ("v9",) as data, ("esp",) as address, writes nothing, and stores to ``Mem(esp, disp=48)``.
    """
    data: tuple[str, ...]
    address: tuple[str, ...]
    writes: tuple[str, ...]
    mem_read: Mem | None
    mem_write: Mem | None


def _at(item: Item) -> str:
    """``line N: `` for an item with a source line; nothing for one without (line 0: machine code from an
    object with no line table, e.g. a ``.o`` or ``.a`` member built without -g)."""
    return f"line {item.line}: " if item.line else ""


def vector_row(item: Opaque) -> tuple[str, str, bool]:
    """(class family, extension, destination read) of a vector item; ``UarchError`` if not in the table."""
    row = VECTOR_TABLE.get(item.mnemonic)
    if row is None:
        raise UarchError(f"{_at(item)}no vector cost class for {item.mnemonic}")
    return row


def vector_effects(item: Opaque) -> VectorEffects:
    """Registers and memory of a vector item, from its typed operands (AT&T order: destination last).

    Immediates are left out before the destination is picked; a vector register ``%xmmN`` / ``%ymmN`` /
    ``%zmmN`` is ``vN``, a general register its 32-bit name, a memory operand's base and index are read as
    its address (a ``Symbol`` -- a symbolic displacement -- is neither).
    """
    _, _, dst_read = vector_row(item)
    ops = [o for o in item.operands if not isinstance(o, Imm) and not (isinstance(o, Symbol) and o.immediate)]
    data: list[str] = []
    addr: list[str] = []
    writes: list[str] = []
    mread = mwrite = None
    for i, op in enumerate(ops):
        last = i == len(ops) - 1
        if isinstance(op, Reg):
            reg = f"v{op.name[3:]}" if op.width >= 128 else gpr_name(op)
            if reg is not None:
                if not last or dst_read:
                    data.append(reg)
                if last:
                    writes.append(reg)
        elif isinstance(op, Mem):
            addr += [r.name for r in (op.base, op.index) if r is not None]
            if last:
                mwrite = op
            else:
                mread = op
    return VectorEffects(tuple(dict.fromkeys(data)), tuple(dict.fromkeys(addr)), tuple(writes), mread, mwrite)


def vector_class(item: Opaque) -> str:
    """The cost class of a vector item: its family refined by operand kinds (see ``VECTOR_TABLE``)."""
    family, _, _ = vector_row(item)
    eff = vector_effects(item)
    gpr = [o for o in item.operands if isinstance(o, Reg) and gpr_name(o) is not None]
    if family == "vec_mov" and not gpr:
        return "vec_store" if eff.mem_write else "vec_load" if eff.mem_read else "vec_mov"
    if family in ("vec_gpr", "vec_mov"):
        last = item.operands[-1]
        return "gpr_to_vec" if isinstance(last, Reg) and last.width >= 128 else "vec_to_gpr"
    if family in ("vec_alu", "vec_shift", "vec_shuffle") and eff.mem_read is not None:
        return "vec_alu_rm"
    if family == "vzeroupper":
        return "nop"
    return family


def classify(item: Item, model: Model) -> str:
    """The instruction class ``item`` is priced as on ``model`` (a key of ``model.classes``)."""
    if isinstance(item, Opaque) and item.kind == "vector":
        _, ext, _ = vector_row(item)
        if not model.has_vector(ext):
            raise UarchError(f"{_at(item)}{item} needs {ext.upper()}, which {model.name} does not have")
        cls = vector_class(item)
        refined = REFINED_BY_MNEMONIC.get(item.mnemonic)
        if refined is not None and REFINED_CLASSES[refined] == cls and refined in model.classes:
            cls = refined           # e.g. palignr (register form) on goldencove: vec_palignr, not vec_shuffle
        if cls not in model.classes:
            raise UarchError(f"{model.name} has no cost row for vector class {cls!r}")
        return cls
    if isinstance(item, Instr):
        level = required_isa(item)
        if level != "base" and not model.has_isa(level):
            raise UarchError(f"{_at(item)}{item} needs {level.upper()}, which {model.name} does not have")
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
    if m in ("shld", "shrd"):
        # by an immediate into a register: a rotate when both registers are one; by %cl or into
        # memory: no row (the conservative opaque row)
        if isinstance(dst, Reg) and isinstance(ops[0], Imm):
            return "double_rot" if ops[1] == dst else "double_shift"
        return "opaque"
    raise UarchError(f"no cost class for {m}")  # unreachable: x86.SEMANTICS is closed
