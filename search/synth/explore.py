"""Exhaustive enumeration of straight-line x86 code over a *lane abstraction* (the engine of ``synth``).

The question this module answers: is there a sequence of at most ``n``
instructions from a fixed vocabulary (``x86.Instr`` values) that leaves the
target formula in an allowed output register, and which sequences of the
first length that works are candidates? Candidates are then screened and
proved by ``synth.py``; this module only ever *refutes* (claims that no
sequence exists), and that claim is exact, as argued below.

Lanes. A ``Lane`` is one assignment of the input variables plus a width
``w``: the lane observes the low ``w`` bits of every register. Lanes are
packed into ``uint64`` words (``Layout``) and ``PackedDomain`` implements the
IR's ops on the packed cells (SWAR add/sub as in Hacker's Delight, 2nd ed.,
section 2-18; masked shifts), so the one x86 semantics table
(``x86.SEMANTICS``, run by ``machine.Machine``) evaluates an instruction on
millions of states at once. ``w < 32`` is allowed only when every op of the
vocabulary is a *T-function* (Klimov and Shamir, CHES 2002: bit k of a
result depends only on bits <= k of the operands -- add sub and or xor not
andn, lea with scale 1, shl); then truncating to w bits commutes with every
instruction. Rotates,
right shifts and bswap force ``w = 32``. The abstraction of a machine state
is the tuple of its registers' cells; ``alpha(i(S)) = i(alpha(S))`` for every
instruction i of the vocabulary.

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
The key is the writable registers' cells plus which temporaries are written.
Storage: when key and metadata fit one uint64 (``_PackedStore``) a layer is a
sorted array of such words -- exact; otherwise (``_HashedStore``) states are
found by a 64-bit hash and then compared word by word, so a hash collision
never merges two different states either.

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

from sha1opt.semantics.domain import Domain, NumpyDomain
from sha1opt.semantics.errors import Sha1optError, UnsupportedError
from sha1opt.semantics.ir import MASK32, Term, evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.x86 import Instr, reads, writes

U64 = np.uint64
_ONE = U64(1)

# Ops whose result bit k depends only on operand bits <= k; narrow lanes are
# exact for them (see the module docstring).
T_FUNCTION_MNEMONICS = frozenset({"mov", "add", "sub", "and", "or", "xor", "not", "andn", "lea", "shl"})


@dataclass(frozen=True)
class Lane:
    """One test input (a 32-bit value per variable, in ``Space.variables`` order), seen ``width`` bits wide."""

    inputs: tuple[int, ...]
    width: int

    def __post_init__(self) -> None:
        if not 1 <= self.width <= 32:
            raise Sha1optError(f"lane width {self.width} is outside 1..32")


class Layout:
    """Packs lanes into uint64 words: lane i occupies ``width`` bits at ``offset[i]`` of ``word[i]``.

    Invariant: no cell straddles a word, so SWAR arithmetic never carries
    from one lane into the next.
    """

    def __init__(self, lanes: Sequence[Lane]) -> None:
        if not lanes:
            raise Sha1optError("a layout needs at least one lane")
        self.lanes = tuple(lanes)
        self.word: list[int] = []
        self.offset: list[int] = []
        w, pos = 0, 0
        for lane in self.lanes:
            if pos + lane.width > 64:
                w, pos = w + 1, 0
            self.word.append(w)
            self.offset.append(pos)
            pos += lane.width
        self.nwords = w + 1
        self.cell = self._mask(lambda lane: (1 << lane.width) - 1)
        self.high = self._mask(lambda lane: 1 << (lane.width - 1))
        self.low = self.cell & ~self.high
        self.full_width = all(lane.width == 32 for lane in self.lanes)

    def _mask(self, per_lane) -> np.ndarray:
        out = [0] * self.nwords
        for i, lane in enumerate(self.lanes):
            out[self.word[i]] |= per_lane(lane) << self.offset[i]
        return np.array(out, dtype=U64)

    def mask_bits(self, lo: int, hi: int) -> np.ndarray:
        """Per cell, bits lo..hi-1 of the cell (clipped to its width)."""
        def bits(lane: Lane) -> int:
            a, b = min(lo, lane.width), min(hi, lane.width)
            return ((1 << b) - (1 << a)) if b > a else 0
        return self._mask(bits)

    def pack(self, values: Sequence[int]) -> np.ndarray:
        """One value per lane -> words (each value truncated to its lane's width)."""
        out = [0] * self.nwords
        for i, (lane, v) in enumerate(zip(self.lanes, values)):
            out[self.word[i]] |= (int(v) & ((1 << lane.width) - 1)) << self.offset[i]
        return np.array(out, dtype=U64)

    def unpack(self, words: np.ndarray) -> list[int]:
        ws = [int(x) for x in np.asarray(words).reshape(-1)]
        return [(ws[self.word[i]] >> self.offset[i]) & ((1 << lane.width) - 1)
                for i, lane in enumerate(self.lanes)]


class PackedDomain(Domain):
    """The IR's ops on packed lane cells (arrays ``(..., nwords)`` of uint64); agrees with ``NumpyDomain``
    on every lane's low ``width`` bits (``tests/test_synth.py`` checks each op).

    Shift and rotate counts must be constants made by ``const`` (the
    vocabulary only has immediate counts); rotates, ``shr`` and ``bswap``
    need 32-bit lanes.
    """

    name = "packed"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._consts: dict[int, np.ndarray] = {}
        self._const_of_id: dict[int, int] = {}
        self._masks: dict[tuple[int, int], np.ndarray] = {}

    def const(self, value: int) -> np.ndarray:
        value &= MASK32
        arr = self._consts.get(value)
        if arr is None:
            arr = self.layout.pack([value] * len(self.layout.lanes))
            self._consts[value] = arr
            self._const_of_id[id(arr)] = value
        return arr

    def _count(self, n) -> int:
        v = self._const_of_id.get(id(n))
        if v is None:
            raise UnsupportedError("packed domain: shift and rotate counts must be immediates")
        return v & 31

    def _bits(self, lo: int, hi: int) -> np.ndarray:
        key = (lo, hi)
        if key not in self._masks:
            self._masks[key] = self.layout.mask_bits(lo, hi)
        return self._masks[key]

    def _need_full(self, op: str) -> None:
        if not self.layout.full_width:
            raise UnsupportedError(f"packed domain: {op} needs 32-bit lanes")

    def op_add(self, x, y):
        lo, hi = self.layout.low, self.layout.high
        return ((x & lo) + (y & lo)) ^ ((x ^ y) & hi)

    def op_sub(self, x, y):
        lo, hi = self.layout.low, self.layout.high
        return (((x | hi) - (y & lo)) ^ ((x ^ ~y) & hi)) & self.layout.cell

    def op_and(self, x, y): return x & y
    def op_or(self, x, y): return x | y
    def op_xor(self, x, y): return x ^ y
    def op_not(self, x): return x ^ self.layout.cell

    def op_neg(self, x):
        return self.op_sub(np.zeros_like(self.layout.cell), x)

    def op_shl(self, x, n):
        k = self._count(n)
        return (x << U64(k)) & self._bits(k, 32) if k else x

    def op_shr(self, x, n):
        self._need_full("shr")
        k = self._count(n)
        return (x >> U64(k)) & self._bits(0, 32 - k) if k else x

    def op_rol(self, x, n):
        self._need_full("rol")
        k = self._count(n)
        if k == 0:
            return x
        return ((x << U64(k)) & self._bits(k, 32)) | ((x >> U64(32 - k)) & self._bits(0, k))

    def op_ror(self, x, n):
        return self.op_rol(x, self.const((32 - self._count(n)) & 31))

    def op_bswap(self, x):
        self._need_full("bswap")
        b0, b1 = self._bits(0, 8), self._bits(8, 16)
        return ((x & b0) << U64(24)) | ((x & b1) << U64(8)) | ((x >> U64(8)) & b1) | ((x >> U64(24)) & b0)


@dataclass(frozen=True)
class Space:
    """What may be enumerated (see ``synth.space_for``).

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


@dataclass(frozen=True)
class _Step:
    ins: Instr
    dst: int            # index into Space.writable
    reads_w: int        # writable registers read (bitmask); xor r,r reads none
    need_written: int   # temps (writable bits) that must already be written
    sym: int            # the temp that must be written before this one's first write (bit), 0 if none
    temp_bit: int       # this step's destination bit if it is a temp, else 0
    forbid: int         # partial-order pairs that forbid this step (compact bits)
    post: int           # partial-order pairs set after this step (compact bits)


@dataclass
class _States:
    """One layer, decoded: what the search needs to expand it."""

    values: np.ndarray    # (S, W, nwords) uint64: the writable registers' cells
    written: np.ndarray   # (S,) int64: temps written so far (writable bits; part of the key)
    pending: np.ndarray   # (S,) int64: writable registers written and not read since (AND-merged)
    por: np.ndarray       # (S,) int64: partial-order pairs (AND-merged)

    def __len__(self) -> int:
        return len(self.written)


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


_C1, _C2 = U64(0xBF58476D1CE4E5B9), U64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer (Steele, Lea and Flood, OOPSLA 2014), vectorized: a bijection on uint64."""
    x = x ^ (x >> U64(30))
    x = x * _C1
    x = x ^ (x >> U64(27))
    x = x * _C2
    return x ^ (x >> U64(31))


_POPCOUNT16 = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int64)


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Start index of every run of equal values in a sorted array."""
    if len(sorted_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], np.nonzero(sorted_keys[1:] != sorted_keys[:-1])[0] + 1])


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
        per_lane = evaluate([space.target], _LaneEval(),
                            lambda name: [lane.inputs[space.variables.index(name)] for lane in layout.lanes])[0]
        self.target = layout.pack(per_lane)
        self.steps = [self._compile(i) for i in space.vocabulary]
        self._witness_setup()
        self.bound_cut = False
        if store not in ("auto", "packed", "hashed"):
            raise Sha1optError(f"unknown store {store!r}")
        if store == "packed" and not _PackedStore.fits(self):
            raise Sha1optError("the states do not fit the packed store")
        packed = store == "packed" or (store == "auto" and _PackedStore.fits(self))
        self.store: _PackedStore | _HashedStore = _PackedStore(self) if packed else _HashedStore(self)

    # -- compilation ---------------------------------------------------------
    def _compile(self, ins: Instr) -> _Step:
        dsts = writes(ins)
        if len(dsts) != 1 or next(iter(dsts)) not in self.widx:
            raise Sha1optError(f"vocabulary instruction {ins} must write one writable register")
        dname = next(iter(dsts))
        d = self.widx[dname]
        zero_idiom = ins.mnemonic in ("xor", "sub") and len(ins.operands) == 2 and ins.operands[0] == ins.operands[1]
        rd = set() if zero_idiom else reads(ins)
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
        return _Step(ins, d, reads_w, need, sym, self.temp_bits.get(dname, 0), forbid, post)

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

    def applicable(self, step: _Step, st: _States) -> np.ndarray:
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

    def evaluate(self, step: _Step, values: np.ndarray) -> np.ndarray:
        """The destination's new cells after ``step`` on every state of ``values`` (S, W, nwords)."""
        regs = {r: values[:, i, :] for i, r in enumerate(self.space.writable)}
        regs.update(self.readonly)

        def missing(name: str):
            raise Sha1optError(f"{step.ins} reads {name}, which holds no input")

        m = Machine(self.dom, initial_reg=missing, initial_mem=lambda *a: missing("memory"), regs=regs)
        _, value = m.step(step.ins)
        return np.broadcast_to(value, (len(values), self.nw))

    def witness_flags(self, st: _States) -> list[list[np.ndarray]] | None:
        if not self.witness:
            return None
        return [[self.eqflags(st.values[:, w, 0], s, f) for w in range(self.W)] for s, f, _ in self.witness]

    def children(self, step: _Step, st: _States, depth: int, eq, goals_only: bool = False):
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


class _PackedStore:
    """Layers as sorted uint64 words holding the whole key and the metadata: exact, compact, fast.

    Word layout, low to high: unread mask (W bits), partial-order pairs,
    each writable register's cells (``B`` bits each), the written-temps mask.
    Used when all of it fits in 64 bits and the layout has one word.
    """

    @staticmethod
    def fits(eng: _Engine) -> bool:
        B = sum(lane.width for lane in eng.layout.lanes)
        return eng.nw == 1 and eng.W + len(eng.pairs) + eng.W * B + len(eng.space.temps) <= 64

    def __init__(self, eng: _Engine) -> None:
        self.eng = eng
        self.B = sum(lane.width for lane in eng.layout.lanes)
        self.mbits = eng.W + len(eng.pairs)
        self.kbits = eng.W * self.B + len(eng.space.temps)
        self.temp_w = [eng.widx[t] for t in eng.space.temps]   # compact temp bit i <-> writable index
        self.layers: list[np.ndarray] = []
        self.seen = np.zeros(0, dtype=U64)                      # keys of every stored state, sorted
        self._cand: list[np.ndarray] = []
        self._parent_bytes = 0

    def key(self, values: np.ndarray, written: np.ndarray) -> np.ndarray:
        k = np.zeros(len(written), dtype=U64)
        for w in range(self.eng.W):
            k |= values[:, w, 0] << U64(w * self.B)
        for i, w in enumerate(self.temp_w):
            k |= ((written >> w) & 1).astype(U64) << U64(self.eng.W * self.B + i)
        return k

    def pack(self, key: np.ndarray, pending: np.ndarray, por: np.ndarray) -> np.ndarray:
        return (key << U64(self.mbits)) | pending.astype(U64) | (por.astype(U64) << U64(self.eng.W))

    def decode(self, pk: np.ndarray) -> _States:
        W, B = self.eng.W, self.B
        key = pk >> U64(self.mbits)
        cell = U64((1 << B) - 1) if B < 64 else U64(0xFFFFFFFFFFFFFFFF)
        values = np.empty((len(pk), W, 1), dtype=U64)
        for w in range(W):
            values[:, w, 0] = (key >> U64(w * B)) & cell
        written = np.zeros(len(pk), dtype=np.int64)
        for i, w in enumerate(self.temp_w):
            written |= ((key >> U64(W * B + i)) & _ONE).astype(np.int64) << w
        pending = (pk & U64((1 << W) - 1)).astype(np.int64)
        por = ((pk >> U64(W)) & U64((1 << len(self.eng.pairs)) - 1)).astype(np.int64)
        return _States(values, written, pending, por)

    def start(self, st: _States) -> None:
        pk = self.pack(self.key(st.values, st.written), st.pending, st.por)
        self.layers = [pk]
        self.seen = np.sort(pk >> U64(self.mbits))

    def states(self, k: int) -> _States:
        self._parent_bytes = len(self.layers[k]) * (8 * self.eng.W + 96)
        return self.decode(self.layers[k])

    def child_keys(self, k: int, step: _Step, rows: np.ndarray, new: np.ndarray, st: _States) -> np.ndarray:
        key = self.layers[k][rows] >> U64(self.mbits)
        shift = U64(step.dst * self.B)
        key = key ^ ((st.values[rows, step.dst, 0] ^ new[:, 0]) << shift)
        if step.temp_bit:
            key |= _ONE << U64(self.eng.W * self.B + self.temp_w.index(step.dst))
        return key

    def collect(self, k: int, step: _Step, rows, new, pend, st: _States) -> None:
        key = self.child_keys(k, step, rows, new, st)
        self._cand.append(self.pack(key, pend, np.full(len(rows), step.post, dtype=np.int64)))
        n = sum(len(c) for c in self._cand)
        if n > 16_000_000:
            self._cand = [self._reduce(np.concatenate(self._cand))]
            n = len(self._cand[0])
        # Stored keys and layers, candidates (and a sort's copies), the decoded parent layer.
        self.eng.check_memory(16 * len(self.seen) + 24 * n + self._parent_bytes)

    def _reduce(self, pk: np.ndarray) -> np.ndarray:
        """Unique keys, metadata AND-merged (sorting the packed words groups equal keys)."""
        pk = np.sort(pk)
        key = pk >> U64(self.mbits)
        starts = _runs(key)
        meta = np.bitwise_and.reduceat(pk & U64((1 << self.mbits) - 1), starts) if len(pk) else pk
        return (key[starts] << U64(self.mbits)) | meta

    def finish_level(self) -> int:
        pk = self._reduce(np.concatenate(self._cand)) if self._cand else np.zeros(0, dtype=U64)
        self._cand = []
        key = pk >> U64(self.mbits)
        if len(self.seen):
            pos = np.minimum(np.searchsorted(self.seen, key), len(self.seen) - 1)
            pk = pk[self.seen[pos] != key]
        self.layers.append(pk)
        self.seen = np.sort(np.concatenate([self.seen, pk >> U64(self.mbits)]))
        return len(pk)

    def matcher(self, k: int, needed: np.ndarray):
        """For re-expansion: maps children of layer k-1 to rows of layer k among ``needed``."""
        keys = self.layers[k][needed] >> U64(self.mbits)
        order = np.argsort(keys)
        skeys, srows = keys[order], needed[order]

        def match(step: _Step, rows, new, st: _States):
            ck = self.child_keys(k - 1, step, rows, new, st)
            pos = np.minimum(np.searchsorted(skeys, ck), len(skeys) - 1)
            hit = skeys[pos] == ck
            return hit, srows[pos]

        return match


@dataclass
class _HashedLayer:
    st: _States
    hash: np.ndarray


class _HashedStore:
    """Layers as decoded arrays plus a 64-bit hash; equal hashes are confirmed word by word."""

    def __init__(self, eng: _Engine) -> None:
        self.eng = eng
        rng = np.random.default_rng(0x5A1)
        self.salt = rng.integers(0, 1 << 63, size=(eng.W + 1, eng.nw), dtype=np.uint64) | _ONE
        self.layers: list[_HashedLayer] = []
        self.seen_hash = np.zeros(0, dtype=U64)
        self.seen_layer = np.zeros(0, dtype=np.int64)
        self.seen_row = np.zeros(0, dtype=np.int64)
        self._cand: list[tuple] = []
        self._colh: np.ndarray | None = None

    def colhash(self, col: np.ndarray, w: int) -> np.ndarray:
        return _mix(col + self.salt[w]).sum(axis=-1, dtype=U64)

    def metahash(self, written: np.ndarray) -> np.ndarray:
        return _mix(written.astype(U64) * self.salt[self.eng.W, 0] + self.salt[self.eng.W, 0])

    def statehash(self, st: _States) -> np.ndarray:
        h = self.metahash(st.written)
        for w in range(self.eng.W):
            h = h + self.colhash(st.values[:, w, :], w)
        return h

    def _add_seen(self, k: int, h: np.ndarray) -> None:
        hh = np.concatenate([self.seen_hash, h])
        lay = np.concatenate([self.seen_layer, np.full(len(h), k, dtype=np.int64)])
        row = np.concatenate([self.seen_row, np.arange(len(h), dtype=np.int64)])
        order = np.argsort(hh, kind="stable")
        self.seen_hash, self.seen_layer, self.seen_row = hh[order], lay[order], row[order]

    def start(self, st: _States) -> None:
        h = self.statehash(st)
        self.layers = [_HashedLayer(st, h)]
        self._add_seen(0, h)

    def states(self, k: int) -> _States:
        lay = self.layers[k]
        self._colh = np.stack([self.colhash(lay.st.values[:, w, :], w) for w in range(self.eng.W)], axis=1)
        self._colh_layer = k
        return lay.st

    def child_hash(self, k: int, step: _Step, rows, new, st: _States) -> np.ndarray:
        if self._colh is None or self._colh_layer != k:
            self.states(k)
        old_w = st.written[rows]
        return (self.layers[k].hash[rows] - self._colh[rows, step.dst] + self.colhash(new, step.dst)
                - self.metahash(old_w) + self.metahash(old_w | step.temp_bit))

    def same(self, st: _States, rows, dst, new, written, other: _States, idx) -> np.ndarray:
        """Exact key equality: children of ``st`` (column ``dst`` := ``new``) versus ``other[idx]``."""
        eq = written == other.written[idx]
        for w in range(self.eng.W):
            col = np.where((dst == w)[:, None], new, st.values[rows, w, :])
            eq &= (col == other.values[idx, w, :]).all(axis=1)
        return eq

    def collect(self, k: int, step: _Step, rows, new, pend, st: _States) -> None:
        h = self.child_hash(k, step, rows, new, st)
        written = st.written[rows] | step.temp_bit
        dst = np.full(len(rows), step.dst)
        keep = ~self._in_seen(st, rows, dst, new, written, h)
        n = int(keep.sum())
        if n:
            self._cand.append((st.values[rows[keep]], dst[keep], new[keep], written[keep], pend[keep],
                               np.full(n, step.post, dtype=np.int64), h[keep]))
        W, nw = self.eng.W, self.eng.nw
        stored = len(self.seen_hash)
        cands = sum(len(c[1]) for c in self._cand)
        self.eng.check_memory(stored * (8 * W * nw + 56) + 2 * cands * (8 * W * nw + 8 * nw + 48)
                              + len(self.layers[k].hash) * (8 * W * nw + 96))

    def _in_seen(self, st, rows, dst, new, written, h) -> np.ndarray:
        out = np.zeros(len(h), dtype=bool)
        if len(self.seen_hash) == 0 or len(h) == 0:
            return out
        pos = np.searchsorted(self.seen_hash, h)
        todo = np.nonzero(pos < len(self.seen_hash))[0]
        while len(todo):  # a hash may occur several times (collisions): walk its run
            p = pos[todo]
            todo = todo[self.seen_hash[p] == h[todo]]
            p = pos[todo]
            for k in np.unique(self.seen_layer[p]):
                sel = todo[self.seen_layer[p] == k]
                other = self.layers[int(k)].st
                out[sel] |= self.same(st, rows[sel], dst[sel], new[sel], written[sel], other,
                                      self.seen_row[pos[sel]])
            todo = todo[~out[todo]]
            pos[todo] += 1
            todo = todo[pos[todo] < len(self.seen_hash)]
        return out

    def finish_level(self) -> int:
        W, nw = self.eng.W, self.eng.nw
        if not self._cand:
            e = np.zeros(0, dtype=np.int64)
            st = _States(np.zeros((0, W, nw), dtype=U64), e, e.copy(), e.copy())
            self.layers.append(_HashedLayer(st, np.zeros(0, dtype=U64)))
            return 0
        parts = list(zip(*self._cand))
        self._cand = []
        vals, dst, new, written, pend, por, h = (np.concatenate(p) for p in parts)
        vals[np.arange(len(dst)), dst, :] = new
        order = np.argsort(h, kind="stable")
        vals, written, pend, por, h = vals[order], written[order], pend[order], por[order], h[order]
        starts = _runs(h)
        group = np.repeat(starts, np.diff(np.append(starts, len(h))))
        same = (written == written[group]) & (vals == vals[group]).all(axis=(1, 2))
        if not same.all():
            # A hash collision: split those runs by the exact key (rare; Python is fine).
            for start in np.unique(group[~same]):
                members = np.nonzero(group == start)[0]
                first: dict[bytes, int] = {}
                for m in members:
                    group[m] = first.setdefault(vals[m].tobytes() + int(written[m]).to_bytes(8, "little"), int(m))
        order = np.argsort(group, kind="stable")
        group = group[order]
        starts = _runs(group)
        sel = order[starts]
        st = _States(vals[sel], written[sel], np.bitwise_and.reduceat(pend[order], starts),
                     np.bitwise_and.reduceat(por[order], starts))
        k = len(self.layers)
        self.layers.append(_HashedLayer(st, h[sel]))
        self._add_seen(k, h[sel])
        return len(sel)

    def matcher(self, k: int, needed: np.ndarray):
        lay = self.layers[k]
        nh = lay.hash[needed]
        order = np.argsort(nh)
        sh, srows = nh[order], needed[order]

        def match(step: _Step, rows, new, st: _States):
            h = self.child_hash(k - 1, step, rows, new, st)
            hit = np.zeros(len(rows), dtype=bool)
            idx = np.zeros(len(rows), dtype=np.int64)
            pos = np.searchsorted(sh, h)
            todo = np.nonzero(pos < len(sh))[0]
            written = st.written[rows] | step.temp_bit
            dst = np.full(len(rows), step.dst)
            while len(todo):
                p = pos[todo]
                todo = todo[sh[p] == h[todo]]
                cand = srows[pos[todo]]
                ok = self.same(st, rows[todo], dst[todo], new[todo], written[todo], lay.st, cand)
                hit[todo[ok]] = True
                idx[todo[ok]] = cand[ok]
                todo = todo[~ok]
                pos[todo] += 1
                todo = todo[pos[todo] < len(sh)]
            return hit, idx

        return match


class _LaneEval(Domain):
    """The target's value in every lane: Python lists of exact 32-bit values, computed by ``NumpyDomain``."""

    name = "lanes"

    def const(self, value):
        return value

    def apply(self, op, *args):
        n = max(len(a) for a in args if isinstance(a, list))
        arrs = [np.array(a, dtype=np.uint32) if isinstance(a, list) else np.full(n, a, dtype=np.uint32)
                for a in args]
        return [int(x) for x in NumpyDomain(n).apply(op, *arrs)]


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
    root = _States(values, zero.copy(), zero.copy(), zero.copy())
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
