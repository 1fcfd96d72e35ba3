"""Rotating rounds: the 80 scalar rounds with f computed one round ahead, in place, in a's register.

The recipe rounds (``recipe.range_ops``) keep a..e in five registers whose
names rotate by one per round and copy an operand before computing f
(``mov c, t; xor d, t; ...``). OpenSSL's AVX2 path does better on wide cores,
and this module writes that form for the hybrid family: since B_{t+1} = A_t
unrotated, round t can compute f_{t+1} = f(A_t, C_{t+1}, C_t) as soon as A_t
is known, *in A_t's register*, once ``rol5`` and ``rol30`` have copied A_t
out (``rorx`` with BMI2). Six registers carry the state, in the roles
(A, F, C1, C, D, E) at the start of round t::

    A = A_t,  F = f_t (already computed),  C1 = C_{t+1} = rol30(A_{t-1}),
    C = C_t,  D = D_t,  E = E_t

Round t: ``add wk(t), E; add F, E; T = rol5(A); F := rol30(A)`` (F's register
is free once added), ``f_{t+1}`` into A's register, ``add T, E``. Then the
roles move on as (A, F, C1, C, D, E) := (E, A, F, C1, C, D): a 6-cycle, so
after 80 rounds the state sits two roles on (``RotatingRounds.final``).
f_{t+1} in place, with C1 = C_{t+1} and C = C_t (the two terms of Ch and
Maj have no bit in common, so their sum is their or):

* Ch (t+1 < 20):   ``(A & C1) + (~A & C)``: ``andn C, A, t; add t, D; and C1, A``;
* parity:          ``A ^ (C1 ^ C)``: ``mov C1, t; xor C, t; xor t, A``;
* Maj (40..59):    ``(A & (C1 ^ C)) + (C1 & C)``: ``mov C1, t; xor C, t; mov C1, y; and C, y;
                   add y, D; and t, A``.

Round 0 needs f_0 and C_1 before it (``prelude``: ``rol30`` of b into the
sixth register, Ch(b, c, d) in b's register); round 79 computes neither.
Without BMI (``bmi=False``) ``rorx`` is ``mov`` + ``rol``/``ror`` and
``andn`` is ``mov`` + ``not`` + ``and``.

Example: ``rotating_rounds(True).code`` is 700 instructions (prelude and
round 0: 12; 8 per Ch or parity round, 11 per Maj round, 4 for round 79)
against 800 of the textbook recipe's rounds (720 with andn and rorx);
``final`` is ``("edx", "ebp", "ebx", "r8d", "ecx")`` (a..e after round 79,
for the feed-forward). The forms above with the parts that do not read A
computed first (``C1 ^ C`` into a temporary; Ch's ``~A & C`` and Maj's
``C1 & C`` added straight into D, which is E_{t+1}) leave one operation
between A_t and f_{t+1}. ``lean="all"`` writes OpenSSL's forms instead --
Ch ``andn C, A, t; and C1, A; xor t, A``, parity ``xor C1, A; xor C, A``,
Maj ``((A ^ C) & (C1 ^ C)) ^ C`` -- 60 instructions fewer, two or three
operations between A_t and f_{t+1}; ``lean="parity"`` only in the parity
rounds (40 instructions fewer), ``"ch"`` / ``"ch+parity"`` in those rounds.

Three more choices (``hybrid_forms.RoundsForm``, named in ``hybrid_forms.FORMS``,
the values of ``HybridParams.scalar``):

* ``early=1``: W_{t+1}+K is added into D (= E_{t+1}) in round t, before the
  parts of f_{t+1} (``add wk(0), e`` heads the prelude); ``early=2``:
  W_{t+2}+K into C (= E_{t+2}) after f_{t+1}, C's last read (and W_1+K into
  d after the prelude's f_0 has read d). The chain through
  a is then ``rol5`` + ``add`` and the f parts only: in a Ch round e
  receives ``~A&C`` at +2, ``A&C1`` at +3 and rol5(A_{t+1}) at +4 clocks
  after A_t, 2 clocks a round, where the late ``add wk(t), e`` (after the
  ``~A&C`` part) makes it 2.5. The early addition is tagged with round t+1
  (``RotatingRounds.rounds``) it feeds, so the interleaver still flushes
  that round's group before it.
* ``majn`` (BMI): Maj's ``C1 & C`` as ``andn C1, x, y`` of x = ``C1 ^ C``
  (~(C1 ^ C) & C1 = C1 & C): one copy fewer per Maj round (``maj_terms``).
* ``keep``: after round 79 ``parallel_moves`` copies a..e back into eax,
  ebx, ecx, edx, ebp (``STATE_REGS``; moves the models eliminate), so with
  read-ahead the state stays in registers from block to block instead of
  going through the state words.

Example: ``rotating_rounds(True, early=1, keep=True)`` is 706
instructions (the 700, plus 6 moves), ``final`` ``STATE_REGS``; on
``goldencove`` (avx512vl, lead 1, every 4, read-ahead, rol2) it predicts
3.04 c/B against 3.20 for ``rotate-bmi``; measured on this host against
OpenSSL's AVX2 path (30 pairs, load 3.5-4) 0.956/0.954 against 1.000/1.046
(16 KiB / 1 MiB).
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Reg
from sha1opt.search.space.hybrid_regs import wk_slot

ROLE_REGS = ("eax", "ebx", "r8d", "ecx", "edx", "ebp")     # (A, F, C1, C, D, E) at round 0
ROL5_TEMP = "r9d"
F_TEMP = "r10d"
Y_TEMP = "r11d"


@dataclass(frozen=True)
class RotatingRounds:
    """The rounds' code, each instruction's round (the prelude counts as round 0), and a..e after round 79."""

    code: tuple[Instr, ...]
    rounds: tuple[int, ...]
    final: tuple[str, ...]


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def rol_to(src: str, n: int, dst: str, bmi: bool) -> list[Instr]:
    """dst = rol(src, n) with src kept: one ``rorx`` with BMI2, else ``mov`` then ``rol``."""
    if bmi:
        return [_i("rorx", Imm(32 - n), Reg(src), Reg(dst))]
    return [_i("mov", Reg(src), Reg(dst)), _i("rol", Imm(n), Reg(dst))]


def andn_to(a: str, b: str, dst: str, bmi: bool) -> list[Instr]:
    """dst = ~a & b with a and b kept: one ``andn`` with BMI1, else ``mov``, ``not``, ``and``."""
    if bmi:
        return [_i("andn", Reg(b), Reg(a), Reg(dst))]
    return [_i("mov", Reg(a), Reg(dst)), _i("not", Reg(dst)), _i("and", Reg(b), Reg(dst))]


LEAN = ("", "parity", "all", "ch", "ch+parity")       # which rounds take OpenSSL's (lean) f forms
_LEAN_SETS = {"": frozenset(), "parity": frozenset({"parity"}), "all": frozenset({"ch", "parity", "maj"}),
              "ch": frozenset({"ch"}), "ch+parity": frozenset({"ch", "parity"})}


def _function(u: int) -> str:
    return "ch" if u < 20 else "maj" if 40 <= u < 60 else "parity"


def _lean_here(u: int, lean: str) -> bool:
    return _function(u) in _LEAN_SETS[lean]


def next_f(t: int, a: str, c1: str, c: str, d: str, bmi: bool, lean: str = "", majn: bool = False) -> list[Instr]:
    """f_{t+1}(A_t, C_{t+1}, C_t) into ``a``, part of it added into ``d`` (= E_{t+1}) at once (module docstring).

    ``lean`` (``LEAN``): the rounds that take OpenSSL's forms, fewer instructions, more of them after A_t.
    ``majn``: Maj's ``C1 & C`` as ``andn`` of ``C1 ^ C`` and C1 (``maj_terms``).
    """
    u = t + 1
    if _lean_here(u, lean):
        if u < 20:
            return andn_to(a, c, F_TEMP, bmi) + [_i("and", Reg(c1), Reg(a)), _i("xor", Reg(F_TEMP), Reg(a))]
        if 40 <= u < 60:
            return [_i("mov", Reg(c1), Reg(F_TEMP)), _i("xor", Reg(c), Reg(F_TEMP)), _i("xor", Reg(c), Reg(a)),
                    _i("and", Reg(F_TEMP), Reg(a)), _i("xor", Reg(c), Reg(a))]
        return [_i("xor", Reg(c1), Reg(a)), _i("xor", Reg(c), Reg(a))]
    if u < 20:
        return andn_to(a, c, F_TEMP, bmi) + [_i("add", Reg(F_TEMP), Reg(d)), _i("and", Reg(c1), Reg(a))]
    if 40 <= u < 60:
        return maj_terms(c1, c, F_TEMP, Y_TEMP, majn) + [_i("add", Reg(Y_TEMP), Reg(d)), _i("and", Reg(F_TEMP), Reg(a))]
    return [_i("mov", Reg(c1), Reg(F_TEMP)), _i("xor", Reg(c), Reg(F_TEMP)), _i("xor", Reg(F_TEMP), Reg(a))]


def maj_terms(c1: str, c: str, x: str, y: str, majn: bool) -> list[Instr]:
    """x = C1 ^ C and y = C1 & C, C1 and C kept: two copies, or (``majn``, BMI1) one and ``andn``: ~(C1 ^ C) & C1."""
    head = [_i("mov", Reg(c1), Reg(x)), _i("xor", Reg(c), Reg(x))]
    if majn:
        return head + [_i("andn", Reg(c1), Reg(x), Reg(y))]
    return head + [_i("mov", Reg(c1), Reg(y)), _i("and", Reg(c), Reg(y))]


def rotating_rounds(bmi: bool, lean: str = "", early: int = 0, keep: bool = False, majn: bool = False
                    ) -> RotatingRounds:
    """Rounds 0..79 in the rotating form, after the state a..e was loaded into eax, ebx, ecx, edx, ebp.

    ``early``: W+K added 0, 1 or 2 rounds ahead (module docstring; 2: ``add wk(t+2), C`` after f_{t+1},
    C's last read, as ``hybrid_pinned``); ``keep``: a..e moved back into ``STATE_REGS`` at the end;
    ``majn``: the Maj rounds' ``C1 & C`` by ``andn`` (one copy fewer, needs BMI1).
    """
    if early not in (0, 1, 2):
        raise Sha1optError(f"W+K can be added 0, 1 or 2 rounds ahead, not {early}")
    A, F, C1, C, D, E = ROLE_REGS
    # prelude: C_1 = rol30(b) into the sixth register, f_0 = Ch(b, c, d) in b's register (b = F's register)
    code: list[Instr] = [_i("add", wk_slot(0), Reg(E))] if early else []
    rounds = [0] * len(code)
    pre = rol_to(F, 30, C1, bmi) + next_f(-1, F, C, D, E, bmi, lean)
    code += pre
    rounds += [0] * len(pre)
    if early == 2:          # d is E_1, once f_0 = Ch(b, c, d) has read it
        code.append(_i("add", wk_slot(1), Reg(D)))
        rounds.append(1)
    # after the prelude the roles are (A, F, C1, C, D, E) = (eax, ebx, r8d, ecx, edx, ebp)
    for t in range(80):
        ops = [] if early else [_i("add", wk_slot(t), Reg(E))]
        tags = [t] * len(ops)
        if early == 1 and t < 79:
            ops.append(_i("add", wk_slot(t + 1), Reg(D)))
            tags.append(t + 1)
        body = [_i("add", Reg(F), Reg(E))]
        body += rol_to(A, 5, ROL5_TEMP, bmi)
        if t < 79:
            body += rol_to(A, 30, F, bmi)
            body += next_f(t, A, C1, C, D, bmi, lean, majn)
        body.append(_i("add", Reg(ROL5_TEMP), Reg(E)))
        code += ops + body
        rounds += tags + [t] * len(body)
        if early == 2 and t < 78:
            code.append(_i("add", wk_slot(t + 2), Reg(C)))
            rounds.append(t + 2)
        if t < 79:
            A, F, C1, C, D, E = E, A, F, C1, C, D
    # after round 79: a = E's register, b = A_79 (kept), c = C_80 = C1, d = C_79, e = D_79
    final = (E, A, C1, C, D)
    if keep:
        moves = parallel_moves(final, STATE_REGS, (ROL5_TEMP, F_TEMP))
        code += moves
        rounds += [79] * len(moves)
        final = STATE_REGS
    return RotatingRounds(tuple(code), tuple(rounds), final)


STATE_REGS = ("eax", "ebx", "ecx", "edx", "ebp")


def parallel_moves(src: tuple[str, ...], dst: tuple[str, ...], temps: tuple[str, ...]) -> list[Instr]:
    """``mov`` instructions that leave src[i]'s value in dst[i] for every i (a parallel copy), via ``temps``."""
    pending = {d: s for s, d in zip(src, dst) if s != d}
    out: list[Instr] = []
    while pending:
        free = [d for d in pending if d not in pending.values()]
        if free:
            d = free[0]
            out.append(_i("mov", Reg(pending.pop(d)), Reg(d)))
            continue
        d, s = next(iter(pending.items()))            # only cycles left: park one source in a temp
        tmp = next(t for t in temps if t not in pending and t not in pending.values())
        out.append(_i("mov", Reg(s), Reg(tmp)))
        pending = {k: (tmp if v == s else v) for k, v in pending.items()}
    return out

