"""Hybrid blocks: the message schedule in xmm registers, 4 words at a time, beside scalar rounds.

A ``HybridBlock`` is one 64-byte block as one instruction sequence (built
here for x86-64; ``hybrid_i386`` moves the same code into the i386 layout,
``HybridParams.arch``): the scalar rounds of a ``Recipe`` whose K and W reach e as one
``add wk(t), e`` -- W_t + K_t read from a 16-entry ring on the stack --
and a vector stream that computes W_16..W_79 in groups of four and stores
W + K into that ring. ``HybridParams`` says which dialect the vector stream is
written in (a row of ``hybrid_dialects``: ``ssse3`` two-operand (``ssse3k``: K copied from a table),
``avx`` three-operand,
``avx512vl`` with ``vprold`` / ``vpternlogd``; ``avx2x2`` / ``avx512vlx2`` two blocks an iteration in
the halves of ymm registers, built by ``hybrid_pair`` from this module's groups), how many groups it runs ahead of the rounds
(``lead``) and how it is interleaved (``hybrid_merge``: one vector op after every ``every``
scalar ops), each group's release moved by its ``shifts`` entry.

The recurrence, four words at a time (derived here, the invariant the
vector code keeps). With t = 4g and the groups G_k = (W_4k .. W_4k+3) in
xmm registers::

    W[t+i] = rol1(W[t+i-3] ^ W[t+i-8] ^ W[t+i-14] ^ W[t+i-16]),  i = 0..3
      W[t+i-16] = G_{g-4}                       (lanes 0-3)
      W[t+i-14] = palignr $8: (G_{g-4}[2], G_{g-4}[3], G_{g-3}[0], G_{g-3}[1])
      W[t+i-8]  = G_{g-2}
      W[t+i-3]  = psrldq $4 of G_{g-1}: (W[t-3], W[t-2], W[t-1], 0)

so T = G_{g-4} ^ palignr ^ G_{g-2} ^ psrldq and R = rol1(T) lane by lane
is right in lanes 0-2; lane 3 lacks W[t] (it is computed in lane 0 of the
same group). As rol1 distributes over xor, W[t+3] = R[3] ^ rol1(W[t]) =
R[3] ^ rol1(R[0]): a second rotate step ``R ^= rol1(pslldq $12 of R)``
(which adds 0 to lanes 0-2). The fix-up reads R[0] -- W[t] as computed --
rather than re-deriving it as rol2(T[0]): the compositional prover cuts at
W[t] and proves lane 3 over that symbol, so only this form is provable cut
by cut. Example: ``group_ops(4, "avx512vl")`` is 10 instructions
(vpalignr, vpsrldq, vpternlogd $0x96, vpxor, vprold, vpslldq, vprold,
vpxor, vpaddd K, vmovdqu to the ring).

Registers: G_k lives in ``%xmm{k mod 4}`` (group g overwrites G_{g-4},
its last reader); ``%xmm4``-``%xmm6`` are the vector temporaries; the
constants -- K_0..K_3 broadcast in ``%xmm11``-``%xmm14`` (a ``k_copy`` row:
in a table at 80..143(%rsp), ``k_in_memory``), the byte-swap mask
in ``%xmm15`` -- are built by ``constant_setup`` from immediates (``mov``,
``movd``, ``pshufd``, ``palignr``: lane moves, so every lane stays a known
constant for ``pshufb``) once per call; ``setup_invariant`` checks that no
body instruction writes them, which is what lets the emitter run the setup
once before the block loop.

Groups 0-3 (W_0..W_15: ``movdqu`` + ``pshufb`` + W+K store) run at the top
of the block, before round 0, unless ``HybridParams.ahead``: then (as in
OpenSSL's SSSE3/AVX paths) the setup loads a..e and block 0's groups 0-3,
and every block but the last computes the *next* block's groups 0-3 during
its last rounds (``read_ahead``: group j's ring store after this block's
last read of its slots), keeping a..e in registers from block to block
(the rotating rounds below end two roles on: they load a..e per block); the
last block takes ``tail``, the same rounds without read-ahead (no read past
the data). ``HybridBlock.proved_unit`` is the last block's path, the whole
loop is proved from the object at export. Two more choices of the space:
``scalar`` -- the recipe's rounds, or ``hybrid_rounds``' rotating rounds
(OpenSSL's AVX2 form: f one round ahead in a's register, six registers
in rotation); ``recurrence`` -- W_32..79 by the rol1 recurrence above, or by
``hybrid_w8``'s rol2 recurrence (eight W registers, no lane-3 fix-up; with
read-ahead only, the loop the whole-function prover proves it in). Every
instruction comes from
``x86.SEMANTICS``; ``refuse_unknown`` names any that does not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.sha1 import K
from sha1opt.semantics.x86 import SEMANTICS, Imm, Instr, Mem, Reg, effects, isa_set, required_isa
from sha1opt.search.space.candidate import Candidate, priorities
from sha1opt.search.space.frame import Schedule, block_bindings, state_regs
from sha1opt.search.space.order import build_graph, list_schedule
from sha1opt.search.space.recipe import TEXTBOOK, Op, Recipe, prologue, range_ops
from sha1opt.search.space.hybrid_dialects import (Dialect, add_k, binop, dialect, imm_binop, imm_op, load, rol, store,
                                                  ternlog)
from sha1opt.search.space.hybrid_regs import CONSTANT_REGS, DATA, K_REGS, K_TABLE, MASK, RING, SP, k_slot, wk_slot
from sha1opt.search.space.hybrid_forms import FORMS
from sha1opt.search.space.hybrid_merge import Slots, interleave, release_points, slot_interleave
from sha1opt.search.space.hybrid_pair import SPLIT, merge_after_reads, pair_parts, retarget, wide_group
from sha1opt.search.space.hybrid_w8 import W8_REGS, W8_TEMPS, w8_groups
from sha1opt.search.space.regalloc import TEMPS, allocate

LEADS = (1, 2, 3)                       # groups ahead: a 16-entry ring allows at most 3
PLACEMENTS = ("every", "slots")
MAX_SHIFT = 16                          # a group's release moves at most this many scalar ops (``HybridParams.shifts``)
# the scalar rounds: ``recipe``'s, or one of ``hybrid_forms.FORMS`` (bmi: rorx/andn; lean: OpenSSL's f forms,
# mix: in parity rounds; early: W+K one round ahead; keep: a..e back in their registers)
SCALARS = ("recipe",) + tuple(FORMS)
ARCHS = ("x86_64", "i386")
RECURRENCES = ("rol1", "rol2")  # W_32..79: the spec's rol1 recurrence, or rol2 of W[t-6,16,28,32] (``hybrid_w8``)
W_REGS = tuple(Reg(f"xmm{k}", 128) for k in range(4))
TEMP_A, TEMP_B, TEMP_C = (Reg(f"xmm{k}", 128) for k in (4, 5, 6))
# pshufb's byte-swap mask per lane: lane j takes bytes 4j+3 .. 4j, i.e. bswap of each word.
BSWAP_MASK = (0x00010203, 0x04050607, 0x08090A0B, 0x0C0D0E0F)


def pair_refusal(d: Dialect, arch: str, ahead: bool, recurrence: str, scalar: str) -> str | None:
    """Why dialect ``d`` cannot take these choices, or None: it is built for ``d.arches`` only (a two-block row,
    ``hybrid_pair``, for x86-64); a two-block row's read-ahead (the next pair's loads
    through %r13/%r14 during block 2's rounds) takes the ``hybrid_forms`` rounds, which leave %r12-%r15 free.
    (rol2 needs read-ahead, as for one block.)"""
    if arch not in d.arches:
        return f"the dialect {d.name} is built for {', '.join(d.arches)} only"
    if d.blocks == 1:
        return None
    if ahead and scalar == "recipe":
        return f"the two-block dialect {d.name} reads ahead only with the hybrid_forms rounds (not the recipe's)"
    return None


def released_groups(d: Dialect, ahead: bool) -> range:
    """The vector groups released among the rounds (``merge_groups``), the ones a shift can move: 4..19; a
    two-block row with read-ahead merges only ``SPLIT``..19 there (the next pair's 4..``SPLIT``-1 run during
    block 2, after its reads: ``hybrid_pair``)."""
    return range(SPLIT, 20) if d.blocks == 2 and ahead else range(4, 20)


@dataclass(frozen=True)
class HybridParams:
    """One point of the hybrid space.

    ``recipe``: the scalar rounds' choices (its ``kw``/``wsrc`` fields do not
    apply -- W+K comes from the ring -- and are kept at the textbook's);
    ``offsets``: the scalar list-scheduling offsets (``Candidate.offsets``).
    """

    isa: str = "avx"
    lead: int = 2
    every: int = 3
    recipe: Recipe = TEXTBOOK
    offsets: tuple[tuple[tuple, int], ...] = ()
    placement: str = "every"         # "every": one vector op per ``every`` scalar ops; "slots": ``slot_interleave``
    ahead: bool = False              # read-ahead: the next block's W+K 0..15 during this block's last rounds
    scalar: str = "recipe"           # "rotate"/"rotate-bmi": ``hybrid_rounds`` (recipe and offsets unused)
    recurrence: str = "rol1"         # "rol2": groups 8-19 as ``hybrid_w8.rol2_group_ops`` (8 W registers)
    arch: str = "x86_64"             # "i386": ``hybrid_i386``'s layout (the recipe's or the lazy rounds)
    shifts: tuple[tuple[int, int], ...] = ()   # (group, scalar ops): its release moved (``interleave``)

    def __post_init__(self) -> None:
        dialect(self.isa)             # a row of the dialect table (``hybrid_dialects``), else refused
        if self.lead not in LEADS:
            raise Sha1optError(f"lead {self.lead} is not one of {LEADS} groups (the ring has 16 entries)")
        if self.every < 1:
            raise Sha1optError("every must be at least 1 scalar op per vector op")
        if self.scalar not in SCALARS:
            raise Sha1optError(f"unknown hybrid scalar rounds {self.scalar!r} (known: {', '.join(SCALARS)})")
        if self.recurrence not in RECURRENCES:
            raise Sha1optError(f"unknown recurrence {self.recurrence!r} (known: {', '.join(RECURRENCES)})")
        if self.recurrence == "rol2" and not self.ahead and self.arch == "x86_64":
            # The whole-function prover proves schedule identities through the W definitions only for a
            # loop whose head holds the block's words (``semantics.lift.template.uses_block_words``).
            raise Sha1optError("the rol2 recurrence needs read-ahead (ahead=True): only that loop proves whole")
        pairs = all(isinstance(s, tuple) and len(s) == 2 and all(type(x) is int for x in s) for s in self.shifts)
        groups = [s[0] for s in self.shifts] if pairs else []
        if not pairs or groups != sorted(set(groups)) or any(not 4 <= g < 20 or not 0 < abs(n) <= MAX_SHIFT
                                                             for g, n in self.shifts):
            raise Sha1optError(f"shifts {self.shifts} are not (group 4..19, 1..{MAX_SHIFT} scalar ops either way) "
                               "pairs, one per group in order")
        idle = [g for g in groups if g not in released_groups(self.dialect, self.ahead)]
        if idle:
            raise Sha1optError(f"group {idle[0]} is not released among the rounds here (a two-block row with "
                               f"read-ahead runs groups 4..{SPLIT - 1} during block 2): no shift")
        if self.placement not in PLACEMENTS:
            raise Sha1optError(f"unknown placement {self.placement!r} (known: {', '.join(PLACEMENTS)})")
        if (self.recipe.kw, self.recipe.wsrc) != (TEXTBOOK.kw, TEXTBOOK.wsrc):
            raise Sha1optError("the hybrid recipe's kw and wsrc are fixed (W+K comes from the ring)")
        if self.arch not in ARCHS:
            raise Sha1optError(f"unknown hybrid arch {self.arch!r} (known: {', '.join(ARCHS)})")
        why = pair_refusal(self.dialect, self.arch, self.ahead, self.recurrence, self.scalar)
        if why:
            raise Sha1optError(why)
        if self.scalar != "recipe" and self.arch not in FORMS[self.scalar].arches:
            # i386's 7 GPRs: no rotating rounds (9 registers); rol2 keeps its older groups on the stack, and the
            # read-ahead's data pointer borrows a scalar temporary where it is dead (``hybrid_i386``).
            raise Sha1optError("the i386 hybrid block takes the recipe or the lazy rounds" if self.arch == "i386"
                               else f"the scalar rounds {self.scalar} are built for i386 only")

    @property
    def dialect(self) -> Dialect:
        """The vector stream's row of the dialect table (``hybrid_dialects.DIALECTS[isa]``)."""
        return dialect(self.isa)

    def key(self) -> str:
        place = f"every={self.every}" if self.placement == "every" else "placement=slots"
        ahead = (",ahead" if self.ahead else "") + (",w=rol2" if self.recurrence == "rol2" else "")
        if self.shifts:
            ahead += ",shift=" + "/".join(f"{g}:{n:+d}" for g, n in self.shifts)
        if self.arch != "x86_64":
            rounds = self.recipe.key() if self.scalar == "recipe" else f"rounds={self.scalar}"
            return f"hybrid-{self.arch}:isa={self.isa},lead={self.lead},{place}{ahead};{rounds}"
        if self.scalar != "recipe":
            return f"hybrid:isa={self.isa},lead={self.lead},{place}{ahead};rounds={self.scalar}"
        return f"hybrid:isa={self.isa},lead={self.lead},{place}{ahead};{self.recipe.key()}"


@dataclass(frozen=True)
class HybridBlock:
    """The code of one block: ``setup`` (once per call) and ``body`` (per block), with the frame contract.

    A two-block dialect (``hybrid_pair``): ``body`` is block 1 (its loads read block 2's words into the
    high halves too), ``main`` block 2's rounds, ``tail`` empty, ``units`` the two proof units.
    With ``params.ahead`` the block loop forks after ``body``: ``main`` (the last rounds with the next
    block's W+K 0..15 read ahead, and the feed-forward) on every block but the last, ``tail`` (the
    same rounds without read-ahead) on the last; the setup also loads the state and the first block's
    W+K 0..15, and a..e stay in their registers from block to block. Without it ``main`` and ``tail``
    are empty and ``body`` is the whole block.
    """

    params: HybridParams
    setup: tuple[Instr, ...]
    body: tuple[Instr, ...]
    vector_ops: int
    scalar_ops: int
    main: tuple[Instr, ...] = ()
    tail: tuple[Instr, ...] = ()
    units: tuple[tuple[Instr, ...], ...] = ()     # a two-block dialect's proof units (``hybrid_pair``)

    @property
    def blocks(self) -> int:
        """Blocks hashed per loop iteration (the dialect row's ``blocks``)."""
        return self.params.dialect.blocks

    def loop_body(self) -> tuple[Instr, ...]:
        """One iteration in steady state (what the cost models price): ``body`` then ``main``."""
        return self.body + self.main

    def schedule(self) -> Schedule:
        """The steady-state iteration as a ``Schedule`` (its bindings are ``frame.block_bindings``)."""
        inputs, outputs, pointers = block_bindings(self.params.arch)
        return Schedule(self.params.arch, self.params.key(), self.loop_body(), inputs, outputs, pointers)

    def proved_unit(self) -> tuple[Instr, ...]:
        """What the block proof runs: the setup, then one block (with ``ahead``: the last block's path)."""
        return self.setup + self.body + self.tail

    def proved_units(self) -> tuple[tuple[Instr, ...], ...]:
        """Every unit the block proof runs, each one compression: ``proved_unit``, or a two-block dialect's
        ``units`` (block 1's code; the schedule and block 2's rounds)."""
        return self.units or (self.proved_unit(),)

    def code(self) -> tuple[Instr, ...]:
        """Every instruction of the function's setup and loop (the frame aside)."""
        return self.setup + self.body + self.main + self.tail


def refuse_unknown(code) -> None:
    """Misuse check: every instruction must be a row of ``x86.SEMANTICS``; the first that is not is named."""
    for ins in code:
        if ins.mnemonic not in SEMANTICS:
            raise Sha1optError(f"{ins.mnemonic} is not in the semantics table (semantics/x86.py, vector.py)")
        required_isa(ins)     # operand shapes checked against the row (refuses e.g. an xmm-count shift)


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def constant_setup(k_table: bool = False) -> tuple[Instr, ...]:
    """K_0..K_3 broadcast into ``K_REGS`` -- or, with ``k_table`` (a ``k_copy`` row, ``k_in_memory``), into
    the stack table at ``hybrid_regs.K_TABLE`` by 16 ``movl`` -- and the byte-swap mask into ``MASK``, from
    immediates via ``%eax``.

    Legacy-SSE forms only (SSE2/SSSE3), so one setup serves every dialect.
    The mask is assembled right to left with ``palignr $12`` (lane 0 of the
    result is lane 3 of the source, lanes 1-3 the destination's 0-2).
    """
    eax = Reg("eax")
    out: list[Instr] = []
    for n, (k, reg) in enumerate(zip(K, K_REGS)):
        if k_table:
            out += [_i("mov", Imm(k), Mem(SP, None, 1, k_slot(n).disp + 4 * lane)) for lane in range(4)]
        else:
            out += [_i("mov", Imm(k), eax), _i("movd", eax, reg), _i("pshufd", Imm(0), reg, reg)]
    out += [_i("mov", Imm(BSWAP_MASK[3]), eax), _i("movd", eax, MASK)]
    for lane in (2, 1, 0):
        out += [_i("mov", Imm(BSWAP_MASK[lane]), eax), _i("movd", eax, TEMP_A),
                _i("pshufd", Imm(0), TEMP_A, TEMP_A), _i("palignr", Imm(12), TEMP_A, MASK)]
    return tuple(out)


def k_in_memory(code) -> tuple[Instr, ...]:
    """A ``k_copy`` row's x86-64 code with K read from the stack table (``hybrid_regs.k_slot``): ``add_k``'s
    copy ``movdqa %xmm11+k, x`` -- the one reader of K in such a row -- becomes ``movdqu 80+16k(%rsp), x``, a
    load and not a vector ALU uop (the unaligned form: the whole-function prover knows ``%rsp`` aligned only
    after an ``and``; on an aligned address it costs what ``movdqa`` costs). Any other read of a K register is
    a misuse and refused by name."""
    names = [r.name for r in K_REGS]
    out = []
    for ins in code:
        ks = [o for o in ins.operands if isinstance(o, Reg) and o.name in names]
        if not ks:
            out.append(ins)
        elif ins.mnemonic == "movdqa" and len(ins.operands) == 2 and ins.operands[0] == ks[0] and len(ks) == 1:
            out.append(Instr("movdqu", (k_slot(names.index(ks[0].name)), ins.operands[1]), ins.line))
        else:
            raise Sha1optError(f"`{ins}` reads K other than by add_k's copy: no stack-table form")
    return tuple(out)


def load_group_ops(j: int, isa: str, block: int = 0, temp: Reg = TEMP_A) -> list[Instr]:
    """Group j < 4: W_4j..W_4j+3 = bswap of the block's words, and their W+K into the ring (through ``temp``).

    ``block`` 1 reads the next block (``64 + 16j(%rsi)``): the read-ahead of ``HybridParams.ahead``.
    """
    d = dialect(isa)
    w, src, k = W_REGS[j], Mem(DATA, None, 1, 64 * block + 16 * j), K_REGS[0]
    return (load(d, src, w) + binop(d, "pshufb", MASK, w, w) + add_k(d, k, w, temp)
            + store(d, temp, wk_slot(4 * j)))


def group_ops(g: int, isa: str) -> list[Instr]:
    """Group 4 <= g < 20: W_4g..W_4g+3 from the four groups before it (module docstring), and W+K."""
    if not 4 <= g < 20:
        raise Sha1optError(f"group {g} is not a recurrence group (4..19)")
    d = dialect(isa)
    x, y, z, q = (W_REGS[(g + k) % 4] for k in range(4))     # G_{g-4}, G_{g-3}, G_{g-2}, G_{g-1}
    a, b, c = TEMP_A, TEMP_B, TEMP_C
    kreg, slot = K_REGS[(4 * g) // 20], wk_slot(4 * g)
    out = imm_binop(d, "palignr", 8, x, y, a)                  # a = W[t-14..t-11]
    if d.ternlog:                                              # x = x ^ a ^ z, then ^ b
        out += imm_op(d, "psrldq", 4, q, b) + ternlog(d, z, a, x) + binop(d, "pxor", b, x, x)
    else:
        out += (binop(d, "pxor", z, x, x) + binop(d, "pxor", a, x, x)
                + imm_op(d, "psrldq", 4, q, b) + binop(d, "pxor", b, x, x))   # b = W[t-3..t-1], 0; x = T
    out += rol(d, 1, x, x, b)                                  # x = R
    out += imm_op(d, "pslldq", 12, x, c) + rol(d, 1, c, c, b)  # c = 0, 0, 0, rol1(W[t])
    out += binop(d, "pxor", c, x, x)                           # x = G_g
    return out + add_k(d, kreg, x, a) + store(d, a, slot)


def scalar_ops(recipe: Recipe) -> list[Op]:
    """The rounds of ``recipe`` with K and W replaced by one ``add wk(t), e`` per round (chain ``kw``).

    Built from ``recipe.range_ops`` (with ``kw="add"``): its W chain is dropped
    and its two kw additions (``add w, e``; ``add $K, e``) become the one
    memory-operand addition, at the first one's place.
    """
    ops = range_ops(0, 79, replace(recipe, kw="add", wsrc="mem"), "x86_64")
    out: list[Op] = []
    seen: set[int] = set()
    for op in ops:
        if op.chain == "W":
            continue
        if op.chain == "kw":
            if op.round not in seen:
                seen.add(op.round)
                out.append(Op(_i("add", wk_slot(op.round), state_regs(op.round)[4]), op.round, "kw"))
            continue
        out.append(op)
    return out


def scalar_code(params: HybridParams) -> tuple[list[Instr], list[int]] | None:
    """The scalar rounds ordered (list schedule with ``params.offsets``) and allocated, with each op's round."""
    ops = scalar_ops(params.recipe)
    graph = build_graph(ops)
    prio = priorities(Candidate(0, 79, "x86_64", params.recipe, params.offsets), ops)
    order = list_schedule(ops, graph, prio, len(TEMPS["x86_64"]))
    if order is None:
        return None
    code = allocate(ops, graph, order, "x86_64")
    if code is None:
        return None
    return code, [ops[i].round for i in order]


def merge_groups(params: HybridParams, scalar: list[Instr], rounds: list[int], groups: dict[int, list[Instr]],
                 slots: Slots | None) -> list[Instr]:
    """Groups 4..19 merged into the scalar rounds by ``params``' placement: ``interleave`` (one vector op every
    ``params.every`` scalar ops) or ``slot_interleave`` (``slots``, the model's unit classes), each group
    released where ``release_points`` says."""
    release = release_points(scalar, rounds, params.lead, dict(params.shifts))
    if params.placement == "every":
        return interleave(scalar, rounds, groups, release, params.every)
    return slot_interleave(scalar, rounds, groups, release, slots)


def build(params: HybridParams, slots: Slots | None = None) -> HybridBlock | None:
    """The whole block for ``params``; None when the scalar order needs more temporaries than x86-64 has.

    ``slots`` (a model's unit classes) is needed for ``placement="slots"`` only. A ``k_copy`` row's block
    reads K from the stack table its setup writes (``k_in_memory``).
    """
    block = _build(params, slots)
    if block is None or not params.dialect.k_copy:
        return block
    block = replace(block, setup=k_in_memory(block.setup), body=k_in_memory(block.body),
                    main=k_in_memory(block.main), tail=k_in_memory(block.tail))
    refuse_unknown(block.code())
    return block


def _build(params: HybridParams, slots: Slots | None) -> HybridBlock | None:
    if params.placement == "slots" and slots is None:
        raise Sha1optError("placement 'slots' needs the model's unit classes (Slots)")
    if params.arch != "x86_64":
        raise Sha1optError(f"{params.arch} hybrid blocks are built by hybrid_i386.build_i386")
    if params.scalar == "recipe":
        sc = scalar_code(params)
        if sc is None:
            return None
        scalar, rounds = sc
        final = state_regs(80)
    else:
        rr = FORMS[params.scalar].rounds()
        scalar, rounds, final = list(rr.code), list(rr.rounds), tuple(Reg(r) for r in rr.final)
    epi = feed_forward(final)
    if params.dialect.blocks == 2:
        return _pair_block(params, scalar, rounds, epi, slots)
    if params.recurrence == "rol2":
        groups = w8_groups(params.isa)
        head = [ins for j in range(4) for ins in load_group_ops(j, params.isa, temp=W8_TEMPS[0])]
    else:
        groups = {g: group_ops(g, params.isa) for g in range(4, 20)}
        head = [ins for j in range(4) for ins in load_group_ops(j, params.isa)]
    merged = merge_groups(params, scalar, rounds, groups, slots)
    nvec = len(head) + sum(len(v) for v in groups.values())
    if params.ahead:
        return _ahead_block(params, head, merged, groups[19][-1], nvec, len(scalar), epi, final == state_regs(0))
    body = list(prologue("x86_64")) + head + merged + epi
    setup = constant_setup(params.dialect.k_copy)
    refuse_unknown(setup + tuple(body))
    return HybridBlock(params, setup, tuple(body), nvec, len(scalar))


def _pair_block(params: HybridParams, scalar: list[Instr], rounds: list[int], epi: list[Instr],
                slots: Slots | None) -> HybridBlock:
    """A two-block dialect's block (``hybrid_pair.pair_parts``): block 1's rounds with the ymm groups
    interleaved, then block 2's rounds (with read-ahead: with the next pair's first groups), each reading its
    own half of the W+K area."""
    if params.recurrence == "rol2":
        groups = {g: wide_group(ops, g) for g, ops in w8_groups(params.isa).items()}
        w_regs, temp = W8_REGS[:4], W8_TEMPS[0]
    else:
        groups = {g: wide_group(group_ops(g, params.isa), g) for g in range(4, 20)}
        w_regs, temp = W_REGS, TEMP_A

    def merge(first: list[Instr], gs: dict[int, list[Instr]]) -> list[Instr]:
        return merge_groups(params, first, rounds, gs, slots)
    setup, body, main, units, nvec = pair_parts(
        params.dialect, params.ahead, params.every, constant_setup(), list(prologue("x86_64")), groups,
        retarget(scalar, rounds, 0), retarget(scalar, rounds, 1), epi, merge, w_regs, temp)
    block = HybridBlock(params, setup, body, nvec, 2 * len(scalar), main, (), units)
    refuse_unknown(block.code())
    return block


def feed_forward(final: tuple[Reg, ...]) -> list[Instr]:
    """state[i] += the register holding a..e after round 79 (``final[i]``), stored back."""
    state = Reg("edi", 64)
    out: list[Instr] = []
    for i, r in enumerate(final):
        out += [_i("add", Mem(state, None, 1, 4 * i), r), _i("mov", r, Mem(state, None, 1, 4 * i))]
    return out


def _ahead_block(params: HybridParams, head: list[Instr], merged: list[Instr], last_group_op: Instr,
                 nvec: int, nscalar: int, epi: list[Instr], state_in_registers: bool) -> HybridBlock:
    """The read-ahead form (``HybridBlock``): fork after group 19's last op, the next block's groups 0-3 in ``main``.

    ``state_in_registers`` (the rounds end with a..e where they began): the setup loads the state
    once; else each block loads it first (the rotating rounds end two roles on).
    """
    split = max(p for p, ins in enumerate(merged) if ins == last_group_op) + 1
    rest = merged[split:] + epi
    temp = W8_TEMPS[0] if params.recurrence == "rol2" else TEMP_A
    nxt = [(j, ins) for j in range(4) for ins in load_group_ops(j, params.isa, block=1, temp=temp)]
    main = read_ahead(rest, nxt, params.every)
    load = tuple(prologue("x86_64"))
    setup = constant_setup(params.dialect.k_copy) + (load if state_in_registers else ()) + tuple(head)
    body = (() if state_in_registers else load) + tuple(merged[:split])
    block = HybridBlock(params, setup, body, nvec, nscalar, tuple(main), tuple(rest))
    refuse_unknown(block.code())
    return block


def read_ahead(rest: list[Instr], nxt: list[tuple[int, Instr]], every: int) -> list[Instr]:
    """Merge the next block's groups 0-3 (``(j, op)`` in order) into ``rest``, the block's last ops.

    One op after every ``every`` ops of ``rest``; group j's ring store (words 4j..4j+3, the slots of
    rounds 64+4j..67+4j) waits until ``rest``'s last read of those slots, so this block reads its own
    W+K there. Example: with ``every=1`` and round 79 reading slot 60 as ``rest``'s 40th op, group 3's
    store lands after that op and the other 15 ops before it, one per op of ``rest``.
    """
    return merge_after_reads(rest, nxt, every, lambda disp: (disp - RING) // 16)


def setup_invariant(block: HybridBlock) -> str | None:
    """Why the setup could not be hoisted out of the block loop, or None: the loop writes no constant register
    and, for a ``k_copy`` row, no word of the K table (``hybrid_regs.K_TABLE`` .. + 63)."""
    for ins in block.body + block.main + block.tail:
        e = effects(ins)
        hit = set(e.writes) & CONSTANT_REGS
        if hit:
            return f"`{ins}` writes %{sorted(hit)[0]}, a constant register of the setup"
        dest = ins.operands[-1] if ins.operands else None
        if (block.params.dialect.k_copy and e.mem_write and isinstance(dest, Mem) and dest.base == SP
                and K_TABLE - 15 <= dest.disp < K_TABLE + 64):
            return f"`{ins}` writes the K table"
    return None


def features(block: HybridBlock) -> frozenset[str]:
    """The minimal ISA features that run the setup and the body (``x86.isa_set``): e.g. ``{"avx", "bmi2"}``."""
    return isa_set(block.code())
