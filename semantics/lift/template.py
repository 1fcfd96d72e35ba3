"""The loop-head template: what every location holds at the head of iteration k, as a function of k.

``build_template(k, s0, s1)`` reads the template off the loop-head state
``S0`` the prologue establishes and the state ``S1`` one iteration later.
Each location (a register, a vector register lane by lane, a stack or state
word) gets one kind:

* ``Ptr``/``Int`` with k -- a pointer or count moving by a constant step
  (``data + 64*k``, ``n - k``);
* ``Opq`` -- an entry value kept (callee-saved registers, the return address),
  also half of one in a vector lane (``%rbx[63:32]``, ``vectors``);
* ``H(i)`` -- the chaining value word i: ``h_i`` at ``S0`` (a state word read,
  or a register or vector lane that holds it) and ``compress(H, block)_i`` at
  ``S1``;
* ``Const(c)`` -- the same constant at both heads (K values, pshufb masks);
* ``Term(t)`` -- a *head value*: at ``S0`` a term ``t`` over the current
  chaining value ``h0..h4`` and the current block's words ``m0..m15`` only,
  and at ``S1`` the same term over the next chaining value and the next
  block's words (``data[64+4j]``, read ahead relative to the current block).
  OpenSSL's SSSE3/AVX paths keep block k+1's byte-swapped W and W+K (stack
  ring, xmm registers) and ``b & (c ^ d)`` of the next round this way;
* ``FREE`` -- anything else: havocked, so depending on it fails the proof.

Kinds are *guessed* here (H and Term by evaluating on random inputs); every
one is then proved by ``function``: pointers, counts and entry values with z3,
H with ``composition.check_program`` (the whole compression), Const by
identity, Term at the back edge by ``got == t[h := H_{k+1}, m := next block]``
(term identity first, the prover otherwise). A wrong guess can only make a
proof fail, never succeed.

Example: OpenSSL's ``_ssse3_shortcut`` head gives ``%r9 = data + 64 + 64k``,
``%r10 = data + 64n``, ``%eax..%ebp = H(0..4)``, ``%esi = Term(h1 & (h2 ^ h3))``,
stack words 0..44 ``Term(bswap(m_j) + K0)``, ``%xmm6 = Const`` lanes (the
byte-swap mask) and ``%xmm0 = Term((bswap(m0) + K0) - K0), ...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import z3

from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.ir import Term, evaluate, variables
from sha1opt.semantics.lift import cbc
from sha1opt.semantics.lift.paths import State
from sha1opt.semantics.lift.values import DataPair, Int, Opq, Ptr, is_data
from sha1opt.semantics.sha1 import compress

FREE = "free"
_LANES = 64


@dataclass(frozen=True)
class H:
    index: int


@dataclass(frozen=True)
class Const:
    term: Term


@dataclass(frozen=True)
class HeadTerm:
    """A head value: ``term`` over ``h0..h4`` and ``m0..m15`` (of the builder it was read in)."""

    term: Term


@dataclass(frozen=True)
class Lanes:
    """A vector register: one kind per lane (8 lanes, as ``State.regs`` holds them)."""

    kinds: tuple


def next_word_name(j: int) -> str:
    """The name the executor gives word j of the next block (read ahead): ``data[64+4j]``."""
    return f"data[{64 + 4 * j}]"


def word_offset(name: str) -> int | None:
    """The block-relative byte offset a data word's name stands for: ``m3`` 12, ``data[68]`` 68, else None."""
    if name[:1] == "m" and name[1:].isdigit():
        return 4 * int(name[1:])
    hit = re.fullmatch(r"data\[(\d+)\]", name)
    return int(hit[1]) if hit else None


def word_name(off: int) -> str:
    """The executor's name of the data word at block-relative ``off`` (``m{off/4}`` inside the block)."""
    return f"m{off // 4}" if 0 <= off < 64 else f"data[{off}]"


def is_head_var(name: str, blocks: int = 1) -> bool:
    """A variable a head value may be built from: ``h0..h4``, the words of the ``blocks`` blocks of
    one iteration (``m0..m15``, then ``data[64]..data[64*blocks-4]``) and an AES key schedule's words
    (``key[16]``: the same at every head, ``cbc``)."""
    if re.fullmatch(r"h[0-4]", name) or cbc.is_key_var(name):
        return True
    off = word_offset(name)
    return off is not None and off % 4 == 0 and 0 <= off < 64 * blocks


class _Probe:
    """Random evaluation of head terms: h, m, the next block, and H_1 = compress(h, m) (for a loop of
    ``blocks`` blocks per iteration: the compressions of those blocks, chained)."""

    def __init__(self, s0: State, blocks: int = 1) -> None:
        rng = np.random.default_rng(12)
        self.dom = NumpyDomain(_LANES)
        self._rng = rng
        self.env: dict[str, np.ndarray] = {}
        h = [self.var(f"h{i}") for i in range(5)]
        m = [self.var(f"m{j}") for j in range(16)]
        # H at the head is what the state words hold there (h_i at the first head; a later head's
        # state words are terms): one iteration later it is compress of that and the block read.
        at_head = [s0.mem.get(("state", "", 4 * i), (None, 0))[0] for i in range(5)]
        h = [self.at_s0(t) if isinstance(t, Term) else h[i] for i, t in enumerate(at_head)]
        self.blocks = blocks
        for blk in range(blocks):
            h = compress(self.dom, h, m if blk == 0 else [self.var(word_name(64 * blk + 4 * j)) for j in range(16)])
        self.h1 = h
        self.next = {f"h{i}": self.h1[i] for i in range(5)}
        for blk in range(blocks):
            self.next.update({word_name(64 * blk + 4 * j): self.var(word_name(64 * (blk + blocks) + 4 * j))
                              for j in range(16)})

    def var(self, name: str) -> np.ndarray:
        if name not in self.env:
            self.env[name] = self._rng.integers(0, 1 << 32, _LANES, dtype=np.uint64).astype(np.uint32)
        return self.env[name]

    def at_s0(self, t: Term) -> np.ndarray:
        return evaluate([t], self.dom, self.var)[0]

    def advanced(self, t: Term) -> np.ndarray:
        """``t`` with h := H_1 and m := the next block's words."""
        return evaluate([t], self.dom, lambda n: self.next[n] if n in self.next else self.var(n))[0]


def _h_index(st: State, v) -> int | None:
    """Which state word ``v`` equals at this head (the untouched word i is the variable h_i)."""
    for i in range(5):
        sv = st.mem.get(("state", "", 4 * i), (None, 0))[0]
        if sv is None:
            if isinstance(v, Term) and v.node.op == "var" and v.node.payload == f"h{i}":
                return i
        elif isinstance(sv, Term) and v == sv:
            return i
    return None


def _data_kind(probe: _Probe | None, s0: State, v0, v1, state_word: int | None, blocks: int = 1):
    """The kind of one data location (a register, a lane, a stack or state word).

    ``probe`` None: the exact template of ``s0`` (``v1`` is ``v0``), no step to check.
    """
    if not (isinstance(v0, Term) and isinstance(v1, Term)):
        return FREE
    lane = cbc.chain_lane(v0)
    if lane is not None and state_word is None:
        return cbc.Chain(lane)      # (the iv where the loop is entered: the CBC chain, proved apart)
    i = _h_index(s0, v0)
    if i is not None and state_word in (None, i):
        return H(i) if probe is None or np.array_equal(probe.at_s0(v1), probe.h1[i]) else FREE
    if state_word is not None:
        return FREE
    if v0.node.op == "const":
        return Const(v0) if v1 == v0 else FREE
    names = variables([v0])
    if names and all(is_head_var(n, blocks) for n in names) and (
            probe is None or np.array_equal(probe.at_s0(v1), probe.advanced(v0))):
        return HeadTerm(v0)
    return FREE


def build_template(k: z3.BitVecRef, s0: State, s1: State | None, blocks: int = 1) -> dict:
    """Location -> (kind, size): see the module docstring; ``size`` is the word size of a memory location.

    ``s1`` None: the exact template of ``s0`` (every step 0, head values as they are). ``blocks``:
    the blocks one iteration compresses (``multiblock``): H at ``s1`` is their chained compression,
    head values may be built from the words of all of them and advance by ``64*blocks`` bytes.
    """
    probe = _Probe(s0, blocks) if s1 is not None else None
    s1 = s1 if s1 is not None else s0
    out: dict = {}
    sizes = {key: sz for key, (_, sz) in list(s0.mem.items()) + list(s1.mem.items())}
    # Only the stack and the state words are writable; other regions' entries are cached loads.
    # (sorted: a choice that takes the first of several locations is the same in every run, whatever the hash seed)
    locs = [("reg", r) for r in sorted(set(s0.regs) | set(s1.regs))] + [
        ("mem", key) for key in sorted(set(s0.mem) | set(s1.mem)) if key[0] in ("stack", "state")]
    for loc in locs:
        state_word = None
        if loc[0] == "reg":
            v0, v1 = s0.regs.get(loc[1]), s1.regs.get(loc[1])
        else:
            v0 = s0.mem.get(loc[1], (None, 0))[0]
            v1 = s1.mem.get(loc[1], (None, 0))[0]
            if loc[1][0] == "state":
                region, rest, c = loc[1]
                if rest or c % 4 or not 0 <= c < 20:
                    # outside the state words only a byte counter's integers are written (``state counter@``):
                    # kept as any integer is, the rest free
                    if not (isinstance(v0, Int) and isinstance(v1, Int)):
                        out[loc] = FREE
                        continue
                else:
                    state_word = c // 4
                    if v0 is None:
                        v0 = _h_var(s1, state_word)
                        if v0 is None:
                            continue        # untouched at S0 and S1: holds H_k (read as h_i)
        if v0 is None:
            out[loc] = FREE
        elif isinstance(v0, tuple) or isinstance(v1, tuple):
            if isinstance(v0, tuple) and isinstance(v1, tuple):
                out[loc] = Lanes(tuple((a if isinstance(b, Opq) and b.name == a.name and not isinstance(a, DataPair)
                                        else FREE)
                                       if isinstance(a, Opq) else _data_kind(probe, s0, a, b, None, blocks)
                                       for a, b in zip(v0, v1)))
            else:
                out[loc] = FREE
        elif isinstance(v0, Ptr) and isinstance(v1, Ptr) and v0.region == v1.region:
            delta = z3.simplify(v1.off - v0.off)
            out[loc] = Ptr(v0.region, v0.off + delta * k) if z3.is_bv_value(delta) else FREE
        elif isinstance(v0, Int) and isinstance(v1, Int):
            delta = z3.simplify(v1.v - v0.v)
            out[loc] = Int(v0.v + delta * k) if z3.is_bv_value(delta) else FREE
        elif isinstance(v0, Opq) and not isinstance(v0, DataPair):     # (a pair of data words is not carried)
            out[loc] = v0 if (isinstance(v1, Opq) and v1.name == v0.name) else FREE
        elif is_data(v0):
            out[loc] = _data_kind(probe, s0, v0, v1, state_word, blocks)
        else:
            out[loc] = FREE
        if loc[0] == "reg" and loc[1].startswith("xmm") and not isinstance(out[loc], Lanes):
            out[loc] = Lanes((FREE,) * 8)
    return {loc: (tv, sizes.get(loc[1], 4) if loc[0] == "mem" else 0) for loc, tv in out.items()}


def _h_var(st: State, i: int):
    """The variable h_i, when some value of ``st`` is built from it (the builder of ``st``'s terms)."""
    for v in list(st.regs.values()) + [v for v, _ in st.mem.values()]:
        for t in (v if isinstance(v, tuple) else (v,)):
            if isinstance(t, Term):
                return t.builder.var(f"h{i}")
    return None


class WordDomain(TermDomain):
    """Terms with exact identities applied: constants fold, ``x ^ 0 = x | 0 = x + 0 = x``,
    ``0 << n = 0 >> n = 0 & x = 0``, ``bswap(bswap(x)) = x`` and ``(x + y) - y = (x - y) + y = x``.

    The compositional prover of a loop whose head holds the block's words
    precomputed (OpenSSL's W and W + K of block k, see ``uses_block_words``)
    takes the message words ``W_j`` themselves as inputs and reads data word
    j as ``bswap(W_j)``: the code's ``bswap``/``pshufb`` of it is then the
    symbol ``W_j`` again, and OpenSSL's ``(W + K) - K`` is ``W``.
    """

    _fold = NumpyDomain(1)

    def apply(self, op: str, *args) -> Term:
        consts = [a.node.payload if a.node.op == "const" else None for a in args]
        if all(c is not None for c in consts):          # constants fold (psrld of a zero lane is 0)
            return self.const(int(self._fold.apply(op, *(self._fold.const(c) for c in consts))[0]))
        if op in ("xor", "or", "add") and 0 in consts:   # x ^ 0 = x | 0 = x + 0 = x
            return args[1 - consts.index(0)]
        if op in ("shl", "shr", "and") and consts[0] == 0:
            return args[0]
        if op == "bswap" and args[0].node.op == "bswap":
            return Term(self.builder, args[0].node.args[0])
        if op == "sub" and args[0].node.op == "add" and args[1].id in args[0].node.args:
            a, b = args[0].node.args
            return Term(self.builder, a if b == args[1].id else b)
        if op == "add":
            for s, y in ((args[0], args[1]), (args[1], args[0])):
                if s.node.op == "sub" and s.node.args[1] == y.id:
                    return Term(self.builder, s.node.args[0])
        return super().apply(op, *args)


def uses_block_words(template: dict) -> bool:
    """Some head value is built from the current block's words (precomputed message words)."""
    return any(isinstance(tv, HeadTerm) and any(n[0] == "m" for n in variables([tv.term]))
               for _, tv in flat_locations(template))


def head_value(tv, domain, init_mem, fresh_value):
    """The value of one data kind at the head, in ``domain``."""
    if isinstance(tv, H):
        return init_mem("state", 4 * tv.index)
    if isinstance(tv, Const):
        return domain.const(tv.term.node.payload)
    if isinstance(tv, cbc.Chain):
        return init_mem(cbc.CHAIN, 4 * tv.index)
    if isinstance(tv, HeadTerm):
        return evaluate([tv.term], domain, lambda name: head_var(name, init_mem))[0]
    return fresh_value()


def head_var(name: str, init_mem, blocks_on: int = 0):
    """A head value's variable at a head: ``h_i`` the state word, a key word the key's, a data word
    the word ``blocks_on`` blocks further on."""
    if name[0] == "h":
        return init_mem("state", 4 * int(name[1]))
    if cbc.is_key_var(name):
        return init_mem("key", int(name[4:-1]))
    return init_mem("data", word_offset(name) + 64 * blocks_on)


def materialize(template: dict, section: str, head: int, domain, init_reg, init_mem, fresh) -> State:
    """The head state of a symbolic iteration: every kind turned into a value of ``domain``."""
    st = State((section, head))

    def fresh_value():
        return init_reg(f"havoc{next(fresh)}")

    for loc, (tv, size) in template.items():
        if isinstance(tv, Lanes):
            v = tuple(t if isinstance(t, Opq) else head_value(t, domain, init_mem, fresh_value) for t in tv.kinds)
        elif isinstance(tv, (H, Const, HeadTerm, cbc.Chain)) or tv == FREE:
            v = head_value(tv, domain, init_mem, fresh_value)
        else:
            v = tv
        if loc[0] == "reg":
            st.regs[loc[1]] = v
        else:
            st.mem[loc[1]] = (v, size)
    return st


def flat_locations(template: dict):
    """``(location, kind)`` for every data kind, a vector lane as ``("reg", "xmmN.j")``."""
    for loc, (tv, _) in template.items():
        if isinstance(tv, Lanes):
            for j, t in enumerate(tv.kinds):
                yield ("reg", f"{loc[1]}.{j}"), t
        else:
            yield loc, tv


def read(st: State, loc):
    """The value at a flat location in ``st`` (None when absent)."""
    if loc[0] == "reg" and "." in loc[1]:
        reg, j = loc[1].split(".")
        v = st.regs.get(reg)
        return v[int(j)] if isinstance(v, tuple) else None
    if loc[0] == "reg":
        return st.regs.get(loc[1])
    return st.mem.get(loc[1], (None, 0))[0]


def describe(loc) -> str:
    return f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1][0]}{loc[1][2]:+d}"


def h_homes(template: dict) -> dict[int, tuple]:
    """For each chaining-value word, the location proved to hold it (the state word if it is one)."""
    homes: dict[int, tuple] = {}
    for loc, tv in flat_locations(template):
        if isinstance(tv, H) and loc == ("mem", ("state", "", 4 * tv.index)):
            homes[tv.index] = loc
    for loc, tv in flat_locations(template):
        if isinstance(tv, H):
            homes.setdefault(tv.index, loc)
    for i in range(5):
        homes.setdefault(i, ("mem", ("state", "", 4 * i)))   # untouched state word: holds H_k
    return homes


def compress_location(loc) -> tuple:
    """A flat location in ``composition.check_program``'s terms: ``("reg", name)`` or ``("mem", region, off)``."""
    return loc if loc[0] == "reg" else ("mem", loc[1][0], loc[1][2])


__all__ = ["FREE", "H", "Const", "HeadTerm", "Lanes", "build_template", "materialize", "flat_locations", "read",
           "describe", "h_homes", "compress_location", "next_word_name", "WordDomain", "head_value", "uses_block_words",
           "word_offset", "word_name", "is_head_var"]
