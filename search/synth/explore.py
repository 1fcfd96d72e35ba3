"""Exhaustive enumeration of straight-line x86 code over a *lane abstraction* (the engine of ``synth``).

The question this module answers: is there a sequence of at most ``n``
instructions from a fixed vocabulary (``x86.Instr`` values) that leaves the
target formula in an allowed output register, and which sequences of the
first length that works are candidates? Candidates are then screened and
proved by ``cegis.py``; this module only ever *refutes* (claims that no
sequence exists), and that claim is exact, as argued below.

Lanes. The search runs on a *lane abstraction* (``lanes.py``: a ``Lane`` observes
the low ``w`` bits of every register under one input assignment; narrow lanes
are exact for T-functions): ``alpha(i(S)) = i(alpha(S))`` for every instruction i
of the vocabulary, which is all the argument below needs of it.

Search. Breadth-first over abstract states, each kept at the first depth it
is reached: partial programs are equivalent when their values on the tests
are (Massalin, "Superoptimizer", ASPLOS 1987; Souper, Sasnauskas et al.,
arXiv:1711.04422, 2017). Pruning, every rule justified by "any solution can
be rewritten into one of no greater length that obeys it":

* no dead writes: a register written and not read since may not be
  overwritten by an instruction that does not read it, and at the goal only
  the output register may hold an unread value (deleting a dead write keeps
  the result and shortens the code); ``xor r,r`` reads nothing;
* partial-order reduction (Godefroid, LNCS 1032, 1996): two adjacent
  independent instructions (neither writes what the other reads or writes)
  appear with the lower-index destination first (swapping them changes
  nothing; bubble-sorting ends);
* temporaries are interchangeable: temp i+1 is first written after temp i;
  an unwritten temporary is never read (only ``xor t,t`` may name one) --
  code that reads an undefined register is outside the search space;
* canonical operands: ``lea (x,y)`` with x <= y; no ``and/or/mov r,r``
  (no-ops) and only ``xor r,r`` of the two zero idioms;
* no recomputation: an instruction that leaves the state as it was, or
  recreates a state met at a smaller depth, is dropped by the first-depth
  rule above;
* the last instruction writes the output (else the goal held one step
  earlier); a state with more unread values than remaining steps + 1 is cut
  (an instruction consumes at most two and produces one);
* information loss (a concrete witness): the first ``2**n`` lanes are the
  "pure" rows, every input all-zeros or all-ones; if two rows that differ in
  one input agree in every register but the target differs between them, no
  continuation can separate them, so the state is cut.

Metadata that is not part of a state's key (unread-register mask, the
partial-order summary) is merged by AND over every path that reaches the
state at its depth: a merged node allows whatever any of its paths allows.
The key is the writable registers' cells plus which temporaries are written;
the layer stores (``layers.py``) keep exactly that key and that merge.

Why "no abstract goal at depth <= n" proves "no real sequence of length
<= n", for ANY lane set (the search space: sequences over the vocabulary
that never read an unwritten temporary): let Q be a shortest sequence of the
space whose abstract run ends in an abstract goal (a real solution's run
does), put into the canonical form above (no longer, so still shortest). If one of Q's abstract states were
first reached at a smaller depth by another path R, R followed by the rest
of Q would be shorter (and still in the space: the written-temps mask is in
the key) -- so every state of Q sits at its own depth, each of Q's steps is
allowed by the merged metadata (weaker than Q's own), the pruning rules never
cut it (Q obeys them), and the search meets the goal at depth len(Q).
The same argument shows that at the *first* depth with abstract goals every
real minimal sequence (in canonical form) is a path through the stored
layers, so ``minimal_paths`` enumerates all of them (plus spurious paths,
which the caller refutes). If every path there is spurious, the caller adds
lanes that refute them and searches again -- counterexample-guided
refinement (CEGIS, Solar-Lezama et al., ASPLOS 2006): spurious short paths
may hide real longer ones, so the refined search restarts from depth 0.

"No length works" (``closed``): when a depth adds no new state, every
reachable abstract state has been enumerated and none is a goal. The only
pruning rule that depends on ``max_len`` is the unread-values bound, so the
claim is made only when that bound never cut a state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sha1opt.search.synth.canonical import value_reads
from sha1opt.search.synth.lanes import T_FUNCTION_MNEMONICS, Lane, LaneEval, Layout, PackedDomain
from sha1opt.search.synth.layers import LayerShape, LayerStore, States, Step, open_store
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import Term, evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.x86 import Instr, writes

U64 = np.uint64

@dataclass(frozen=True)
class Space:
    """What may be enumerated (see ``targets.space_for``).

    ``home`` maps each input variable to its register; ``writable`` lists the
    registers the code may write, in partial-order-reduction order (temps in
    ``temps`` order among them); ``outputs`` the writable registers that may
    hold the result at the end; ``vocabulary`` every instruction that may be
    used (each writes one writable register).
    """

    variables: tuple[str, ...]
    home: dict[str, str]
    temps: tuple[str, ...]
    writable: tuple[str, ...]
    outputs: tuple[str, ...]
    vocabulary: tuple[Instr, ...]
    target: Term

    @property
    def narrow_ok(self) -> bool:
        """True when lanes narrower than 32 bits are exact for every instruction."""
        return all(i.mnemonic in T_FUNCTION_MNEMONICS for i in self.vocabulary)


@dataclass
class Exploration:
    """The outcome of one search with one lane set.

    ``status``: "goal" (abstract goals first met at ``depth``), "exhausted"
    (no abstract goal at any depth <= ``depth``; ``closed`` when no new state
    existed at all, so no length works), or "timeout" (depths <= ``depth``
    exhausted, the next one unfinished). ``layer_sizes``: distinct states
    stored per depth.
    """

    status: str
    depth: int
    closed: bool = False
    layer_sizes: list[int] = field(default_factory=list)
    seconds: float = 0.0
    _engine: "_Engine | None" = field(default=None, repr=False)
    _goal_edges: list[tuple[int, int]] = field(default_factory=list, repr=False)
    reason: str = ""


class _Stop(Exception):
    """The search ran out of time or of its memory budget; the message says which."""


_POPCOUNT16 = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int64)


class _Engine:
    """One search: the space compiled against one layout (see ``explore``)."""

    def __init__(self, space: Space, layout: Layout, max_len: int, deadline: float | None,
                 memory_limit: float, store: str = "auto") -> None:
        if not space.narrow_ok and not layout.full_width:
            raise Sha1optError("lanes narrower than 32 bits need a vocabulary of T-functions")
        self.space, self.layout, self.max_len, self.deadline = space, layout, max_len, deadline
        self.memory_limit = memory_limit
        self.dom = PackedDomain(layout)
        self.W = len(space.writable)
        if not 1 <= self.W <= 11:
            raise Sha1optError("the search needs 1 to 11 writable registers")
        self.nw = layout.nwords
        self.widx = {r: i for i, r in enumerate(space.writable)}
        self.temp_bits = {t: 1 << self.widx[t] for t in space.temps}
        self.out_mask = sum(1 << self.widx[r] for r in space.outputs)
        self.pairs = {(d, D): p for p, (d, D) in
                      enumerate((d, D) for d in range(self.W) for D in range(d + 1, self.W))}
        cols = list(zip(*[lane.inputs for lane in layout.lanes]))
        self.var_words = {v: layout.pack(cols[i]) for i, v in enumerate(space.variables)}
        self.readonly = {space.home[v]: self.var_words[v] for v in space.variables
                         if space.home[v] not in self.widx}
        per_lane = evaluate([space.target], LaneEval(),
                            lambda name: [lane.inputs[space.variables.index(name)] for lane in layout.lanes])[0]
        self.target = layout.pack(per_lane)
        self.steps = [self._compile(i) for i in space.vocabulary]
        self._witness_setup()
        self.bound_cut = False
        shape = LayerShape(self.W, self.nw, sum(lane.width for lane in layout.lanes), len(self.pairs),
                           tuple(self.widx[t] for t in space.temps))
        self.store: LayerStore = open_store(store, shape, self.check_memory)

    # -- compilation ---------------------------------------------------------
    def _compile(self, ins: Instr) -> Step:
        dsts = writes(ins)
        if len(dsts) != 1 or next(iter(dsts)) not in self.widx:
            raise Sha1optError(f"vocabulary instruction {ins} must write one writable register")
        dname = next(iter(dsts))
        d = self.widx[dname]
        rd = value_reads(ins)
        for r in rd:
            if r not in self.widx and r not in self.readonly:
                raise Sha1optError(f"vocabulary instruction {ins} reads {r}, which holds no input")
        reads_w = sum(1 << self.widx[r] for r in rd if r in self.widx)
        need = sum(self.temp_bits[t] for t in self.space.temps if t in rd)
        sym = 0
        if dname in self.space.temps:
            k = self.space.temps.index(dname)
            if k > 0:
                sym = self.temp_bits[self.space.temps[k - 1]]
        forbid = sum(1 << self.pairs[d, D] for D in range(d + 1, self.W) if not reads_w >> D & 1)
        post = sum(1 << self.pairs[dp, d] for dp in range(d) if not reads_w >> dp & 1)
        return Step(ins, d, reads_w, need, sym, self.temp_bits.get(dname, 0), forbid, post)

    def _witness_setup(self) -> None:
        """Pairs of pure rows for the information-loss cut (see the module docstring)."""
        self.witness: list[tuple[int, int, int]] = []   # (partner shift, row flags, rows where the target differs)
        n = len(self.space.variables)
        lanes = self.layout.lanes
        rows = 2 ** n
        if rows > len(lanes):
            return
        w0 = lanes[0].width
        if rows * w0 > 64 or any(lanes[j].width != w0 or self.layout.word[j] != 0 for j in range(rows)):
            return
        full = (1 << w0) - 1
        for j in range(rows):
            if tuple(x & full for x in lanes[j].inputs) != tuple(full if j >> i & 1 else 0 for i in range(n)):
                return
        self.pure_low = U64(sum(((1 << (w0 - 1)) - 1) << (j * w0) for j in range(rows)))
        self.pure_high = U64(sum(1 << (j * w0 + w0 - 1) for j in range(rows)))
        tword = self.target[:1]
        for i, v in enumerate(self.space.variables):
            if self.space.home[v] not in self.widx:
                continue  # a read-only register keeps telling the two rows apart
            shift = (1 << i) * w0
            flags = sum(1 << (j * w0 + w0 - 1) for j in range(rows) if not j >> i & 1)
            tdiff = int(self._nonzero(tword ^ (tword >> U64(shift)))[0]) & flags
            if tdiff:
                self.witness.append((shift, flags, tdiff))

    def _nonzero(self, d: np.ndarray) -> np.ndarray:
        """Per pure cell of word 0: its top bit set iff any bit of the cell is set."""
        return (((d & self.pure_low) + self.pure_low) | d) & self.pure_high

    def eqflags(self, word0: np.ndarray, shift: int, flags: int) -> np.ndarray:
        return ~self._nonzero(word0 ^ (word0 >> U64(shift))) & U64(flags)

    # -- expansion ---------------------------------------------------------------
    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Stop("time limit")

    def check_memory(self, nbytes: float) -> None:
        """Refuse to grow past ``memory_limit`` (an estimate of the arrays the search holds)."""
        if nbytes > self.memory_limit:
            raise _Stop(f"memory budget {self.memory_limit / 1e9:.1f} GB reached")

    def applicable(self, step: Step, st: States) -> np.ndarray:
        ok = np.ones(len(st), dtype=bool)
        if step.need_written:
            ok &= (st.written & step.need_written) == step.need_written
        if step.sym:
            ok &= (st.written & step.sym) != 0
        if not step.reads_w >> step.dst & 1:
            ok &= (st.pending >> step.dst & 1) == 0
        if step.forbid:
            ok &= (st.por & step.forbid) == 0
        return ok

    def evaluate(self, step: Step, values: np.ndarray) -> np.ndarray:
        """The destination's new cells after ``step`` on every state of ``values`` (S, W, nwords)."""
        regs = {r: values[:, i, :] for i, r in enumerate(self.space.writable)}
        regs.update(self.readonly)

        def missing(name: str):
            raise Sha1optError(f"{step.ins} reads {name}, which holds no input")

        m = Machine(self.dom, initial_reg=missing, initial_mem=lambda *a: missing("memory"), regs=regs)
        _, value = m.step(step.ins)
        return np.broadcast_to(value, (len(values), self.nw))

    def witness_flags(self, st: States) -> list[list[np.ndarray]] | None:
        if not self.witness:
            return None
        return [[self.eqflags(st.values[:, w, 0], s, f) for w in range(self.W)] for s, f, _ in self.witness]

    def children(self, step: Step, st: States, depth: int, eq, goals_only: bool = False):
        """Applicable, unpruned children of ``st`` by ``step``: (rows, new cells, goal mask, pending after)."""
        ok = self.applicable(step, st)
        if not ok.any():
            return None
        rows = np.nonzero(ok)[0]
        if 2 * len(rows) > len(ok):
            new = self.evaluate(step, st.values)[rows]   # cheaper than gathering the states first
        else:
            new = self.evaluate(step, st.values[rows])
        d = step.dst
        pend = (st.pending[rows] & ~step.reads_w) | (1 << d)
        goal = np.zeros(len(rows), dtype=bool)
        if self.out_mask >> d & 1:
            # At the goal only the output may hold a value nobody read.
            hit = new[:, 0] == self.target[0]
            for j in range(1, self.nw):
                hit &= new[:, j] == self.target[j]
            goal = hit & ((pend & ~(1 << d)) == 0)
        if depth == self.max_len or goals_only:
            return rows, new, goal, pend
        # An instruction consumes at most two unread values and leaves one.
        keep = _POPCOUNT16[pend] <= self.max_len - depth + 1
        if not self.bound_cut and not keep.all():
            self.bound_cut = True   # a cut that depends on max_len: no "closed" claim
        if eq is not None:
            w0 = new[:, 0]
            for k, (shift, flags, tdiff) in enumerate(self.witness):
                same = self.eqflags(w0, shift, flags)
                for w in range(self.W):
                    if w != d:
                        same = same & eq[k][w][rows]
                keep &= (same & U64(tdiff)) == 0
        keep |= goal
        return rows[keep], new[keep], goal[keep], pend[keep]


def explore(space: Space, lanes: Sequence[Lane], max_len: int, deadline: float | None = None,
            memory_limit: float = 3e9, store: str = "auto") -> Exploration:
    """Breadth-first search up to ``max_len`` instructions (see the module docstring).

    Stops with status "timeout" (``reason`` says: time limit or memory budget)
    when ``time.monotonic()`` passes ``deadline`` or the search would hold more
    than about ``memory_limit`` bytes of states. ``store`` picks the layer
    storage ("auto": packed when it fits); both give the same layers.
    """
    if max_len < 0:
        raise Sha1optError("max_len must be >= 0")
    t0 = time.perf_counter()
    eng = _Engine(space, Layout(lanes), max_len, deadline, memory_limit, store)
    W, nw = eng.W, eng.nw
    values = np.zeros((1, W, nw), dtype=U64)
    for v in space.variables:
        if space.home[v] in eng.widx:
            values[0, eng.widx[space.home[v]], :] = eng.var_words[v]
    zero = np.zeros(1, dtype=np.int64)
    root = States(values, zero.copy(), zero.copy(), zero.copy())
    store = eng.store
    store.start(root)
    exp = Exploration("exhausted", 0, layer_sizes=[1], _engine=eng)
    # Length 0: the target already sits in an output register.
    if any((values[0, eng.widx[r]] == eng.target).all() for r in space.outputs):
        exp.status = "goal"
        exp.seconds = time.perf_counter() - t0
        return exp
    try:
        for depth in range(1, max_len + 1):
            st = store.states(depth - 1)
            eq = eng.witness_flags(st)
            goals: list[tuple[int, int]] = []
            # First the instructions that write an output (only they can reach the goal: it did
            # not hold one step earlier); the rest of the level is built only if none does.
            # (Their children are computed again below rather than kept: that costs less than the memory.)
            for s, step in enumerate(eng.steps):
                if eng.out_mask >> step.dst & 1:
                    eng.check_time()
                    got = eng.children(step, st, depth, eq, goals_only=True)
                    if got is not None:
                        goals.extend((int(r), s) for r in got[0][got[2]])
            if not goals and depth < max_len:
                for s, step in enumerate(eng.steps):
                    eng.check_time()
                    got = eng.children(step, st, depth, eq)
                    if got is not None:
                        rows, new, _, pend = got
                        store.collect(depth - 1, step, rows, new, pend, st)
            if goals:
                exp.status, exp.depth, exp._goal_edges = "goal", depth, goals
                break
            exp.depth = depth
            if depth == max_len:
                break
            eng.check_time()
            size = store.finish_level()
            exp.layer_sizes.append(size)
            if size == 0:
                # Every reachable state is enumerated; "no length works" holds only if no
                # state was cut for lack of remaining steps.
                exp.closed, exp.depth = not eng.bound_cut, max_len
                break
    except _Stop as stop:
        exp.status, exp.reason = "timeout", str(stop)
        exp.depth = len(exp.layer_sizes) - 1
    exp.seconds = time.perf_counter() - t0
    return exp


@dataclass(frozen=True)
class GoalPaths:
    """Paths to an abstract goal at the goal depth: how many there are, and up to a limit of them.

    ``stopped`` is non-empty (the reason) when the deadline passed first; then
    ``paths`` is empty and ``total`` is 0.
    """

    total: int
    paths: list[tuple[Instr, ...]]
    stopped: str = ""


def minimal_paths(exp: Exploration, limit: int) -> GoalPaths:
    """Every path to an abstract goal at ``exp.depth`` (counted), listing up to ``limit`` of them.

    Re-expands each stored layer once to find all edges into the states the
    goal paths pass through (the forward search keeps states, not parents).
    Honours the exploration's deadline.
    """
    if exp.status != "goal":
        raise Sha1optError("minimal_paths needs an exploration that reached a goal")
    try:
        total, paths = _paths(exp, limit)
    except _Stop as stop:
        return GoalPaths(0, [], str(stop))
    return GoalPaths(total, paths)


def _paths(exp: Exploration, limit: int) -> tuple[int, list[tuple[Instr, ...]]]:
    eng = exp._engine
    n = exp.depth
    if n == 0:
        return 1, [()]
    store = eng.store
    # edges[k]: (row in layer k, step, row in layer k+1; 0 for the goal)
    edges: dict[int, list[tuple[int, int, int]]] = {n - 1: [(p, s, 0) for p, s in exp._goal_edges]}
    needed = np.unique(np.array([p for p, _ in exp._goal_edges], dtype=np.int64))
    for k in range(n - 1, 0, -1):
        match = store.matcher(k, needed)
        st = store.states(k - 1)
        eq = eng.witness_flags(st)
        found: list[tuple[int, int, int]] = []
        for s, step in enumerate(eng.steps):
            eng.check_time()
            got = eng.children(step, st, k, eq)
            if got is None:
                continue
            rows, new, _, _ = got
            hit, idx = match(step, rows, new, st)
            found.extend((int(r), s, int(c)) for r, c in zip(rows[hit], idx[hit]))
        edges[k - 1] = found
        needed = np.unique(np.array([p for p, _, _ in found], dtype=np.int64))
    # Count paths (dynamic programming from the goal side) and list up to ``limit`` of them.
    ways: dict[tuple[int, int], int] = {}
    for p, _, _ in edges[n - 1]:
        ways[(n - 1, p)] = ways.get((n - 1, p), 0) + 1
    for k in range(n - 2, -1, -1):
        for p, _, c in edges[k]:
            ways[(k, p)] = ways.get((k, p), 0) + ways.get((k + 1, c), 0)
    out_edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for k, es in edges.items():
        for p, s, c in es:
            out_edges.setdefault((k, p), []).append((s, c))
    paths: list[tuple[Instr, ...]] = []
    stack: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
    while stack and len(paths) < limit:
        k, node, prefix = stack.pop()
        for s, c in reversed(out_edges.get((k, node), [])):
            if k == n - 1:
                paths.append(tuple(eng.steps[i].ins for i in prefix + (s,)))
                if len(paths) >= limit:
                    break
            elif ways.get((k + 1, c), 0):
                stack.append((k + 1, c, prefix + (s,)))
    return ways.get((0, 0), 0), paths
