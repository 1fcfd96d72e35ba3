"""The vector message schedule with eight W registers: W_32..79 by the rol2 recurrence.

For t >= 32 the SHA-1 recurrence unrolls once more (Locktyukhin's SSSE3
code, OpenSSL's ``Xupdate_ssse3_32_79``)::

    W[t] = rol2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32])

(substitute the rol1 recurrence into each of W[t-3], W[t-8], W[t-14], W[t-16]:
the other terms cancel in pairs). Four words at a time none of the four
inputs lies in the group being computed, so no lane-3 fix-up is needed:
with t = 4g (g >= 8) and G_k in ``%xmm{k mod 8}``::

    W[t-6..t-3] = palignr $8 of (G_{g-1} : G_{g-2}),  W[t-16..] = G_{g-4},
    W[t-28..] = G_{g-7},  W[t-32..] = G_{g-8}  (the register group g overwrites)

``rol2_group_ops(g, "avx512vl")`` is 6 instructions (vpalignr, vpternlogd,
vpxor, vprold $2, vpaddd K, the ring store) where the rol1 group takes 10.
Groups 4-7 keep the rol1 recurrence with its lane-3 fix-up, written into
G_g's own register so that G_{g-4} stays for the groups that still read it
(``rol1_group_ops``). Registers: W in xmm0-7, temporaries ``W8_TEMPS``
(xmm8-10), the setup's constants in xmm11-15 (``hybrid_regs``; a ``k_copy`` row's K in memory).

The block proof of such code needs the spec's W definitions behind each cut
(``semantics.lift.schedule.ScheduleProver``: both sides expanded to affine
maps of the message words); ``hybrid_proof`` uses it for every block.
"""

from __future__ import annotations

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Reg
from sha1opt.search.space.hybrid_dialects import add_k, binop, dialect, imm_binop, imm_op, rol, store, ternlog
from sha1opt.search.space.hybrid_regs import K_REGS, wk_slot

W8_REGS = tuple(Reg(f"xmm{k}", 128) for k in range(8))
W8_TEMPS = tuple(Reg(f"xmm{k}", 128) for k in (8, 9, 10))


def _g(k: int) -> Reg:
    return W8_REGS[k % 8]


def rol1_group_ops(g: int, isa: str) -> list[Instr]:
    """Group 4 <= g < 8 by the rol1 recurrence (``hybrid`` module docstring), into G_g's register."""
    d = dialect(isa)
    x, y, z, q, dst = _g(g - 4), _g(g - 3), _g(g - 2), _g(g - 1), _g(g)
    a, b, c = W8_TEMPS
    kreg, slot = K_REGS[(4 * g) // 20], wk_slot(4 * g)
    out = imm_binop(d, "palignr", 8, x, y, a)                      # a = W[t-14..t-11]
    if d.ternlog:                                                  # dst = x ^ z ^ a ^ b
        out += imm_op(d, "psrldq", 4, q, b) + binop(d, "pxor", z, x, dst) + ternlog(d, b, a, dst)
    else:
        out += (binop(d, "pxor", z, x, dst) + binop(d, "pxor", a, dst, dst)
                + imm_op(d, "psrldq", 4, q, b) + binop(d, "pxor", b, dst, dst))          # dst = T
    out += rol(d, 1, dst, dst, b)
    out += imm_op(d, "pslldq", 12, dst, c) + rol(d, 1, c, c, b)
    out += binop(d, "pxor", c, dst, dst)
    return out + add_k(d, kreg, dst, a) + store(d, a, slot)


def rol2_group_ops(g: int, isa: str) -> list[Instr]:
    """Group 8 <= g < 20 by the rol2 recurrence (module docstring), into G_g's register (G_{g-8}'s)."""
    if not 8 <= g < 20:
        raise Sha1optError(f"group {g} is not a rol2 group (8..19)")
    d = dialect(isa)
    p2, p1, p4, p7, dst = _g(g - 2), _g(g - 1), _g(g - 4), _g(g - 7), _g(g)
    a, b, _ = W8_TEMPS
    kreg, slot = K_REGS[(4 * g) // 20], wk_slot(4 * g)
    out = imm_binop(d, "palignr", 8, p2, p1, a)                    # a = W[t-6..t-3]
    if d.ternlog:                                                  # dst = G_{g-8} ^ G_{g-7} ^ G_{g-4}, then ^ a
        out += ternlog(d, p4, p7, dst) + binop(d, "pxor", a, dst, dst)
    else:
        out += binop(d, "pxor", p7, dst, dst) + binop(d, "pxor", p4, dst, dst) + binop(d, "pxor", a, dst, dst)
    out += rol(d, 2, dst, dst, b)
    return out + add_k(d, kreg, dst, a) + store(d, a, slot)


def w8_groups(isa: str) -> dict[int, list[Instr]]:
    """Groups 4..19 of the eight-register schedule: rol1 for 4-7, rol2 for 8-19."""
    return {g: rol1_group_ops(g, isa) if g < 8 else rol2_group_ops(g, isa) for g in range(4, 20)}
