"""The multi-buffer loop proof: independent messages in the lanes of vector registers, each with its own count.

OpenSSL's ``sha1_multi_block`` (``lanes``' contract) runs its block loop
``max(blocks_j)`` times over a group of messages: each iteration compresses
one block of every message in its lanes, then for each message j compares
its count c_j with 1 (``cmovge``: a message with no block after this one
gets its pointer parked at a constant table, the *cancel* address), masks
the new state with ``c_j > 0`` (``pcmpgtd``; ``pand``) before adding the old
one, and takes 1 from each positive count (``paddd`` of the mask). The
context is written back every iteration. The loop over groups around it runs
a constant number of times (``groups`` is a constant of each proof), so the
executor follows it: a path leaving one group's loop goes on to the next
group's arrival at a head, or to ``ret``.

The invariant, per group, at the head (``Head``, made from the arrival whose
messages all have blocks, ``shape``): message j's pointer is ``Ptr("msg{j}",
0)`` (its current block, ``lanes``), its count ``c_j`` (a 32-bit unknown) in
its slot, the trip count ``t`` in its register, the group's state words in
the context -- and in every register lane that held them at the arrival --
unknowns of their own (H_{d_j}: message j after d_j blocks); other values
the arrival held that are not data are kept, data constants kept, other data
havocked. Facts: ``0 < t < 2^31``, ``c_j <= t`` (signed).

No count forks a path. The executor keeps both cases of every message on one
path: ``pcmpgtd`` of a count the path does not decide is a *mask*, a data
unknown recorded with its condition (``State.masks``), and-ed into the new
state; the ``cmov`` that parks a pointer gives a ``Choice`` of the two
addresses; the counts are exact z3 ``If`` terms. The proof splits the cases
where it checks them, message by message (``_messages``):

Per iteration path back to the head (``_step``, ``_back``): ``t' = t - 1 !=
0``; per message, ``c_j > 0`` gives ``c_j' = c_j - 1`` and its words
``compress(H, block)``, ``c_j <= 0`` gives ``c_j' = c_j`` and its words
unchanged (the masks this case decides put in as constants and folded,
``decided``); its pointer is ``Ptr("msg{j}", 64)`` (the next block) only where
``c_j' > 0`` and the cancel address only where ``c_j' <= 0`` (each choice
taken apart under that case, ``chosen``); kept values kept. The words are
proved by ``composition.check_program`` for one message (under its ``c_j >
0``); another message's are proved where they are that message's terms with
the two messages' unknowns swapped (``_swapped``: a bijection of unknowns
keeps an identity), else by a ``check_program`` of their own. A path out of
the loop (to where ``Cfg.loop_exits`` says it is left, ``_left``) has ``t =
1``, so every ``c_j <= 0`` after it, and the same per-message words: each
message's last ones. Base case (``entered``): every arrival has ``c_j =
blocks_j``, the pointer at the message's block 0 where ``blocks_j > 0`` and at
the cancel address elsewhere, ``c_j <= t``, the group's words the caller's.
Induction on the iterations gives every message's words after its
``max(blocks_j, 0)`` blocks. While a message's lane runs on a parked pointer
it reads the cancel address (64 bytes there must be readable: ``_parked``) and
its words -- unknowns to the proof -- are masked away; every message's words
are proved from its own inputs only. A constant or kept value of the arrival
that an iteration overwrites (the upper lanes ``vzeroupper`` cleared, which the
AVX2 code loads the counts into) is havocked at the head (``_weakened``).

The group's words live in the context when an iteration writes them back
(OpenSSL's SSE and AVX code), else in the registers that held them at the
arrival (its SHA-NI code: ``Head.memory_home``). The paths out of the loop are
merged into one state (``_merged``): the group's words the unknowns
``final[c]`` (what the loop left), values all of them agree on kept, others
havocked; from it the executor goes on to the next group's arrivals (proved
the same way, earlier groups' ``final`` words kept) or to ``ret``, where the
callee-saved registers and the stack pointer are restored, every finished
group's word is its ``final`` value in the context (``finished``) and every
other lane is unchanged (``untouched``).

Example: the SSE body of ``sha1_multi_block`` with ``groups`` 1: one arrival
at its head 0xe0, 2 paths of one iteration (back to the head, out of the
loop), one ``check_program`` (message 0) and three swaps; the AVX2 body: 8
messages, the same 2 paths.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.composition import check_program
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder, Term, evaluate, variables
from sha1opt.semantics.lift import lanes
from sha1opt.semantics.lift.executor import Int, Opq, PathEnd, Ptr, State, explore, is_data
from sha1opt.semantics.lift.induction import Ctx, restored
from sha1opt.semantics.lift.stream_head import INT_MAX, Head, get, low, materialize, mentions_blocks, shape
from sha1opt.semantics.lift.values import Choice, chosen
from sha1opt.semantics.lift.vectors import LaneFold
from sha1opt.semantics.lift.schedule import ScheduleProver
from sha1opt.semantics.lift.verdict import Verdict, stopped
from sha1opt.semantics.prove import Prover
from sha1opt.semantics.sha1 import range_spec

# -- the proof ----------------------------------------------------------------------------------------------

@dataclass
class Group:
    """What one group's proof gave (with the groups after it): its verdict, one iteration's trace (the first path
    back to the head: what a cost model may price) and how many messages an iteration hashes a block of."""

    verdict: Verdict
    iteration: tuple = ()
    messages: int = 0


class Streams:
    """One function's multi-buffer proof: the context, the exploration's term domain and names."""

    def __init__(self, ctx: Ctx, machine_for, exits: dict[int, set[int]], prover: Prover, builder: Builder, init_reg,
                 init_mem):
        self.ctx, self.machine_for, self.exits, self.prover = ctx, machine_for, exits, prover
        self.messages = ctx.messages          # (4 a group: ``groups`` is a constant of the context's contract)
        self.b, self.init_reg, self.init_mem = builder, init_reg, init_mem
        self.dom = TermDomain(builder)
        self.spec = range_spec(Builder(), 0, 79)

    def implies(self, cond: list, goal) -> bool:
        return self.ctx.implies(cond, goal)

    def possible(self, cond: list) -> bool:
        return not self.implies(cond, z3.BoolVal(False))

    def chosen(self, v, cond: list):
        """``v`` with its ``Choice`` arms taken as ``cond`` decides them (``values.chosen``), else None."""
        return chosen(v, lambda k: True if self.implies(cond, k) else False if self.implies(cond, z3.Not(k))
                      else None)

    def resolved(self, st: State, cond: list) -> State:
        """A copy of ``st`` whose choices of pointers ``cond`` decides are taken apart (what ``shape`` reads)."""
        out = st.copy()
        for r, v in st.regs.items():
            if isinstance(v, Choice) and (x := self.chosen(v, cond)) is not None:
                out.regs[r] = x
        for k, (v, size) in st.mem.items():
            if isinstance(v, Choice) and (x := self.chosen(v, cond)) is not None:
                out.mem[k] = (x, size)
        return out

    def decided(self, st: State, cond: list, values: list) -> list:
        """``values`` (data terms) with every mask of ``st`` (``State.masks``) that ``cond`` decides put in as the
        constant it then is, folded exactly (``LaneFold``): under ``c > 0`` a word ``add(and(x, mask), h)`` is
        ``add(x, h)``, under ``c <= 0`` it is ``h``."""
        terms = [v for v in values if isinstance(v, Term)]
        names = set(variables(terms))
        known = {}
        for v, k in st.masks.values():
            if isinstance(v, Term) and v.node.payload in names:
                known[v] = 0xFFFFFFFF if self.implies(cond, k) else 0 if self.implies(cond, z3.Not(k)) else None
        if not terms or not known:
            return values

        def env(name: str):
            t = self.b.var(name)
            c = known.get(t)
            return t if c is None else self.b.const(c)
        out = iter(evaluate(terms, LaneFold(self.dom), env))
        return [next(out) if isinstance(v, Term) else v for v in values]

    # -- base case --
    def entered(self, h: Head, st: State) -> str | None:
        """Why the arrival ``st`` does not hold the invariant at its first iteration, or None."""
        t = low(get(st, h.trip))
        if t is None:
            return "the trip count is not an integer"
        cond = st.cond
        counts = {j: low(get(st, h.counter[j])) for j in h.streams}
        trip = [t > 0, t <= INT_MAX, z3.Extract(63, 32, get(st, h.trip).v) == 0, *h.dispatch]
        slots = {j: z3.And(c == lanes.blocks(j), c <= t) for j, c in counts.items() if c is not None}
        # (one solver call for every fact, the trip count an If chain over all the counts; one per fact only to
        # name the one that fails)
        if len(slots) < len(counts) or not self.implies(cond, z3.And(*trip, *slots.values())):
            if not self.implies(cond, z3.And(*trip)):
                return "the loop is entered with a trip count not in 1..2^31-1, or on another dispatch path"
            j = next(j for j in h.streams if j not in slots or not self.implies(cond, slots[j]))
            return f"message {j}'s slot does not hold its block count, at most the trip count"
        for j in h.streams:
            for has in (True, False):
                case = cond + [lanes.blocks(j) > 0 if has else lanes.blocks(j) <= 0]
                if not self.possible(case):
                    continue
                p = self.chosen(get(st, h.pointer[j]), case)
                if has and not (isinstance(p, Ptr) and p.region == lanes.message(j) and self.implies(case, p.off == 0)):
                    return f"message {j}'s pointer is not at its first block where it has blocks"
                if not has and not _same_ptr(self, case, p, h.cancel):
                    return f"message {j}'s pointer is not parked where it has no blocks"
            for c in h.words(j):
                v = st.mem.get(("lanes", "", c), (self.init_mem("lanes", c), 4))[0]
                if not (isinstance(v, Term) and v == self.init_mem("lanes", c)):
                    return f"lanes{c:+d} does not hold the caller's word at the loop head"
        return self._kept(h, st, cond, "at the loop head's arrival", True)

    def _kept(self, h: Head, st: State, cond: list, where: str, memory: bool = False) -> str | None:
        """Why a location of ``h.kinds`` does not hold at ``st`` what the head says (kept, constant, an earlier
        group's word, a home of the group's word: the context's at an arrival, ``memory``), or None."""
        return next((why for _, _, why in self._broken(h, st, cond, where, memory)), None)

    def _broken(self, h: Head, st: State, cond: list, where: str, memory: bool = False):
        """Each location of ``h.kinds`` (and lane, or None) that does not hold at ``st`` what the head says, with
        why: (location, lane, message)."""
        for loc, (k, _) in h.kinds.items():
            v = get(st, loc)
            kinds = k[1] if k[0] == "lanes" else (k,)
            vals = v if k[0] == "lanes" else (v,)
            if k[0] == "lanes" and not isinstance(v, tuple):
                yield loc, None, f"{_where(loc)} is not a vector {where}"
                continue
            for i, (kk, x) in enumerate(zip(kinds, vals)):
                tag, want = kk
                lane = i if k[0] == "lanes" else None
                name = _where(loc) + (f".{i}" if k[0] == "lanes" else "")
                if tag == "keep" and not _equal(self, cond, x, want):
                    yield loc, lane, f"{name} does not keep its value {where}"
                if tag == "const" and not (isinstance(x, Term) and x.node.op == "const" and x.node.payload == want):
                    yield loc, lane, f"{name} does not keep its constant {where}"
                if tag == "term" and not (isinstance(x, Term) and x == want):
                    yield loc, lane, f"{name} does not keep an earlier group's word {where}"
                if tag == "word" and not (isinstance(x, Term) and x == h.current(st, want, self.init_mem, memory)):
                    yield loc, lane, f"{name} does not hold lanes{want:+d} {where}"

    def _weakened(self, h: Head, back: list[PathEnd]) -> bool:
        """Havoc in ``h.kinds`` each constant or kept value (a register or stack slot, not the context) that some
        iteration ``back`` to the head overwrites with another -- the arrival's value of a register the loop
        reuses (the upper lanes ``vzeroupper`` cleared, where the AVX2 code loads the counts); True if any
        was. (Sound whatever it picks: a havocked location is any value at the head, and whatever the
        iteration needs of it fails its proof.)"""
        changed = False
        for e in back:
            for loc, lane, _ in list(self._broken(h, e.state, e.state.cond, "")):
                k, size = h.kinds[loc]
                if loc[0] == "mem" and loc[1][0] == "lanes":
                    continue
                if lane is None and k[0] in ("keep", "const"):
                    h.kinds[loc] = (("fresh int", None) if isinstance(get(e.state, loc), Int) else ("free", None), size)
                    changed = True
                elif lane is not None and k[1][lane][0] in ("keep", "const"):
                    kinds = list(k[1])
                    kinds[lane] = ("free", None)
                    h.kinds[loc] = (("lanes", tuple(kinds)), size)
                    changed = True
        return changed

    # -- one iteration --
    def prove(self, arrivals: list[PathEnd], earlier: set[int] = frozenset()) -> Group:
        """The loop the ``arrivals`` (one head, one dispatch path) reach, and every group and ``ret`` after it."""
        every = [lanes.blocks(j) > 0 for j in range(self.messages)]
        view = [PathEnd(self.resolved(e.state, e.state.cond + every), e.kind, e.head) for e in arrivals]
        h = shape(self.ctx, view, self.messages)
        if isinstance(h, str):
            return Group(Verdict("unknown", f"the multi-buffer loop at 0x{arrivals[0].head:x}: {h}"))
        for e in arrivals:
            for j in h.streams:
                case = e.state.cond + [lanes.blocks(j) <= 0]
                p = self.chosen(get(e.state, h.pointer[j]), case) if self.possible(case) else None
                if h.cancel is None and p is not None and not (isinstance(p, Ptr) and p.region == lanes.message(j)):
                    h.cancel = p
                    why = self._parked(p, case)
                    if why:
                        return Group(Verdict("unknown", why))
        for e in arrivals:
            why = self.entered(h, e.state)
            if why:
                return Group(Verdict("unknown", f"the loop head 0x{h.head:x} does not hold the invariant's first "
                                     f"state: {why}"))
        stops = {h.head} | self.exits.get(h.head, set())
        g, ends = self._iterate(h, stops)
        bad = next((e for e in ends if e.kind != "head"), None)
        if bad is not None:
            v = stopped(bad) if bad.kind in ("refused", "limit", "violation") else Verdict(
                "unknown", "an iteration of the multi-buffer loop returns without leaving the loop")
            return Group(v, tuple(bad.state.trace), len(h.streams))
        back = [e for e in ends if e.head == h.head]
        left = [e for e in ends if e.head != h.head]
        iteration = tuple(back[0].state.trace) if back else ()
        proved: dict[int, list] = {}
        cuts = 0
        for e in ends:
            again = e.head == h.head            # (back at the head, else out of the loop)
            why, n = self._messages(h, e, again, proved)
            cuts += n
            why = why or (self._back(h, e.state) if again else self._left(h, e.state)) or \
                self._outside(h, g, e.state)
            if why is not None:
                # (from a guessed invariant, never a counterexample: the native check refutes wrong code)
                return Group(Verdict("unknown", why), iteration, len(h.streams))
        if not left:
            return Group(Verdict("unknown", f"no path leaves the multi-buffer loop at 0x{h.head:x}"), iteration,
                         len(h.streams))
        done = set(earlier) | {c for j in h.streams for c in h.words(j)}
        after = explore(self.machine_for, self._merged(h, left), set(self.exits))
        nxt = []
        for e in after:
            if e.kind in ("refused", "limit", "violation"):
                return Group(stopped(e), iteration, len(h.streams))
            if e.kind == "head":
                nxt.append(e)
                continue
            why = restored(self.ctx, e.state, counter=False) or self.finished(e.state, done) or \
                self.untouched(e.state, done) or self.hashed(e.state, done)
            if why:
                return Group(Verdict("unknown", f"at ret: {why}"), iteration, len(h.streams))
        while nxt:
            key = (nxt[0].head, dispatch(nxt[0].state.cond))
            same = [e for e in nxt if (e.head, dispatch(e.state.cond)) == key]
            nxt = [e for e in nxt if (e.head, dispatch(e.state.cond)) != key]
            later = self.prove(same, done)
            if not later.verdict.proved:
                return Group(later.verdict, iteration, len(h.streams))
            cuts += later.verdict.cuts
        return Group(Verdict("proved", f"{len(h.streams)} messages a group, every block count: one iteration's "
                             f"{len(ends)} paths proved per message", cuts), iteration, len(h.streams))

    def _iterate(self, h: Head, stops: set[int]) -> tuple[State, list[PathEnd]]:
        """The head state and the paths of one iteration from it to the head or out of the loop; where no path
        writes the group's words into the context, again with the words in the registers only
        (``Head.memory_home``)."""
        g = materialize(h, self.dom, self.init_reg, self.init_mem, True)
        ends = explore(self.machine_for, g.copy(), stops)
        if self._weakened(h, [e for e in ends if e.kind == "head" and e.head == h.head]):
            g = materialize(h, self.dom, self.init_reg, self.init_mem, True)
            ends = explore(self.machine_for, g.copy(), stops)
        group = {c for j in h.streams for c in h.words(j)}
        back = [e for e in ends if e.kind == "head" and e.head == h.head]
        if back and all(h.holders(c) for c in group) \
                and not any(e.state.mem.get(("lanes", "", c), (None, 0))[0] is not g.mem[("lanes", "", c)][0]
                            for e in back for c in group):
            h.memory_home = False
            self._live_homes(h, back)
            g = materialize(h, self.dom, self.init_reg, self.init_mem, True)
            ends = explore(self.machine_for, g.copy(), stops)
        return g, ends

    def _live_homes(self, h: Head, back: list[PathEnd]) -> None:
        """Keep as a home of word c of message j only a register lane that, after an iteration in which every
        message has blocks, holds a value made of message j's block and state words (the state it carries on);
        a lane that held c at the arrival and is overwritten by other work (a copy the prologue made, message
        words) is havocked instead. (A wrong choice only fails the proof: every home is checked.)"""
        full = next((e for e in back if self.possible(e.state.cond + [h.count(j) > 0 for j in h.streams])), None)
        if full is None:
            return
        owner = {c: j for j in h.streams for c in h.words(j)}
        for loc, (k, size) in list(h.kinds.items()):
            if k[0] != "lanes":
                continue
            now = full.state.regs.get(loc[1])
            kinds = list(k[1])
            for i, kk in enumerate(kinds):
                if kk[0] != "word":
                    continue
                v = now[i] if isinstance(now, tuple) else None
                j = owner[kk[1]]
                names = set(variables([v])) if isinstance(v, Term) else set()
                # (the state carried on is made of the block and the state: a lane reused for message words
                # or work holds no state word)
                if not (any(n.startswith(f"{lanes.message(j)}[") for n in names)
                        and any(f"{r}[{c}]" in names for r in ("lanes", "home") for c in h.words(j))):
                    kinds[i] = ("free", None)
            h.kinds[loc] = (("lanes", tuple(kinds)), size)

    def _merged(self, h: Head, left: list[PathEnd]) -> State:
        """One state for every path out of the loop: the group's words (wherever they live) the unknowns
        ``final[c]`` -- what the loop left, proved by its iterations --, every value all the paths agree on kept,
        every other havocked; the path condition the conjuncts all of them have."""
        first = left[0].state
        st = State(first.pc_addr)
        fresh = iter(range(1 << 30))
        tag = f"{h.head:x}.{min(h.streams)}"
        group = {c for j in h.streams for c in h.words(j)}
        homes = [{c: h.current(e.state, c, self.init_mem, False) for c in group} for e in left]

        def merged(values: list, loc: str):
            v0 = values[0]
            for c in group:
                if all(isinstance(v, Term) and v == hm[c] for v, hm in zip(values, homes)):
                    return self.b.var(f"final[{c}]")
            if all(v is v0 or v == v0 for v in values):
                return v0
            if is_data(v0):
                return self.init_reg(f"merged@{tag}.{next(fresh)}")
            if isinstance(v0, Int):
                return Int(z3.BitVec(f"merged int @{tag}.{next(fresh)}", self.ctx.bits))
            return Opq(f"{loc} [differs where the loop is left]")

        # (a location some path has and another has not -- a write on some paths only -- is havocked: absent,
        # it would read as its entry value)
        for r in dict.fromkeys(r for e in left for r in e.state.regs):
            vals = [e.state.regs.get(r) for e in left]
            if all(isinstance(v, tuple) for v in vals):
                st.regs[r] = tuple(merged([v[i] for v in vals], f"%{r}.{i}") for i in range(len(vals[0])))
            elif all(v is not None and not isinstance(v, tuple) for v in vals):
                st.regs[r] = merged(vals, f"%{r}")
            else:
                st.regs[r] = Opq(f"%{r} [differs where the loop is left]")
        for key in dict.fromkeys(k for e in left for k in e.state.mem):
            vals = [e.state.mem.get(key, (None, 0)) for e in left]
            size = vals[0][1]
            if all(v is not None and sz == size for v, sz in vals):
                st.mem[key] = (merged([v for v, _ in vals], _where(("mem", key))), size)
            else:
                st.mem[key] = (Opq(f"{_where(('mem', key))} [differs where the loop is left]"),
                               max(sz for _, sz in vals))
        common = {c.sexpr() for c in first.cond}
        for e in left[1:]:
            common &= {c.sexpr() for c in e.state.cond}
        st.cond = [c for c in first.cond if c.sexpr() in common]
        st.frames, st.spans = first.frames, dict(first.spans)
        return st

    def _outside(self, h: Head, g: State, st: State) -> str | None:
        """Why an iteration changes a word of the context other than the group's -- or, where the group's
        words live in registers (``Head.memory_home`` off), any word of the context -- or None."""
        group = {c for j in h.streams for c in h.words(j)}
        for key, (v, _) in st.mem.items():
            if key[0] != "lanes" or key[2] in group and h.memory_home:
                continue
            was = g.mem.get(key, (self.init_mem("lanes", key[2]), 4))[0]
            if not (isinstance(v, Term) and v == was):
                return f"an iteration changes lanes{key[2]:+d}, a word the group's loop does not own"
        return None

    def hashed(self, st: State, done: set[int]) -> str | None:
        """Why a message the contract gives has blocks at ``ret`` and no loop finished its words, or None."""
        for j in range(self.messages):
            if lanes.word_at(0, j) not in done and not self.implies(st.cond, lanes.blocks(j) <= 0):
                return f"message {j} may have blocks and no loop hashed it"
        return None

    def finished(self, st: State, done: set[int]) -> str | None:
        """Why a word of a group the loop finished is not what its loop left (``final[c]``) at ``ret``."""
        for c in sorted(done):
            v = st.mem.get(("lanes", "", c))
            if v is None or not (isinstance(v[0], Term) and v[0] == self.b.var(f"final[{c}]")):
                return f"lanes{c:+d} does not hold what the loop left"
        return None

    def _parked(self, p, cond: list) -> str | None:
        """Why 64 bytes at the cancel address ``p`` may not be readable (under ``cond``), or None."""
        if not isinstance(p, Ptr):
            return "a finished message's pointer is not an address"
        off = z3.simplify(p.off)
        if p.region.startswith("sec:") and z3.is_bv_value(off):
            if self.ctx.obj.read(p.region[4:], off.as_long(), 64) is not None:
                return None
        if p.region == "stack" and self.implies(cond, z3.And(p.off + 64 <= 0, p.off >= -(1 << 20))):
            return None
        return "a finished message's pointer is parked where 64 bytes are not known readable"

    def _messages(self, h: Head, e: PathEnd, back: bool, proved: dict) -> tuple[str | None, int]:
        """Each message's count, pointer and words after one iteration ``e`` (module docstring): back at the
        head (``back``) or where the loop is left. One path carries every message's two cases (its masks and
        pointer choices): each is proved under ``c > 0`` and under ``c <= 0`` in turn."""
        st = e.state
        cuts = 0
        for j in h.streams:
            c = h.count(j)
            words = [h.current(st, c0, self.init_mem, False) for c0 in h.words(j)]
            bad = next((c0 for w, c0 in zip(words, h.words(j)) if not isinstance(w, Term)), None)
            if bad is not None:
                # (a count, a pointer or an entry value where message j's state word is: not data, not SHA-1)
                return f"message {j}'s word at lanes{bad:+d} is not data after an iteration", 0
            for active in (True, False):
                cond = st.cond + [c > 0 if active else c <= 0]
                if not self.possible(cond):
                    continue
                why = self._step(h, j, st, cond, active) if back else None
                if why:
                    return why, 0
                if not active:
                    if any(not (isinstance(w, Term) and w == self.init_mem(h.home, c0))
                           for w, c0 in zip(self.decided(st, cond, words), h.words(j))):
                        return f"message {j} has no blocks left but its words change", 0
                    continue
                now = self.decided(st, cond, words)
                if j in proved and now == proved[j] or any(self._swapped(was, i, j) == now for i, was in proved.items()):
                    proved[j] = now
                    continue
                why, n = self._compress(h, j, e, cond)
                if why:
                    return why, 0
                proved[j] = now
                cuts += n
        return None, cuts

    def _swapped(self, words: list, i: int, j: int) -> list:
        """Message i's proved words with messages i and j swapped: its block ``msg{i}[k]`` <-> ``msg{j}[k]`` and
        its state words (in the context or their home) <-> message j's. The lanes of an iteration compute
        the same function of their own message: where message j's words are this renaming of message i's --
        terms ``check_program`` proved to be compress(H_i, block_i) as functions of their unknowns -- they are
        compress(H_j, block_j) (a swap of unknowns is a bijection: the identity holds under it), and message
        j needs no proof of its own."""
        swap = {}
        for a, b in ((i, j), (j, i)):
            for c0, c1 in ((lanes.word_at(k, a), lanes.word_at(k, b)) for k in range(5)):
                for r in ("lanes", "home"):
                    swap[f"{r}[{c0}]"] = f"{r}[{c1}]"
        pre = {f"{lanes.message(i)}[": f"{lanes.message(j)}[", f"{lanes.message(j)}[": f"{lanes.message(i)}["}

        def env(name: str):
            if name in swap:
                return self.b.var(swap[name])
            p = next((p for p in pre if name.startswith(p)), None)
            return self.b.var(pre[p] + name[len(p):] if p else name)
        if not all(isinstance(w, Term) for w in words):
            return []
        return evaluate(words, self.dom, env)

    def _step(self, h: Head, j: int, st: State, cond: list, active: bool) -> str | None:
        """Why message j's count and pointer after an iteration back to the head (under ``cond``: it had blocks
        left, ``active``, or not) break the invariant, or None: its count one less where it had blocks and
        unchanged elsewhere; its pointer the next block where blocks are left after it, else parked."""
        c = h.count(j)
        c2 = low(get(st, h.counter[j]))
        if c2 is None or not self.implies(cond, c2 == (c - 1 if active else c)):
            return f"message {j}'s count does not go {'down by one' if active else 'unchanged'}"
        for left in (True, False):
            case = cond + [c2 > 0 if left else c2 <= 0]
            if not self.possible(case):
                continue
            p = self.chosen(get(st, h.pointer[j]), case)
            if left and not (active and isinstance(p, Ptr) and p.region == lanes.message(j)
                             and self.implies(case, p.off == 64)):
                return f"message {j}'s pointer is not its next block with blocks left"
            if not left and not _same_ptr(self, case, p, h.cancel):
                return f"message {j}'s pointer is not parked with no blocks left"
        return None

    def _compress(self, h: Head, j: int, e: PathEnd, cond: list) -> tuple[str | None, int]:
        """``check_program`` over the iteration ``e`` under ``cond`` (message j has blocks left): message j's
        words become compress(H_j, its block)."""
        inputs = {f"h{i}": ("mem", h.home, lanes.word_at(i, j)) for i in range(5)}
        inputs.update({f"m{w}": ("mem", lanes.message(j), 4 * w) for w in range(16)})
        outputs = {f"h{i}": h.output(lanes.word_at(i, j)) for i in range(5)}

        def factory(dom, init_reg, init_mem, pointers=None):
            st = materialize(h, dom, init_reg, init_mem, False)
            st.cond = list(cond)
            return self.ctx.machine(dom, init_reg, init_mem, st)

        # (sha1rnds4 computes four rounds in one value: the schedule prover cuts the rounds inside it, as
        # ``induction.compress_holds`` does)
        trace = e.state.trace
        multi = any(d.mnemonic == "sha1rnds4" for d in trace)
        res = check_program(trace, self.spec, inputs, outputs,
                            ScheduleProver(self.prover, self.spec) if multi else self.prover, machine=factory)
        if not res.ok:
            return f"message {j}: the iteration does not compute compress(H, block): {describe_failure(res)}", 0
        return None, res.cuts

    def _back(self, h: Head, st: State) -> str | None:
        """Why a path back to the head breaks the trip count's step (``t' = t - 1 != 0``, its upper half 0) or
        a kept value, or None."""
        t = low(get(st, h.trip))
        if t is None or not self.implies(st.cond, z3.And(t == h.trips() - 1, t != 0,
                                                          z3.Extract(63, 32, get(st, h.trip).v) == 0)):
            return "the trip count does not go down by one, or the loop goes on at 0"
        return self._kept(h, st, st.cond, "after an iteration")

    def _left(self, h: Head, st: State) -> str | None:
        """Why a path out of the loop may leave with messages that have blocks (its trip count was not 1), or
        None."""
        if not self.implies(st.cond, h.trips() == 1):
            return "the loop is left with a trip count other than 1 (messages with blocks left)"
        return None

    def untouched(self, st: State, done: set[int]) -> str | None:
        """Why a word of a lane no loop finished is not the caller's at ``ret``, or None."""
        for c in range(0, lanes.STATE_BYTES, 4):
            if c in done:
                continue
            v = st.mem.get(("lanes", "", c))
            if v is not None and not (isinstance(v[0], Term) and v[0] == self.init_mem("lanes", c)):
                return f"lanes{c:+d} (a lane no message was given) changes"
        return None


def _equal(s: Streams, cond: list, x, want) -> bool:
    if x is want or x == want:
        return True
    if isinstance(x, Int) and isinstance(want, Int):
        return s.implies(cond, x.v == want.v)
    return _same_ptr(s, cond, x, want)


def _same_ptr(s: Streams, cond: list, p, q) -> bool:
    return (isinstance(p, Ptr) and isinstance(q, Ptr) and p.region == q.region
            and s.implies(cond, p.off == q.off))


def _where(loc) -> str:
    return f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1][0]}{loc[1][2]:+d}"


def dispatch(cond: list) -> tuple:
    """The conjuncts of a path condition that do not mention a count (the dispatch facts)."""
    return tuple(c for c in cond if not mentions_blocks(c))


__all__ = ["Head", "Group", "Streams", "shape", "materialize", "dispatch", "mentions_blocks"]
