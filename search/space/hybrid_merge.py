"""Where the hybrid block's vector groups sit among its scalar rounds: release points and the two merges.

The rounds read W_t + K_t from the ring (``hybrid_regs.wk_slot``); vector
group g (4..19) computes W_4g..W_4g+3 and stores their W + K over the words
of rounds 4g-16..4g-13. Every merge here keeps the ring's two bounds: a group
starts only after the last read of the words it overwrites, and is flushed
whole before the first read of its own words -- wherever its release point
(``release_points``: ``lead`` groups ahead, moved by ``HybridParams.shifts``)
says it may start. ``interleave`` then puts one vector op after every
``every`` scalar ops; ``slot_interleave`` fills each clock's issue slots by
unit class (``Slots``). ``hybrid.merge_groups`` picks one by
``HybridParams.placement``.

Example: with ``lead=2`` group 6 is released at round 16's first op and
done before round 24's first read of W_24 + K_24.
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.semantics.x86 import Instr, Mem
from sha1opt.search.space.hybrid_regs import SP


def release_points(scalar: list[Instr], rounds: list[int], lead: int, shifts: dict[int, int]) -> dict[int, int]:
    """Per group g in 4..19, the first scalar op it may follow: the first op of round 4(g - lead), moved by
    ``shifts[g]`` ops (clamped to the rounds), but never before the last read of the ring words it overwrites
    (those of rounds 4g-16..4g-13). Example: with ``lead=2`` group 6 is released at round 16's first op;
    ``shifts={6: -3}`` releases it three scalar ops sooner (round 15's last ops)."""
    first_of, last_read, _ = _round_marks(scalar, rounds)
    return {g: max(min(max(first_of[4 * (g - lead)] + shifts.get(g, 0), 0), len(scalar) - 1), last_read[g - 4] + 1)
            for g in range(4, 20)}


def interleave(scalar: list[Instr], rounds: list[int], groups: dict[int, list[Instr]], release: dict[int, int],
               every: int) -> list[Instr]:
    """Merge the vector groups 4..19 into the scalar rounds.

    Group g is released after scalar op ``release[g]`` (``release_points``),
    then one vector op follows every ``every`` scalar ops; whatever of group g
    is left is flushed before the first read of its own words (rounds
    4g..4g+3), so every read of ``wk(t)`` sees this block's W_t + K_t
    wherever the release is.
    """
    _, _, first_read = _round_marks(scalar, rounds)
    queue: list[tuple[int, Instr]] = [(g, ins) for g in range(4, 20) for ins in groups[g]]
    out: list[Instr] = []
    q = 0
    since = 0
    for p, ins in enumerate(scalar):
        while q < len(queue) and first_read.get(queue[q][0], len(scalar)) <= p:
            out.append(queue[q][1])
            q += 1
        out.append(ins)
        since += 1
        if since >= every and q < len(queue) and release[queue[q][0]] <= p:
            out.append(queue[q][1])
            q += 1
            since = 0
    out += [ins for _, ins in queue[q:]]
    return out


@dataclass(frozen=True)
class Slots:
    """Per clock: instructions issued, scalar-only units, vector-only units, units both kinds share.

    From a cost model's port data (``engines.hybrid.slots_of``): skylake is
    ``Slots(4, 1, 0, 3)`` (p6 scalar only; p0/p1/p5 run both), zen5
    ``Slots(8, 6, 4, 0)`` (separate integer and FP pipes).
    """

    width: int
    scalar: int
    vector: int
    shared: int


def slot_interleave(scalar: list[Instr], rounds: list[int], groups: dict[int, list[Instr]], release: dict[int, int],
                    slots: Slots) -> list[Instr]:
    """Merge the vector groups clock by clock into the scalar stream, by unit class.

    Each clock takes up to ``slots.width`` instructions: scalar ones first
    (on scalar-only units, then shared ones), then released vector ones on
    the vector-only and the still free shared units. Release and deadline
    are ``interleave``'s (``release``, ``release_points``; flushed before
    the group's first read), so the same invariant holds.
    """
    _, _, first_read = _round_marks(scalar, rounds)
    queue = [(g, ins) for g in range(4, 20) for ins in groups[g]]
    out: list[Instr] = []
    p = q = 0
    n = len(scalar)
    while p < n or q < len(queue):
        while q < len(queue) and first_read.get(queue[q][0], n) <= p:
            out.append(queue[q][1])
            q += 1
        width, shared = slots.width, slots.shared
        took = 0
        while p < n and took < width and took < slots.scalar + shared:
            out.append(scalar[p])
            p += 1
            took += 1
            if p < n and q < len(queue) and first_read.get(queue[q][0], n) <= p:
                break
        shared -= max(0, took - slots.scalar)
        room = min(width - took, slots.vector + shared)
        while room > 0 and q < len(queue) and (release[queue[q][0]] < p or p >= n):
            out.append(queue[q][1])
            q += 1
            room -= 1
    return out


def _round_marks(scalar: list[Instr], rounds: list[int]) -> tuple[dict, dict, dict]:
    """Per round, its first op; per group, the first and last read of its ring words."""
    first_of: dict[int, int] = {}
    last_read: dict[int, int] = {}
    first_read: dict[int, int] = {}
    for p, ins in enumerate(scalar):
        first_of.setdefault(rounds[p], p)
        m = ins.operands[0] if ins.mnemonic == "add" and ins.operands else None
        if isinstance(m, Mem) and m.base == SP:
            g = rounds[p] // 4
            first_read[g] = min(first_read.get(g, p), p)
            last_read[g] = max(last_read.get(g, -1), p)
    return first_of, last_read, first_read
