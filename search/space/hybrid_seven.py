"""Lazy rounds with BMI: the Ch and Maj rounds in seven registers without copies, the parity rounds lazy.

The lazy rounds (``hybrid_lazy``) fit i386's seven registers by rotating a
in place, which costs a ``mov`` a round and, in Ch and Maj rounds, operations
to prepare and undo the next round's f term. With BMI (``rorx``, ``andn``) a
Ch or Maj round needs neither: a non-destructive rotate copies while it
rotates, so b's register is free to be spent on f. At the start of such a
round the roles are (A, B, C, D, E) holding A_t..E_t and two free registers
(T0, T1)::

    rorx $2, B, T1              T1 = rol30(B_t) = C_{t+1}   (B's register is now spent)
    add  wk(t), E
    Ch:  andn D, B, T0; and C, B; add T0, E              (~B & D) + (B & C)
    Maj: mov C, T0; and D, T0; add T0, E;                (C & D) + (B & (C ^ D)): B's term
         mov C, T0; xor D, T0; and T0, B                 one operation after B_t
    add  B, E
    rorx $27, A, T0; add T0, E  rol5(A_t), the only step on the chain from A_t

then the roles move on as (A, B, C, D, E) := (E, A, T1, C, D) and the free
pair is {T0, B's register}. The two terms of Ch and of Maj share no bit, so
their sum is their or. 8 instructions a Ch round (the lazy form's 10, one a
``mov``), 11 a Maj round (two ``mov``; the lazy form's 11, one ``mov``, one
ALU operation more). The parity rounds stay lazy: there the lazy form has as
few ALU operations, and B's term arrives as early.

Between the forms (``bmi_lazy_rounds``): the last round of a seven-register
run ends with ``xor C, A`` on the register holding A_t -- B_{t+1} ^ D_{t+1},
the lazy form's prepared parity term -- and its ``rorx $27`` left rol5(A_t)
in T0, which is the lazy form's b of round t+1; the last lazy parity round
before a run prepares nothing (``lazy_round(prepare=False)``), leaving A_t's
copy in the lazy T1. Which free register receives C_{t+1} is a choice each
seven-register round; ``_free_order`` makes the choices of a run (a
breadth-first search over the assignments of seven registers to the seven
roles) so that the run ends in exactly the registers the lazy rounds after
it expect -- no moves.

Invariant: the rounds read the state from ``frame.state_regs(0)``, W_t + K_t
from ``hybrid_regs.wk_slot(t)`` (once, in round t), write only the five state
registers and the two temporaries, and leave a..e of round 80 in
``frame.state_regs(80)``; the block proof checks every value.

Example: ``bmi_lazy_rounds(("esi", "edi")).code`` is 701 instructions (the
lazy rounds' 741), its first ``rorx $2, %ebx, ...``. On the Zen 4 host
(AuthenticAMD family 25 model 17) the i386 avx512vl block at lead 3 / every
3 with read-ahead measured 0.953-0.964 x the lazy-chain block at lead 2 (60
pairs each, three runs), and ``export --arch i386 --isa avx512 --tune 6``
exports it with the rol2 recurrence: 0.653-0.661 x the textbook, 0.868-0.885
x OpenSSL's 32-bit SSSE3 path (``bench/results/simd_i386_zen4.txt``).
"""

from __future__ import annotations

from functools import cache

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Reg
from sha1opt.search.space.frame import state_regs
from sha1opt.search.space.hybrid_lazy import lazy_round
from sha1opt.search.space.hybrid_regs import wk_slot
from sha1opt.search.space.hybrid_rounds import RotatingRounds

Roles = tuple[str, str, str, str, str, str, str]      # (A, B, C, D, E, T0, T1)
SEVEN = ((0, 20), (40, 60))                           # the Ch and the Maj rounds: the seven-register runs


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def _next(roles: Roles, swap: bool) -> Roles:
    a, b, c, d, e, t0, t1 = roles
    return (e, a, t1, c, d) + ((b, t0) if swap else (t0, b))


def _free_order(starts: list[Roles], goal: Roles, n: int) -> tuple[Roles, list[bool]]:
    """A start of ``starts`` and ``n`` choices (``_next``'s ``swap``) that reach ``goal``: breadth-first over
    the assignments, the first start and the first path in (False, True) order."""
    for start in starts:
        layers: list[dict[Roles, tuple[Roles, bool]]] = []
        frontier: dict = {start: None}
        for _ in range(n):
            nxt: dict[Roles, tuple[Roles, bool]] = {}
            for roles in frontier:
                for swap in (False, True):
                    nxt.setdefault(_next(roles, swap), (roles, swap))
            layers.append(nxt)
            frontier = nxt
        if goal in frontier:
            path, at = [], goal
            for layer in reversed(layers):
                at, swap = layer[at]
                path.append(swap)
            return start, path[::-1]
    raise Sha1optError(f"no order of the free registers reaches {goal}")


def seven_round(t: int, roles: Roles) -> list[Instr]:
    """Ch or Maj round t in the roles ``roles`` (module docstring)."""
    a, b, c, d, e, t0, t1 = (Reg(r) for r in roles)
    if t < 20:
        f = [_i("andn", d, b, t0), _i("and", c, b), _i("add", t0, e)]
    elif 40 <= t < 60:
        f = [_i("mov", c, t0), _i("and", d, t0), _i("add", t0, e), _i("mov", c, t0), _i("xor", d, t0),
             _i("and", t0, b)]
    else:
        raise Sha1optError(f"round {t} is a parity round: the seven-register form writes Ch and Maj rounds")
    return [_i("rorx", Imm(2), b, t1), _i("add", wk_slot(t), e)] + f + [_i("add", b, e), _i("rorx", Imm(27), a, t0),
                                                                         _i("add", t0, e)]


def _handover(end: int, temps: tuple[str, str]) -> Roles:
    """The roles at the start of round ``end - 1`` that leave the lazy rounds' registers at round ``end``: A_{end-1}
    in ``temps[0]`` (made the prepared parity term), the other temporary free, rol5(A_{end-1}) in lazy's b."""
    s = [r.name for r in state_regs(end)]
    return (temps[0], temps[1], s[3], s[4], s[0], s[1], s[2])


def _takeover(last: int, temps: tuple[str, str]) -> list[Roles]:
    """The roles after lazy round ``last`` (``prepare=False``): A_last's copy in the lazy T1, a's register
    (rol5(A_last), added) and the lazy T0 free, in either order."""
    a, b, c, d, e = (r.name for r in state_regs(last))
    t0, t1 = temps[last % 2], temps[(last + 1) % 2]
    return [(e, t1, b, c, d, t0, a), (e, t1, b, c, d, a, t0)]


@cache
def bmi_lazy_rounds(temps: tuple[str, str]) -> RotatingRounds:
    """Rounds 0..79: Ch and Maj in the seven-register form, parity lazy (module docstring). Kept per ``temps``:
    the free-register search costs as much as pricing a block, and every block the hybrid search builds with
    these rounds asks for the same code (a ``RotatingRounds`` is immutable)."""
    t = (Reg(temps[0]), Reg(temps[1]))
    code: list[Instr] = []
    rounds: list[int] = []
    for lo, hi in SEVEN:
        if lo == 0:
            first = tuple(r.name for r in state_regs(0))
            starts = [first + tuple(temps), first + tuple(temps[::-1])]
        else:
            starts = _takeover(lo - 1, temps)
        roles, swaps = _free_order(starts, _handover(hi, temps), hi - 1 - lo)     # type: ignore[arg-type]
        for r in range(lo, hi):
            ops = seven_round(r, roles)
            if r == hi - 1:                 # A_r ^= D_{r+1}: the lazy parity round's prepared term
                ops.append(_i("xor", Reg(roles[2]), Reg(roles[0])))
            else:
                roles = _next(roles, swaps[r - lo])
            code += ops
            rounds += [r] * len(ops)
        for r in range(hi, hi + 20):        # the parity rounds after the run
            ops = lazy_round(r, t[r % 2], t[(r + 1) % 2], prepare=r != hi + 19 or r == 79)
            code += ops
            rounds += [r] * len(ops)
    code.append(_i("ror", Imm(5), state_regs(80)[1]))       # b's register held rol5(A_79)
    rounds.append(79)
    return RotatingRounds(tuple(code), tuple(rounds), tuple(r.name for r in state_regs(80)))
