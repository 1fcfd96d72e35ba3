"""Lazy rounds: the 80 scalar rounds in five state registers and two temporaries, b rotated late.

The recipe rounds (``recipe.range_ops``) compute each round's f from b, c, d
with a copy into a temporary and rotate a copy of a by 5. This form (the
technique of OpenSSL's SSSE3 rounds, written here from its algebra) needs
neither copy beyond one ``mov`` a round, and only two temporaries, so it
runs on i386's seven registers as on x86-64:

* a is rotated by 5 *in place* (``rol $5, a; add a, e``); the register then
  holds rol5(A_t), which is b of round t+1. Round t+1 rotates it by ``ror $7``
  into rol30(A_t) = C_{t+2} (``ror $2`` in round 0, whose b is the state's).
* f of round t+1 is prepared in round t, in the temporary ``T1`` that also
  keeps the copy of A_t (= B_{t+1}) taken before the rotation; ``T0`` holds
  what round t prepared for itself. At the start of round t:

  - Ch round: ``T0 = B_t & (C_t ^ D_t)``; f = ``T0 ^ D_t`` (one ``xor``).
    The next Ch round's term is made with C_{t+1} ^ D_{t+1} formed *in b's
    register* and undone (``xor c, b; and b, T1; xor c, b``);
  - parity round: ``T0 = B_t ^ D_t``; f = ``T0 ^ C_t``; the next round's
    ``T1 ^= C_t``;
  - Maj round: ``T0 = B_t ^ C_t`` and c's register holds ``C_t ^ D_t``;
    f = ``((B^C) & (C^D)) ^ C`` (``and c, T0; xor d, c`` -- c restored --
    ``xor c, T0``); the next Maj round's ``T1 ^= b`` (rotated) and
    ``xor c, b`` leaves C_{t+1} ^ D_{t+1} in the register that is c next.

  Per round: 10 instructions (Ch), 8 (parity), 11 (Maj), one ``mov`` each,
  W+K added from the ring by ``add wk(t), e``. The temporaries swap roles
  every round.

After round 79 the state is back in ``frame.state_regs(0)`` (five renamings a
round, 80 rounds) but b's register holds rol5(A_79): one ``ror $5`` fixes it.
A three-instruction prelude makes round 0's ``T0``.

Invariant: the rounds read the state from ``frame.state_regs(0)`` and W_t + K_t
from ``hybrid_regs.wk_slot(t)`` (once, in round t) and leave a..e of round 80
in ``frame.state_regs(80)``; the block proof checks every value.

Example: ``lazy_rounds(("r10d", "r11d")).code`` is 741 instructions (the
prelude's 3, 190 + 8 in rounds 0-19, 152 + 9 in 20-39, 209 + 10 in 40-59,
152 + 7 in 60-79, the final ``ror``), 81 of them ``mov``; the recipe's
textbook rounds are 800.
"""

from __future__ import annotations

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Reg
from sha1opt.search.space.frame import state_regs
from sha1opt.search.space.hybrid_pinned import ORDERS
from sha1opt.search.space.hybrid_regs import wk_slot
from sha1opt.search.space.hybrid_rounds import RotatingRounds


# ``ORDERS`` (the pinned form's names) for a Ch round followed by a Ch round: "f" prepares the next round's term
# (``xor c, b; and b, T1; xor c, b``) before a's rotation; "chain" rotates a as soon as C ^ D is formed. Which
# is cheaper depends on the CPU (a wide out-of-order window against an in-order pair of pipes): both are points
# of the search.


def _i(m: str, *ops) -> Instr:
    return Instr(m, tuple(ops))


def _kind(t: int) -> str:
    return "ch" if t < 20 else "maj" if 40 <= t < 60 else "parity"


def lazy_round(t: int, t0: Reg, t1: Reg, order: str = "f", prepare: bool = True) -> list[Instr]:
    """Round t (module docstring): f from ``t0``, the next round's term into ``t1``; ``order`` (``ORDERS``).
    ``prepare=False``: nothing for round t+1 (as after round 79) -- ``t1`` holds a copy of A_t, and b's
    register rol30(B_t) = C_{t+1} (``hybrid_seven`` takes over from there)."""
    a, b, c, d, e = state_regs(t)
    kind, after = _kind(t), (_kind(t + 1) if t < 79 and prepare else None)
    rot_b = _i("ror", Imm(2 if t == 0 else 7), b)            # b's register := rol30(B_t) = C_{t+1}
    wk = _i("add", wk_slot(t), e)
    if kind == "ch":
        code = [rot_b, _i("xor", d, t0), _i("mov", a, t1), wk]     # t0 = f; t1 = A_t = B_{t+1}
        if after == "ch" and order == "chain":              # a's rotation as soon as C_{t+1} ^ D_{t+1} is made
            return code + [_i("xor", c, b), _i("rol", Imm(5), a), _i("add", t0, e), _i("and", b, t1),
                           _i("xor", c, b), _i("add", a, e)]
        if after == "ch":                                   # t1 = B_{t+1} & (C_{t+1} ^ D_{t+1}), D_{t+1} = C_t
            code += [_i("xor", c, b), _i("and", b, t1), _i("xor", c, b)]
        else:                                               # t1 = B_{t+1} ^ D_{t+1}
            code += [_i("xor", c, t1)]
        return code + [_i("rol", Imm(5), a), _i("add", t0, e), _i("add", a, e)]
    if kind == "parity":
        code = [wk, _i("xor", c, t0), _i("mov", a, t1), _i("rol", Imm(5), a), _i("add", t0, e)]
        if after == "parity":
            code += [_i("xor", c, t1), rot_b]
        elif after == "maj":                                # t1 = B_{t+1} ^ C_{t+1}; c's next register := C ^ D
            code += [rot_b, _i("xor", b, t1), _i("xor", c, b)]
        else:
            code += [rot_b]
        return code + [_i("add", a, e)]
    # Maj: on entry t0 = B_t ^ C_t and c's register holds C_t ^ D_t
    code = [wk, _i("and", c, t0), _i("xor", d, c), rot_b, _i("mov", a, t1), _i("xor", c, t0),
            _i("rol", Imm(5), a), _i("add", t0, e)]
    if after == "maj":
        code += [_i("xor", b, t1), _i("xor", c, b)]
    else:                                                   # t1 = B_{t+1} ^ D_{t+1}
        code += [_i("xor", c, t1)]
    return code + [_i("add", a, e)]


def lazy_rounds(temps: tuple[str, str], order: str = "f") -> RotatingRounds:
    """Rounds 0..79 in the lazy form with the two temporaries ``temps`` (module docstring) in ``order``."""
    if order not in ORDERS:
        raise Sha1optError(f"unknown lazy round order {order!r} (known: {', '.join(ORDERS)})")
    t = (Reg(temps[0]), Reg(temps[1]))
    _, b, c, d, _ = state_regs(0)
    code = [_i("mov", c, t[0]), _i("xor", d, t[0]), _i("and", b, t[0])]      # round 0's T0 = B & (C ^ D)
    rounds = [0, 0, 0]
    for r in range(80):
        ops = lazy_round(r, t[r % 2], t[(r + 1) % 2], order)
        code += ops
        rounds += [r] * len(ops)
    code.append(_i("ror", Imm(5), state_regs(80)[1]))       # b's register held rol5(A_79)
    rounds.append(79)
    return RotatingRounds(tuple(code), tuple(rounds), tuple(r.name for r in state_regs(80)))
