"""Per-instruction facts the engines need, computed once per (item, model).

``decode_item(item, model)`` turns one instruction (or opaque control/stack
item) into a plain tuple -- a tuple, not an object, because the engines index
it in their hot loops. Register and memory effects come from
``x86.effects`` (the one source of operand effects); prices come from the
model's class row. Times are in ticks (``model.ticks_per_cycle`` per clock).

Layout (the constants below index it):

=========  ================================================================
CLS        instruction class (``classes.classify``)
FE         front-end slots (fused uops)
UOPS       ((role, unit indices, busy ticks), ...), one per executed uop
LAT        latency, ticks
DATA       registers read as data, in operand order
ADDR       registers read to form an address (lea's inputs too)
WRITES     registers written, plus ``FLAGS`` for a flag writer
MREAD      the ``Mem`` loaded from, or None
MWRITE     the ``Mem`` stored to, or None
ELIM       a move the renamer eliminates (``rules.move_elimination``)
EXEMPT     its result does not cause ``rules.address_stall``
ALONE      issues alone (Pentium: displacement and immediate)
TEXT, LINE the item's text and source line
OCC        ticks it holds its unit (reciprocal throughput, >= 1 tick)
STDREG     a register store's data register (the replay rule), or None
WIDTH      bytes a store writes for forwarding: a vector store's memory operand (its row), else 4
SKIND      a store's kind for ``Rules.forward_latency`` (``store_kind``; None for an instruction that stores
           nothing)
LDLAT      ticks from its load uop's dispatch to the data: the ``vec_load`` row's latency for a load into
           a vector register (a vector class: ``vec_load``, ``vec_alu_rm``; Zen 7 clocks), else the
           ``load`` row's (Zen 4)
=========  ================================================================

Example, on p4 (2 ticks per clock): ``movl %eax, 8(%esp)`` decodes to
CLS ``"store"``, DATA ``("eax",)``, ADDR ``("esp",)``, WRITES ``()``,
MWRITE the ``Mem`` ``8(%esp)``, STDREG ``"eax"``; ``addl %ebx, %eax`` to
CLS ``"add_rr"``, LAT 1 (half a clock), WRITES ``("eax", "flags")``.
"""

from __future__ import annotations

from sha1opt.search.cost.classes import Item, classify, vector_effects
from sha1opt.search.cost.model import VECTOR_CLASSES, Model
from sha1opt.semantics.opaque import Opaque
from sha1opt.semantics.x86 import Imm, Mem, effects

CLS, FE, UOPS, LAT, DATA, ADDR, WRITES, MREAD, MWRITE, ELIM, EXEMPT, ALONE, TEXT, LINE, OCC, STDREG, WIDTH, LDLAT, \
    SKIND = range(19)

FLAGS = "flags"     # the arithmetic flags, tracked as one more register


def integer_slots(d: tuple, model: Model) -> int:
    """``rules.microcode``: the integer side's dispatch slots decoded instruction ``d`` takes on ``model`` (``ooo.
    FrontEnd.integer``): none for a vector instruction, the rule's ``slots`` for a microcoded one, else its fused
    uops. Example (the calibrated Zen 4): ``shldl $5, %eax, %eax`` 8, ``roll $5, %eax`` 1, ``pshufd`` 0."""
    micro = model.rules.microcode
    if micro is not None and d[CLS] in micro.classes:
        return micro.slots
    return 0 if d[CLS] in VECTOR_CLASSES else d[FE]


def decode_item(item: Item, model: Model, unit_index: dict[str, int], tpc: int) -> tuple:
    """The decoded tuple of ``item`` on ``model`` (layout above); ``unit_index``: unit name -> position."""
    cls = classify(item, model)
    cost = model.classes[cls]
    speed = {u.name: u.speed for u in model.units}
    uops = []
    vector = isinstance(item, Opaque) and item.kind == "vector"
    if isinstance(item, Opaque) and item.memory and not vector and cls not in ("push", "pop", "load") and not model.in_order:
        # An opaque compare/counter with a memory operand: its load first.
        ld = model.classes["load"].ports[0]
        uops.append(("load", tuple(unit_index[u] for u in ld.units), tpc // speed[ld.units[0]] or 1))
    for u in cost.ports:
        busy = max(1, tpc // speed[u.units[0]]) * (cost.busy if not u.role else 1)
        uops.append((u.role, tuple(unit_index[x] for x in u.units), busy))
    lat = int(round(cost.latency * tpc))
    into_vector = cls in VECTOR_CLASSES and "vec_load" in model.classes
    ldlat = int(round((model.classes["vec_load"].latency if into_vector else model.load_latency) * tpc))
    occ = max(1, int(round(cost.rthroughput * tpc)))
    stall = model.rules.address_stall
    exempt = stall is None or cls in stall.exempt
    elim = cls in model.rules.move_elimination
    if vector:      # operand effects from the item's semantics row (classes.vector_effects), never flags
        v = vector_effects(item)
        width = v.width if v.mem_write is not None else 4
        return (cls, cost.uops, tuple(uops), lat, v.data, v.address, v.writes, v.mem_read, v.mem_write, elim,
                exempt, False, str(item), item.line, occ, v.data[0] if cls == "vec_store" and v.data else None,
                width, ldlat, ("vector" if width > 4 else "other") if v.mem_write is not None else None)
    if isinstance(item, Opaque):
        return (cls, cost.uops, tuple(uops), lat, tuple(sorted(item.reads)), (), tuple(sorted(item.writes)),
                None, None, elim, exempt, False, str(item), item.line, occ, None, 4, ldlat, None)
    eff = effects(item)
    writes = eff.writes + (FLAGS,) if eff.flags else eff.writes
    # a register store (mov %reg, mem): the replay rule looks at that register's producer
    std_reg = eff.data[0] if cls == "store" and eff.data else None
    alone = False
    if model.rules.pairing and model.rules.pairing.no_disp_and_imm:
        mem = eff.mem_read if eff.mem_read is not None else eff.mem_write
        alone = mem is not None and mem.disp != 0 and any(isinstance(o, Imm) for o in item.operands)
    return (cls, cost.uops, tuple(uops), lat, eff.data, eff.address, writes, eff.mem_read, eff.mem_write,
            elim, exempt, alone, str(item), item.line, occ, std_reg, 4, ldlat,
            store_kind(cls, eff.mem_read is not None, bool(eff.data), std_reg) if eff.mem_write is not None else None)


def store_kind(cls: str, reads_memory: bool, register_data: bool, std_reg: str | None) -> str:
    """A scalar store's kind (``model.STORE_KINDS``): a read-modify-write "rmw" (with a register operand,
    ``xorl %eax, 8(%rsp)``) or "rmw_imm" (``roll $5, 8(%rsp)``), a mov of a register "plain", else "other"."""
    if reads_memory:
        return "rmw" if register_data else "rmw_imm"
    return "plain" if cls == "store" and std_reg is not None else "other"


def mem_key(m: Mem, gen: dict) -> tuple:
    """Identity of an address for store forwarding: same registers, unchanged since (``gen``), same scale/disp."""
    b = m.base.name if m.base is not None else None
    x = m.index.name if m.index is not None else None
    return (b, gen.get(b, 0), x, gen.get(x, 0), m.scale, m.disp)


def written_identity(d: tuple, gen: dict, stores: dict) -> object:
    """The address identity (``mem_key``'s generation) of the registers instruction ``d`` writes: a plain
    load's destination is *the loaded word* -- its address key and the last store to it (the index the
    engine's ``stores`` table holds; every dynamic instruction has its own) -- so a pointer reloaded from an unchanged stack slot is
    the same address as before (i386 keeps its state and data pointers in slots: the feed-forward's stores
    through one reload forward to the next block's loads through the next); any other write is a new
    generation. "Unchanged" is as the engines key stores: by the 4-byte lanes of decoded stores (a scalar
    store is one lane at its address, whatever its width; an opaque item writing memory, such as the loop
    counter's ``decl``, is not counted -- none writes a pointer's slot), and a register's identity does not
    depend on its width: sound for the i386 pointers, 32-bit loads of 32-bit slots that only 32-bit
    stores write. Example: ``movl 64(%esp), %esi`` twice with no store to 64(%esp) between: ``(%esi)`` is one
    address; ``addl $64, 68(%esp)`` between two reloads of 68(%esp): two addresses."""
    if d[CLS] == "load" and d[MREAD] is not None:
        key = mem_key(d[MREAD], gen)
        last = stores.get(key)
        return ("ld", key, last[2] if last is not None else -1)
    gen["#"] = n = gen.get("#", 0) + 1          # (a new generation: one counter for every register)
    return n


def stored_keys(m: Mem, gen: dict, width: int) -> list[tuple]:
    """The ``mem_key`` of every 4-byte lane a store of ``width`` bytes at ``m`` writes: a load of any of them
    is forwarded from it. Example: ``movdqa %xmm0, 16(%rsp)`` (16 bytes) -> the keys of 16, 20, 24 and
    28(%rsp) -- what the SSSE3 path's ``add 20(%rsp), %ebp`` reads; ``movl %eax, 8(%esp)`` -> 8(%esp) only."""
    key = mem_key(m, gen)
    return [key[:5] + (key[5] + off,) for off in range(0, width, 4)]
