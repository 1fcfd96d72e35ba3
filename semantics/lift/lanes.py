"""Multi-buffer SHA-1: independent messages hashed in the lanes of vector registers -- the contract's memory.

OpenSSL's ``sha1_multi_block(SHA1_MB_CTX *ctx, const HASH_DESC *inp, int num)``
(crypto/sha/asm/sha1-mb-x86_64.pl) hashes up to 8 messages at once, declared
``(lanes, messages, groups)``:

* ``lanes`` -- the states of ``LANES`` messages, transposed: word i (A..E) of
  lane j at byte ``32*i + 4*j`` (``word_at``). Read and written as 32-bit
  words (a vector load or store is four or eight of them); after the call lane
  j holds the chained compression of message j's blocks, and every lane beyond
  the messages given is unchanged;
* ``messages`` -- ``4*groups`` descriptors of 16 bytes, read only: message j's
  address at byte 16j (``msg{j}``, a region of its own) and its block count, a
  signed 32-bit int, at 16j + 8 (``blocks{j}``, a z3 constant: any value; 0 or
  less hashes nothing);
* ``groups`` -- 1 or 2 (the context has 8 lanes; 4 messages a group); each is
  proved as a constant of its own.

A message region ``msg{j}`` is *the current block* of message j: its 16 words
at offsets 0..60, as a block loop's data region is the current block. At the
loop head (``streams``) a message's pointer is ``Ptr("msg{j}", 0)`` whether
the message still has blocks or not (its lane then reads whatever its pointer
holds, the constant table OpenSSL parks it at, and masks the result away): the
words it reads are unknowns of their own, and the lane's result is proved not
to depend on them. Any read of a message outside its current block is refused.

Example: ``mov 0x10(%rsi),%r9`` (``%rsi`` = ``messages``) gives
``Ptr("msg1", 0)``; ``mov 0x18(%rsi),%ecx`` the count ``blocks1``;
``movd -0x3c(%r9),%xmm9`` after ``lea 0x40(%r9),%r9`` reads word 1 of
message 1's current block, ``msg1[4]``.
"""

from __future__ import annotations

import z3

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.values import Int, Ptr, Refused, Violation

ROLES = ("lanes", "messages", "groups")
LANES = 8                       # lanes of the context (SHA1_MB_CTX: A[8], B[8], C[8], D[8], E[8])
PER_GROUP = 4                   # messages per group
GROUPS = (1, 2)                 # the group counts the context has room for: each proved on its own
STATE_BYTES = 5 * 4 * LANES
DESCRIPTOR = 16                 # HASH_DESC on x86-64: the pointer, the int count, padding
MESSAGE = "msg"                 # message j's region: ``msg{j}``


def check_roles(roles: list[str]) -> bool:
    """Whether ``roles`` declare a multi-buffer function: exactly ``(lanes, messages, groups)``, or none of them."""
    have = [r for r in ROLES if r in roles]
    if not have:
        return False
    if tuple(roles) != ROLES:
        raise ParseError("--interface: a multi-buffer function is declared (lanes, messages, groups), those three "
                         "in that order")
    return True


def axioms(groups: int) -> list:
    """The contract's precondition on the counts, for ``groups`` groups: the messages with blocks come first, by
    pairs -- a pair of messages (2p, 2p+1) none of which has blocks is followed by no pair that has (OpenSSL's
    code ends the call at a group of 4, or with SHA-NI a pair, with no blocks: the messages after it are not
    hashed) -- and with 2 groups, message 0 or 1 has blocks (the AVX2 code counts its trips down from the largest
    count without testing it for 0). OpenSSL's caller gives every message blocks."""
    pairs = [z3.Or(blocks(2 * p) > 0, blocks(2 * p + 1) > 0) for p in range(PER_GROUP * groups // 2)]
    facts = [z3.Implies(z3.Not(a), z3.Not(b)) for a, b in zip(pairs, pairs[1:])]
    return facts + ([pairs[0]] if groups > 1 else [])


def word_at(i: int, j: int) -> int:
    """Byte offset of word ``i`` (0 = A .. 4 = E) of lane ``j`` in the transposed context."""
    return 32 * i + 4 * j


def blocks(j: int) -> z3.BitVecRef:
    """Message j's block count as the caller passes it: a signed 32-bit int."""
    return z3.BitVec(f"blocks{j}", 32)


def message(j: int) -> str:
    return f"{MESSAGE}{j}"


def stream_of(region: str) -> int | None:
    """The message index of a message region (``msg3`` -> 3), else None."""
    if region.startswith(MESSAGE) and region[len(MESSAGE):].isdigit():
        return int(region[len(MESSAGE):])
    return None


def is_region(region: str) -> bool:
    return region in ("lanes", "messages") or stream_of(region) is not None


def entry_values(bits: int) -> dict:
    """The argument values at entry: the context and the descriptors as pointers to their starts."""
    return {"lanes": Ptr("lanes", z3.BitVecVal(0, bits)), "messages": Ptr("messages", z3.BitVecVal(0, bits))}


def load(m, key: tuple, size: int, d):
    """A read of a multi-buffer region at ``key`` (``memory._key``'s) by the path machine ``m``."""
    region, rest, c = key
    if rest:
        raise Refused(d, f"{region} read at a computed offset", "address")
    if region == "lanes":
        if not (0 <= c < STATE_BYTES and c % 4 == 0 and size == 4):
            raise Refused(d, f"context read other than one state word of a lane (lanes{c:+d}, {size} bytes)",
                          "address")
        return m.initial_mem("lanes", c)
    if region == "messages":
        j, field = divmod(c, DESCRIPTOR)
        if not 0 <= j < m.messages:
            raise Refused(d, f"descriptor {j} read: the caller gives {m.messages}", "address")
        if field == 0 and 8 * size == m.bits == 64:
            return Ptr(message(j), z3.BitVecVal(0, m.bits))
        if field == 8 and size == 4:
            return Int(z3.ZeroExt(m.bits - 32, blocks(j)))
        raise Refused(d, f"descriptor {j} read other than its pointer or its 32-bit block count "
                      f"(messages{c:+d}, {size} bytes)", "address")
    if not (0 <= c <= 60 and c % 4 == 0 and size == 4):
        raise Refused(d, f"{region} read outside the current block's 16 words or not as a 32-bit word "
                      f"(block{c:+d})", "address")
    return m.initial_mem(region, c)


def store(key: tuple, size: int, d) -> None:
    """A write to a multi-buffer region: the context's state words, as 32-bit words; anything else is a
    violation (the descriptors and the messages are read only)."""
    region, rest, c = key
    if region == "lanes" and not rest and 0 <= c < STATE_BYTES and c % 4 == 0 and size == 4:
        return
    raise Violation(d, f"writes {region} memory" + (" outside its state words" if region == "lanes" else ""))


__all__ = ["ROLES", "check_roles", "axioms", "LANES", "PER_GROUP", "GROUPS", "word_at", "blocks", "message", "stream_of",
           "is_region",
           "entry_values", "load", "store"]
