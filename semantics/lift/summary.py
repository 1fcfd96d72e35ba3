"""Loop summaries: a loop that walks input the environment gives, explored once from a state covering every iteration.

A fat build's override parse (nettle's ``fat_init``: ``while ((sep = strchr(p, ',')))  { compare the token;
p = sep + 1; }``) loops as many times as the environment string has commas: no bound, so unrolling it (as the
executor unrolls every loop of constant trip count) never ends. Such a loop is *summarized*:

* **which loops** (``Loops.at``): the instructions of a cycle of the code's control flow (a strongly connected
  component of the decoded instructions, ``call`` falling through) whose body calls a known function with a
  result the proof does not know (``calls.KNOWN``: strchr, strlen, memcmp, getenv, ...). SHA-1 code never
  calls the C library inside a round or block loop, so its loops keep being unrolled (or proved by induction
  at their heads) exactly as before. The summary starts where a path first enters the cycle (its head).
* **the invariant** ``H`` (``summarize``): rounds of exploration of the body alone (``paths.explore`` with
  ``within``: a path ends ``back`` on reaching the head again in the same frame, ``leave`` on leaving the
  cycle). Round 0 starts from the arrival state ``S0`` itself; each later round from ``H``, ``S0`` with every
  location some ``back`` state did not match *widened* (``_Invariant.widen``): an integer to a new unknown
  integer (its upper half kept zero when both values' were) -- one of at most ``MAX_VALUES`` constants when
  both values were constants (a flag the loop sets: the membership a fact of ``H``'s path condition) --, a
  pointer into a read-only string (``values.read_only_string``) to the same string at a new unknown offset,
  anything else -- a pointer elsewhere, data, a saved register, a stack slot -- to a value the code may only
  overwrite (an ``Opq`` named ``[loop@0x...]``: used as data, an address or a restored register it is refused
  or fails its check); a word of external data to unread (read again, a new input: ``calls`` counts past every
  name used). Flags are undefined at ``H``. When every ``back`` state of a round is covered by the round's
  start (``_Invariant.covered``: the same value, or one the widened location stands for -- a constant of its
  set, or a value the path condition keeps in it), that start is an invariant: the round's ``leave`` states go
  on (``_exits``), its exits and refusals are paths, and the ``back`` ones end, covered. No invariant after
  ``MAX_ROUNDS`` rounds: the path is refused by name. A loop entered again on another path (nettle's: once per
  way the two getenv before it went) starts from ``S0`` widened as its last summary widened (``prewiden``): a
  start covering ``S0`` like any widening, checked by the same rounds -- one instead of two when it holds.
* **the exits** (``_exits``): the ``leave`` states at one address of the loop's function are joined into one,
  the invariant widened until it covers each (the last iteration's path conditions dropped: facts of its own
  unknowns), so what follows the loop is explored once per exit, not once per way the last iteration went.
  An index register holding a widened integer of a few values (``one_value``) forks once per value.
* **why it is sound**: ``S0`` is covered by ``H`` (``H`` is ``S0`` with locations widened), and every path of
  the body from ``H`` back to the head ends in a state ``H`` covers; so by induction on the iteration count
  the state at every arrival of every real run is one ``H`` covers, and each run's last iteration is one of
  the paths explored from ``H``, whose state on leaving the joined exit state covers -- the paths after the
  loop cover all the real ones, whatever the trip count. ``H``'s path condition is ``S0``'s (facts of values
  made before the loop, which the loop cannot change: its unknowns are new names) and the sets' memberships,
  which every ``back`` state was proved to keep. The widened values are otherwise unconstrained, so every proof
  made after the loop holds for every value the loop may leave; a proof that needed a value the loop changes
  fails (refused, or a counterexample), never succeeds on a value assumed. Stores the loop makes are checked by
  the memory model as any store is (to the environment string: a violation; through a widened pointer:
  refused). Only a cycle that calls the C library is summarized, and only values of a read-only string are
  read at a computed offset, so nothing the SHA-1 proof relies on (state, data, the caller's frame) is read
  through a widened pointer.
* **replay** (``composition.check_program`` re-runs a path's trace): each summary state is one
  pseudo-instruction ``Havoc`` in the trace, applied by the executor (``apply``) the same way exploring and
  replaying from ``S0``, so a replayed path sees the same unknowns.

Worked example (nettle's ``fat_init``, the head at 0xcd, ``S0`` after ``xor %ebp,%ebp`` etc.): round 0 from
``S0`` (%r15 = the override string + 0, %ebp = %r14d = %r12d = 0, 0xc(%rsp) = 0) ends ``back`` at 0xcd with
%r15 = string + (strchr's offset k + 1), %ebp 0 or 1, %r12d 0, 1 or 2, %r13 = the string + k, ...; ``H``
widens %r15 to string + ``loop@0xcd#1``, %ebp, %r14d and the slot to one of 0 and 1, %r12d to one of 0, 1
and 2, %r13, %rax, %rsi, %rdi and the clobbered slots below %rsp to overwrite-only values; round 1 from ``H``
ends ``back`` only in states ``H`` covers, so its ``leave`` states at 0x200 (strchr returned NULL: the last
token), joined, continue to the choice of the implementations (``mov 0x10(%rsp,%rdx,8)`` with %edx = %r12d:
three paths) -- every choice the environment can make is a path.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import z3

from sha1opt.semantics.lift.calls import KNOWN
from sha1opt.semantics.lift.decode import BRANCHES, Decoded
from sha1opt.semantics.lift.values import Int, Opq, Ptr, Refused, read_only_string
from sha1opt.semantics.x86 import Instr

MAX_ROUNDS = 4          # widenings of a loop's summary before the path is refused
MAX_VALUES = 4          # constants a widened integer may be one of (a flag's values); beyond, any integer
HAVOC = "loop@"         # the names of a summary's unknowns (``loop@0xcd#3 %ebp``)
_ABSENT = object()      # a register never written (its entry value) or a memory word never read or written
_FRESH = itertools.count(1)


@dataclass(frozen=True)
class Loop:
    """A summarized loop: its cycle's instructions (``body``) in ``section``, where the path entered it (``head``)
    and the local calls it runs in (``frames``, ``paths.State.frames``; states are ``paths.State``s throughout)."""

    section: str
    head: int
    body: frozenset[int]
    frames: tuple

    def where(self, st) -> str | None:
        """``back`` (at the head again, same frame), ``leave`` (out of the cycle, or returned from its
        function), else None (in the body, or in a function it calls)."""
        frames, (sec, addr) = st.frames, st.pc_addr
        if frames == self.frames:
            if (sec, addr) == (self.section, self.head):
                return "back"
            return None if sec == self.section and addr in self.body else "leave"
        return None if frames[:len(self.frames)] == self.frames else "leave"


@dataclass(frozen=True)
class Havoc(Decoded):
    """The pseudo-instruction that makes a loop's summary state ``H`` from its arrival state: ``regs`` and ``mem``
    set (``Int``, ``Ptr``, ``Opq``), ``lanes`` vector registers made of new data unknowns (by name: each
    domain makes its own), ``drop`` memory keys made unread, the flags undefined, the counters of names set."""

    regs: tuple = ()
    lanes: tuple = ()
    mem: tuple = ()
    drop: tuple = ()
    results: int = 0
    calls: int = 0


def apply(pm, hv: Havoc) -> None:
    """Make ``pm``'s state the summary state ``hv`` describes (exploring and replaying alike)."""
    s = pm.s
    for r, v in hv.regs:
        s.regs[r] = v
    for r, names in hv.lanes:
        s.regs[r] = tuple(pm.initial_reg(n) for n in names)
    for k in hv.drop:
        s.mem.pop(k, None)
    for k, v, size in hv.mem:
        s.mem[k] = (v, size)
    s.flags = None
    s.results, s.calls = hv.results, hv.calls


class Loops:
    """The cycles of a section's decoded code that call a known function with an unknown result, by address."""

    def __init__(self) -> None:
        self._at: dict[str, tuple[int, dict[int, frozenset[int]]]] = {}

    def at(self, section: str, code: dict[int, Decoded], addr: int, frames: tuple) -> Loop | None:
        seen = self._at.get(section)
        if seen is None or seen[0] != len(code):          # (more code decoded since: the cycles again)
            seen = self._at[section] = (len(code), _cycles(code))
        body = seen[1].get(addr)
        return Loop(section, addr, body, frames) if body is not None else None


def _successors(d: Decoded, code: dict[int, Decoded]) -> list[int]:
    if d.mnemonic in ("ret", "hlt", "ud2"):
        return []
    if d.mnemonic == "jmp":
        return [d.target] if d.target is not None and d.target in code else []
    out = [d.target] if d.mnemonic in BRANCHES and d.target is not None and d.target in code else []
    return out + ([d.next] if d.next in code else [])


def _calls_known(d: Decoded) -> bool:
    names = {d.bound} | ({d.imm_ref.region[4:]} if d.imm_ref is not None and
                         not d.imm_ref.region.startswith("sec:") else set())
    return d.mnemonic == "call" and any(n in KNOWN and KNOWN[n].returns not in ("dst", "nothing") for n in names)


def _cycles(code: dict[int, Decoded]) -> dict[int, frozenset[int]]:
    """Each instruction of a cycle through a call to a known function with an unknown result -> the cycle's
    instructions: the call's strongly connected component, what it reaches that reaches it back."""
    succ = {a: _successors(d, code) for a, d in code.items()}
    pred: dict[int, list[int]] = {}
    for a, ss in succ.items():
        for b in ss:
            pred.setdefault(b, []).append(a)
    out: dict[int, frozenset[int]] = {}
    for call in (a for a, d in code.items() if _calls_known(d) and a not in out):
        body = _reach(call, succ) & _reach(call, pred)
        if len(body) > 1:
            out.update((a, frozenset(body)) for a in body)
    return out


def _reach(start: int, edges: dict[int, list[int]]) -> set[int]:
    seen, work = {start}, [start]
    while work:
        for b in edges.get(work.pop(), ()):
            if b not in seen:
                seen.add(b)
                work.append(b)
    return seen


# -- the invariant --------------------------------------------------------------------------------------------
def _same(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, Int):
        return a.v.eq(b.v) or z3.simplify(a.v).eq(z3.simplify(b.v))
    if isinstance(a, Ptr):
        return a.region == b.region and (a.off.eq(b.off) or z3.simplify(a.off).eq(z3.simplify(b.off)))
    if type(a) is Opq:
        return a.name == b.name
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Opq):                   # (a DataPair: by identity)
        return False
    return a == b


def _fresh_width(e) -> int | None:
    """The width of the summary's unknown ``e`` is (a ``loop@`` constant, or one zero-extended), else None."""
    if z3.is_app_of(e, z3.Z3_OP_ZERO_EXT):
        e = e.arg(0)
    return e.size() if z3.is_const(e) and e.decl().name().startswith(HAVOC) else None


def _top(v) -> bool:
    return type(v) is Opq and f"[{HAVOC}" in v.name


def _upper_zero(v: Int, width: int) -> bool:
    size = v.v.size()
    return width >= size or z3.is_bv_value(z3.simplify(z3.Extract(size - 1, width, v.v))) and \
        z3.simplify(z3.Extract(size - 1, width, v.v)).as_long() == 0


def _lane_fresh(x) -> bool:
    node = getattr(x, "node", None)
    return node is not None and node.op == "var" and HAVOC in str(node.payload)


class _Invariant:
    """The summary state being built: each location's value at its start (``at``), the widened integers' sets of
    values (``sets``: a few constants, e.g. a flag the loop sets to 0, 1 or 2) and the facts they add to ``S0``'s
    path condition (``facts``)."""

    def __init__(self, s0, head: int, bits: int, read_only: Callable) -> None:
        self.at: dict[tuple, object] = {("reg", r): v for r, v in s0.regs.items()}
        self.at.update({("mem", k): v for k, (v, _) in s0.mem.items()})
        self.sizes = {k: size for k, (_, size) in s0.mem.items()}
        self.lanes: dict[str, tuple] = {}
        self.sets: dict[str, frozenset[int]] = {}
        self.facts: list = []
        self.head, self.bits, self.read_only = head, bits, read_only

    def copy(self) -> "_Invariant":
        other = _Invariant.__new__(_Invariant)
        other.__dict__.update({k: (type(v)(v) if isinstance(v, (dict, list)) else v) for k, v in self.__dict__.items()})
        return other

    def covered(self, v, h, key, cond: list) -> bool:
        """Whether the value ``v`` a ``back`` state (path condition ``cond``) leaves is one ``h`` stands for."""
        if v is h:                      # (what the iteration left untouched: most locations)
            return True
        if h is _ABSENT:
            # (an unread word of external data is a new input; a read-only word is the file's constant)
            return v is _ABSENT or (key is not None and (key[0].startswith("ext:") or self.read_only(key)))
        if _top(h):
            return True
        if v is _ABSENT:
            return False
        if isinstance(h, Int) and (w := _fresh_width(h.v)) is not None:
            if not (isinstance(v, Int) and _upper_zero(v, w)):
                return False
            values = self.sets.get(_fresh_name(h.v))
            if values is None or _same(v, h) or _constant(v) in values:
                return True
            member = z3.Or(*[v.v == z3.BitVecVal(c, self.bits) for c in sorted(values)])
            s = z3.Solver()
            s.set("timeout", 5000)
            s.add(*cond, z3.Not(member))
            return s.check() == z3.unsat
        if isinstance(h, Ptr) and _fresh_width(h.off) is not None:
            return isinstance(v, Ptr) and v.region == h.region
        if isinstance(h, tuple) and isinstance(v, tuple) and len(h) == len(v):
            return all(_lane_fresh(y) or _same(x, y) for x, y in zip(v, h))
        return _same(v, h)

    def widen(self, h, v, what: str, key):
        """The summary's value for a location holding ``h`` at its start and ``v`` at a ``back`` state (module
        docstring); a vector register's is a tuple of lane names (``Havoc.lanes``)."""
        name = f"{HAVOC}0x{self.head:x}#{next(_FRESH)} {what}"
        bits = self.bits
        if key is not None and key[0].startswith("ext:"):
            return _ABSENT
        if isinstance(h, Int) and isinstance(v, Int):
            w = 32 if bits == 64 and _upper_zero(h, 32) and _upper_zero(v, 32) else bits
            x = z3.BitVec(name, w)
            held = self.sets.get(_fresh_name(h.v)) if _fresh_width(h.v) else {_constant(h)} - {None}
            values = (held or set()) | {_constant(v)}
            if held and None not in values and len(values) <= MAX_VALUES:
                # (a few constants: the integer is one of them, a fact of the summary state)
                self.sets[name] = frozenset(values)
                self.facts.append(z3.Or(*[x == z3.BitVecVal(c, w) for c in sorted(values)]))
            return Int(z3.ZeroExt(bits - w, x) if w < bits else x)
        if isinstance(h, Ptr) and isinstance(v, Ptr) and h.region == v.region and read_only_string(h.region):
            return Ptr(h.region, z3.BitVec(name, bits))
        if isinstance(v, tuple):
            return tuple(f"{name}.{j}" for j in range(len(v)))
        return Opq(f"{what} [{name}: any value the loop leaves]")

    def grow(self, st, machine_for: Callable) -> bool:
        """Widen every location ``st`` (a ``back`` state) leaves uncovered; True when one was."""
        here = {("reg", r): v for r, v in st.regs.items()}
        here.update({("mem", k): v for k, (v, _) in st.mem.items()})
        grown = False
        for loc in sorted(set(self.at) | set(here), key=repr):
            v = here.get(loc, _ABSENT)
            size = st.mem[loc[1]][1] if loc[0] == "mem" and loc[1] in st.mem else None
            grown = self._widen_at(loc, v, st, machine_for, size) or grown
        return grown

    def _widen_at(self, loc, v, st, machine_for: Callable, size: int | None) -> bool:
        key = loc[1] if loc[0] == "mem" else None
        h = self.at.get(loc, _ABSENT)
        if self.covered(v, h, key, st.cond):
            return False
        new = self.widen(h, v, f"%{loc[1]}" if key is None else f"{key[0]}{key[2]:+d}", key)
        if isinstance(new, tuple):           # (lane names: the domain's unknowns of those names)
            self.lanes[loc[1]] = new
            new = tuple(machine_for(st).initial_reg(x) for x in new)
        self.at[loc] = new
        if size is not None:
            self.sizes[key] = size
        return True

    def shape(self, s0) -> tuple:
        """How this invariant widened ``S0``: (location, kind, what else) per widened location -- the hint the
        loop's next summary starts from (``prewiden``)."""
        out = []
        for loc, v in self.at.items():
            old = s0.regs.get(loc[1], _ABSENT) if loc[0] == "reg" else s0.mem.get(loc[1], (_ABSENT, 0))[0]
            size = self.sizes.get(loc[1]) if loc[0] == "mem" else None
            if v is old:
                continue
            if loc[0] == "reg" and loc[1] in self.lanes:
                out.append((loc, "lanes", len(v), size))
            elif isinstance(v, Int) and (w := _fresh_width(v.v)) is not None:
                out.append((loc, "int", (w, self.sets.get(_fresh_name(v.v))), size))
            elif isinstance(v, Ptr) and _fresh_width(v.off) is not None:
                out.append((loc, "ptr", None, size))
            else:
                out.append((loc, "absent" if v is _ABSENT else "top", None, size))
        return tuple(out)

    def prewiden(self, shape: tuple, s0, machine_for: Callable) -> None:
        """Widen ``S0``'s locations as the loop's last summary widened its own (``shape``): a start that covers
        ``S0`` as every widening does, which the rounds then check like any other -- a loop entered again on
        another path is usually summarized in one round instead of two."""
        for loc, kind, info, size in shape:
            h = self.at.get(loc, _ABSENT)
            if kind == "int" and isinstance(h, Int):
                width, values = info
                x = z3.BitVec(f"{HAVOC}hint", width)
                reps = [Int(z3.BitVecVal(c, self.bits)) for c in sorted(values)] if values else \
                    [Int(z3.ZeroExt(self.bits - width, x) if width < self.bits else x)]
            elif kind == "ptr" and isinstance(h, Ptr):
                reps = [Ptr(h.region, z3.BitVec(f"{HAVOC}hint", self.bits))]
            elif kind == "lanes":
                reps = [(None,) * info]
            else:
                reps = [_ABSENT if kind == "absent" else Opq(f"[{HAVOC}hint]")]
            for v in reps:
                self._widen_at(loc, v, s0, machine_for, size)


def _constant(v) -> int | None:
    if isinstance(v, Int):
        c = z3.simplify(v.v)
        return c.as_long() if z3.is_bv_value(c) else None
    return None


def _fresh_name(e) -> str:
    if z3.is_app_of(e, z3.Z3_OP_ZERO_EXT):
        e = e.arg(0)
    return e.decl().name()


def summarize(explore: Callable, machine_for: Callable, s0, loop: Loop, stops: set[int], limit: int,
              read_only: Callable, hints: dict) -> tuple[list, list]:
    """The loop entered at ``s0``'s address, summarized (module docstring): the states leaving it (to be
    explored on) and the paths that ended inside it (exits, refusals). No invariant: refused by name. ``hints``:
    the shape of each loop's last summary (the proof's, ``paths.Program``), where the rounds start."""
    inv = _Invariant(s0, loop.head, machine_for(s0).bits, read_only)
    start = s0
    counts = (s0.results, s0.calls)
    if (loop.section, loop.head) in hints:
        inv.prewiden(hints[loop.section, loop.head], s0, machine_for)
        start = _summary_state(s0, inv, counts, loop.head, machine_for)
    for _ in range(MAX_ROUNDS):
        ends = explore(machine_for, start.copy(), stops, limit=limit, within=loop)
        grown = False
        for e in ends:
            if e.kind == "back":
                counts = (max(counts[0], e.state.results), max(counts[1], e.state.calls))
                grown = inv.grow(e.state, machine_for) or grown
        if not grown:
            hints[loop.section, loop.head] = inv.shape(s0)
            leaves = [e.state for e in ends if e.kind == "leave"]
            out = _exits(s0, inv, leaves, loop, machine_for)
            # (a PLT call in the body taken to this object's own definition: an assumption every exit states)
            bound = {d.bound for e in ends for d in e.state.trace if d.bound} | {b for e in ends for b in e.state.bound}
            for st in out:
                st.bound = tuple(sorted(set(st.bound) | bound))
            return out, [e for e in ends if e.kind not in ("back", "leave")]
        start = _summary_state(s0, inv, counts, loop.head, machine_for)
    raise Refused(None, f"the loop at 0x{loop.head:x} calls a known function (a walk over input the environment "
                        f"gives) and no summary of it holds after {MAX_ROUNDS} widenings", "loop shape")


def _summary_state(s0, inv: _Invariant, counts: tuple, at: int, machine_for: Callable):
    """``S0`` made the state ``inv`` describes at address ``at`` (of ``S0``'s section): a ``Havoc`` in its trace."""
    hv = _havoc(s0, inv, counts, at)
    st = s0.copy()
    st.pc_addr = (s0.pc_addr[0], at)
    st.trace.append(hv)
    st.steps += 1
    st.cond.extend(inv.facts)
    apply(machine_for(st), hv)
    return st


def _exits(s0, inv: _Invariant, leaves: list, loop: Loop, machine_for: Callable) -> list:
    """The states leaving the loop, those at one address of its function joined into one (the invariant widened
    until it covers each, as ``back`` states are covered): the last iteration's paths differ in what they
    compared (nettle: which token the last one was), and each would be a path of everything after the loop.
    Joined, the last iteration's path conditions are dropped (facts of its own unknowns, never of values made
    before the loop): the joined state covers every leaving state, so every real run leaving there. A state
    leaving by a return (another frame) goes on as it is."""
    out: list = []
    groups: dict[int, list] = {}
    for st in leaves:
        if st.frames == loop.frames and st.pc_addr[0] == loop.section:
            groups.setdefault(st.pc_addr[1], []).append(st)
        else:
            out.append(st)
    for at, group in groups.items():
        joined = inv.copy()
        for st in group:
            joined.grow(st, machine_for)
        counts = (max(st.results for st in group), max(st.calls for st in group))
        out.append(_summary_state(s0, joined, counts, at, machine_for))
    return out


def one_value(pm, e: z3.BitVecRef) -> z3.BitVecRef:
    """An index register's value ``e`` over a summary's integers of a few values (``MAX_VALUES``; nettle's
    ``mov 0x10(%rsp,%rdx,8),%rcx`` with %edx the flag the loop set to 0, 1 or 2) as the one constant it is on
    this path: exploring, the path forks once per value (the fork runs the instruction again, ``refetch``, and
    takes the next); replaying, the path condition says which. Any other ``e`` unchanged."""
    if z3.is_bv_value(z3.simplify(e)) or HAVOC not in str(e):
        return e
    s = z3.Solver()
    s.set("timeout", 5000)
    s.add(*pm.axioms, *pm.s.cond)
    values: list[int] = []
    while len(values) <= MAX_VALUES and s.check() == z3.sat:
        c = s.model().eval(e, model_completion=True).as_long()
        values.append(c)
        s.add(e != z3.BitVecVal(c, e.size()))
    if len(values) > MAX_VALUES or s.check() != z3.unsat:
        return e
    pm.refetch = pm.decide is not None
    for c in values[:-1]:
        if (pm.implies(e == c) if pm.decide is None else pm.decide(e == c)):
            return z3.BitVecVal(c, e.size())
    if pm.decide is not None:
        pm.s.cond.append(e == values[-1])
    return z3.BitVecVal(values[-1], e.size())


def _havoc(s0, inv: _Invariant, counts: tuple, head: int) -> Havoc:
    regs, mem, drop = [], [], []
    for loc, v in inv.at.items():
        if loc[0] == "reg":
            if loc[1] not in inv.lanes and v is not s0.regs.get(loc[1], _ABSENT):
                regs.append((loc[1], v))
            continue
        old = s0.mem.get(loc[1], (_ABSENT, 0))[0]
        if v is _ABSENT and old is not _ABSENT:
            drop.append(loc[1])
        elif v is not old and v is not _ABSENT:
            mem.append((loc[1], v, inv.sizes[loc[1]]))
    return Havoc(head, 0, "havoc", Instr("havoc", ()), f"(the summary of the loop at 0x{head:x})", 0,
                 regs=tuple(regs), lanes=tuple(inv.lanes.items()), mem=tuple(mem), drop=tuple(drop),
                 results=counts[0], calls=counts[1] + 1)


__all__ = ["HAVOC", "Havoc", "Loop", "Loops", "MAX_ROUNDS", "MAX_VALUES", "apply", "one_value", "summarize"]
