"""The contract's byte counter (``state counter@OFFSET``): what every exit's proof checks of it.

libiberty's ``sha1_process_block(buffer, len, ctx)`` adds ``len`` to the 64-bit byte
counter ``ctx->total`` (two 32-bit words, low first) with a carry, then hashes
``len/64`` blocks. The entry state holds the counter's words as 32-bit integers
named ``counter+0`` / ``counter+4`` (``counter_word``, ``function.entry_state``),
every state derived from it carries them (``memory`` refuses a read of one
absent), and the function may write integers there; ``counted`` says whether an
exit state holds entry + 64*n (mod 2^64; the contract bounds the length below
2^32). At a loop exit the state comes from an invariant that keeps each counter
word by a constant step (``template``; checked every step like any integer it
keeps): a counter it lost, or one it cannot relate (a per-block carry into the
high word), is unknown there, a counterexample only from the exact first
iteration (``loop_counted``).

Example: gcc's ``add 0x14(%rdx),%edx; cmp %rax,%rdx; adc %ecx,0x18(%rdx)`` for
``total[0] += len; total[1] += (len >> 32) + (total[0] < len)`` leaves
``Concat(counter+4, counter+0) + 64*n`` at every exit: proved; without the
``adc``'s carry the low word's wrap is lost: "the byte counter is not its
entry value + bytes (mod 2^64) at ret".
"""

from __future__ import annotations

from typing import Protocol

import z3

from sha1opt.semantics.lift.paths import State
from sha1opt.semantics.lift.values import Int
from sha1opt.semantics.lift.verdict import Verdict


class Ctx(Protocol):
    """What the counter's checks read of a proof's fixed parts (``induction.Ctx`` has them; this module sits
    below ``induction``, which asks it at every exit, so it names the parts, not that class)."""

    bits: int

    @property
    def counter(self) -> int | None: ...      # the counter's low word as an offset from the state words

    @property
    def data_size(self) -> z3.BitVecRef: ...  # the byte length (64*n)

    def implies(self, cond: list, goal) -> bool: ...


# nblocks < 2^26: lengths below 2^32 (libiberty's carry test compares the 32-bit sum with the size_t length, so at
# 2^32 and above it adds one too many; ``Contract.describe`` states the bound)
COUNTER_BOUND = 26


def counter_word(half: int) -> z3.BitVecRef:
    """The caller's counter word (``half`` 0: low, 4: high) as the executor reads it: one 32-bit z3 constant."""
    return z3.BitVec(f"counter+{half}", 32)


def entry_words(ctx: Ctx) -> dict:
    """The entry state's memory entries of the counter (none without one): both words from the start, so every
    loop invariant carries them and checks them each step instead of reading a word the first iteration left
    alone as the caller's at every head. Example: ``counter@20`` gives ``("state", "", 20)`` ->
    ``Int(ZeroExt(counter+0))`` and ``("state", "", 24)`` -> ``Int(ZeroExt(counter+4))``, 4 bytes each."""
    if ctx.counter is None:
        return {}
    return {("state", "", ctx.counter + half): (Int(z3.ZeroExt(ctx.bits - 32, counter_word(half))), 4)
            for half in (0, 4)}


def counter_lost(ctx: Ctx, st: State) -> str | None:
    """Why a loop exit's counter words are no integers (the invariant did not keep them: ``template`` keeps an
    integer only when it moves by a constant an iteration) -- an unknown, not a counterexample -- or None."""
    off = ctx.counter
    for half in (0, 4) if off is not None else ():
        got = st.mem.get(("state", "", off + half))
        if got is None or not (isinstance(got[0], Int) and got[1] == 4):
            return f"the loop invariant does not keep the byte counter's word at +{half} (no constant step)"
    return None


def counted(ctx: Ctx, st: State) -> str | None:
    """``state counter@OFFSET``: why the exit state's 64-bit counter is not the caller's plus the byte length
    (64*n, mod 2^64), or None. Example: a build adding the length without the carry leaves
    ``counter+4`` unchanged when the low word wraps: "the byte counter is not its entry value + bytes"."""
    off = ctx.counter
    if off is None:
        return None
    words = []
    for half in (0, 4):
        got = st.mem.get(("state", "", off + half))
        if got is None or not (isinstance(got[0], Int) and got[1] == 4):
            # (never so: the entry state holds both words, writes there are integers or refused)
            return f"the byte counter's word at +{half} is not tracked as an integer at ret"
        words.append(z3.Extract(31, 0, got[0].v))
    final = z3.Concat(words[1], words[0])
    entry = z3.Concat(counter_word(4), counter_word(0))
    length = z3.ZeroExt(64 - ctx.bits, ctx.data_size) if ctx.bits < 64 else ctx.data_size
    if not ctx.implies(st.cond, final == entry + length):
        return "the byte counter is not its entry value + bytes (mod 2^64) at ret"
    return None


def loop_counted(ctx: Ctx, st: State, exact: bool) -> Verdict | None:
    """A loop exit's byte counter (``counted``): a counterexample from an ``exact`` head state (the entry's own
    values, the first iteration), else unknown -- a guessed invariant keeps each counter word apart (a constant
    step), so a per-block carry into the high word is lost there, not wrong -- or None when it holds."""
    why = counter_lost(ctx, st) or counted(ctx, st)
    if why is None:
        return None
    if exact and not counter_lost(ctx, st):
        return Verdict("counterexample", why)
    return Verdict("unknown", f"{why} (under the loop invariant, which keeps each counter word by a constant step)")
