"""The SHA-NI block: 80 rounds as 20 ``sha1rnds4`` groups, its message schedule and its freedom as parameters.

Invariant (what ``unit_text`` emits and ``prove_shani`` proves): with the
state loaded as ABCD in one register, lanes reversed (lane 3 = a, from
``pshufd $0x1b`` of h0..h3), and e in lane 3 of another with lanes 0-2 zero,
the block of 20 groups leaves the next state in the same two registers.
Group g (rounds 4g..4g+3, K and f from ``g // 5``) is::

    E[g%2] = W-group g + e      paddd M0, E0 (g = 0) | sha1nexte M[g%4], E[g%2] (g >= 1)
    E[(g+1)%2] = ABCD           movdqa: e of group g+1 is rol30(a) of this ABCD (sha1nexte adds it)
    ABCD = 4 rounds             sha1rnds4 $(g//5), E[g%2], ABCD

and W-group n (lanes reversed: lane 3 = W_4n) for n >= 4 is derived from the
recurrence W_t = rol1(W_t-3 ^ W_t-8 ^ W_t-14 ^ W_t-16) with the SDM rows:
``sha1msg1 M[n-3], M[n]`` (M[n] held group n-4: lanes become W_t-16 ^ W_t-14),
``pxor M[n-2], M[n]`` (^ W_t-8), ``sha1msg2 M[n-1], M[n]`` (^ W_t-3, rol 1,
the fourth word using the first). Four message registers suffice because
group n overwrites group n-4's register. Groups 0-3 are ``movdqu`` of the
data and ``pshufb`` with the whole-register byte reversal (lane j =
bswap(m_3-j)). The feed-forward is ``sha1nexte SE, E0`` (e + h4, as
rol30(a) of group 19's ABCD is the final e) and ``paddd SABCD, ABCD``.

Freedom (``ShaniParams``): how many groups ahead of its use each schedule
stage runs (``msg1_lead``, ``xor_lead``, ``msg2_lead``), whether schedule ops
sit before or after the group's ``sha1rnds4``, whether ``sha1nexte`` sits
just before its own rounds or right after the previous ones, how far ahead
the data loads run -- or whether they are software-pipelined into the
previous iteration as in OpenSSL's shaext loop (``preload``; the loop
control then is ``dec`` / ``lea`` / ``cmovne`` at the top, ``Parts.head``),
where the saved state lives (registers on x86-64, the stack on i386, which
has only xmm0-7), and which xmm register plays each role. Not every choice
is legal (a stage cannot overwrite a register still to be read):
``legal(params, arch)`` decides it by running the unit concretely; illegal
choices are never proved or costed. ``slack_key`` orders the points a cost
model cannot tell apart (the search's tie rule).

Example: ``unit_text(ShaniParams(), "x86_64")`` is the whole one-block
unit (mask built from immediates, state loaded, 20 groups, feed-forward,
state stored), 136 instructions, and ``prove_shani(ShaniParams(),
"x86_64").ok`` is True (163 cuts, about 2 s); changing group 5's
``sha1rnds4 $1`` to ``$0``, or dropping one ``sha1nexte``, gives a
``Counterexample`` (the outputs differ on the random states already).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Iterator

import numpy as np

from sha1opt.semantics.composition import CompositionResult, check_program
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import Builder, Term, evaluate, variables
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.prove import Proved, Prover
from sha1opt.semantics.sha1 import Definition, range_spec
from sha1opt.semantics.opaque import Label, Opaque
from sha1opt.semantics.vector import VECTOR_ROWS
from sha1opt.semantics.verdict_memo import PROVER, VerdictMemo
from sha1opt.semantics.x86 import Arch, Imm, Instr, Mem, Reg
from sha1opt.search.space.frame import block_bindings
from sha1opt.search.space.lane_machine import lane_machine

# pshufb mask reversing all 16 bytes: byte k of the result is byte 15-k of the source.
BYTE_REVERSE = (0x0C0D0E0F, 0x08090A0B, 0x04050607, 0x00010203)
ROLES = ("abcd", "e0", "e1", "m0", "m1", "m2", "m3", "mask", "sabcd", "se")
# i386 has xmm0-7 only: the saved state goes to the stack there.
I386_ENTRY = {"state": 4, "data": 8, "count": 12}     # cdecl argument slots at entry (esp+4...)
SAVE_BYTES = 32
LOOP_LABEL = ".Lshani_loop"
# How W-groups 4-19 get their last step: the SHA unit's sha1msg2, or the same words from vector ops
# (``msg2_code``) that leave the SHA unit to sha1rnds4 -- a choice a model prices (units.sha).
MSG2_FORMS = ("sha", "avx512", "avx")


@dataclass(frozen=True)
class ShaniParams:
    """One point of the SHA-NI block's scheduling freedom (module docstring).

    ``msg1_lead=3`` puts ``sha1msg1`` of W-group n in slot n-3 (the slot
    of group n-3's rounds); ``sched_after`` places schedule ops after the
    slot's ``sha1rnds4`` instead of before; ``load_lead=3`` issues all
    four data loads in slot 0; ``registers`` is the xmm number of each of
    ``ROLES`` (the two save roles unused when ``save_on_stack``).
    ``preload=k`` (k >= 1; 0: off) software-pipelines the data loads as
    OpenSSL's shaext loop does: the first block is loaded in the setup and
    block i+1's word group j (load and ``pshufb``) in slot 15+k+j of block
    i (at most slot 19, after the slot's rounds and schedule), the loop
    control becoming ``dec`` / ``lea 64(data)`` / ``cmovne`` at the top and
    ``jnz`` at the bottom (the last iteration reloads its own block: never a
    read past the input). ``nexte_early`` puts group g's ``sha1nexte`` in
    slot g-1, right after that slot's ``sha1rnds4`` (OpenSSL's order)
    instead of just before its own. x86-64 only for ``preload`` (i386 has no
    spare register for the pointer). ``msg2_form`` (``MSG2_FORMS``) is how
    the last schedule step is computed: ``sha1msg2``, or vector ops off the
    SHA unit (``msg2_code``; the ISA the form needs). On i386 the
    ``avx512`` form keeps the byte-reversal mask on the stack (16 more bytes
    of frame, reloaded before each ``pshufb``) so its register is the spare;
    the ``avx`` form (two spares) is x86-64 only.
    """

    msg1_lead: int = 3
    xor_lead: int = 2
    msg2_lead: int = 1
    sched_after: bool = False
    load_lead: int = 3
    save_on_stack: bool = False
    registers: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    preload: int = 0
    nexte_early: bool = False
    msg2_form: str = "sha"

    def describe(self) -> str:
        loads = (f"next block's loads in the previous iteration (group {16 + self.preload - 1}+j), "
                 "dec/lea/cmovne loop control" if self.preload else f"loads {self.load_lead} ahead")
        msg2 = "msg2" if self.msg2_form == "sha" else f"msg2 as {self.msg2_form} vector ops"
        return (f"msg1 {self.msg1_lead} ahead, pxor {self.xor_lead}, {msg2} {self.msg2_lead}, schedule "
                f"{'after' if self.sched_after else 'before'} sha1rnds4, "
                f"{'sha1nexte right after the previous sha1rnds4, ' if self.nexte_early else ''}{loads}, "
                f"saves in {'stack' if self.save_on_stack else 'registers'}, xmm {self.registers}")


def default_params(arch: Arch) -> ShaniParams:
    """The starting point for ``arch``: on i386 the saves are on the stack (8 xmm registers only)."""
    return ShaniParams(save_on_stack=True, registers=(0, 1, 2, 3, 4, 5, 6, 7, 0, 0)) if arch == "i386" \
        else ShaniParams()


@dataclass(frozen=True)
class Parts:
    """The unit as typed instructions in pieces, so the frame can put the block inside a loop.

    ``setup`` (mask, state load: once per call), ``body`` (one block, data
    pointer not advanced), ``finish`` (state store): ``x86.Instr`` each.
    ``data`` / ``state`` / ``count`` are the pointer and count registers the
    pieces use. ``head`` / ``tail`` are the loop control around ``body``
    inside the function (``tail`` ends with the backward branch to
    ``LOOP_LABEL``; ``dec``, ``cmovne`` and the branch are ``Opaque``
    items): not part of the unit, which is one block; the whole-function
    proof at export covers them. The text the export writes is
    ``line`` of each item: one source for the text, the proof's code
    (``unit_code``) and the cost model's items (``engines.shani.loop_items``).
    """

    arch: Arch
    setup: tuple[Instr, ...]
    body: tuple[Instr, ...]
    finish: tuple[Instr, ...]
    data: Reg
    state: Reg
    params: ShaniParams = field(default_factory=ShaniParams)
    head: tuple[Instr | Opaque, ...] = ()
    tail: tuple[Instr | Opaque, ...] = ()
    count: Reg = Reg("edx", 64)

    @property
    def unit(self) -> tuple[Instr, ...]:
        return self.setup + self.body + self.finish

    def line(self, item: Instr | Opaque) -> str:
        """One instruction of the block as the export writes it: ``x86`` operand text, but immediates in
        decimal except ``pshufd``'s lane selector and 32-bit words (``pshufd $0x1b``, ``mov $0xc0d0e0f,
        %eax``), and an offset from the data pointer spelled even when 0 (``movdqu 0(%rsi), %xmm3``)."""
        def text(o) -> str:
            if isinstance(o, Imm):
                return f"${o.value:#x}" if item.mnemonic == "pshufd" or o.value > 0xFFFF else f"${o.value}"
            if isinstance(o, Mem) and o.base == self.data and o.disp == 0 and o.index is None:
                return f"0({o.base})"
            return str(o)
        return f"{item.mnemonic} {', '.join(map(text, item.operands))}" if item.operands else item.mnemonic

    def lines(self, items) -> tuple[str, ...]:
        """``line`` of each of ``items``."""
        return tuple(map(self.line, items))


def _i(mnemonic: str, *operands) -> Instr:
    return Instr(mnemonic, operands)


def _at(base: Reg, disp: int = 0) -> Mem:
    return Mem(base, None, 1, disp)


def _check(params: ShaniParams, arch: Arch) -> None:
    if arch not in ("x86_64", "i386"):
        raise Sha1optError(f"unknown arch {arch!r}")
    if len(params.registers) != len(ROLES):
        raise Sha1optError(f"registers names {len(ROLES)} roles ({', '.join(ROLES)}), got {len(params.registers)}")
    used = params.registers[:8] if params.save_on_stack else params.registers
    top = 8 if arch == "i386" else 16
    if len(set(used)) != len(used) or not all(0 <= r < top for r in used):
        raise Sha1optError(f"registers must be distinct xmm numbers below {top}: {used}")
    if arch == "i386" and not params.save_on_stack:
        raise Sha1optError("i386 has xmm0-7 only: the saved state must be on the stack (save_on_stack=True)")
    for name in ("msg1_lead", "xor_lead", "msg2_lead"):
        if not 0 <= getattr(params, name) <= 4:
            raise Sha1optError(f"{name} must be 0..4")
    if not 0 <= params.load_lead <= 3:
        raise Sha1optError("load_lead must be 0..3")
    if not 0 <= params.preload <= 4:
        raise Sha1optError("preload must be 0 (off) or 1..4")
    if params.preload and arch == "i386":
        raise Sha1optError("preload needs a spare register for the next block's pointer: x86-64 only")
    if params.msg2_form not in MSG2_FORMS:
        raise Sha1optError(f"msg2_form must be one of {', '.join(MSG2_FORMS)}, not {params.msg2_form!r}")
    if params.msg2_form == "avx" and arch == "i386":
        raise Sha1optError("the avx sha1msg2 form needs two spare xmm registers: x86-64 only (i386 uses xmm0-7)")
    if params.preload and params.save_on_stack:
        raise Sha1optError("preload keeps the next block in m0-m3, which the stack restore uses: registers only")


def parts(params: ShaniParams, arch: Arch) -> Parts:
    """The unit for ``arch`` under ``params`` as typed instructions (see ``Parts``)."""
    _check(params, arch)
    x = {role: Reg(f"xmm{n}", 128) for role, n in zip(ROLES, params.registers)}
    M = [x["m0"], x["m1"], x["m2"], x["m3"]]
    E = [x["e0"], x["e1"]]
    A, mask = x["abcd"], x["mask"]
    # i386 with a vector sha1msg2: the mask lives on the stack and its register is the form's spare
    mask_slot = SAVE_BYTES if arch == "i386" and params.msg2_form != "sha" else None
    frame = SAVE_BYTES + (16 if mask_slot is not None else 0)
    spare = [mask] if mask_slot is not None else [Reg(f"xmm{n}", 128) for n in range(16)
                                                  if n not in params.registers][:2]
    width = 64 if arch == "x86_64" else 32
    sp, tmp = Reg("esp", width), Reg("eax", 32)
    state, data = (Reg("edi", 64), Reg("esi", 64)) if arch == "x86_64" else (Reg("eax", 32), Reg("ecx", 32))
    setup: list[Instr] = []
    # The byte-reversal mask from immediates (so the proof sees a constant, nothing read from .rodata).
    for j, word in enumerate(BYTE_REVERSE):
        setup.append(_i("mov", Imm(word), tmp))
        setup.append(_i("movd", tmp, mask) if j == 0 else _i("pinsrd", Imm(j), tmp, mask))
    if arch == "i386":
        setup += [_i("mov", _at(sp, I386_ENTRY["state"]), state), _i("mov", _at(sp, I386_ENTRY["data"]), data),
                  _i("sub", Imm(frame), sp)]
        if mask_slot is not None:
            setup.append(_i("movdqu", mask, _at(sp, mask_slot)))
    elif params.save_on_stack:
        setup.append(_i("sub", Imm(frame), sp))      # (the saves must not land on the return address)
    setup += [_i("movdqu", _at(state), A), _i("pshufd", Imm(0x1B), A, A),
              _i("movd", _at(state, 16), E[0]), _i("pshufd", Imm(0x1B), E[0], E[0])]
    if params.save_on_stack:
        save = [_i("movdqu", A, _at(sp)), _i("movdqu", E[0], _at(sp, 16))]
        # after the last group the message registers are free: reload the saves into them
        restore = [_i("movdqu", _at(sp, 16), M[1]), _i("sha1nexte", M[1], E[0]),
                   _i("movdqu", _at(sp), M[0]), _i("paddd", M[0], A)]
    else:
        save = [_i("movdqa", A, x["sabcd"]), _i("movdqa", E[0], x["se"])]
        restore = [_i("sha1nexte", x["se"], E[0]), _i("paddd", x["sabcd"], A)]

    # slot s: [loads] [nexte] [copy] [schedule if before] sha1rnds4 [early nexte of s+1] [schedule if after]
    # [next block's loads if preload]
    slots: dict[tuple[int, int], list[Instr]] = {}

    def put(slot: int, phase: int, ins: Instr) -> None:
        slots.setdefault((max(slot, 0), phase), []).append(ins)

    reload = (_i("movdqu", _at(sp, mask_slot), mask),) if mask_slot is not None else ()
    loads = [(_i("movdqu", _at(data, 16 * j), M[j]), *reload, _i("pshufb", mask, M[j])) for j in range(4)]
    if params.preload:
        setup += [t for pair in loads for t in pair]
        for j, pair in enumerate(loads):
            for t in pair:
                put(min(15 + params.preload + j, 19), 7, t)
    else:
        for j, pair in enumerate(loads):
            for t in pair:
                put(j - params.load_lead, 0, t)
    for g in range(20):
        first = _i("paddd", M[0], E[0]) if g == 0 else _i("sha1nexte", M[g % 4], E[g % 2])
        if params.nexte_early and g > 0:
            put(g - 1, 5, first)
        else:
            put(g, 1, first)
        put(g, 2, _i("movdqa", A, E[(g + 1) % 2]))
        put(g, 4, _i("sha1rnds4", Imm(g // 5), E[g % 2], A))
    sched_phase = 6 if params.sched_after else 3
    for n in range(4, 20):
        for lead, code in ((params.msg1_lead, [_i("sha1msg1", M[(n - 3) % 4], M[n % 4])]),
                           (params.xor_lead, [_i("pxor", M[(n - 2) % 4], M[n % 4])]),
                           (params.msg2_lead, msg2_code(params.msg2_form, M[(n - 1) % 4], M[n % 4], spare))):
            for ins in code:
                put(n - lead, sched_phase, ins)
    body = save + [t for key in sorted(slots) for t in slots[key]] + restore
    finish = [_i("pshufd", Imm(0x1B), A, A), _i("movdqu", A, _at(state)),
              _i("pshufd", Imm(0x1B), E[0], E[0]), _i("movd", E[0], _at(state, 16))]
    if arch == "i386" or params.save_on_stack:
        finish.append(_i("add", Imm(frame), sp))
    count = Reg("edx", width)
    back = Opaque("jnz", (Label(LOOP_LABEL),), 0, "branch")
    if params.preload:     # flags of dec live to jnz: no instruction of the body writes flags
        head = (Opaque("dec", (count,), 0, "counter"), _i("lea", _at(data, 64), Reg("eax", 64)),
                Opaque("cmovne", (Reg("eax", 64), data), 0, "opaque"))
        tail: tuple = (back,)
    else:
        head, tail = (), (_i("add", Imm(64), data), Opaque("dec", (count,), 0, "counter"), back)
    return Parts(arch, tuple(setup), tuple(body), tuple(finish), data, state, params, head, tail, count)


def msg2_code(form: str, prev: Reg, cur: Reg, spare: list[Reg]) -> list[Instr]:
    """W-group n from ``cur`` (sha1msg1 and pxor done: x_0..x_3) and ``prev`` (group n-1), per ``MSG2_FORMS``.

    ``sha1msg2 prev, cur`` (SDM): W_t = rol1(x_i ^ W_t-3), the fourth word using the
    first. The vector forms compute the same without the SHA unit: X = ``prev``
    shifted up one lane (W_t-3 for the first three words, 0 for the fourth),
    T = cur ^ X, then cur = rol1(T) ^ (rol2 of T's top lane, alone in lane 0) --
    rol1(x_3 ^ W_t) = rol1(x_3) ^ rol1(rol1(x_0 ^ W_t-3)) -- so the two rotates
    run side by side. ``avx512``: ``vprold`` (6 instructions, one spare
    register); ``avx``: shift/shift/or rotates (10, two spares).
    """
    if form == "sha":
        return [_i("sha1msg2", prev, cur)]
    t = spare[0]
    head = [_i("vpslldq", Imm(4), prev, t), _i("pxor", t, cur), _i("vpsrldq", Imm(12), cur, t)]
    if form == "avx512":
        return head + [_i("vprold", Imm(2), t, t), _i("vprold", Imm(1), cur, cur), _i("pxor", t, cur)]
    u = spare[1]
    return head + [_i("vpsrld", Imm(30), t, u), _i("vpslld", Imm(2), t, t), _i("vpor", u, t, t),
                   _i("vpsrld", Imm(31), cur, u), _i("vpaddd", cur, cur, cur), _i("vpor", u, cur, cur),
                   _i("pxor", t, cur)]


def unit_text(params: ShaniParams, arch: Arch) -> str:
    """Setup, one block and the state store as one straight-line AT&T text (``line`` of each instruction)."""
    p = parts(params, arch)
    return "\n".join(p.lines(p.unit)) + "\n"


def unit_code(params: ShaniParams, arch: Arch) -> list[Instr]:
    """The unit's instructions, each with its line in ``unit_text`` (what ``parse_text`` of it gives)."""
    return [replace(ins, line=k) for k, ins in enumerate(parts(params, arch).unit, start=1)]


def mnemonics_used(params: ShaniParams, arch: Arch) -> set[str]:
    """Every mnemonic of the unit (each vector one a row of ``vector.VECTOR_ROWS``)."""
    return {ins.mnemonic for ins in parts(params, arch).unit}


def bindings(arch: Arch) -> tuple[dict, dict, dict]:
    """Inputs, outputs, entry pointers of the unit: the frame contract, with i386's cdecl slots at entry."""
    inputs, outputs, pointers = block_bindings(arch)
    if arch == "i386":
        pointers = {"esp": "stack", ("stack", I386_ENTRY["state"]): "state",
                    ("stack", I386_ENTRY["data"]): "data"}
    return inputs, outputs, pointers


# -- proof ------------------------------------------------------------------------------------------

class InliningProver(Prover):
    """``Prover`` for cuts inside one ``sha1rnds4``: known values by symbol, definitions unfolded.

    ``rhs`` is a spec definition over earlier definitions' symbols (A_t+3
    over A_t+2, A_t+1, ...); one ``sha1rnds4`` computes A_t+1..A_t+4 but
    writes A_t+1 and A_t+2 only rotated (``C{t}`` := rol30(A_t), the
    abbreviation ``shani_spec`` adds), so ``lhs`` holds their terms, not
    their symbols. Three rewrites, each an identity under the spec, so the
    query is the same statement and a refutation or Unknown stays one:

    1. in ``lhs``, a subterm already proved equal to definition X (its
       lane was cut; for a ``C{t}`` cut ``rol30(x)``, the inner ``x`` is
       A_t) becomes X's symbol -- the checker's own substitution, applied
       inside the instruction's other lanes;
    2. ``C{t}`` is unfolded to rol30(A_t) on both sides, and in ``rhs``
       every definition symbol ``lhs`` does not mention is unfolded;
    3. in ``lhs``, symbols the unfolded ``rhs`` does not mention are
       unfolded (a lane written again after its cut, ``W3 + 0``).
    """

    def __init__(self, definitions: dict[str, Term], **kw) -> None:
        super().__init__(**kw)
        self.definitions = definitions
        self._name_of = {t.id: n for n, t in definitions.items()}
        self._known: dict[int, Term] = {}

    def check(self, lhs: Term, rhs: Term, timeout: float | None = None):
        name = self._name_of.get(rhs.id)
        raw = lhs
        lhs = self._rewrite(lhs)
        lhs = self._unfold(lhs, lambda n: n.startswith("C"))
        have = set(variables([lhs]))
        rhs = self._unfold(rhs, lambda n: n.startswith("C") or n not in have)
        need = set(variables([rhs]))
        lhs = self._unfold(lhs, lambda n: n not in need)
        outcome = super().check(lhs, rhs, timeout)
        if name is not None and isinstance(outcome, Proved):
            b = raw.builder
            if name.startswith("C"):
                n = raw.node
                if n.op == "rol" and Term(b, n.args[1]).node == b.const(30).node:
                    self._known[n.args[0]] = b.var("A" + name[1:])
            else:
                self._known[raw.id] = b.var(name)
        return outcome

    def _rewrite(self, term: Term) -> Term:
        b, known = term.builder, self._known
        memo: dict[int, Term] = {}

        def go(t: Term) -> Term:
            if t.id in known:
                return known[t.id]
            if t.id in memo:
                return memo[t.id]
            n = t.node
            out = t if not n.args else b.node(n.op, [go(Term(b, a)) for a in n.args], n.payload)
            memo[t.id] = out
            return out

        return go(term)

    def _unfold(self, term: Term, want) -> Term:
        b = term.builder
        memo: dict[int, Term] = {}

        def go(t: Term) -> Term:
            if t.id in memo:
                return memo[t.id]
            n = t.node
            if n.op == "var":
                out = go(self.definitions[n.payload]) if n.payload in self.definitions and want(n.payload) else t
            elif not n.args:
                out = t
            else:
                out = b.node(n.op, [go(Term(b, a)) for a in n.args], n.payload)
            memo[t.id] = out
            return out

        return go(term)


def shani_spec(builder: Builder):
    """``range_spec`` of the whole block plus ``C{t} := rol30(A{t})``, each right after its ``A{t}``.

    The abbreviations add no meaning (the outputs are still the spec's, over
    the A symbols); they let the rotated lanes of ``sha1rnds4`` be cut.
    """
    spec = range_spec(builder, 0, 79)
    defs = []
    for d in spec.definitions:
        defs.append(d)
        if d.name.startswith("A"):
            defs.append(Definition("C" + d.name[1:], builder.var(d.name).rol(30), f"rol30 of {d.name}", d.round))
    spec.definitions[:] = defs
    return spec


def prove_shani(params: ShaniParams, arch: Arch, timeout: float = 10.0) -> CompositionResult:
    """The unit = SHA-1's compression function (80 rounds, W schedule, feed-forward), or why not."""
    return prove_code(unit_code(params, arch), arch, timeout)


def prove_code(code: list[Instr], arch: Arch, timeout: float = 10.0) -> CompositionResult:
    """``code`` (a SHA-NI unit, possibly edited) against the spec; only ``Proved`` is ``ok``. A unit this process
    already proved (the same instructions, arch and timeout, table and code: ``semantics.verdict_memo``) is not
    proved again: the search, the export and the dispatch plan prove the same points."""
    return _PROOFS.remembered((tuple(code), arch, timeout), lambda: _prove_code(code, arch, timeout),
                              lambda res: res.ok)


# (the names it reads: the semantics, z3, this module, the lane machine and the frame's bindings)
_PROOFS = VerdictMemo((*PROVER, __name__, "sha1opt.search.space.lane_machine", "sha1opt.search.space.frame"))


def _prove_code(code: list[Instr], arch: Arch, timeout: float) -> CompositionResult:
    b = Builder()
    spec = shani_spec(b)
    inputs, outputs, pointers = bindings(arch)
    prover = InliningProver({d.name: d.term for d in spec.definitions}, timeout=timeout)
    return check_program(code, spec, inputs, outputs, prover, pointers=pointers,
                         machine=lane_machine)


# -- concrete check (legality filter for the search) --------------------------------------------------

def legal(params: ShaniParams, arch: Arch, lanes: int = 4, seed: int = 7) -> bool:
    """Whether the unit computes the compression function on ``lanes`` random states and blocks.

    A filter, not a proof: a schedule stage that overwrites a register still
    to be read gives a wrong digest here and is never proved or costed.
    """
    try:
        code = unit_code(params, arch)
    except Sha1optError:
        return False
    spec = range_spec(Builder(), 0, 79)
    inputs, outputs, pointers = bindings(arch)
    rng = np.random.default_rng(seed)
    dom = NumpyDomain(lanes)
    env = {n: rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32) for n in spec.inputs}
    for d in spec.definitions:
        env[d.name] = evaluate([d.term], dom, env)[0]
    want = dict(zip(spec.outputs, evaluate(list(spec.outputs.values()), dom, env)))
    at = {loc: name for name, loc in inputs.items()}
    free = lambda: rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    m = Machine(dom, lambda r: env[at[("reg", r)]] if ("reg", r) in at else free(),
                lambda reg, off: env[at[("mem", reg, off)]] if ("mem", reg, off) in at else free(),
                pointers=dict(pointers))
    m.run(code)
    return all(np.array_equal(m.get(loc), want[name]) for name, loc in outputs.items())


def grid(arch: Arch) -> Iterator[ShaniParams]:
    """The search space (register roles fixed per arch), each point once.

    Leads 0-4 with ``msg1_lead >= xor_lead >= msg2_lead`` (each stage reads
    the one before it on the same register, so a later stage running further
    ahead is always illegal); the schedule before or after the slot's
    ``sha1rnds4``; ``sha1nexte`` in its own slot or right after the previous
    rounds; the loads ``load_lead`` slots ahead with the saves in registers
    or on the stack, or software-pipelined into the previous iteration
    (``preload`` 1-4, saves in registers; x86-64); ``sha1msg2`` or one of the
    vector forms (x86-64; i386: ``sha1msg2`` or ``avx512``). i386: saves on
    the stack and no preload (8 xmm registers, no spare GPR).
    """
    base = default_params(arch)
    forms = MSG2_FORMS if arch == "x86_64" else ("sha", "avx512")
    for m1 in range(1, 5):
        for xl in range(1, m1 + 1):
            for m2 in range(0, xl + 1):
                # a load must come before the first schedule read of its group (never legal otherwise)
                loads = [dict(load_lead=ll, save_on_stack=st) for ll in range(max(m1 - 3, xl - 2, m2 - 1, 0), 4)
                         for st in ((True,) if arch == "i386" else (False, True))]
                if arch == "x86_64":
                    loads += [dict(preload=k, save_on_stack=False) for k in range(1, 5)]
                for after in (False, True):
                    for early in (False, True):
                        for form in forms:
                            for ld in loads:
                                yield replace(base, msg1_lead=m1, xor_lead=xl, msg2_lead=m2, sched_after=after,
                                              nexte_early=early, msg2_form=form, **ld)


def slack_key(params: ShaniParams) -> tuple:
    """The order among points the cost model prices the same (smaller first): the slack rule.

    A list scheduler's critical-path priority, for an out-of-order core
    whose SHA unit serves the rounds and the schedule alike: the critical
    ``sha1rnds4`` before the schedule ops of its slot (``sched_after``),
    then the schedule as far ahead of its use as possible (the sum of the
    leads), then the saves in registers, ``sha1msg2`` before its vector
    forms, then the data loads as far ahead as possible (pipelined into the
    previous iteration first, ``preload=1`` earliest), then ``sha1nexte`` in
    its own slot. Example: with equal cycles,
    ``ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True)``
    comes before ``ShaniParams()`` (leads 3/2/1, schedule before the rounds),
    and the same with ``preload=1`` before both.
    """
    loads_ahead = 8 - params.preload if params.preload else params.load_lead    # preload 1: 4 groups before slot 0
    return (not params.sched_after, -(params.msg1_lead + params.xor_lead + params.msg2_lead),
            params.save_on_stack, MSG2_FORMS.index(params.msg2_form), -loads_ahead, params.nexte_early)


def walk_order(arch: Arch, seed: int) -> list[ShaniParams]:
    """The order the search evaluates ``grid(arch)`` in: the default point, then the first point of
    each structural class by ``slack_key`` (schedule before/after, ``sha1nexte`` placement, loads
    and saves), then every other point in a seeded random order -- so a small budget still sees every
    class at its most slack-rich leads."""
    points = list(grid(arch))
    rng = random.Random(seed)
    rng.shuffle(points)
    heads: dict[tuple, ShaniParams] = {}
    for p in sorted(points, key=slack_key):
        heads.setdefault((p.sched_after, p.nexte_early, p.preload, p.save_on_stack, p.load_lead, p.msg2_form), p)
    base = default_params(arch)
    first = [base] + [p for p in heads.values() if p != base]
    chosen = set(first)
    return first + [p for p in points if p not in chosen]


def isa_rows_used(params: ShaniParams, arch: Arch) -> dict[str, str]:
    """Vector mnemonic -> the row's ISA feature, for every vector instruction of the unit."""
    return {m: VECTOR_ROWS[m].isa for m in sorted(mnemonics_used(params, arch)) if m in VECTOR_ROWS}
