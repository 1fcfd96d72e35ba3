"""Layer stores: the states the breadth-first search keeps, one layer per depth, behind one interface.

The explorer (``explore.py``) sees a store only through ``LayerStore``: it
``start``s one with the root state, ``collect``s the children of layer k-1
(the store drops those met at an earlier depth and merges equal ones),
``finish_level`` seals layer k and reports its size, ``states(k)`` decodes a
layer for expansion, and ``matcher(k, needed)`` maps children of layer k-1
back to rows of layer k when the goal paths are re-traced.

Invariant, shared by both stores: two states are merged exactly when their
*keys* are equal -- the writable registers' cells plus which temporaries
are written -- and the metadata that is not part of the key (the
unread-register mask ``pending``, the partial-order summary ``por``) is
merged by AND over every path that reaches the state at its depth: a merged
node allows whatever any of its paths allows (the explorer's soundness
argument needs exactly this). A state is stored at the first depth it is
reached and never again.

* ``PackedStore``: when key and metadata fit one uint64, a layer is a
  sorted array of such words -- exact.
* ``HashedStore``: otherwise states are found by a 64-bit hash and then
  compared word by word, so a hash collision never merges two different
  states either.

``open_store("auto", shape, check)`` picks the packed store when
``PackedStore.fits(shape)``; both give the same layers (``tests/test_synth.py``
checks layer sizes and goal paths against each other). Example: 3 writable
registers, 8 one-bit lanes, 1 temporary and 3 partial-order pairs need
3 + 3 + 3*8 + 1 = 31 bits, so the packed store is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr

U64 = np.uint64
_ONE = U64(1)

STORES = ("auto", "packed", "hashed")


@dataclass(frozen=True)
class LayerShape:
    """What a store needs to know of the search: sizes only, no instructions."""

    registers: int                 # writable registers (W)
    nwords: int                    # uint64 words per register cell (the lane layout's)
    lane_bits: int                 # total width of the lanes (B: the bits of one register's cells)
    pairs: int                     # partial-order pairs (W choose 2)
    temp_index: tuple[int, ...]    # each temporary's writable index, in temps order


@dataclass(frozen=True)
class Step:
    """One vocabulary instruction compiled against the writable registers (bit i = ``Space.writable[i]``).

    Example, writable (esi, edi): ``and %esi, %edi`` is ``dst=1``,
    ``reads_w=0b11`` (and reads its destination), ``need_written`` = esi's
    and edi's bits (a temporary is read only once written).
    """

    ins: Instr
    dst: int            # index into Space.writable
    reads_w: int        # writable registers read (bitmask); xor r,r reads none
    need_written: int   # temps (writable bits) that must already be written
    sym: int            # the temp that must be written before this one's first write (bit), 0 if none
    temp_bit: int       # this step's destination bit if it is a temp, else 0
    forbid: int         # partial-order pairs that forbid this step (compact bits)
    post: int           # partial-order pairs set after this step (compact bits)


@dataclass
class States:
    """One layer, decoded: what the search needs to expand it."""

    values: np.ndarray    # (S, W, nwords) uint64: the writable registers' cells
    written: np.ndarray   # (S,) int64: temps written so far (writable bits; part of the key)
    pending: np.ndarray   # (S,) int64: writable registers written and not read since (AND-merged)
    por: np.ndarray       # (S,) int64: partial-order pairs (AND-merged)

    def __len__(self) -> int:
        return len(self.written)


_C1, _C2 = U64(0xBF58476D1CE4E5B9), U64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer (Steele, Lea and Flood, OOPSLA 2014), vectorized: a bijection on uint64."""
    x = x ^ (x >> U64(30))
    x = x * _C1
    x = x ^ (x >> U64(27))
    x = x * _C2
    return x ^ (x >> U64(31))


def _runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Start index of every run of equal values in a sorted array."""
    if len(sorted_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], np.nonzero(sorted_keys[1:] != sorted_keys[:-1])[0] + 1])


class PackedStore:
    """Layers as sorted uint64 words holding the whole key and the metadata: exact, compact, fast.

    Word layout, low to high: unread mask (W bits), partial-order pairs,
    each writable register's cells (``B`` bits each), the written-temps mask.
    Used when all of it fits in 64 bits and the layout has one word.
    """

    @staticmethod
    def fits(shape: LayerShape) -> bool:
        s = shape
        return s.nwords == 1 and s.registers + s.pairs + s.registers * s.lane_bits + len(s.temp_index) <= 64

    def __init__(self, shape: LayerShape, check_memory: Callable[[float], None]) -> None:
        self.shape, self.check_memory = shape, check_memory
        self.B = shape.lane_bits
        self.mbits = shape.registers + shape.pairs
        self.kbits = shape.registers * self.B + len(shape.temp_index)
        self.temp_w = list(shape.temp_index)   # compact temp bit i <-> writable index
        self.layers: list[np.ndarray] = []
        self.seen = np.zeros(0, dtype=U64)                      # keys of every stored state, sorted
        self._cand: list[np.ndarray] = []
        self._parent_bytes = 0

    def key(self, values: np.ndarray, written: np.ndarray) -> np.ndarray:
        k = np.zeros(len(written), dtype=U64)
        for w in range(self.shape.registers):
            k |= values[:, w, 0] << U64(w * self.B)
        for i, w in enumerate(self.temp_w):
            k |= ((written >> w) & 1).astype(U64) << U64(self.shape.registers * self.B + i)
        return k

    def pack(self, key: np.ndarray, pending: np.ndarray, por: np.ndarray) -> np.ndarray:
        return (key << U64(self.mbits)) | pending.astype(U64) | (por.astype(U64) << U64(self.shape.registers))

    def decode(self, pk: np.ndarray) -> States:
        W, B = self.shape.registers, self.B
        key = pk >> U64(self.mbits)
        cell = U64((1 << B) - 1) if B < 64 else U64(0xFFFFFFFFFFFFFFFF)
        values = np.empty((len(pk), W, 1), dtype=U64)
        for w in range(W):
            values[:, w, 0] = (key >> U64(w * B)) & cell
        written = np.zeros(len(pk), dtype=np.int64)
        for i, w in enumerate(self.temp_w):
            written |= ((key >> U64(W * B + i)) & _ONE).astype(np.int64) << w
        pending = (pk & U64((1 << W) - 1)).astype(np.int64)
        por = ((pk >> U64(W)) & U64((1 << self.shape.pairs) - 1)).astype(np.int64)
        return States(values, written, pending, por)

    def start(self, st: States) -> None:
        pk = self.pack(self.key(st.values, st.written), st.pending, st.por)
        self.layers = [pk]
        self.seen = np.sort(pk >> U64(self.mbits))

    def states(self, k: int) -> States:
        self._parent_bytes = len(self.layers[k]) * (8 * self.shape.registers + 96)
        return self.decode(self.layers[k])

    def child_keys(self, k: int, step: Step, rows: np.ndarray, new: np.ndarray, st: States) -> np.ndarray:
        key = self.layers[k][rows] >> U64(self.mbits)
        shift = U64(step.dst * self.B)
        key = key ^ ((st.values[rows, step.dst, 0] ^ new[:, 0]) << shift)
        if step.temp_bit:
            key |= _ONE << U64(self.shape.registers * self.B + self.temp_w.index(step.dst))
        return key

    def collect(self, k: int, step: Step, rows, new, pend, st: States) -> None:
        key = self.child_keys(k, step, rows, new, st)
        self._cand.append(self.pack(key, pend, np.full(len(rows), step.post, dtype=np.int64)))
        n = sum(len(c) for c in self._cand)
        if n > 16_000_000:
            self._cand = [self._reduce(np.concatenate(self._cand))]
            n = len(self._cand[0])
        # Stored keys and layers, candidates (and a sort's copies), the decoded parent layer.
        self.check_memory(16 * len(self.seen) + 24 * n + self._parent_bytes)

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

        def match(step: Step, rows, new, st: States):
            ck = self.child_keys(k - 1, step, rows, new, st)
            pos = np.minimum(np.searchsorted(skeys, ck), len(skeys) - 1)
            hit = skeys[pos] == ck
            return hit, srows[pos]

        return match


@dataclass
class HashedLayer:
    st: States
    hash: np.ndarray


class HashedStore:
    """Layers as decoded arrays plus a 64-bit hash; equal hashes are confirmed word by word.

    A state's hash is the sum (mod 2**64) of one salted splitmix hash per
    register column plus one of the written-temps mask, so a child's hash is
    its parent's minus the old destination column's plus the new one's: no
    child is hashed from scratch. Only the exact comparison (``same``) merges.
    """

    def __init__(self, shape: LayerShape, check_memory: Callable[[float], None]) -> None:
        self.shape, self.check_memory = shape, check_memory
        rng = np.random.default_rng(0x5A1)
        self.salt = rng.integers(0, 1 << 63, size=(shape.registers + 1, shape.nwords), dtype=np.uint64) | _ONE
        self.layers: list[HashedLayer] = []
        self.seen_hash = np.zeros(0, dtype=U64)
        self.seen_layer = np.zeros(0, dtype=np.int64)
        self.seen_row = np.zeros(0, dtype=np.int64)
        self._cand: list[tuple] = []
        self._colh: np.ndarray | None = None

    def colhash(self, col: np.ndarray, w: int) -> np.ndarray:
        return _mix(col + self.salt[w]).sum(axis=-1, dtype=U64)

    def metahash(self, written: np.ndarray) -> np.ndarray:
        return _mix(written.astype(U64) * self.salt[self.shape.registers, 0] + self.salt[self.shape.registers, 0])

    def statehash(self, st: States) -> np.ndarray:
        h = self.metahash(st.written)
        for w in range(self.shape.registers):
            h = h + self.colhash(st.values[:, w, :], w)
        return h

    def _add_seen(self, k: int, h: np.ndarray) -> None:
        hh = np.concatenate([self.seen_hash, h])
        lay = np.concatenate([self.seen_layer, np.full(len(h), k, dtype=np.int64)])
        row = np.concatenate([self.seen_row, np.arange(len(h), dtype=np.int64)])
        order = np.argsort(hh, kind="stable")
        self.seen_hash, self.seen_layer, self.seen_row = hh[order], lay[order], row[order]

    def start(self, st: States) -> None:
        h = self.statehash(st)
        self.layers = [HashedLayer(st, h)]
        self._add_seen(0, h)

    def states(self, k: int) -> States:
        lay = self.layers[k]
        self._colh = np.stack([self.colhash(lay.st.values[:, w, :], w) for w in range(self.shape.registers)], axis=1)
        self._colh_layer = k
        return lay.st

    def child_hash(self, k: int, step: Step, rows, new, st: States) -> np.ndarray:
        if self._colh is None or self._colh_layer != k:
            self.states(k)
        old_w = st.written[rows]
        return (self.layers[k].hash[rows] - self._colh[rows, step.dst] + self.colhash(new, step.dst)
                - self.metahash(old_w) + self.metahash(old_w | step.temp_bit))

    def same(self, st: States, rows, dst, new, written, other: States, idx) -> np.ndarray:
        """Exact key equality: children of ``st`` (column ``dst`` := ``new``) versus ``other[idx]``."""
        eq = written == other.written[idx]
        for w in range(self.shape.registers):
            col = np.where((dst == w)[:, None], new, st.values[rows, w, :])
            eq &= (col == other.values[idx, w, :]).all(axis=1)
        return eq

    def collect(self, k: int, step: Step, rows, new, pend, st: States) -> None:
        h = self.child_hash(k, step, rows, new, st)
        written = st.written[rows] | step.temp_bit
        dst = np.full(len(rows), step.dst)
        keep = ~self._in_seen(st, rows, dst, new, written, h)
        n = int(keep.sum())
        if n:
            self._cand.append((st.values[rows[keep]], dst[keep], new[keep], written[keep], pend[keep],
                               np.full(n, step.post, dtype=np.int64), h[keep]))
        W, nw = self.shape.registers, self.shape.nwords
        stored = len(self.seen_hash)
        cands = sum(len(c[1]) for c in self._cand)
        self.check_memory(stored * (8 * W * nw + 56) + 2 * cands * (8 * W * nw + 8 * nw + 48)
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
        W, nw = self.shape.registers, self.shape.nwords
        if not self._cand:
            e = np.zeros(0, dtype=np.int64)
            st = States(np.zeros((0, W, nw), dtype=U64), e, e.copy(), e.copy())
            self.layers.append(HashedLayer(st, np.zeros(0, dtype=U64)))
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
        st = States(vals[sel], written[sel], np.bitwise_and.reduceat(pend[order], starts),
                     np.bitwise_and.reduceat(por[order], starts))
        k = len(self.layers)
        self.layers.append(HashedLayer(st, h[sel]))
        self._add_seen(k, h[sel])
        return len(sel)

    def matcher(self, k: int, needed: np.ndarray):
        lay = self.layers[k]
        nh = lay.hash[needed]
        order = np.argsort(nh)
        sh, srows = nh[order], needed[order]

        def match(step: Step, rows, new, st: States):
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


Matcher = Callable[[Step, np.ndarray, np.ndarray, States], tuple[np.ndarray, np.ndarray]]


class LayerStore(Protocol):
    """The one interface the explorer uses (see the module docstring)."""

    def start(self, root: States) -> None:
        """Layer 0 is ``root``."""

    def states(self, k: int) -> States:
        """Layer ``k``, decoded."""

    def collect(self, k: int, step: Step, rows: np.ndarray, new: np.ndarray, pend: np.ndarray,
                st: States) -> None:
        """Children of layer ``k`` (rows ``rows`` of ``st``, destination := ``new``) for the next layer."""

    def finish_level(self) -> int:
        """Seal the next layer: the collected children not stored before, merged; returns its size."""

    def matcher(self, k: int, needed: np.ndarray) -> Matcher:
        """A function mapping children of layer k-1 to (hit, row) among rows ``needed`` of layer k."""


def open_store(kind: str, shape: LayerShape, check_memory: Callable[[float], None]) -> LayerStore:
    """A new store of ``kind`` ("auto": packed when it fits, else hashed); ``check_memory(bytes)``
    is called with the store's size estimate as it grows (it raises to stop the search)."""
    if kind not in STORES:
        raise Sha1optError(f"unknown store {kind!r}")
    if kind == "packed" and not PackedStore.fits(shape):
        raise Sha1optError("the states do not fit the packed store")
    packed = kind == "packed" or (kind == "auto" and PackedStore.fits(shape))
    return PackedStore(shape, check_memory) if packed else HashedStore(shape, check_memory)
