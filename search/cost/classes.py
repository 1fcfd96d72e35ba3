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

Vector items (``Opaque`` of kind ``"vector"``): what one reads and writes, its memory operand's width and
the feature it needs are its semantics row's (``vector_effects``, from ``x86.effects``); this module keeps
the cost fact only, each row's class family (``VECTOR_FAMILY``), refined by operand kinds
(``vector_class``): ``movdqa %xmm9, 48(%rsp)`` -> ``"vec_store"``; ``pshufb 16(%rsi), %xmm0`` ->
``"vec_alu_rm"``; ``vpaddq`` (no row) -> ``UarchError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from sha1opt.search.cost.model import REFINED_CLASSES, Model, UarchError
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.opaque import Opaque, Symbol, gpr_name
from sha1opt.semantics.vector import shape
from sha1opt.semantics.x86 import CL, SEMANTICS, Imm, Instr, Mem, Reg, effects, operand_kinds, required_isa

Item = Instr | Opaque

_LOGIC = {"and", "or", "xor"}
_ADD = {"add", "sub"}


# The cost class family of every priced vector row of the semantics table (``semantics.vector.VECTOR_ROWS``:
# the same keys less ``UNPRICED_VECTOR_ROWS``, tests/search/test_cost_vector.py checks it). A family is a cost
# fact; what the instruction reads and writes, its memory operand and its ISA feature are the row's
# (``vector_effects``). A family becomes a class of ``model.VECTOR_CLASSES`` by operand kinds (``vector_class``).
VECTOR_FAMILY: dict[str, str] = {
    **{m: "vec_alu" for m in ("paddd", "psubd", "pxor", "pand", "por", "pandn", "pcmpgtd",
                              "vpaddd", "vpsubd", "vpxor", "vpand", "vpor", "vpandn", "vpternlogd", "vpcmpgtd")},
    **{m: "vec_shift" for m in ("pslld", "psrld", "pslldq", "psrldq", "vpslld", "vpsrld", "vpslldq", "vpsrldq",
                                "vprold", "psrlw", "psllw", "vpsrlw", "vpsllw")},
    **{m: "vec_shuffle" for m in ("punpcklqdq", "punpckhqdq", "punpckldq", "punpckhdq", "pshufd", "pshufb",
                                  "palignr", "vpshufb", "vpalignr", "vpshufd", "vpunpcklqdq", "vpunpckhqdq",
                                  "vpunpckldq", "vpunpckhdq", "vinserti128", "vextracti128", "vperm2i128", "vpermq",
                                  "vpbroadcastd", "packuswb", "punpcklbw", "punpckhbw", "punpcklwd", "punpckhwd")},
    **{m: "vec_mov" for m in ("movdqa", "movdqu", "movaps", "movups", "movd", "movq",
                              "vmovdqa", "vmovdqu", "vmovups", "vmovd", "vmovq", "vbroadcasti128")},   # a load only
    **{m: "vec_lane" for m in ("pextrd", "pinsrd", "pextrq", "pinsrq", "vpextrd", "vpinsrd", "vpextrq", "vpinsrq")},
    "sha1rnds4": "sha1rnds4",
    **{m: "sha1msg" for m in ("sha1msg1", "sha1msg2", "sha1nexte")},
    **{m: "nop" for m in ("vzeroupper", "vzeroall")},
}
# Vector rows of the semantics table no cost model prices yet (no cited latency or port row in
# corpus/uarch): the prover lifts code with them (OpenSSL's stitched AES-CBC + SHA-1 functions), the cost
# engines refuse them by name (``vector_family``). ``VECTOR_FAMILY`` and this set partition ``VECTOR_ROWS``.
UNPRICED_VECTOR_ROWS = frozenset({"xorps", "vxorps", "aesenc", "aesenclast", "vaesenc", "vaesenclast"})
# Mnemonics a model may price apart from their family's class (``model.REFINED_CLASSES``: the refined
# class -> the class it refines); used only when the model has the refined row.
REFINED_BY_MNEMONIC: dict[str, str] = {"palignr": "vec_palignr", "vpalignr": "vec_palignr", "sha1msg2": "sha1msg2"}


@dataclass(frozen=True)
class VectorEffects:
    """A vector item's operands as the engines see them: the semantics row's effects (``x86.effects``) at the
    width the instruction computes on.

    ``data`` leaves out ``Effects.merges`` -- a legacy-SSE write's read of the ymm lanes it keeps is no
    dependency on the value it computes (renamers track the xmm register; SSE code runs with the upper state
    clean). ``loads`` / ``stores``: a memory operand is read / written; ``mem_read`` / ``mem_write`` are that
    operand when it has an address the store-forwarding rule can compare (a ``Symbol`` such as
    ``.LC0(%rip)`` has none); ``width`` its bytes (the row's shape: 16 for ``movdqu``, 32 on ymm, 8 for
    ``movq``, 4 for ``movd`` / ``pextrd``), 0 without one; ``isa`` the feature the row needs at the
    instruction's width.

    Example: ``paddd %xmm3, %xmm9`` reads ("xmm3", "xmm9") and writes ("xmm9",); ``movdqa %xmm9, 48(%rsp)``
    reads ("xmm9",) as data, ("esp",) as address, writes nothing and stores 16 bytes to ``Mem(esp, disp=48)``.
    """
    data: tuple[str, ...]
    address: tuple[str, ...]
    writes: tuple[str, ...]
    mem_read: Mem | None
    mem_write: Mem | None
    loads: bool
    stores: bool
    width: int
    isa: str


def _at(item: Item) -> str:
    """``line N: `` for an item with a source line; nothing for one without (line 0: machine code from an
    object with no line table, e.g. a ``.o`` or ``.a`` member built without -g)."""
    return f"line {item.line}: " if item.line else ""


def vector_family(item: Opaque) -> str:
    """The cost class family of a vector item (``VECTOR_FAMILY``); ``UarchError`` for a mnemonic with no row
    or a row no model prices (``UNPRICED_VECTOR_ROWS``)."""
    family = VECTOR_FAMILY.get(item.mnemonic)
    if item.mnemonic in UNPRICED_VECTOR_ROWS:
        raise UarchError(f"{_at(item)}{item.mnemonic} has no cost class: no cost model prices it yet "
                         "(classes.UNPRICED_VECTOR_ROWS)")
    if family is None:
        raise UarchError(f"{_at(item)}{item.mnemonic} is not a vector row of the semantics table: not priced")
    return family


@lru_cache(maxsize=4096)
def vector_effects(item: Opaque) -> VectorEffects:
    """The operands of a vector item from its semantics row (see ``VectorEffects``); ``UarchError`` for an
    instruction the row does not take (operand kinds, zmm, a register the tables do not model)."""
    vector_family(item)
    ops: list = []
    symbolic = None
    address: list[str] = []
    for k, o in enumerate(item.operands):
        if isinstance(o, Symbol):       # typed as the row expects: an immediate, or memory without an address
            if not (o.immediate or o.memory):
                raise UarchError(f"{_at(item)}{item}: operand {o} is neither memory nor an immediate")
            ops.append(Imm(0) if o.immediate else Mem(None))
            symbolic = k if o.memory else symbolic
            address += [n for r in o.registers if (n := gpr_name(r)) is not None]
        elif isinstance(o, Reg) and o.width not in (32, 64, 128, 256):
            raise UarchError(f"{_at(item)}{item}: register {o} is not modelled")
        else:
            ops.append(o)
    ins = Instr(item.mnemonic, tuple(ops), item.line)
    try:
        eff = effects(ins)
        isa = required_isa(ins)
        sh = shape(item.mnemonic, SEMANTICS[item.mnemonic], operand_kinds(ins))
    except UnsupportedError as e:
        raise UarchError(f"{_at(item)}{e}") from None
    mem = next((k for k, o in enumerate(ops) if isinstance(o, Mem)), None)
    keep = symbolic is None
    return VectorEffects(tuple(r for r in eff.data if r not in eff.merges),
                         tuple(dict.fromkeys(eff.address + tuple(address))), eff.writes,
                         eff.mem_read if keep else None, eff.mem_write if keep else None,
                         eff.mem_read is not None, eff.mem_write is not None,
                         4 * sh.lanes[mem] if mem is not None else 0, isa)


def vector_class(item: Opaque) -> str:
    """The cost class of a vector item: its family refined by operand kinds.

    ``vec_mov``: a general register among the operands makes it ``vec_to_gpr`` (the destination) or
    ``gpr_to_vec``; else a load ``vec_load``, a store ``vec_store``, a register copy ``vec_mov``.
    ``vec_lane`` (extract, insert): ``vec_to_gpr`` / ``gpr_to_vec`` the same way, to memory ``vec_store``,
    from memory ``vec_alu_rm``. ``vec_alu`` / ``vec_shift`` / ``vec_shuffle`` from memory ``vec_alu_rm``;
    a shuffle to memory (``vextracti128 $1, %ymm0, (%rdi)``) ``vec_store``.
    """
    family = vector_family(item)
    eff = vector_effects(item)
    if family in ("vec_mov", "vec_lane"):
        *sources, dest = item.operands
        if isinstance(dest, Reg) and gpr_name(dest) is not None:
            return "vec_to_gpr"
        if any(isinstance(o, Reg) and gpr_name(o) is not None for o in sources):
            return "gpr_to_vec"
        if eff.stores:
            return "vec_store"
        if eff.loads:
            return "vec_load" if family == "vec_mov" else "vec_alu_rm"
        return "vec_mov"
    if family in ("vec_alu", "vec_shift", "vec_shuffle") and eff.loads:
        return "vec_alu_rm"
    if family == "vec_shuffle" and eff.stores:
        return "vec_store"
    return family


def classify(item: Item, model: Model) -> str:
    """The instruction class ``item`` is priced as on ``model`` (a key of ``model.classes``)."""
    if isinstance(item, Opaque) and item.kind == "vector":
        ext = vector_effects(item).isa
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
