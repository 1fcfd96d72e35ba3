"""A path condition in words, rendered from the z3 terms (never from their printed text).

A path condition is a list of z3 booleans (the executor's ``State.cond``). ``words(cond)`` drops the
stack-realignment facts (terms over ``alignN`` / ``stack_base``: they are not a dispatch condition),
simplifies each conjunct (unless it compares plain values), flattens ``And``, pushes ``Not`` inward (De Morgan; ``Not(a == b)`` is
``a != b``) and prints what is left in the words a maintainer uses for a capability test:

    [Extract(9, 9, cap+4) == 0, Not(And(Extract(3, 3, cap+8) == 1, Extract(5, 5, cap+8) == 1))]
    -> "bit 9 of cap+4 is 0 and (bit 3 of cap+8 is 0 or bit 5 of cap+8 is 0)"

A mask test of several bits (z3 simplifies ``(cap & 0xf) != 0xf`` to ``~Extract(3, 0, cap) != 0``) reads
"bits 0..3 of cap are not all 1".

``Extract(h, l, v) == 0`` with bits above h known to be 0 (``known_width``: nblocks is below 2^58 on
x86-64, 2^26 on i386) is ``v < 2^l``: ``Extract(57, 1, n) == 0`` -> ``n <= 1``. A term with no rule
here is printed by z3 (so nothing is dropped), and the invariant is that the words mean exactly the
conjunction given (minus the alignment facts).
"""

from __future__ import annotations

import z3

ALIGNMENT = ("align", "stack_base")      # variable-name prefixes of the stack realignment's facts

_CMP = {z3.Z3_OP_EQ: "==", z3.Z3_OP_ULT: "<", z3.Z3_OP_ULEQ: "<=", z3.Z3_OP_UGT: ">", z3.Z3_OP_UGEQ: ">=",
        z3.Z3_OP_SLT: "<", z3.Z3_OP_SLEQ: "<=", z3.Z3_OP_SGT: ">", z3.Z3_OP_SGEQ: ">="}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<="}
_SIGNED = {z3.Z3_OP_SLT, z3.Z3_OP_SLEQ, z3.Z3_OP_SGT, z3.Z3_OP_SGEQ}
_ARITH = {z3.Z3_OP_BADD: "+", z3.Z3_OP_BSUB: "-", z3.Z3_OP_BMUL: "*", z3.Z3_OP_BAND: "&", z3.Z3_OP_BOR: "|",
          z3.Z3_OP_BXOR: "^"}


def words(cond: list, known_width: dict[str, int] | None = None) -> str:
    """The conjunction ``cond`` in words ("always" when nothing but alignment facts is left)."""
    known = known_width or {}
    kept = [c for c in cond if not _is_alignment(c)]
    parts = [p for c in kept for p in _conjuncts(_prepared(c))]
    parts = [p for p in parts if not z3.is_true(p)]
    if not parts:
        return "always"
    return " and ".join(_bool(p, known, nested=len(parts) > 1) for p in parts)


def _prepared(c):
    """``c`` simplified -- unless it already compares plain values (``n < 2``: z3 would split it into bit fields).
    Simplification is what turns the mask idioms (``(cap & 0x200) != 0``) into bit tests."""
    core = c
    while z3.is_not(core):
        core = core.arg(0)
    plain = lambda t: z3.is_bv_value(t) or (z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED)
    if core.decl().kind() in _CMP and core.num_args() == 2 and all(plain(t) for t in core.children()):
        return c
    return z3.simplify(c)


def _is_alignment(c) -> bool:
    return any(str(v).startswith(ALIGNMENT) for v in symbols(c))


def symbols(e) -> set:
    """The uninterpreted constants of ``e``, each shared subterm visited once (``z3util.get_vars`` walks a DAG as
    a tree: the largest of 8 counts, a chain of ``If`` sharing its arms, is exponential there)."""
    out, work, seen = set(), [e], set()
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(t)
        work.extend(t.children())
    return out


def _conjuncts(e) -> list:
    if z3.is_and(e):
        return [p for c in e.children() for p in _conjuncts(c)]
    if z3.is_not(e) and z3.is_or(e.arg(0)):                       # Not(Or(a, b)) = Not(a) and Not(b)
        return [p for c in e.arg(0).children() for p in _conjuncts(z3.Not(c))]
    return [e]


def _bool(e, known: dict[str, int], nested: bool, negate: bool = False) -> str:
    """``e`` (or ``Not(e)`` when ``negate``) in words; ``nested``: an or-list gets parentheses."""
    if z3.is_not(e):
        return _bool(e.arg(0), known, nested, not negate)
    if z3.is_and(e) or z3.is_or(e):
        join = " or " if z3.is_and(e) == negate else " and "       # De Morgan under a negation
        text = join.join(_bool(c, known, True, negate) for c in e.children())
        return f"({text})" if nested else text
    if z3.is_true(e) or z3.is_false(e):
        return "always" if z3.is_true(e) != negate else "never"
    kind = e.decl().kind()
    if kind in _CMP and e.num_args() == 2:
        op = _CMP[kind]
        op = _NEGATED[op] if negate else op
        return _compare(e.arg(0), op, e.arg(1), known, signed=kind in _SIGNED)
    if kind == z3.Z3_OP_DISTINCT and e.num_args() == 2:
        return _compare(e.arg(0), "==" if negate else "!=", e.arg(1), known)
    text = str(e)
    return f"not ({text})" if negate else text


def _compare(a, op: str, b, known: dict[str, int], signed: bool = False) -> str:
    if z3.is_bv_value(a) and not z3.is_bv_value(b):                # the constant on the right
        a, b = b, a
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    if z3.is_app_of(a, z3.Z3_OP_BNOT) and z3.is_bv_value(b) and op in ("==", "!="):   # ~x == c is x == ~c
        a, b = a.arg(0), z3.BitVecVal(~b.as_long() & ((1 << b.size()) - 1), b.size())
    if z3.is_app_of(a, z3.Z3_OP_EXTRACT) and z3.is_bv_value(b) and op in ("==", "!="):
        hi, lo = a.params()
        v = a.arg(0)
        value = b.as_long()
        if hi == lo:
            return f"bit {hi} of {_term(v)} is {value if op == '==' else 1 - value}"
        if value == (1 << (hi - lo + 1)) - 1:                      # a mask test: every bit of the field set
            return f"bits {lo}..{hi} of {_term(v)} are {'all' if op == '==' else 'not all'} 1"
        width = known.get(str(v), v.size())
        if value == 0 and hi >= width - 1:                         # the bits above lo are all the bits there are
            return f"{_term(v)} {'<=' if op == '==' else '>'} {(1 << lo) - 1}"
    suffix = " (signed)" if signed else ""
    return f"{_term(a)} {op} {_term(b)}{suffix}"


def _term(t) -> str:
    if z3.is_bv_value(t):
        v = t.as_long()
        return str(v) if v < 4096 else hex(v)
    if z3.is_const(t):
        return str(t)
    kind = t.decl().kind()
    if kind == z3.Z3_OP_EXTRACT:
        hi, lo = t.params()
        return f"bits {lo}..{hi} of {_term(t.arg(0))}" if hi != lo else f"bit {hi} of {_term(t.arg(0))}"
    if kind in _ARITH:
        return "(" + f" {_ARITH[kind]} ".join(_term(c) for c in t.children()) + ")"
    return str(t)
