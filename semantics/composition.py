"""Compositional proof of round code against ``sha1.range_spec``: cut, prove, continue.

A monolithic Z3 query for 80 rounds does not finish (measured while planning:
> 120 s, unknown). Cut at round outputs instead:

1. *Find the cuts by testing.* Run the code with numpy on ``LANES`` random
   states and the spec's definitions on the same inputs. Every written value
   (register or memory word) whose lane vector equals a definition's (a new
   ``A{t}``, a message word ``W{t}``) is a candidate cut at that instruction.
   If an output is wrong, the first definition no write ever produced names
   the round where the code goes astray -- a concrete counterexample already.
   A new a counts as produced also as ``rol(A, 30)``: SHA-NI's ``sha1rnds4``
   leaves rounds 1-2 of its group of four only so, in lanes c and d, and
   without that form every SHA-NI mutant named A1 (round 0) as the place.
2. *Prove each cut.* Run the code again over terms. At a candidate cut,
   prove the written term equal to the definition's term -- both are over the
   symbols of earlier cuts, so each query is one round's worth -- then
   replace the value by the cut symbol and continue.
3. *Prove the outputs* (state words, W ring, feed-forward sums), again small.

Soundness: each cut proves ``value(X) == def(X)`` for *all* values of the
earlier symbols X, in particular for the values the definitions give them,
so replacing the value by its symbol changes nothing. A cut that fails to
prove is a real counterexample at that round (or Unknown), never skipped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import Term, evaluate
from sha1opt.semantics.machine import Location, Machine, Pointer
from sha1opt.semantics.prove import Counterexample, Outcome, Proved, Prover, Unknown
from sha1opt.semantics.sha1 import Definition, Spec
from sha1opt.semantics.x86 import Instr

LANES = 64  # 64 random 32-bit lanes: a false match has probability ~2**-2048


def location_name(loc: Location) -> str:
    return f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1]}+{loc[2]}"


@dataclass(frozen=True)
class CutFailure:
    """Where a compositional proof failed."""

    definition: str          # e.g. "A17 (new a of round 16)" or "output h0" (display)
    location: str            # e.g. "%eax" or "stack+12"
    instruction: str         # the instruction that wrote it ("" at the end)
    line: int
    outcome: Counterexample | Unknown
    output: str | None = None  # the spec output whose check failed ("h0"); None for a definition's cut

    def describe(self) -> str:
        at = f" written by `{self.instruction}`" + (f" (line {self.line})" if self.line else "") if self.instruction else ""
        return f"{self.definition} in {self.location}{at}"


@dataclass(frozen=True)
class CompositionResult:
    outcome: Outcome
    cuts: int                  # cut points proved and substituted
    solver_calls: int
    seconds: float
    failure: CutFailure | None = None
    missing_definition: Definition | None = None    # the first definition no write produced (diagnostic)

    @property
    def missing(self) -> str | None:
        """The missing definition in words, e.g. ``"A31 (new a of round 30)"``."""
        d = self.missing_definition
        return f"{d.name} ({d.what})" if d is not None else None

    @property
    def ok(self) -> bool:
        return isinstance(self.outcome, Proved)


def _free_name(loc: tuple) -> str:
    return f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1]}[{loc[2]}]"


def check_program(
    program: Sequence[Instr],
    spec: Spec,
    inputs: dict[str, Location],
    outputs: dict[str, Location],
    prover: Prover | None = None,
    seed: int = 1,
    pointers: dict[str, str] | None = None,
    machine=None,
) -> CompositionResult:
    """Prove that ``program`` computes ``spec`` under the given bindings.

    ``inputs`` maps each spec input name to where the code finds it at entry
    (``("reg", "eax")`` or ``("mem", "data", 12)``); ``outputs`` maps each spec
    output name to where the code leaves it. Everything else the code reads
    is a free symbol, so depending on it is caught as a counterexample.
    ``pointers`` names the region each pointer register points at on entry
    (e.g. ``{"edi": "state", "esi": "data", "esp": "stack"}``).
    ``machine(domain, initial_reg, initial_mem, pointers)`` builds the
    interpreter (default ``machine.Machine``); the whole-function lifter
    passes its path executor, which replays a trace of decoded instructions.
    """
    make = machine or (lambda dom, ir, im, pointers: Machine(dom, ir, im, pointers=pointers))
    t0 = time.perf_counter()
    prover = prover or Prover()
    calls0 = prover.solver_calls
    missing_in = [n for n in spec.inputs if n not in inputs]
    if missing_in:
        raise Sha1optError(f"spec input {missing_in[0]} has no location")
    unknown_out = [n for n in outputs if n not in spec.outputs]
    if unknown_out:
        raise Sha1optError(f"{unknown_out[0]} is not an output of the spec")
    unbound = [n for n in spec.outputs if n not in outputs]
    if unbound:
        raise Sha1optError(f"spec output {unbound[0]} has no location")
    at_input = {loc: name for name, loc in inputs.items()}

    # -- 1. numpy: spec values and candidate cuts ---------------------------
    rng = np.random.default_rng(seed)
    dom = NumpyDomain(LANES)
    env: dict[str, np.ndarray] = {
        n: rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32) for n in spec.inputs
    }
    by_bytes: dict[bytes, str] = {}
    rotated: dict[bytes, str] = {}       # rol(A, 30) of each new a: produced, but not a cut
    for d in spec.definitions:
        env[d.name] = v = evaluate([d.term], dom, env)[0]
        by_bytes.setdefault(v.tobytes(), d.name)
        if d.name[0] == "A":
            rotated.setdefault(((v << np.uint32(30)) | (v >> np.uint32(2))).tobytes(), d.name)
    free_cache: dict[str, np.ndarray] = {}

    def free(name: str) -> np.ndarray:
        if name not in free_cache:
            free_cache[name] = rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32)
        return free_cache[name]

    def init_reg_np(r: str):
        loc = ("reg", r)
        return env[at_input[loc]] if loc in at_input else free(_free_name(loc))

    def init_mem_np(region: str, off: int):
        loc = ("mem", region, off)
        return env[at_input[loc]] if loc in at_input else free(_free_name(loc))

    candidates: dict[int, str] = {}
    produced: set[str] = set()

    def spot(i: int, ins: Instr, loc: Location, value) -> object:
        key = value.tobytes()
        name = by_bytes.get(key)
        if name is not None:
            candidates[i] = name
            produced.add(name)
        elif key in rotated:
            produced.add(rotated[key])
        return value

    m_np = make(dom, init_reg_np, init_mem_np, dict(pointers or {}))
    m_np.run(program, spot)
    missing = next((d for d in spec.definitions if d.name not in produced), None)
    out_vals = evaluate(list(spec.outputs.values()), dom, env)
    spec_out = dict(zip(spec.outputs, out_vals))
    for name, loc in outputs.items():
        got = m_np.get(loc)
        if isinstance(got, Pointer):
            raise Sha1optError(f"output {name} location {location_name(loc)} holds a pointer")
        bad = np.nonzero(got != spec_out[name])[0]
        if bad.size:
            lane = int(bad[0])
            cex = Counterexample({n: int(env[n][lane]) for n in spec.inputs},
                                 int(got[lane]), int(spec_out[name][lane]), "tests")
            return CompositionResult(
                cex, 0, prover.solver_calls - calls0, time.perf_counter() - t0,
                CutFailure(f"output {name}", location_name(loc), "", 0, cex, name), missing,
            )

    # -- 2. terms: prove each cut, substitute its symbol --------------------
    b = spec.builder
    defs = {d.name: d for d in spec.definitions}
    tdom = TermDomain(b)
    failure: list[CutFailure] = []
    cuts = 0
    proved: set[str] = set()     # definitions already cut (their symbol stands for a proved value)

    def init_reg_t(r: str):
        loc = ("reg", r)
        return b.var(at_input[loc]) if loc in at_input else b.var(_free_name(loc))

    def init_mem_t(region: str, off: int):
        loc = ("mem", region, off)
        return b.var(at_input[loc]) if loc in at_input else b.var(_free_name(loc))

    class _Stop(Exception):
        pass

    def cut(i: int, ins: Instr, loc: Location, value: Term) -> object:
        nonlocal cuts
        name = candidates.get(i)
        if name is None:
            return value
        symbol = b.var(name)
        if value == symbol:
            return value
        outcome = prover.check(value, defs[name].term)
        if not isinstance(outcome, Proved) and name in proved:
            # Written again after its cut (a vector lane passed through ``x ^ 0``): the value
            # may be the symbol itself rather than a fresh computation of the definition.
            outcome = prover.check(value, symbol)
        if not isinstance(outcome, Proved):
            failure.append(CutFailure(f"{name} ({defs[name].what})", location_name(loc), str(ins), ins.line, outcome))
            raise _Stop
        cuts += 1
        proved.add(name)
        return symbol

    m_t = make(tdom, init_reg_t, init_mem_t, dict(pointers or {}))
    try:
        m_t.run(program, cut)
    except _Stop:
        f = failure[0]
        return CompositionResult(f.outcome, cuts, prover.solver_calls - calls0, time.perf_counter() - t0, f,
                                 missing)

    # -- 3. outputs -----------------------------------------------------------
    for name, loc in outputs.items():
        got = m_t.get(loc)
        outcome = prover.check(got, spec.outputs[name])
        if not isinstance(outcome, Proved):
            f = CutFailure(f"output {name}", location_name(loc), "", 0, outcome, name)
            return CompositionResult(outcome, cuts, prover.solver_calls - calls0, time.perf_counter() - t0, f,
                                     missing)
    seconds = time.perf_counter() - t0
    return CompositionResult(Proved(seconds, "z3-compositional"), cuts, prover.solver_calls - calls0, seconds)
