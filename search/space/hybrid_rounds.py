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
rounds (40 instructions fewer).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def _rol(src: str, n: int, dst: str, bmi: bool) -> list[Instr]:
    """dst = rol(src, n) with src kept."""
    if bmi:
        return [_i("rorx", Imm(32 - n), Reg(src), Reg(dst))]
    return [_i("mov", Reg(src), Reg(dst)), _i("rol", Imm(n), Reg(dst))]


def _andn(a: str, b: str, dst: str, bmi: bool) -> list[Instr]:
    """dst = ~a & b."""
    if bmi:
        return [_i("andn", Reg(b), Reg(a), Reg(dst))]
    return [_i("mov", Reg(a), Reg(dst)), _i("not", Reg(dst)), _i("and", Reg(b), Reg(dst))]


LEAN = ("", "parity", "all")       # which rounds take OpenSSL's (lean) f forms


def _lean_here(u: int, lean: str) -> bool:
    return lean == "all" or (lean == "parity" and 20 <= u < 40 or lean == "parity" and u >= 60)


def next_f(t: int, a: str, c1: str, c: str, d: str, bmi: bool, lean: str = "") -> list[Instr]:
    """f_{t+1}(A_t, C_{t+1}, C_t) into ``a``, part of it added into ``d`` (= E_{t+1}) at once (module docstring).

    ``lean`` (``LEAN``): the rounds that take OpenSSL's forms, fewer instructions, more of them after A_t.
    """
    u = t + 1
    if _lean_here(u, lean):
        if u < 20:
            return _andn(a, c, F_TEMP, bmi) + [_i("and", Reg(c1), Reg(a)), _i("xor", Reg(F_TEMP), Reg(a))]
        if 40 <= u < 60:
            return [_i("mov", Reg(c1), Reg(F_TEMP)), _i("xor", Reg(c), Reg(F_TEMP)), _i("xor", Reg(c), Reg(a)),
                    _i("and", Reg(F_TEMP), Reg(a)), _i("xor", Reg(c), Reg(a))]
        return [_i("xor", Reg(c1), Reg(a)), _i("xor", Reg(c), Reg(a))]
    if u < 20:
        return _andn(a, c, F_TEMP, bmi) + [_i("add", Reg(F_TEMP), Reg(d)), _i("and", Reg(c1), Reg(a))]
    if 40 <= u < 60:
        return [_i("mov", Reg(c1), Reg(F_TEMP)), _i("xor", Reg(c), Reg(F_TEMP)), _i("mov", Reg(c1), Reg(Y_TEMP)),
                _i("and", Reg(c), Reg(Y_TEMP)), _i("add", Reg(Y_TEMP), Reg(d)), _i("and", Reg(F_TEMP), Reg(a))]
    return [_i("mov", Reg(c1), Reg(F_TEMP)), _i("xor", Reg(c), Reg(F_TEMP)), _i("xor", Reg(F_TEMP), Reg(a))]


def rotating_rounds(bmi: bool, lean: str = "") -> RotatingRounds:
    """Rounds 0..79 in the rotating form, after the state a..e was loaded into eax, ebx, ecx, edx, ebp."""
    A, F, C1, C, D, E = ROLE_REGS
    # prelude: C_1 = rol30(b) into the sixth register, f_0 = Ch(b, c, d) in b's register (b = F's register)
    code: list[Instr] = _rol(F, 30, C1, bmi) + next_f(-1, F, C, D, E, bmi, lean)
    rounds = [0] * len(code)
    # after the prelude the roles are (A, F, C1, C, D, E) = (eax, ebx, r8d, ecx, edx, ebp)
    for t in range(80):
        ops = [_i("add", wk_slot(t), Reg(E)), _i("add", Reg(F), Reg(E))]
        ops += _rol(A, 5, ROL5_TEMP, bmi)
        if t < 79:
            ops += _rol(A, 30, F, bmi)
            ops += next_f(t, A, C1, C, D, bmi, lean)
        ops.append(_i("add", Reg(ROL5_TEMP), Reg(E)))
        code += ops
        rounds += [t] * len(ops)
        if t < 79:
            A, F, C1, C, D, E = E, A, F, C1, C, D
    # after round 79: a = E's register, b = A_79 (kept), c = C_80 = C1, d = C_79, e = D_79
    return RotatingRounds(tuple(code), tuple(rounds), (E, A, C1, C, D))
