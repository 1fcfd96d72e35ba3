"""Message-schedule cuts of SIMD code: affine identities over GF(2), proved by evaluating on a basis.

SIMD SHA-1 computes the message schedule its own way: OpenSSL's SSSE3/AVX
code derives lane 3 of W16..19 from a copy of the lanes taken *before* the
rotate (so it is ``rol(t, 2)`` of an expression, not of the cut symbol W16),
and W32..79 as ``rol(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32], 2)``. Such a cut
is true only through earlier definitions, which ``composition.check_program``
treats as free symbols -- and z3 is poor at parity (xor chains after
bit-blasting). But every W_t is an *affine* map over GF(2) of the message
words, and so is the code's value: ``ScheduleProver.check`` expands the
schedule symbols on both sides to the inputs, checks structurally that both
are affine (xor, not, rotates and shifts by constants, and with a constant,
or / add of operands whose possibly-set bits are disjoint, ``x + x``), and
then two affine maps are equal iff they agree on 0 and on each of the
``32 * variables`` unit vectors: one numpy evaluation proves it.

Example: ``rol(W13 ^ W8 ^ W2 ^ W0, 2)`` against ``rol(W16, 1)`` with ``W16 :=
rol(W13 ^ W8 ^ W2 ^ W0, 1)`` -- 4 variables, 129 lanes, proved. Anything not
affine (an add of overlapping values: the rounds) goes to the wrapped prover
unchanged -- except a round cut whose definition names rounds never cut
alone (SHA-NI's ``sha1rnds4`` writes four rounds at once): the value's
subterms that are those rounds' new a are cut inside it first
(``inner_cuts``).
"""

from __future__ import annotations

import time

import numpy as np

from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.ir import MASK32, Term, evaluate, reachable, variables
from sha1opt.semantics.prove import Proved, Prover

_LANES = 64
from sha1opt.semantics.sha1 import Spec


class ScheduleProver:
    """A ``Prover`` (same ``check``) that proves affine schedule identities through the spec's W definitions."""

    def __init__(self, base: Prover, spec: Spec) -> None:
        self.base = base
        self.b = spec.builder
        self.defs = {d.name: d.term for d in spec.definitions if d.name[0] == "W"}
        self.rounds = {d.name: d for d in spec.definitions if d.name[0] == "A"}
        self.w_defs = {d.name: d for d in spec.definitions if d.name[0] == "W"}
        self.by_term = {d.term.id: d for d in spec.definitions}
        self._fp = None
        self._vals: dict[int, object] = {}
        self._rewritten: dict[int, Term | None] = {}
        self._head_done: dict[int, Term] = {}
        self._expanded: dict[str, Term] = {}
        self._cache: dict[int, object] = {}
        self.affine_proofs = 0

    @property
    def solver_calls(self) -> int:
        return self.base.solver_calls

    def check(self, lhs: Term, rhs: Term, timeout: float | None = None):
        d = self.by_term.get(rhs.id)
        if d is None or d.name[0] == "A":
            # first the rounds inside the value (cheap when there are none): z3 on several rounds at
            # once times out, one round at a time is fast (an output: every round may be inside)
            inner = self.inner_cuts(lhs, d.round if d is not None else 80)
            if inner is not None and inner.id != lhs.id:
                again = self.base.check(inner, rhs, timeout)
                if isinstance(again, Proved):
                    return again
        out = self.base.check(lhs, rhs, timeout)
        if isinstance(out, Proved) or d is None or d.name[0] == "A":
            return out
        t0 = time.perf_counter()
        el, er = self.expand(lhs), self.expand(rhs)
        if affine(el) and affine(er) and affine_equal(el, er):
            self.affine_proofs += 1
            return Proved(time.perf_counter() - t0, "affine-basis")
        return out

    def expand(self, t: Term) -> Term:
        """``t`` with every schedule symbol W_t replaced by its definition, recursively."""
        dom = TermDomain(self.b)

        def lookup(name: str) -> Term:
            if name not in self.defs:
                return self.b.var(name)
            if name not in self._expanded:
                self._expanded[name] = evaluate([self.defs[name]], dom, lookup, self._cache)[0]
            return self._expanded[name]
        return evaluate([t], dom, lookup, self._cache)[0]

    def _fingerprints(self):
        """Values of every symbol on random inputs: inputs random, each round's a from its definition."""
        if self._fp is None:
            dom = NumpyDomain(_LANES)
            rng = np.random.default_rng(3)
            env: dict[str, np.ndarray] = {}

            def value(name: str):
                if name not in env:
                    d = self.rounds.get(name) or self.w_defs.get(name)
                    env[name] = (evaluate([d.term], dom, value)[0] if d is not None
                                 else rng.integers(0, 1 << 32, _LANES, dtype=np.uint64).astype(np.uint32))
                return env[name]
            self._fp = (dom, value)
        return self._fp

    def head_cuts(self, t: Term) -> Term:
        """``t`` with each subterm that is a schedule word W16..W79 replaced by the word's symbol.

        A loop head may hold W+K of later rounds precomputed (OpenSSL's AVX2
        keeps rounds 0-31 on the stack, and all 80 of the second block): as a
        head value that is a term over W0..W15, never written in the trace,
        so no cut meets it. Each subterm whose value on random inputs is a
        word W_t (t >= 16) is proved equal to W_t's definition (both expanded
        to W0..W15, affine, equal on a basis) and replaced by the symbol; a
        subterm that does not prove stays as it is (the round cut then fails,
        never succeeds wrongly).
        """
        words = [nm for nm in self.w_defs if int(nm[1:]) >= 16]
        if not words:
            return t
        dom, value = self._fingerprints()
        want = {value(nm).tobytes(): nm for nm in words}
        evaluate([t], dom, value, self._vals)
        tdom = TermDomain(self.b)
        done = self._head_done
        for i in reachable([t]):
            if i in done:
                continue
            n = self.b.nodes[i]
            node = Term(self.b, i) if not n.args else tdom.apply(n.op, *(done[j] for j in n.args))
            nm = want.get(self._vals[i].tobytes()) if n.op not in ("var", "const") else None
            if nm is not None and node.id != self.b.var(nm).id:
                el, er = self.expand(node), self.expand(self.b.var(nm))
                if affine(el) and affine(er) and affine_equal(el, er):
                    self.affine_proofs += 1
                    node = self.b.var(nm)
            done[i] = node
        return done[t.id]

    def inner_cuts(self, t: Term, last: int) -> Term | None:
        """``t`` with each subterm that is the new a of a round before ``last`` replaced by its symbol.

        A cut of several rounds at once (SHA-NI's ``sha1rnds4`` writes rounds
        t+3 and t+4 of four) holds the earlier rounds' values only inside
        the term: found there by value on random inputs, each proved equal to
        its definition (one round, over the symbols already substituted) and
        replaced, so the cut itself is one round again. None when a subterm
        does not prove.
        """
        names = {f"A{r + 1}" for r in range(0, 80) if f"A{r + 1}" in self.rounds}
        if not names:
            return None
        dom, value = self._fingerprints()
        want = {value(nm).tobytes(): nm for nm in names}
        vals = self._vals
        evaluate([t], dom, value, vals)
        tdom = TermDomain(self.b)
        shared = self._rewritten       # node -> its term with inner rounds cut (shared by the cuts of one run)
        new: dict[int, Term] = {}
        later: set[int] = set()        # nodes left as they are only because their round is not before ``last``
        for i in reachable([t]):
            if i in shared:
                if shared[i] is None:
                    return None
                new[i] = shared[i]
                continue
            n = self.b.nodes[i]
            node = Term(self.b, i) if not n.args else tdom.apply(n.op, *(new[j] for j in n.args))
            nm = want.get(vals[i].tobytes()) if n.op not in ("var", "const") else None
            if nm is not None and node.id != self.b.var(nm).id:
                if int(nm[1:]) > last:
                    later.add(i)
                elif isinstance(self.base.check(node, self.rounds[nm].term), Proved):
                    node = self.b.var(nm)
                else:
                    shared[i] = None
                    return None
            new[i] = node
            if i not in later and not any(j in later for j in n.args):
                shared[i] = node
            else:
                later.add(i)
        return new[t.id]


def _bswap_mask(m: int) -> int:
    return int.from_bytes(m.to_bytes(4, "little"), "big")


def affine(t: Term) -> bool:
    """Whether ``t`` is structurally an affine map over GF(2) of its variables (see the module docstring)."""
    b = t.builder
    mask: dict[int, int] = {}           # node -> bits that may be 1 (over all inputs)
    for i in reachable([t]):
        n = b.nodes[i]
        a = [mask.get(j) for j in n.args]
        if n.op == "var":
            m = MASK32
        elif n.op == "const":
            m = n.payload
        elif any(x is None for x in a):
            return False
        elif n.op in ("xor", "not"):
            m = MASK32 if n.op == "not" else a[0] | a[1]
        elif n.op == "and":
            consts = [b.nodes[j] for j in n.args if b.nodes[j].op == "const"]
            if not consts:
                return False
            m = a[0] & a[1]
        elif n.op in ("or", "add"):
            if n.op == "add" and n.args[0] == n.args[1]:
                m = (a[0] << 1) & MASK32             # x + x = x << 1
            elif a[0] & a[1]:
                return False
            else:
                m = a[0] | a[1]
        elif n.op in ("shl", "shr", "rol", "ror"):
            c = b.nodes[n.args[1]]
            if c.op != "const":
                return False
            k = c.payload & 31
            x = a[0]
            m = {"shl": (x << k) & MASK32, "shr": x >> k,
                 "rol": ((x << k) | (x >> (32 - k))) & MASK32 if k else x,
                 "ror": ((x >> k) | (x << (32 - k))) & MASK32 if k else x}[n.op]
        elif n.op == "bswap":
            m = _bswap_mask(a[0])
        else:
            return False
        mask[i] = m
    return True


def affine_equal(lhs: Term, rhs: Term) -> bool:
    """Two affine maps agree everywhere iff they agree on 0 and on every unit vector of their inputs."""
    names = sorted(set(variables([lhs])) | set(variables([rhs])))
    lanes = 1 + 32 * len(names)
    env = {}
    for v, name in enumerate(names):
        x = np.zeros(lanes, dtype=np.uint32)
        x[1 + 32 * v:1 + 32 * (v + 1)] = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
        env[name] = x
    lv, rv = evaluate([lhs, rhs], NumpyDomain(lanes), env)
    return bool(np.array_equal(lv, rv))
