"""Decoded machine code as the simulator's items: the one conversion from ``semantics.lift`` to the cost model.

``cost_items(trace)`` turns the ``lift.decode.Decoded`` records of a loop
iteration (``FunctionProof.loop_trace``, or the body of a CFG loop) into what
``simulate`` prices: an instruction the table models, with plain operands
(no rip/absolute memory, 8/32/64-bit registers), becomes an ``x86.Instr``;
anything else an ``Opaque`` whose kind picks its cost class --

* a vector or SHA-NI instruction (a vector row of ``x86.SEMANTICS``,
  an operand naming an xmm/ymm/zmm register, or a ``v``-prefixed AVX mnemonic):
  kind ``"vector"``, priced by ``classes.vector_class``;
* a control/stack/compare mnemonic of ``listing.OPAQUE_KINDS``: that kind;
  a conditional branch ``"branch"``; another ``mov*`` ``"move"``;
* anything else (``cmovne``, ``setc``...): ``"opaque"``, the model's
  conservative two-ALU-uop row (never free).

Invariant: the items are in the order of ``trace``, one per record, each
carrying the record's source line. Example: the records of ``paddd
%xmm3, %xmm9; addl 0x30(%rsp), %ebp; jne 0xb0`` become ``Opaque("paddd",
(Reg("xmm3", 128), Reg("xmm9", 128)), 0, "vector")``, ``Instr("add", (Mem(rsp,
0x30), ebp))`` and ``Opaque("jne", (Label("0xb0"),), 0, "branch")``. An
opaque item's operands are read from the record's AT&T text, once, by the
listing reader's ``opaque_operands`` (typed: ``semantics.opaque``).
"""

from __future__ import annotations

from typing import Sequence

from sha1opt.search.cost.classes import Item
from sha1opt.semantics.lift.decode import BRANCHES, Decoded
from sha1opt.semantics.listing import OPAQUE_KINDS, opaque_operands
from sha1opt.semantics.opaque import TARGET_KINDS, Opaque, registers_of
from sha1opt.semantics.x86 import SEMANTICS, Instr, Mem, Reg

def _kind(mnemonic: str, operands) -> str:
    row = SEMANTICS.get(mnemonic)
    if (row is not None and row.vector) or any(r.width >= 128 for op in operands for r in registers_of(op)) or (
            mnemonic.startswith("v") and mnemonic != "verw"):
        return "vector"
    if mnemonic in OPAQUE_KINDS:
        return OPAQUE_KINDS[mnemonic]
    if mnemonic in BRANCHES:
        return "branch"
    if mnemonic.startswith("mov"):
        return "move"
    return "opaque"


def cost_items(trace: Sequence[Decoded]) -> list[Item]:
    """The simulator's items for ``trace`` (see the module docstring)."""
    items: list[Item] = []
    for d in trace:
        ins = d.ins
        plain = all(not isinstance(o, Mem) or o.base is not None for o in ins.operands)
        # (a vector row of the table -- even one without operands, vzeroupper -- is priced as a vector item)
        if d.mnemonic in SEMANTICS and not SEMANTICS[d.mnemonic].vector and not d.problem and plain and all(
                not isinstance(o, Reg) or o.width in (8, 32, 64) for o in ins.operands):
            items.append(Instr(ins.mnemonic, ins.operands, d.line))
            continue
        word, _, rest = d.text.partition(" ")
        # the record's AT&T text, read once here (capstone's operands have lost rip-relative bases)
        ops = opaque_operands(rest, d.mnemonic in BRANCHES or OPAQUE_KINDS.get(d.mnemonic) in TARGET_KINDS)
        kind = _kind(d.mnemonic, ops)
        # vector rows are keyed by the suffix-free mnemonic (capstone's Intel spelling)
        items.append(Opaque(d.mnemonic if kind == "vector" else word, ops, d.line, kind))
    return items
