"""The hybrid family's fixed layout: the W+K ring on the stack and the registers every hybrid block shares.

One place for what ``hybrid`` (the block), ``hybrid_rounds`` (rotating scalar rounds) and
``hybrid_w8`` (the eight-register schedule) must agree on: W_t + K_t lives at ``wk_slot(t)`` =
``4*(t mod 16)(%rsp)`` (a 16-word ring), the setup's constants -- K_0..K_3 broadcast -- in
``K_REGS`` (xmm11-14) -- or, for a ``k_copy`` row (``hybrid_dialects``), each broadcast to 16 bytes at
``K_TABLE + 16k(%rsp)`` (``k_slot``) -- and the byte-swap mask in ``MASK`` (xmm15), and the ring is stored with the
unaligned forms (each dialect row's ``store``, ``hybrid_dialects``; the ring is 16-aligned under
the ABI, so they cost what ``movdqa`` costs, but only they let the whole-function prover, which knows
the stack aligned only after an ``and $-N, %rsp``, read the function). Example: ``wk_slot(17)`` is ``4(%rsp)``.
"""

from __future__ import annotations

from sha1opt.semantics.x86 import Mem, Reg

RING = 0                                # W+K ring: 16 words at 0..63(%rsp), W_t+K_t at 4*(t mod 16)
K_TABLE = 80                            # K_0..K_3 at 80..143 where they are in memory (16-aligned): every
                                        # i386 row's table, an x86-64 k_copy row's
SP = Reg("esp", 64)
DATA = Reg("esi", 64)
K_REGS = tuple(Reg(f"xmm{k}", 128) for k in (11, 12, 13, 14))
MASK = Reg("xmm15", 128)
CONSTANT_REGS = frozenset(r.name for r in K_REGS + (MASK,))


def wk_slot(t: int) -> Mem:
    """The ring word that holds W_t + K_t."""
    return Mem(SP, None, 1, RING + 4 * (t % 16))


def k_slot(k: int) -> Mem:
    """Where K_k (four copies) lives when it is in memory: an x86-64 ``k_copy`` row's (``hybrid.k_in_memory``),
    and on ``%esp`` every i386 row's (``hybrid_i386.k_operand``)."""
    return Mem(SP, None, 1, K_TABLE + 16 * k)
