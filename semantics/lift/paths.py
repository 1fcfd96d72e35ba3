"""Paths through a function: the executor's state, the code it fetches, and exploration with forks.

``explore(machine_for, start, stops)`` runs from ``start`` until each path
returns to the caller (``exit``), reaches a stop address (a loop head),
is refused (``refused``), breaks the contract (``violation``) or exceeds
the step limit (``limit``) -- each of these three with its ``category``
(``values.CATEGORIES``: the refusal's, ``"contract"``, ``"limit"``); at a
conditional branch both of whose directions are possible under the path
condition (z3), the path forks -- and so does a
``cmov`` on counts or pointers, whose fork gets the other value, a ``set<cc>`` on an undecided condition, whose
fork gets the other of 0 and 1, and a jump through a
function pointer, whose fork runs the jump again for the pointer's next value. A forked path may
stop at its very first address (the loop head right after the back edge). A path entering a cycle that calls
a known function (a walk over an environment string, ``summary``) goes on from the loop's summary: the states
leaving it, each covering every trip count.

Example: the project's own export explored from its entry with the loop head
as stop gives two ends: ``exit`` under ``n == 0`` and ``head`` under ``n != 0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.lift.calls import Outside
from sha1opt.semantics.lift.canary import CANARY_REGION
from sha1opt.semantics.lift.decode import Decoded, Function, decode_reachable
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.statics import own_scratch, own_static
from sha1opt.semantics.lift.summary import Loop, Loops, summarize
from sha1opt.semantics.lift.values import Category, Flags, Refused, Violation

# The most values a function's own static may be found to hold (``Program.widen``): a flag set on first use has 2.
MAX_STATIC_VALUES = 4


@dataclass
class State:
    pc_addr: tuple[str, int]                      # (section, offset) of the next instruction
    regs: dict[str, object] = field(default_factory=dict)
    mem: dict[tuple[str, str, int], tuple[object, int]] = field(default_factory=dict)  # -> (value, size)
    flags: Flags | None = None
    cond: list = field(default_factory=list)      # path condition (z3 booleans)
    trace: list[Decoded] = field(default_factory=list)
    steps: int = 0
    frames: tuple[tuple[str, int], ...] = ()       # the local functions being called (``calls``), innermost last
    pointers: tuple[tuple[str, str], ...] = ()     # (function pointer, the value this path took), ``calls``
    calls: int = 0                                 # calls that may change external data (``calls.Known``)
    results: int = 0                               # known calls whose result or output is a new unknown
    bound: tuple[str, ...] = ()                    # globals a pointer's value took (``pointers.Target.bound``)
    # per symbolic stack part, the constant span [lo, end) proved inside the own frame on this path
    # (``memory._in_own_frame``: a path's condition only grows, so what it proved holds on for its forks)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    # the masks of undecided comparisons of block counts in vector lanes (``vectors.CountLanes``): name -> (the
    # data value standing for the mask, the z3 condition under which it is all ones; else it is 0)
    masks: dict[str, tuple[object, object]] = field(default_factory=dict)
    # (call depth, section, offset) of the code this path's indirect jumps went to (``control``: one jumped to
    # twice in the same call is refused, a loop through a function pointer: a resolver that finds the pointer
    # unchanged and jumps through it again; a local call's entries go when it returns, ``calls.leave_local``)
    jumped: tuple[tuple[int, str, int], ...] = ()
    # the environment variables this path read by a constant name (``calls``: getenv's): (name, the z3 boolean
    # "returns NULL", the prefix of its string's byte unknowns) -- what a native run sets to take the path
    # (``witness``)
    environment: tuple[tuple[str, object, str], ...] = ()

    def copy(self) -> "State":
        return State(self.pc_addr, dict(self.regs), dict(self.mem), self.flags, list(self.cond), list(self.trace),
                     self.steps, self.frames, self.pointers, self.calls, self.results, self.bound, dict(self.spans),
                     dict(self.masks), self.jumped, self.environment)


class Program:
    """The decoded code of one object, fetched by (section, offset): other functions decoded on demand, by
    their symbol's extent, and code no symbol covers (a stripped function a direct jump or call enters) by
    what is reachable from the address (``decode.decode_reachable``)."""

    def __init__(self, obj: ObjectFile, fn: Function, decode: Callable, *, statics: bool = False) -> None:
        self.obj = obj
        self.fn = fn
        self._decode = decode
        self._by_section: dict[str, dict[int, Decoded]] = {fn.section: dict(fn.instructions)}
        # ``statics`` (a one-block proof): the function's own statics (``statics.own_static``) -> the values
        # assumed at entry, grown by ``widen`` with each constant a path stored that was not among them
        self.statics: dict[tuple[str, int], tuple[str, frozenset[int]]] | None = {} if statics else None
        self._stored: dict[tuple[str, int], set[int]] = {}
        self.scratch: set[str] = set()         # the function's own static buffers a path stored to
        self._loops = Loops()
        self.summary_hints: dict = {}          # (section, head) -> how its last summary widened (``summary``)

    def loop_at(self, section: str, addr: int, frames: tuple) -> Loop | None:
        """The loop to summarize (``summary``) whose cycle holds ``section + addr``, else None."""
        return self._loops.at(section, self._by_section.get(section, {}), addr, frames)

    def read_only(self, key: tuple[str, str, int]) -> bool:
        """Whether memory ``key`` is a constant of the object's read-only data or the stack guard (never written: a
        store there is a violation), so a word not yet read stands for its value as well as one read."""
        region, rest, _ = key
        return region == CANARY_REGION or region.startswith("sec:") and not rest and region[4:] not in self.obj.writable

    def own_static(self, section: str, offset: int, size: int) -> tuple[str, frozenset[int]] | None:
        """The function's own static at ``section + offset`` -- a word only its code reads and writes, set on
        first use (Berkeley DB-style ``static int is_reverse = -1``) -- and the values it may hold at entry:
        its initial value and every constant the function stores there (``widen``), which each store is
        checked against (``memory``). By induction over calls, one at a time: no other thread or reentrant
        call runs the function meanwhile. None: not such a static (an input, ``statics.run_time_name``)."""
        if self.statics is None:
            return None
        if (section, offset) not in self.statics:
            own = own_static(self.obj, self.fn.symbol, section, offset, size)
            if own is None:
                return None
            self.statics[section, offset] = (own[0], frozenset({own[1]}))
        return self.statics[section, offset]

    def own_scratch(self, section: str, offset: int) -> str | None:
        """The function's own static buffer holding ``section + offset`` (``statics.own_scratch``) in a one-block
        proof -- stores to it allowed, a word not yet stored on the path an input of any value -- else None."""
        if self.statics is None:
            return None
        name = own_scratch(self.obj, self.fn.symbol, section, offset)
        if name is not None:
            self.scratch.add(name)
        return name

    def stored(self, section: str, offset: int, value: int) -> None:
        """A path stored ``value``, not among the values assumed at entry: ``widen`` adds it."""
        self._stored.setdefault((section, offset), set()).add(value)

    def widen(self) -> bool:
        """Add the values paths stored (``stored``) to those assumed; True when some static gained one (explore
        again), at most ``MAX_STATIC_VALUES`` values each (beyond, the stores stay refused)."""
        grown = False
        for key, new in self._stored.items():
            name, values = self.statics[key]
            if len(values | new) <= MAX_STATIC_VALUES:
                self.statics[key] = (name, values | new)
                grown = True
        self._stored = {}
        return grown

    def static_findings(self) -> list[str]:
        """One line per static of ``own_static``: the values the proof took it to hold at entry, and the
        assumption that makes them all it can hold."""
        return [f"{name} is a static only this function reads and writes, set on first use: at entry its "
                f"initial value or one the function stores ({', '.join(f'0x{v:x}' for v in sorted(values))}), "
                "assuming no other thread or reentrant call runs the function meanwhile"
                for name, values in (self.statics or {}).values()] + [
            f"{name} is a static buffer only this function uses: a word it reads before writing in the call is "
            "any value, assuming no other thread or reentrant call runs the function meanwhile"
            for name in sorted(self.scratch)]

    def fetch(self, section: str, addr: int) -> Decoded | None:
        got = self._by_section.get(section, {}).get(addr)
        if got is not None:
            return got
        sym = self.obj.covering(section, addr)
        known = self._by_section.setdefault(section, {})
        if sym is not None:
            known.update(self._decode(self.obj, self.obj.sized(sym)).instructions)
        elif section in self.obj.executable:
            known.update(decode_reachable(self.obj, section, {addr}, self.obj.lines, known))
        return known.get(addr)



@dataclass
class PathEnd:
    state: State
    kind: str                 # "exit" | "head" | "refused" | "violation" | "limit" (| "back" | "leave": ``within``)
    head: int | None = None
    reason: str = ""
    category: Category | None = None    # set exactly for "refused", "violation" and "limit"
    outside: str | None = None          # "refused" at a jump to this function outside the object (``calls.Outside``)


def explore(machine_for: Callable[[State], "object"], start: State, stops: set[int], *,
            limit: int = 200_000, first_stop_ok: bool = False, within: Loop | None = None) -> list[PathEnd]:
    """Every path from ``start`` to an exit, a stop address or a refusal (forking on undecided branches).

    A path entering a loop that walks input the environment gives (``Program.loop_at``) goes on from the loop's
    summary (``summary.summarize``): the states leaving it. ``within`` (the summary's rounds): a path in that
    loop's body ends ``back`` at its head and ``leave`` out of its cycle."""
    ends: list[PathEnd] = []
    work = [(start, first_stop_ok)]
    while work:
        st, started = work.pop()
        pm = machine_for(st)
        forks: list[State] = []

        def decide(c):
            yes = pm.possible(c)
            no = pm.possible(z3.Not(c))
            if yes and no:
                other = pm.s.copy()
                other.cond.append(z3.Not(c))
                forks.append(other)
                pm.s.cond.append(c)
                return True
            if not yes and not no:
                raise Refused(None, "path condition became unsatisfiable", "control flow")
            return yes

        try:
            while True:
                sec, addr = st.pc_addr
                if started and within is not None and (where := within.where(pm.s)) is not None:
                    ends.append(PathEnd(pm.s, where))
                    break
                if started and sec == pm.p.fn.section and addr in stops:
                    ends.append(PathEnd(pm.s, "head", addr))
                    break
                if started and (loop := pm.p.loop_at(sec, addr, pm.s.frames)) is not None and not (
                        within is not None and within.section == sec and addr in within.body
                        and within.frames == pm.s.frames) and not (sec == pm.p.fn.section and loop.body & stops):
                    # (a block loop's head in the cycle: its induction proves it, never a summary)
                    leaves, inside = summarize(explore, machine_for, pm.s, loop, stops, limit, pm.p.read_only,
                                               pm.p.summary_hints)
                    ends.extend(inside)
                    forks.extend(leaves)
                    break
                started = True
                d = pm.p.fetch(sec, addr)
                if d is None:
                    raise Refused(None, f"execution leaves the code at {sec}+0x{addr:x}", "control flow")
                pm.s.trace.append(d)
                pm.s.steps += 1
                if pm.s.steps > limit:
                    ends.append(PathEnd(pm.s, "limit", reason=f"more than {limit} instructions on one path",
                                       category="limit"))
                    break
                n_forks = len(forks)
                pm.alternative = None
                pm.refetch = False
                try:
                    pm.step(d, decide)
                finally:
                    if pm.refetch:
                        # a function pointer's other values: the fork (its state from before the instruction,
                        # copied when it forked) runs the instruction again and takes the next value -- also
                        # when this path's value ends it (refused)
                        for f in forks[n_forks:]:
                            f.pc_addr = (sec, d.address)
                            f.trace = list(pm.s.trace[:-1])
                            f.steps = pm.s.steps - 1
                for f in forks[n_forks:] if not pm.refetch else ():
                    if d.target is None:          # a cmov or set<cc>: same next address, the other value
                        f.pc_addr = pm.s.pc_addr
                    else:
                        f.pc_addr = (sec, d.next) if pm.s.pc_addr == (sec, d.target) else (sec, d.target)
                    f.trace = list(pm.s.trace)
                    f.steps = pm.s.steps
                    f.regs, f.mem, f.flags, f.masks = dict(pm.s.regs), dict(pm.s.mem), pm.s.flags, dict(pm.s.masks)
                    if pm.alternative is not None:
                        reg, value, width = pm.alternative
                        machine_for(f)._write(reg, value, width, d)
                if pm.exited:
                    ends.append(PathEnd(pm.s, "exit"))
                    break
                st = pm.s
        except Violation as e:
            ends.append(PathEnd(pm.s, "violation", reason=str(e), category=e.category))
        except Refused as e:
            ends.append(PathEnd(pm.s, "refused", reason=str(e), category=e.category,
                                outside=e.symbol if isinstance(e, Outside) and e.tail else None))
        except UnsupportedError as e:  # pragma: no cover - table misuse surfaces as a refusal
            ends.append(PathEnd(pm.s, "refused", reason=str(e), category="instruction"))
        work.extend((f, True) for f in forks)     # a fork is mid-path: its first address may be a stop
    return ends
