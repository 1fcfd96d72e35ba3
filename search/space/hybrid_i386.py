"""The hybrid block on i386: 8 xmm registers, 7 GPRs, the constants on the stack.

The x86-64 block (``hybrid``) keeps K_0..K_3 in xmm11-14 (a ``k_copy`` row: in a stack table), the byte-swap
mask in xmm15, the data
pointer in ``%rsi`` and the state pointer in ``%rdi``. i386 has none of these registers, so its
layout (the frame, ``emit.hybrid_i386_frame``, realigns ``%esp`` to 64 bytes and provides it)::

    0..63(%esp)     the W+K ring (``hybrid_regs.wk_slot``, 32-bit ``%esp``)
    64, 68, 72      the state pointer, the data pointer, the block count (``frame.I386_*_SLOT``)
    76              the caller's ``%esp`` (the frame's)
    80..143         K_0..K_3, each broadcast to 16 bytes (``K_TABLE``): the vector K operands are
                    ``paddd 80+16k(%esp), x`` -- legacy SSE needs them 16-aligned, which the
                    realignment gives and the whole-function prover proves
    144..271        with ``recurrence="rol2"``: the W groups G_k at ``144 + 16 (k mod 8)``
                    (``HISTORY``), the two older inputs of the rol2 recurrence
    %xmm0-3 / 4-6   W groups / vector temporaries, as on x86-64
    %xmm7           the byte-swap mask (``MASK``)
    a..e            eax, ebx, ecx, edx, ebp (``frame.STATE_REGS``); ``esi``, ``edi`` the two scalar
                    temporaries (``regalloc.TEMPS["i386"]``)

So the i386 block is the x86-64 block's code with its operands moved (``relocate``): the K
registers become the table's memory operands, xmm15 becomes xmm7, the ring's 64-bit ``%rsp``
becomes ``%esp``; the data pointer is loaded into ``%edi`` before the block's groups 0-3 (both
temporaries are free before round 0) and the state pointer into ``%esi`` for the loads of a..e
and the feed-forward. The scalar rounds are the recipe's, ordered and allocated with the two i386
temporaries, or a form that fits in them (``HybridParams.scalar``: ``hybrid_lazy``'s rounds with
``esi`` and ``edi``). The space: ``HybridParams(arch="i386")`` with the dialect (``ssse3``, ``ssse3k``,
``avx``, ``avx512vl``), ``lead``, ``every`` / ``slots``, the recipe and offsets, and the recurrence: rol1
(``hybrid.group_ops``) or rol2 for groups 8-19 (``rol2_group_ops_i386``: W[t] = rol2(W[t-6] ^
W[t-16] ^ W[t-28] ^ W[t-32]), the ``hybrid_w8`` recurrence with four W registers -- G_{g-8} and
G_{g-7} read from ``HISTORY``, where every group up to 12 also stores its W). No rotating rounds
(they need 9 GPRs). Read-ahead (``params.ahead``, ``_ahead_block_i386``): the setup loads a..e and
the first block's W+K once; the last rounds read the next block's words through a scalar temporary
borrowed where it is dead (``read_ahead_i386``), and a..e stay in their registers from block to block.

Example: ``build_i386(HybridParams(isa="avx", arch="i386"))`` is a block whose setup is 16
``movl`` of K into the table and the mask built in xmm7 (``constant_setup_i386``), and whose body
starts ``mov 64(%esp), %esi`` and the five loads of a..e.
"""

from __future__ import annotations

from dataclasses import replace

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Mem, Reg, effects
from sha1opt.search.space.candidate import Candidate, priorities
from sha1opt.search.space.frame import I386_DATA_SLOT, I386_STATE_SLOT, state_regs
from sha1opt.search.space.hybrid import (TEMP_A, TEMP_B, W_REGS, HybridBlock, HybridParams, constant_setup,
                                         group_ops, load_group_ops, merge_groups, refuse_unknown, scalar_ops)
from sha1opt.search.space.hybrid_forms import FORMS
from sha1opt.search.space.hybrid_merge import Slots
from sha1opt.search.space.hybrid_dialects import add_k, binop, dialect, imm_binop, load, rol, store, ternlog
from sha1opt.search.space.hybrid_pair import merge_after_reads
from sha1opt.search.space.hybrid_regs import DATA, K_REGS, K_TABLE, RING, SP, k_slot, wk_slot
from sha1opt.search.space.hybrid_regs import MASK as X64_MASK
from sha1opt.search.space.order import build_graph, list_schedule
from sha1opt.search.space.regalloc import TEMPS, allocate

ESP = Reg("esp")
SAVED_ESP = 76                 # the caller's %esp, written by the frame
# K_k broadcast at K_TABLE + 16k .. + 16k + 15 (16-aligned): ``hybrid_regs.K_TABLE``, as on x86-64
HISTORY = K_TABLE + 64         # rol2: group G_k's W at HISTORY + 16 (k mod 8) (16-aligned)
FRAME_BYTES = HISTORY + 128    # 272 bytes below the realigned %esp's frame
MASK = Reg("xmm7", 128)
STATE_PTR = Reg("esi")
DATA_PTR = Reg("edi")
CONSTANT_REGS = frozenset({MASK.name})
_X64_STATE = Reg("edi", 64)


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def k_operand(k: int) -> Mem:
    """Where K_k's four copies live: x86-64's ``hybrid_regs.k_slot`` on ``%esp``."""
    return replace(k_slot(k), base=ESP)


def _operand(o):
    if isinstance(o, Reg):
        if o.name in (r.name for r in K_REGS):
            return k_operand([r.name for r in K_REGS].index(o.name))
        if o.name == X64_MASK.name:
            return MASK
        if o.width == 64:
            raise Sha1optError(f"{o} has no i386 place")
        return o
    if isinstance(o, Mem):
        if o.base == SP:
            return replace(o, base=ESP)
        if o.base == DATA:
            return replace(o, base=DATA_PTR)
        if o.base == _X64_STATE:
            return replace(o, base=STATE_PTR)
        if o.base is not None and o.base.width == 64:
            raise Sha1optError(f"{o} has no i386 place")
    return o


def relocate(code) -> list[Instr]:
    """x86-64 hybrid code in the i386 layout (module docstring): K registers -> the table, xmm15 -> xmm7,
    ``%rsp``/``%rsi``/``%rdi`` bases -> ``%esp``/``%edi``/``%esi``. Example: ``vpaddd %xmm11, %xmm0,
    %xmm4`` becomes ``vpaddd 80(%esp), %xmm0, %xmm4``; ``movdqu %xmm4, 16(%rsp)`` ``movdqu %xmm4, 16(%esp)``."""
    return [Instr(ins.mnemonic, tuple(_operand(o) for o in ins.operands), ins.line) for ins in code]


def constant_setup_i386() -> tuple[Instr, ...]:
    """K_0..K_3 into the stack table (16 ``movl``), the byte-swap mask into xmm7: the x86-64 setup of a
    ``k_copy`` row (``hybrid.constant_setup(k_table=True)``) relocated. Legacy SSE only: one setup for every
    dialect."""
    return tuple(relocate(constant_setup(k_table=True)))


def history(k: int) -> Mem:
    """Where group G_k's W is kept for the rol2 recurrence (x86-64 spelling, as ``relocate`` takes it)."""
    return Mem(SP, None, 1, HISTORY + 16 * (k % 8))


def _kept(g: int, isa: str) -> list[Instr]:
    """G_g stored to ``history(g)`` when a later rol2 group reads it (g + 7 or g + 8 <= 19)."""
    return store(dialect(isa), W_REGS[g % 4], history(g)) if g + 7 <= 19 else []


def rol2_group_ops_i386(g: int, isa: str) -> list[Instr]:
    """Group 8 <= g < 20 by the rol2 recurrence into G_{g-4}'s register: G_{g-8}, G_{g-7} from ``history``."""
    if not 8 <= g < 20:
        raise Sha1optError(f"group {g} is not a rol2 group (8..19)")
    d = dialect(isa)
    p2, p1, dst = W_REGS[(g - 2) % 4], W_REGS[(g - 1) % 4], W_REGS[g % 4]      # dst holds G_{g-4}
    a, b = TEMP_A, TEMP_B
    kreg, slot = K_REGS[(4 * g) // 20], wk_slot(4 * g)
    ops = imm_binop(d, "palignr", 8, p2, p1, a)                               # a = W[t-6..t-3]
    if d.ternlog:                                                             # dst ^= G_{g-8} ^ G_{g-7} ^ a
        ops += load(d, history(g - 7), b) + binop(d, "pxor", history(g - 8), dst, dst) + ternlog(d, a, b, dst)
    else:
        ops += (binop(d, "pxor", history(g - 8), dst, dst) + binop(d, "pxor", history(g - 7), dst, dst)
                + binop(d, "pxor", a, dst, dst))
    ops += rol(d, 2, dst, dst, b)
    tail = add_k(d, kreg, dst, a) + store(d, a, slot)
    return ops + _kept(g, isa) + tail


def groups_i386(params: HybridParams) -> tuple[list[Instr], dict[int, list[Instr]]]:
    """The head (groups 0-3) and groups 4..19 of ``params``' recurrence, x86-64 spelling."""
    rol2 = params.recurrence == "rol2"
    head = [ins for j in range(4) for ins in load_group_ops(j, params.isa) + (_kept(j, params.isa) if rol2 else [])]
    groups = {g: group_ops(g, params.isa) + (_kept(g, params.isa) if rol2 else []) for g in range(4, 8)}
    groups.update({g: rol2_group_ops_i386(g, params.isa) if rol2 else group_ops(g, params.isa)
                   for g in range(8, 20)})
    return head, groups


def scalar_code_i386(params: HybridParams) -> tuple[list[Instr], list[int]] | None:
    """The recipe's rounds (``hybrid.scalar_ops``) ordered and allocated with i386's two temporaries."""
    ops = scalar_ops(params.recipe)
    graph = build_graph(ops)
    prio = priorities(Candidate(0, 79, "i386", params.recipe, params.offsets), ops)
    order = list_schedule(ops, graph, prio, len(TEMPS["i386"]))
    if order is None:
        return None
    code = allocate(ops, graph, order, "i386")
    if code is None:
        return None
    return code, [ops[i].round for i in order]


def state_loads() -> list[Instr]:
    """The state pointer into ``%esi``, then a..e from it."""
    out = [_i("mov", Mem(ESP, None, 1, I386_STATE_SLOT), STATE_PTR)]
    return out + [_i("mov", Mem(STATE_PTR, None, 1, 4 * i), r) for i, r in enumerate(state_regs(0))]


def feed_forward_i386() -> list[Instr]:
    """state[i] += a..e after round 79 (``state_regs(80)``), stored back through ``%esi`` reloaded."""
    out = [_i("mov", Mem(ESP, None, 1, I386_STATE_SLOT), STATE_PTR)]
    for i, r in enumerate(state_regs(80)):
        out += [_i("add", Mem(STATE_PTR, None, 1, 4 * i), r), _i("mov", r, Mem(STATE_PTR, None, 1, 4 * i))]
    return out


def build_i386(params: HybridParams, slots: Slots | None = None) -> HybridBlock | None:
    """The i386 block for ``params`` (``arch="i386"``); None when the rounds need more than two temporaries."""
    if params.arch != "i386":
        raise Sha1optError("build_i386 builds HybridParams(arch='i386') only")
    if params.placement == "slots" and slots is None:
        raise Sha1optError("placement 'slots' needs the model's unit classes (Slots)")
    if params.scalar == "recipe":
        sc = scalar_code_i386(params)
        if sc is None:
            return None
        scalar, rounds = sc
    else:                       # a form with i386's registers (``hybrid_forms``: the lazy rounds)
        rr = FORMS[params.scalar].rounds("i386")
        scalar, rounds = list(rr.code), list(rr.rounds)
    head, groups = groups_i386(params)
    merged = merge_groups(params, scalar, rounds, groups, slots)
    nvec = len(head) + sum(len(v) for v in groups.values())
    load = state_loads() + [_i("mov", Mem(ESP, None, 1, I386_DATA_SLOT), DATA_PTR)] + relocate(head)
    if params.ahead:
        return _ahead_block_i386(params, load, merged, groups[19][-1], nvec, len(scalar))
    body = load + relocate(merged) + feed_forward_i386()
    setup = constant_setup_i386()
    refuse_unknown(setup + tuple(body))
    return HybridBlock(params, setup, tuple(body), nvec, len(scalar))


def _ahead_block_i386(params: HybridParams, load: list[Instr], merged: list[Instr], last_group_op: Instr,
                      nvec: int, nscalar: int) -> HybridBlock:
    """The read-ahead form (``hybrid.HybridBlock``, as x86-64's ``_ahead_block``): the setup loads a..e and the
    first block's W+K 0..15 once; the block forks after group 19's last op -- ``main`` (every block but the
    last) reads the next block's words (``read_ahead_i386``), ``tail`` does not -- and the feed-forward leaves
    the new state in a..e for the next block."""
    split = max(p for p, ins in enumerate(merged) if ins == last_group_op) + 1
    rest = merged[split:]
    epi = feed_forward_i386()
    main = relocate(read_ahead_i386(rest, params, epi)) + epi
    block = HybridBlock(params, constant_setup_i386() + tuple(load), tuple(relocate(merged[:split])), nvec, nscalar,
                        tuple(main), tuple(relocate(rest) + epi))
    refuse_unknown(block.code())
    return block


def rewritten(code: list[Instr], reg: str) -> bool:
    """Whether ``code`` writes ``reg`` before it reads it: its first mention writes it without reading it (so
    what ``reg`` holds before ``code`` is read by nothing and left nowhere)."""
    for ins in code:
        e = effects(ins)
        if reg in e.registers_read:
            return False
        if reg in e.writes:
            return True
    return False


def read_ahead_i386(rest: list[Instr], params: HybridParams, epi: list[Instr]) -> list[Instr]:
    """``rest`` (x86-64 spelling: the rounds after group 19's last op) with the next block's groups 0-3.

    i386 has no register for the data pointer during the rounds, so at the first op of ``rest`` where one
    of the two scalar temporaries (``TEMPS["i386"]``) is dead until its next write -- and is written again
    before the block ends (``rest`` then ``epi``: the feed-forward reloads the state pointer into ``esi``),
    so no block's pointer is left in it at the loop head -- the pointer is loaded from its slot into it
    and the next block's four words are read (``movdqu 64+16j(ptr)``, into the W registers, free once
    group 19 is made); their byte swaps, K additions and ring stores then follow one op after every
    ``every`` ops (``hybrid.read_ahead``'s merge: a ring store waits for the rounds' last read of its
    slots). Example: with the lazy rounds the window opens within a round of the fork.
    """
    rol2 = params.recurrence == "rol2"
    groups = [load_group_ops(j, params.isa, block=1) + (_kept(j, params.isa) if rol2 else []) for j in range(4)]
    at, ptr = next(((p, t) for p in range(len(rest) + 1) for t in TEMPS["i386"] if rewritten(rest[p:] + epi, t)),
                   (0, None))
    if ptr is None:         # (the feed-forward reloads esi, so its end is always a window)
        raise Sha1optError("no scalar temporary is free for the read-ahead's data pointer")
    reg = Reg(ptr)
    loads = [_i("mov", Mem(SP, None, 1, I386_DATA_SLOT), reg)]
    loads += [_i(g[0].mnemonic, Mem(reg, None, 1, 64 + 16 * j), g[0].operands[1]) for j, g in enumerate(groups)]
    stream = [(j, ins) for j, g in enumerate(groups) for ins in g[1:]]
    return rest[:at] + loads + merge_after_reads(rest[at:], stream, params.every, lambda disp: (disp - RING) // 16)


def setup_invariant_i386(block: HybridBlock) -> str | None:
    """Why the setup could not run once before the loop, or None: the loop writes neither the mask
    register nor the K table."""
    for ins in block.body + block.main + block.tail:
        e = effects(ins)
        if set(e.writes) & CONSTANT_REGS:
            return f"`{ins}` writes %{MASK.name}, the byte-swap mask"
        dest = ins.operands[-1] if ins.operands else None
        if e.mem_write and isinstance(dest, Mem) and dest.base == ESP and K_TABLE <= dest.disp < HISTORY:
            return f"`{ins}` writes the K table"
    return None
