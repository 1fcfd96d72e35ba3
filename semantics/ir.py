"""The term IR: 32-bit bit-vector expressions as an interned, backward-pointing DAG.

Every formula sha1opt reasons about -- a user expression, a SHA-1 round
function, the value a register holds after symbolically running x86 code --
is a ``Term`` in a ``Builder``.

Invariants (the egg ``RecExpr`` discipline):

* A node is a frozen ``Node(op, args, payload)``; ``args`` are indices of
  nodes in the same builder and every arg index is *smaller* than the node's
  own index. So ``builder.nodes`` is always in topological order and any
  evaluation is one forward pass, with no recursion (10,000-deep terms are
  fine).
* Nodes are interned: building the same ``(op, args, payload)`` twice returns
  the same index, so structurally equal terms of one builder are equal ids.

Worked example -- ``(b & c) | (d & (b | c))`` built left to right::

    0: var b          3: and 0 1        5: and 2 4
    1: var c          4: or  0 1        6: or  3 5
    2: var d

``b`` and ``c`` are stored once although each is used twice, and every
operand index (e.g. node 6's 3 and 5) is below 6.

Semantics of the ops, all on 32-bit unsigned words, wrapping:
``add sub and or xor`` as in C; ``not`` is bitwise complement; ``neg`` is
two's complement; ``shl``/``shr`` and ``rol``/``ror`` take their count from
the *second* operand masked to 5 bits (count mod 32), exactly as x86's
``shl %cl`` / ``rol %cl`` do, so every op is total; ``bswap`` reverses the
four bytes; ``gts`` is ``0xffffffff`` where the first operand is greater than
the second as signed (two's complement) integers, else 0. A ``const`` payload is an int in [0, 2**32); a ``var`` payload is
its name.

The AES ops (``AES_OPS``, ``aes.py`` has their definition and byte order)
take the four 32-bit lanes of a 128-bit AES state, lane 0 first, and give
one lane of the keyless part of an AES-NI round: ``aesr0``..``aesr3`` of
MixColumns(ShiftRows(SubBytes(s))) (AESENC), ``aesl0``..``aesl3`` of
ShiftRows(SubBytes(s)) (AESENCLAST). Numpy and terms compute them exactly;
Z3 reads them as uninterpreted functions (``UNINTERPRETED_IN_Z3``), so
``aesr0(a ^ b, c, d, e) == aesr0(b ^ a, c, d, e)`` proves while a Z3 model
of a difference is only a candidate (see ``domain.Z3Domain``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from sha1opt.semantics.errors import Sha1optError

MASK32 = 0xFFFFFFFF

# op name -> number of term operands. The single source of truth for which
# operations exist; ``domain.py`` implements exactly these.
ARITY: dict[str, int] = {
    "var": 0,
    "const": 0,
    "not": 1,
    "neg": 1,
    "bswap": 1,
    "add": 2,
    "sub": 2,
    "and": 2,
    "or": 2,
    "xor": 2,
    "shl": 2,
    "shr": 2,
    "rol": 2,
    "ror": 2,
    # x > y as signed 32-bit integers: all ones, else 0 (``pcmpgtd``'s lane)
    "gts": 2,
    # AES-NI's keyless round, one op per output lane of the 4 lane operands (``aes.py``)
    "aesr0": 4, "aesr1": 4, "aesr2": 4, "aesr3": 4,
    "aesl0": 4, "aesl1": 4, "aesl2": 4, "aesl3": 4,
}

AES_OPS = frozenset({"aesr0", "aesr1", "aesr2", "aesr3", "aesl0", "aesl1", "aesl2", "aesl3"})
# Ops Z3 reads as uninterpreted functions (exact AES would bit-blast 16 S-boxes per round): the one
# exception to "every domain agrees bit for bit" (``domain.py``). A Z3 proof over them holds for AES;
# a Z3 model is a candidate only, confirmed or dropped by running numpy.
UNINTERPRETED_IN_Z3 = AES_OPS

COMMUTATIVE = frozenset({"add", "and", "or", "xor"})


@dataclass(frozen=True, slots=True)
class Node:
    """One interned operation; see the module docstring for the invariant."""

    op: str
    args: tuple[int, ...] = ()
    payload: int | str | None = None


class Builder:
    """The one interning constructor of nodes; owns the topologically ordered list.

    Terms of different builders must not be mixed; doing so is misuse and
    raises ``Sha1optError``.
    """

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._index: dict[Node, int] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def node(self, op: str, args: Sequence["Term"] = (), payload: int | str | None = None) -> "Term":
        """Intern ``op(args)``; the only way nodes come into existence."""
        arity = ARITY.get(op)
        if arity is None:
            raise Sha1optError(f"unknown IR op {op!r}")
        if len(args) != arity:
            raise Sha1optError(f"IR op {op!r} takes {arity} operands, got {len(args)}")
        ids = []
        for a in args:
            if a.builder is not self:
                raise Sha1optError("terms of different builders mixed in one expression")
            ids.append(a.id)
        if op == "const":
            if not isinstance(payload, int):
                raise Sha1optError("const payload must be an int")
            payload &= MASK32
        elif op == "var":
            if not isinstance(payload, str) or not payload:
                raise Sha1optError("var payload must be a non-empty name")
        n = Node(op, tuple(ids), payload)
        found = self._index.get(n)
        if found is None:
            found = len(self.nodes)
            self.nodes.append(n)
            self._index[n] = found
        return Term(self, found)

    # Convenience constructors; each is a one-line call of ``node``.
    def var(self, name: str) -> "Term":
        return self.node("var", (), name)

    def const(self, value: int) -> "Term":
        return self.node("const", (), value)

    def lift(self, x: "Term | int") -> "Term":
        return x if isinstance(x, Term) else self.const(x)

    def op(self, name: str, *args: "Term | int") -> "Term":
        return self.node(name, [self.lift(a) for a in args])


@dataclass(frozen=True, slots=True)
class Term:
    """A handle on node ``id`` of ``builder``; Python operators build new nodes."""

    builder: Builder
    id: int

    @property
    def node(self) -> Node:
        return self.builder.nodes[self.id]

    def _bin(self, op: str, other: "Term | int") -> "Term":
        return self.builder.op(op, self, other)

    def _rbin(self, op: str, other: "Term | int") -> "Term":
        return self.builder.op(op, other, self)

    def __add__(self, o): return self._bin("add", o)
    def __radd__(self, o): return self._rbin("add", o)
    def __sub__(self, o): return self._bin("sub", o)
    def __rsub__(self, o): return self._rbin("sub", o)
    def __and__(self, o): return self._bin("and", o)
    def __rand__(self, o): return self._rbin("and", o)
    def __or__(self, o): return self._bin("or", o)
    def __ror__(self, o): return self._rbin("or", o)
    def __xor__(self, o): return self._bin("xor", o)
    def __rxor__(self, o): return self._rbin("xor", o)
    def __lshift__(self, o): return self._bin("shl", o)
    def __rshift__(self, o): return self._bin("shr", o)
    def __invert__(self): return self.builder.op("not", self)
    def __neg__(self): return self.builder.op("neg", self)

    def rol(self, n: "Term | int") -> "Term":
        return self._bin("rol", n)

    def ror(self, n: "Term | int") -> "Term":
        return self._bin("ror", n)

    def bswap(self) -> "Term":
        return self.builder.op("bswap", self)

    # Terms are dataclasses with identity-based builder comparison; hashing
    # by (id(builder), id) keeps them usable as dict keys.
    def __hash__(self) -> int:
        return hash((id(self.builder), self.id))

    def __eq__(self, other: object) -> bool:  # structural identity, not a formula
        return isinstance(other, Term) and other.builder is self.builder and other.id == self.id

    def __repr__(self) -> str:
        return f"Term({to_text(self)})"


def reachable(roots: Iterable[Term]) -> list[int]:
    """Ids of all nodes the roots depend on, ascending (hence topological)."""
    roots = list(roots)
    if not roots:
        return []
    b = roots[0].builder
    seen: set[int] = set()
    stack = [r.id for r in roots]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack.extend(b.nodes[i].args)
    return sorted(seen)


def variables(roots: Iterable[Term]) -> list[str]:
    """Names of the free variables of the roots, sorted."""
    roots = list(roots)
    if not roots:
        return []
    b = roots[0].builder
    return sorted({b.nodes[i].payload for i in reachable(roots) if b.nodes[i].op == "var"})  # type: ignore[misc]


def uninterpreted_ops(roots: Iterable[Term]) -> frozenset[str]:
    """The ops of ``UNINTERPRETED_IN_Z3`` the roots depend on (empty: Z3 reads the roots exactly)."""
    roots = list(roots)
    if not roots:
        return frozenset()
    b = roots[0].builder
    return frozenset(op for i in reachable(roots) if (op := b.nodes[i].op) in UNINTERPRETED_IN_Z3)


def size(roots: Iterable[Term]) -> int:
    """Number of distinct nodes under the roots (the DAG size)."""
    return len(reachable(roots))


def evaluate(
    roots: Sequence[Term],
    domain: "object",
    env: Mapping[str, object] | Callable[[str], object],
    cache: dict[int, object] | None = None,
) -> list[object]:
    """Evaluate ``roots`` in ``domain`` (see ``domain.py``) in one forward pass.

    ``env`` maps variable names to domain values (a mapping, or a function
    called for each name). ``cache`` (node id -> value) may be passed in to
    reuse work across calls on the same builder with the same env -- the
    compositional checker translates thousands of small queries this way.
    """
    if not roots:
        return []
    b = roots[0].builder
    vals: dict[int, object] = cache if cache is not None else {}
    lookup = env if callable(env) else env.__getitem__
    for i in reachable(roots):
        if i in vals:
            continue
        n = b.nodes[i]
        if n.op == "var":
            try:
                vals[i] = lookup(n.payload)
            except KeyError:
                raise Sha1optError(f"no value for variable {n.payload!r}") from None
        elif n.op == "const":
            vals[i] = domain.const(n.payload)
        else:
            vals[i] = domain.apply(n.op, *(vals[a] for a in n.args))
    return [vals[r.id] for r in roots]


_INFIX = {"add": "+", "sub": "-", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}


def to_text(term: Term, limit: int = 400) -> str:
    """Render in the user grammar (fully parenthesized), cut at ``limit`` chars."""
    b = term.builder
    out: dict[int, str] = {}
    for i in reachable([term]):
        n = b.nodes[i]
        a = [out[j] for j in n.args]
        if n.op == "var":
            s = str(n.payload)
        elif n.op == "const":
            s = hex(n.payload) if n.payload > 9 else str(n.payload)  # type: ignore[operator]
        elif n.op in _INFIX:
            s = f"({a[0]} {_INFIX[n.op]} {a[1]})"
        elif n.op == "not":
            s = f"~{a[0]}"
        elif n.op == "neg":
            s = f"-{a[0]}"
        else:
            s = f"{n.op}({', '.join(a)})"
        if len(s) > limit:
            s = s[: limit - 3] + "..."
        out[i] = s
    return out[term.id]
