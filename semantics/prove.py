"""The prover: is ``lhs == rhs`` for every assignment of 32-bit inputs?

Outcomes are values, never exceptions::

    Proved(seconds)                       -- Z3 answered unsat for lhs != rhs
    Counterexample(inputs, lhs, rhs, by)  -- concrete inputs where they differ
    Unknown(reason)                       -- timeout / resource limit: NOT success

Method (STOKE's): a test-case prefilter first -- both sides evaluated with
numpy on corner states, random states and every counterexample found so far
-- and Z3 only for pairs that survive it. Each Z3 counterexample is checked
concretely (numpy, independent of Z3's model evaluation) and joins the test
set, so one wrong candidate never costs two solver calls.

Invariants: one ``Prover`` owns one ``z3.Context`` (a parallel worker makes
its own Prover); a Counterexample's values were computed by numpy, so it is
real even if the solver were wrong; ``Proved`` is only ever built from an
``unsat`` answer.

Terms with AES ops (``ir.UNINTERPRETED_IN_Z3``): Z3 reads those as
uninterpreted functions (logic QF_UFBV), so ``unsat`` still proves the
equality for AES; a ``sat`` model is a candidate numpy (exact AES) must
reproduce -- when it does not, the answer is ``Unknown``, naming that the
model chose a function AES is not (e.g. ``aesl0(0, 0, 0, 0) == 0x63636363``:
true of AES, whose S-box maps 0 to 0x63, and of no other function in general).
"""

from __future__ import annotations

import time
import weakref
import zlib
from dataclasses import dataclass, field

import numpy as np
import z3

from sha1opt.semantics.domain import NumpyDomain, TermDomain, Z3Domain
from sha1opt.semantics.errors import ParseError, Sha1optError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import MASK32, Builder, Term, evaluate, uninterpreted_ops, variables
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.x86 import DATA_REGS

# Values that break wrong identities fast: all-zero/all-one, lone bits at the
# ends, alternating bits, half words (carry chains of "+ for |" rewrites).
CORNERS = (0, MASK32, 1, 0x80000000, 0x7FFFFFFF, 0x55555555, 0xAAAAAAAA, 0x0000FFFF, 0xFFFF0000)


@dataclass(frozen=True)
class Proved:
    seconds: float
    method: str = "z3"

    ok = True


@dataclass(frozen=True)
class Counterexample:
    inputs: dict[str, int]
    lhs: int
    rhs: int
    found_by: str  # "tests" (prefilter) or "z3"

    ok = False


@dataclass(frozen=True)
class Unknown:
    reason: str

    ok = False


Outcome = Proved | Counterexample | Unknown


@dataclass
class TestSet:
    """Concrete input states, grown by counterexamples; deterministic per seed.

    Lane layout: the product of ``CORNERS`` over the first three variables
    (sorted by name), then random lanes, then one lane per counterexample.
    Variables first seen later get values derived from ``(seed, name)`` only,
    so the same variable has the same values in every query.
    """

    lanes: int = 1024
    seed: int = 0
    counterexamples: list[dict[str, int]] = field(default_factory=list)

    def values(self, name: str, position: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, zlib.crc32(name.encode())])
        v = rng.integers(0, 1 << 32, size=self.lanes, dtype=np.uint64).astype(np.uint32)
        if position < 3:
            n = len(CORNERS)
            idx = (np.arange(n ** 3) // n ** position) % n
            k = min(self.lanes, n ** 3)
            v[:k] = np.asarray(CORNERS, dtype=np.uint32)[idx[:k]]
        if self.counterexamples:
            extra = np.array([c.get(name, 0) for c in self.counterexamples], dtype=np.uint32)
            v = np.concatenate([v, extra])
        return v

    def env(self, names: list[str]) -> dict[str, np.ndarray]:
        return {name: self.values(name, i) for i, name in enumerate(sorted(names))}

    @property
    def size(self) -> int:
        return self.lanes + len(self.counterexamples)


class Prover:
    """Decides ``lhs == rhs`` over all inputs; see the module docstring."""

    def __init__(self, timeout: float = 10.0, lanes: int = 1024, seed: int = 0) -> None:
        if timeout <= 0:
            raise Sha1optError("timeout must be positive")
        self.timeout = timeout
        self.ctx = z3.Context()
        self.z3 = Z3Domain(self.ctx)
        self.tests = TestSet(lanes=lanes, seed=seed)
        # Per-builder cache of node id -> Z3 expression: the compositional
        # checker asks thousands of small questions about one growing DAG.
        self._z3cache: "weakref.WeakKeyDictionary[Builder, dict[int, object]]" = weakref.WeakKeyDictionary()
        self.solver_calls = 0

    def concrete(self, lhs: Term, rhs: Term, env: dict[str, np.ndarray]) -> Counterexample | None:
        """Evaluate both sides on every lane of ``env``; the first difference, if any."""
        n = len(next(iter(env.values()))) if env else 1
        dom = NumpyDomain(n)
        lv, rv = evaluate([lhs, rhs], dom, env)
        diff = np.nonzero(lv != rv)[0]
        if diff.size == 0:
            return None
        i = int(diff[0])
        return Counterexample({k: int(v[i]) for k, v in env.items()}, int(lv[i]), int(rv[i]), "tests")

    def prefilter(self, lhs: Term, rhs: Term) -> Counterexample | None:
        return self.concrete(lhs, rhs, self.tests.env(variables([lhs, rhs])))

    def check(self, lhs: Term, rhs: Term, timeout: float | None = None) -> Outcome:
        if lhs.builder is not rhs.builder:
            raise Sha1optError("lhs and rhs must come from one builder")
        t0 = time.perf_counter()
        if lhs.id == rhs.id:  # interned: structurally identical terms
            return Proved(time.perf_counter() - t0, "identical")
        cex = self.prefilter(lhs, rhs)
        if cex is not None:
            return cex
        return self._solve(lhs, rhs, t0, timeout)

    def _solve(self, lhs: Term, rhs: Term, t0: float, timeout: float | None) -> Outcome:
        cache = self._z3cache.setdefault(lhs.builder, {})
        zl, zr = evaluate([lhs, rhs], self.z3, self.z3.var, cache)
        opaque = uninterpreted_ops([lhs, rhs])
        solver = z3.SolverFor("QF_UFBV" if opaque else "QF_BV", ctx=self.ctx)
        solver.set("timeout", max(1, int(1000 * (timeout or self.timeout))))
        solver.add(zl != zr)
        self.solver_calls += 1
        res = solver.check()
        if res == z3.unsat:
            return Proved(time.perf_counter() - t0)
        if res == z3.sat:
            model = solver.model()
            names = variables([lhs, rhs])
            point = {}
            for name in names:
                v = model.eval(self.z3.var(name), model_completion=True)
                point[name] = v.as_long() & MASK32
            env = {k: np.array([v], dtype=np.uint32) for k, v in point.items()}
            cex = self.concrete(lhs, rhs, env)
            if cex is None:
                # Z3's model does not separate the sides under numpy: Z3 chose a function for an
                # uninterpreted op, or one of the two semantics is wrong. Never call that a proof.
                if opaque:
                    return Unknown(f"z3 model {point} does not reproduce under numpy: z3 reads "
                                   f"{', '.join(sorted(opaque))} as uninterpreted, and its model is not AES")
                return Unknown(f"z3 model {point} does not reproduce under numpy (semantics disagree)")
            self.tests.counterexamples.append(point)
            return Counterexample(cex.inputs, cex.lhs, cex.rhs, "z3")
        return Unknown(f"z3: {solver.reason_unknown()} after {time.perf_counter() - t0:.2f}s")


def prove_exprs(lhs: str, rhs: str, timeout: float = 10.0, prover: Prover | None = None) -> Outcome:
    """Parse two user expressions and prove them equal."""
    b = Builder()
    try:
        left = parse(lhs, b)
    except ParseError as e:
        raise ParseError(f"first expression: {e}") from None
    try:
        right = parse(rhs, b)
    except ParseError as e:
        raise ParseError(f"second expression: {e}") from None
    return (prover or Prover(timeout=timeout)).check(left, right, timeout)


def program_term(program, out_reg: str, mapping: dict[str, str], builder: Builder) -> Term:
    """The formula ``program`` leaves in ``out_reg``, with mapped registers as variables.

    ``program`` is a list of ``x86.Instr``: for user code, the instructions
    decoded from the assembled object (``lift.snippet.snippet_code``), never
    text read as written.

    ``mapping`` is variable -> register name. Unmapped registers read as
    variables ``%eax``-style and memory words as ``region[offset]``, so a
    counterexample shows any input the result wrongly depends on.
    """
    known = set(DATA_REGS["x86_64"]) | {"esp"}
    by_reg: dict[str, str] = {}
    for var, reg in mapping.items():
        if reg not in known:
            raise Sha1optError(f"--map {var}={reg}: unknown register {reg!r}")
        if reg in by_reg:
            raise Sha1optError(f"--map: register {reg} given to both {by_reg[reg]} and {var}")
        by_reg[reg] = var
    if out_reg not in known:
        raise Sha1optError(f"--out: unknown register {out_reg!r}")
    dom = TermDomain(builder)
    m = Machine(
        dom,
        initial_reg=lambda r: builder.var(by_reg.get(r, "%" + r)),
        initial_mem=lambda region, off: builder.var(f"{region}[{off}]"),
    )
    m.run(program)
    out = m.get(("reg", out_reg))
    if not isinstance(out, Term):
        raise Sha1optError(f"--out %{out_reg} holds a pointer, not a value")
    return out


def prove_program(program, out_reg: str, expr: str, mapping: dict[str, str],
                  timeout: float = 10.0, prover: Prover | None = None) -> Outcome:
    """Prove that running ``program`` leaves ``expr`` (over ``mapping``'s variables) in ``out_reg``."""
    b = Builder()
    try:
        target = parse(expr, b)
    except ParseError as e:
        raise ParseError(f"--expr: {e}") from None
    unmapped = [v for v in variables([target]) if v not in mapping]
    if unmapped:
        raise Sha1optError(f"variable {unmapped[0]!r} of the expression has no register in --map")
    got = program_term(program, out_reg, mapping, b)
    return (prover or Prover(timeout=timeout)).check(got, target, timeout)
