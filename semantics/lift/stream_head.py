"""The loop-head invariant of a multi-buffer loop (``streams``): where each message's pointer, count and words are.

``shape`` reads it off the arrivals at the head (the one whose messages all have blocks): each message's
pointer register (``Ptr("msg{j}", 0)``: its current block), its count's stack slot, the trip count's
register (the largest count: not one count at every arrival), the group's words -- in the context, and in
every register lane that held them -- and a kind for every other location (``Head.kinds``: addresses, entry
values and integer constants kept, other integers havocked, data constants kept, an earlier group's words in
the context kept, other data havocked). ``materialize`` makes the head state of one iteration from it in any
domain: the exploration's term domain (kept terms are themselves) or ``check_program``'s (numpy, terms).

Example: the SSE body of ``sha1_multi_block`` with 1 group: messages 0..3 in ``%r8``..``%r11``, their counts
at ``%rbx``+0..12 (``%rsp``+0x100 after the realignment), the trip count in ``%edx``, the words in the context
and in ``%xmm10``..``%xmm14`` (lane j: message j), the byte-swap mask in ``%xmm5`` and K in ``%xmm15`` kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from sha1opt.semantics.ir import Term
from sha1opt.semantics.lift import lanes
from sha1opt.semantics.lift.condition import symbols
from sha1opt.semantics.lift.executor import Int, Opq, PathEnd, Ptr, State
from sha1opt.semantics.lift.induction import Ctx

INT_MAX = (1 << 31) - 1


@dataclass
class Head:
    """One group's loop-head invariant: where each message's pointer, count and words are, the trip count's
    register, the cancel address, and a kind per other location (module docstring)."""

    section: str
    head: int
    streams: tuple[int, ...]
    pointer: dict[int, tuple]           # message -> its pointer's location (("reg", name) or ("mem", key))
    counter: dict[int, tuple]           # message -> its count's stack slot (("mem", key))
    trip: tuple                         # the trip count's location
    cancel: Ptr | None
    kinds: dict = field(default_factory=dict)     # location -> (kind, value, size)
    dispatch: list = field(default_factory=list)  # the arrival's path condition without the counts
    # Where the group's words live at the head: in the context (OpenSSL's SSE and AVX code writes it back every
    # iteration; the registers holding them are copies) or, when no iteration writes it, in the registers only
    # (the SHA-NI code; the context keeps the caller's words until the loop is left): then the registers' words
    # are unknowns of their own, ``home[c]``, and the context's the caller's.
    memory_home: bool = True

    @property
    def home(self) -> str:
        return "lanes" if self.memory_home else "home"

    def holders(self, c: int) -> list[tuple]:
        """The register lanes that hold word ``c`` at the head, as flat locations ``("reg", "xmm0.3")``."""
        return [("reg", f"{loc[1]}.{i}") for loc, (k, _) in self.kinds.items() if k[0] == "lanes"
                for i, kk in enumerate(k[1]) if kk == ("word", c)]

    def current(self, st: State, c: int, init_mem, memory: bool):
        """Word ``c`` of the group at ``st``: the context's (``memory``: at an arrival, and where the loop was
        left) or its home's."""
        if memory or self.memory_home or not self.holders(c):
            v = st.mem.get(("lanes", "", c))
            return v[0] if v is not None else init_mem("lanes", c)
        reg, i = self.holders(c)[0][1].split(".")
        v = st.regs.get(reg)
        return v[int(i)] if isinstance(v, tuple) else None

    def output(self, c: int) -> tuple:
        """Where ``check_program`` finds word ``c`` after an iteration: its home."""
        if self.memory_home or not self.holders(c):
            return ("mem", "lanes", c)
        return self.holders(c)[0]

    def words(self, j: int) -> list[int]:
        return [lanes.word_at(i, j) for i in range(5)]

    def count(self, j: int) -> z3.BitVecRef:
        return z3.BitVec(f"count{j}", 32)

    def trips(self) -> z3.BitVecRef:
        return z3.BitVec(f"trips@{self.head:x}.{min(self.streams)}", 32)

    def facts(self) -> list:
        t = self.trips()
        return [t > 0, t <= INT_MAX] + [self.count(j) <= t for j in self.streams]


def get(st: State, loc):
    if loc[0] == "reg":
        return st.regs.get(loc[1])
    return st.mem.get(loc[1], (None, 0))[0]


def low(v) -> z3.BitVecRef | None:
    return z3.simplify(z3.Extract(31, 0, v.v)) if isinstance(v, Int) else None


def mentions_blocks(e) -> bool:
    return any(str(v).startswith("blocks") for v in symbols(e))


def shape(ctx: Ctx, arrivals: list[PathEnd], messages: int) -> Head | str:
    """The invariant of the loop the ``arrivals`` reach, or why there is none; ``messages``: how many the
    contract gives (4 a group)."""
    def pointers(st: State) -> dict[int, list]:
        found: dict[int, list] = {}
        for loc, v in [(("reg", r), v) for r, v in st.regs.items()] + [(("mem", k), v) for k, (v, _) in st.mem.items()
                                                                      if k[0] == "stack"]:
            if isinstance(v, Ptr) and (j := lanes.stream_of(v.region)) is not None:
                found.setdefault(j, []).append((loc, v))
        return found

    s0 = max(arrivals, key=lambda e: len(pointers(e.state))).state
    found = pointers(s0)
    streams = tuple(sorted(found))
    if not streams:
        return "no message's pointer is held at the loop head"
    if max(streams) >= messages:
        return f"message {max(streams)} is beyond the {messages} the contract gives"
    pointer: dict[int, tuple] = {}
    for j, where in found.items():
        off = z3.simplify(where[0][1].off)
        if len(where) != 1 or not (z3.is_bv_value(off) and off.as_long() == 0):
            return f"message {j}'s pointer is not held once, at its first block, at the loop head"
        pointer[j] = where[0][0]
    counter: dict[int, tuple] = {}
    for key, (v, size) in s0.mem.items():
        for j in streams:
            if key[0] == "stack" and size == 4 and (lo := low(v)) is not None and z3.eq(lo, lanes.blocks(j)):
                counter.setdefault(j, ("mem", key))
    if set(counter) != set(streams):
        return f"message {min(set(streams) - set(counter))}'s block count is not kept in a stack slot at the loop head"
    # the trip count: the register holding an integer of the counts that is not one count at every arrival
    # (max(blocks_j), each count at the arrivals where it is the largest)
    def one_count(r: str) -> bool:
        lows = [low(e.state.regs.get(r)) for e in arrivals]
        return all(x is not None for x in lows) and len({x.sexpr() for x in lows}) == 1 and any(
            z3.eq(lows[0], lanes.blocks(j)) for j in streams)

    trips = [("reg", r) for r, v in s0.regs.items() if isinstance(v, Int) and mentions_blocks(v.v) and not one_count(r)]
    if len(trips) != 1:
        return "the loop's trip count is not one register at the loop head"
    h = Head(s0.pc_addr[0], s0.pc_addr[1], streams, pointer, counter, trips[0], None)
    h.dispatch = [c for c in s0.cond if not mentions_blocks(c)]
    words = _word_values(s0, {lanes.word_at(i, j) for j in streams for i in range(5)})
    designated = set(pointer.values()) | set(counter.values()) | {h.trip}

    def kind(v, context: bool = False):
        """A value the arrival holds, as the head keeps it: addresses and entry values kept, integers other
        than constants havocked, data constants kept, the group's words as words, an earlier group's words
        in the context (``context``) kept, any other data havocked."""
        if isinstance(v, (Ptr, Opq)):
            return ("keep", v)
        if isinstance(v, Int):
            return ("keep", v) if z3.is_bv_value(z3.simplify(v.v)) else ("fresh int", None)
        if isinstance(v, Term) and v.node.op == "const":
            return ("const", v.node.payload)
        if isinstance(v, Term) and (c := next((c for c, w in words.items() if v == w), None)) is not None:
            return ("word", c)
        if context and isinstance(v, Term):
            return ("term", v)           # (an earlier group's words: kept)
        return ("free", None)

    for r, v in s0.regs.items():
        if ("reg", r) in designated:
            continue
        h.kinds[("reg", r)] = (("lanes", tuple(kind(x) for x in v)) if isinstance(v, tuple) else kind(v), 0)
    for key, (v, size) in s0.mem.items():
        if ("mem", key) in designated or key[0] not in ("stack", "lanes") or key[0] == "lanes" and key[2] in words:
            # (the read-only regions read again as they were: not part of the head; the group's words in the
            # context are the head's own, ``materialize``)
            continue
        h.kinds[("mem", key)] = (kind(v, key[0] == "lanes"), size)
    return h


def _word_values(st: State, group_words: set[int]) -> dict[int, object]:
    return {key[2]: v for key, (v, _) in st.mem.items() if key[0] == "lanes" and key[2] in group_words}


def materialize(h: Head, dom, init_reg, init_mem, exact: bool) -> State:
    """The head state in ``dom``; ``exact``: the exploration's own term domain (kept terms are themselves)."""
    st = State((h.section, h.head))
    fresh = iter(range(1 << 30))
    bits = 64
    tag = f"{h.head:x}.{min(h.streams)}"      # (unknowns of their own per loop and group)

    def value(k):
        kind, v = k
        if kind == "keep":
            return v
        if kind == "const":
            return dom.const(v)
        if kind == "word":
            return init_mem(h.home, v)
        if kind == "term" and exact:
            return v
        if kind == "fresh int":
            return Int(z3.BitVec(f"havoc int @{tag}.{next(fresh)}", bits))
        return init_reg(f"havoc@{tag}.{next(fresh)}")

    for loc, (k, size) in h.kinds.items():
        v = tuple(value(x) for x in k[1]) if k[0] == "lanes" else value(k)
        if loc[0] == "reg":
            st.regs[loc[1]] = v
        else:
            st.mem[loc[1]] = (v, size)
    for j in h.streams:
        ptr = Ptr(lanes.message(j), z3.BitVecVal(0, bits))
        if h.pointer[j][0] == "reg":
            st.regs[h.pointer[j][1]] = ptr
        else:
            st.mem[h.pointer[j][1]] = (ptr, 8)
        st.mem[h.counter[j][1]] = (Int(z3.ZeroExt(bits - 32, h.count(j))), 4)
        for c in h.words(j):
            st.mem[("lanes", "", c)] = (init_mem("lanes", c), 4)
    st.regs[h.trip[1]] = Int(z3.ZeroExt(bits - 32, h.trips()))
    st.cond = list(h.dispatch) + h.facts()
    return st


__all__ = ["INT_MAX", "Head", "shape", "materialize", "mentions_blocks", "get", "low"]
