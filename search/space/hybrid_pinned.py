"""Pinned-f rounds: the rotating rounds with f_{t+1} always in one register and rol30 done in place, last.

``hybrid_rounds``' form computes f_{t+1} in A_t's register, so ``rol30(A_t)``
must copy A_t out *before* the f operations, and the roles cycle through six
registers (the state ends two roles on). Here f_{t+1} goes into a fixed
register F (free once round t has added f_t into e) and A_t is rotated in its
own register after every reader of A_t has issued, so it becomes C_{t+2}
there. Roles at the start of round t, F fixed, the other five in a 5-cycle::

    A = A_t,  C1 = C_{t+1},  C = C_t,  D = D_t,  E = E_t (+ W_t + K_t),  F = f_t

Round t (``order="f"``)::

    add F, E;  T = rol5(A);  f_{t+1} into F (reads A, C1, C; part into D);
    add T, E;  A := rol30(A);  W+K ahead (below)

``order="chain"`` puts ``add T, E`` straight after ``T = rol5(A)``, before
the f operations (oldest first: the scheduler prefers it). Then (A, C1, C,
D, E) := (E, A, C1, C, D). After 80 rounds (79 role moves) a..e sit in eax,
r8d, ecx, edx, ebp, so one ``mov`` (``hybrid_rounds.parallel_moves``) puts
them back in ``STATE_REGS`` and the state stays in registers across blocks.
W+K one round ahead (``early=1``: ``add wk(t+1), D`` before the f parts that
add into D) or two (``early=2``: ``add wk(t+2), C`` after the f operations,
C's last reader; C is E_{t+2}); ``add wk(0), e`` (and ``wk(1), d`` for
``early=2``) head the prelude. Each early addition is tagged with the round it
feeds, so the interleaver flushes its group in time.

f_{t+1} into F (C1 = C_{t+1}, C = C_t; the terms of Ch and Maj share no bit):

* Ch:     ``andn C, A, t; add t, D; mov C1, F; and A, F`` (``lean="ch"``:
          ``xor t, F`` instead of the add, f in F only);
* parity: ``mov C1, F; xor C, F; xor A, F``;
* Maj:    ``mov C1, F; xor C, F; mov C1, y; and C, y; add y, D; and A, F``
          (``majn``: ``andn C1, F, y`` -- ~(C1 ^ C) & C1 = C1 & C -- for the copy and the and).

Without BMI, ``rol30`` in place is one ``ror $2`` (the six-register form
needs ``mov`` + ``ror``), rol5 ``mov`` + ``rol`` and andn ``mov`` + ``not`` +
``and``. Example: ``pinned_rounds(True, early=1).code`` is 720 instructions
(9 per Ch round, 8 per parity round, 11 per Maj round, the prelude, the
final ``mov %r8d, %ebx``), ``final`` ``STATE_REGS``.
"""

from __future__ import annotations

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Reg
from sha1opt.search.space.hybrid_regs import wk_slot
from sha1opt.search.space.hybrid_rounds import (F_TEMP, ROL5_TEMP, STATE_REGS, Y_TEMP, RotatingRounds, andn_to, rol_to,
                                                maj_terms, next_f, parallel_moves)

PIN_REGS = ("eax", "r8d", "ecx", "edx", "ebp")      # (A, C1, C, D, E) at round 0
PIN_F = "ebx"                                         # f_t, every round
ORDERS = ("f", "chain")
PIN_LEAN = ("", "ch")


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def pinned_f(t: int, a: str, c1: str, c: str, d: str, bmi: bool, lean: str = "", majn: bool = False) -> list[Instr]:
    """f_{t+1}(A_t, C_{t+1}, C_t) into ``PIN_F``, part of it added into ``d`` (= E_{t+1}) (module docstring)."""
    u, f = t + 1, PIN_F
    if u < 20:
        tail = [_i("xor", Reg(F_TEMP), Reg(f))] if lean == "ch" else []
        head = [] if lean == "ch" else [_i("add", Reg(F_TEMP), Reg(d))]
        return andn_to(a, c, F_TEMP, bmi) + head + [_i("mov", Reg(c1), Reg(f)), _i("and", Reg(a), Reg(f))] + tail
    if 40 <= u < 60:
        return maj_terms(c1, c, f, Y_TEMP, majn) + [_i("add", Reg(Y_TEMP), Reg(d)), _i("and", Reg(a), Reg(f))]
    return [_i("mov", Reg(c1), Reg(f)), _i("xor", Reg(c), Reg(f)), _i("xor", Reg(a), Reg(f))]


def _rol30_in_place(a: str, bmi: bool) -> Instr:
    return _i("rorx", Imm(2), Reg(a), Reg(a)) if bmi else _i("ror", Imm(2), Reg(a))


def pinned_rounds(bmi: bool, lean: str = "", early: int = 1, order: str = "f", majn: bool = False) -> RotatingRounds:
    """Rounds 0..79 in the pinned-f form, after a..e were loaded into eax, ebx, ecx, edx, ebp; a..e end there."""
    if lean not in PIN_LEAN or early not in (1, 2) or order not in ORDERS:
        raise Sha1optError(f"no pinned-f form lean={lean!r} early={early} order={order!r}")
    A, C1, C, D, E = PIN_REGS
    # prelude: C_1 = rol30(b) into r8d, then f_0 = Ch(b, c, d) in b's register (ebx, F's), part into e
    code: list[Instr] = [_i("add", wk_slot(0), Reg(E))]
    rounds = [0]
    pre = rol_to(PIN_F, 30, C1, bmi) + next_f(-1, PIN_F, C, D, E, bmi, "all" if lean == "ch" else "")
    code += pre
    rounds += [0] * len(pre)
    if early == 2:          # d is E_1, once f_0 = Ch(b, c, d) has read it
        code.append(_i("add", wk_slot(1), Reg(D)))
        rounds.append(1)
    for t in range(80):
        ops: list[tuple[Instr, int]] = [(_i("add", Reg(PIN_F), Reg(E)), t)]
        ops += [(x, t) for x in rol_to(A, 5, ROL5_TEMP, bmi)]
        chain = [(_i("add", Reg(ROL5_TEMP), Reg(E)), t)]
        if order == "chain":
            ops += chain
        if t < 79:
            if early == 1:
                ops.append((_i("add", wk_slot(t + 1), Reg(D)), t + 1))
            ops += [(x, t) for x in pinned_f(t, A, C1, C, D, bmi, lean, majn)]
            if early == 2 and t < 78:
                ops.append((_i("add", wk_slot(t + 2), Reg(C)), t + 2))
        if order == "f":
            ops += chain
        if t < 79:
            ops.append((_rol30_in_place(A, bmi), t))
            A, C1, C, D, E = E, A, C1, C, D
        code += [x for x, _ in ops]
        rounds += [r for _, r in ops]
    # after round 79: a = E's register, b = A_79 (not rotated), c = C1 = C_80, d = C, e = D
    moves = parallel_moves((E, A, C1, C, D), STATE_REGS, (ROL5_TEMP, F_TEMP))
    return RotatingRounds(tuple(code + moves), tuple(rounds + [79] * len(moves)), STATE_REGS)
