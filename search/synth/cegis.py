"""CEGIS, the superoptimizer core: the shortest x86 sequences for a SHA-1 fragment, proved.

What is asked (``targets.py``): a target formula over inputs in fixed
registers, a setting (temporaries, ISA level, may inputs be overwritten),
and a length bound ``max_len``.

Method: counterexample-guided inductive synthesis around the exhaustive
enumerator (``explore.py``). Search the lane abstraction breadth-first up
to ``max_len``; at the first length with abstract goals, list every path
there, *screen* each as x86 code on 32-bit random and corner states (numpy,
through ``machine.Machine``; ``Screen``), then *prove* the survivors with Z3
-- running the real ``Machine`` over terms (``prove.program_term``) against
the target formula, so what is proved is the reported x86 code
(``prove_sequence``). Every *refuted* path yields a lane (its narrowest
failing test, truncated to the lowest wrong bit when the vocabulary allows
narrow lanes; ``refuting_lanes``) and the search *restarts* from depth 0
with the grown lane set (spurious short paths may hide real longer ones); a
Z3 counterexample also joins the prover's own test set (``Prover.check``
does that). The initial lanes are the "pure" rows -- every input all-zeros
or all-ones, one bit wide when narrow lanes are exact -- so most searches
run on 8- or 16-bit truth tables and only the carries the refutations ask
for are added. Outcomes (``Result.status``):

* ``found``: length N is minimal -- every length < N was exhausted with no
  abstract goal, which ``explore.py`` shows implies no sequence at all --
  and ``solutions`` lists every N-instruction sequence that was proved (all
  of them when ``complete``), up to the reordering of independent
  instructions and the renaming of temporaries;
* ``none``: no sequence of length <= ``max_len`` (``closed`` when no new
  machine state is reachable at all, so no length works);
* ``unknown``: the time limit or the memory budget ran out (lengths
  <= ``exhausted`` were searched), or Z3 gave up on every candidate --
  never reported as success.

The sequences listed are the *canonical forms* (``canonical.py``): over
every renaming of the temporaries, the least dependence-preserving order.
Their cost differs per uarch, so all of them are kept and ranked by critical
path, then by mean simulated cycles (``uarch_costs``: ``search.cost`` with
every model in ``corpus/uarch``).

Example: ``synthesize("f3-into-e", temps=1, max_len=7)`` finds length 7 --
majority cannot be held whole in one temporary, so every minimal sequence
adds two halves into ebp: ``mov %ebx, %esi; and %ecx, %esi; add %esi, %ebp;
mov %ebx, %esi; xor %ecx, %esi; and %edx, %esi; add %esi, %ebp``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sha1opt.search.cost import model as uarch
from sha1opt.search.cost import simulator as cost
from sha1opt.search.synth.canonical import canonical_form
from sha1opt.search.synth.explore import Space, explore, minimal_paths
from sha1opt.search.synth.lanes import Lane
from sha1opt.search.synth.targets import TARGETS, Setting, Target, Vocabulary, space_for, vocabulary_of
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import MASK32, Builder, evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.prove import Counterexample, Proved, Prover, TestSet, program_term
from sha1opt.semantics.x86 import Instr, reads, required_isa, writes


# --- results ------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """One proved sequence: the code, where its result is, and what it costs."""

    program: tuple[Instr, ...]
    output: str                      # register holding the result
    proof_seconds: float
    critical_path: int               # dependency depth to the result, unit latency
    costs: dict[str, float | None] | None  # cycles per uarch model (None: needs a missing ISA extension)

    @property
    def text(self) -> str:
        return "; ".join(str(i) for i in self.program)

    @property
    def uses(self) -> frozenset[str]:
        return frozenset(i.mnemonic for i in self.program)


@dataclass(frozen=True)
class Result:
    """The outcome of one ``synthesize`` call (see the module docstring for what each status claims).

    Example: ``synthesize("f1", temps=1, destroy=True)`` is ``status="found"``,
    ``length=3``, ``exhausted=2`` (no sequence of length <= 2 exists), with
    ``xor %edx, %ecx; and %ebx, %ecx; xor %edx, %ecx`` among ``solutions``.
    """

    target: str
    setting: Setting
    max_len: int
    status: str                      # "found" | "none" | "unknown"
    length: int | None               # the minimal length when found
    exhausted: int                   # every length <= exhausted has no sequence (-1: none searched)
    closed: bool                     # no new state was reachable: no sequence of any length
    solutions: tuple[Solution, ...]
    complete: bool                   # solutions holds every minimal sequence (canonical forms)
    candidates: int                  # paths to an abstract goal at the final length
    unproved: int                    # candidates Z3 gave up on
    refinements: int                 # searches restarted with more lanes
    lanes: int                       # lanes of the final abstraction
    layer_sizes: tuple[int, ...]     # distinct states per depth in the final search
    refuted_by_tests: int            # spurious paths the numpy screen refuted
    refuted_by_z3: int               # spurious paths only Z3 refuted (each gave a lane)
    solver_calls: int
    seconds: float
    vocabulary: Vocabulary           # what the sequences may use (with setting.isa)
    cost_note: str
    reason: str = ""


# --- the CEGIS loop -----------------------------------------------------------


def initial_lanes(space: Space, seed: int = 0) -> list[Lane]:
    """Pure rows (every input 0 or ~0), one bit wide when narrow lanes are exact; else random 32-bit lanes."""
    n = len(space.variables)
    if space.narrow_ok and n <= 6:
        return [Lane(tuple(MASK32 if j >> i & 1 else 0 for i in range(n)), 1) for j in range(2 ** n)]
    rng = np.random.default_rng([seed, 0x5F1])
    rows = [tuple(0 for _ in range(n)), tuple(MASK32 for _ in range(n))]
    rows += [tuple(int(x) for x in rng.integers(0, 1 << 32, size=n, dtype=np.uint64)) for _ in range(6)]
    return [Lane(r, 32) for r in rows]


class Screen:
    """32-bit states (corners and random, as the prover's prefilter) to run candidate code on with numpy."""

    def __init__(self, space: Space, lanes: int, seed: int) -> None:
        self.space = space
        ts = TestSet(lanes=lanes, seed=seed)
        self.env = ts.env(list(space.variables))
        self.n = ts.size
        dom = NumpyDomain(self.n)
        self.target = evaluate([space.target], dom, self.env)[0]
        rng = np.random.default_rng([seed, 0x7E])
        self.garbage = {t: rng.integers(0, 1 << 32, size=self.n, dtype=np.uint64).astype(np.uint32)
                        for t in space.temps}
        self.reg_env = {space.home[v]: self.env[v] for v in space.variables}

    def run(self, program: Sequence[Instr], out: str) -> np.ndarray:
        def initial(r: str):
            if r in self.reg_env:
                return self.reg_env[r]
            if r in self.garbage:
                return self.garbage[r]
            raise Sha1optError(f"candidate reads {r}, which is neither an input nor a temporary")

        m = Machine(NumpyDomain(self.n), initial_reg=initial,
                    initial_mem=lambda *a: (_ for _ in ()).throw(Sha1optError("candidate touches memory")))
        m.run(program)
        return np.asarray(m.get(("reg", out)), dtype=np.uint32)

    def failures(self, program: Sequence[Instr], out: str) -> np.ndarray:
        """Per lane: the lowest wrong bit of the result, or -1 where it is right."""
        diff = (self.run(program, out) ^ self.target).astype(np.uint64)
        low = diff & (~diff + np.uint64(1))
        bit = np.full(self.n, -1, dtype=np.int64)
        nz = low != 0
        bit[nz] = np.log2(low[nz].astype(np.float64)).round().astype(np.int64)
        return bit

    def lane(self, index: int, width: int) -> Lane:
        return Lane(tuple(int(self.env[v][index]) for v in self.space.variables), width)


def _output_of(program: Sequence[Instr], space: Space) -> str:
    if len(space.outputs) == 1 or not program:
        return space.outputs[0]
    return next(iter(writes(program[-1])))


def synthesize(target: str | Target, temps: int = 1, isa: str = "base", destroy: bool = False,
               max_len: int = 6, time_limit: float | None = None, max_solutions: int = 256,
               seed: int = 0, prover: Prover | None = None, with_costs: bool = True,
               screen_lanes: int = 256, memory_limit: float = 3e9) -> Result:
    """Find the shortest sequences for ``target`` under the setting, proving minimality up to ``max_len``."""
    if isinstance(target, str):
        if target not in TARGETS:
            raise Sha1optError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
        target = TARGETS[target]
    setting = Setting(temps, isa, destroy)
    if max_len < 0:
        raise Sha1optError("max_len must be >= 0")
    if time_limit is not None and time_limit <= 0:
        raise Sha1optError("time_limit must be positive")
    if max_solutions < 1:
        raise Sha1optError("max_solutions must be >= 1")
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    b = Builder()
    space = space_for(target, setting, b)
    voc = vocabulary_of(space.target)
    prover = prover or Prover(timeout=10.0, seed=seed)
    calls0 = prover.solver_calls
    screen = Screen(space, screen_lanes, seed)
    lanes = initial_lanes(space, seed)
    refinements = 0
    stats = {"tests": 0, "z3": 0}   # spurious paths refuted by the numpy screen / by a Z3 counterexample
    cost_note = uarch_costs(())[1] if with_costs else "costs not computed"

    def result(status, length=None, exhausted=-1, closed=False, sols=(), complete=False, candidates=0,
               unproved=0, sizes=(), reason=""):
        return Result(target.name, setting, max_len, status, length, exhausted, closed, tuple(sols), complete,
                      candidates, unproved, refinements, len(lanes), tuple(sizes), stats["tests"], stats["z3"],
                      prover.solver_calls - calls0, time.monotonic() - t0, voc, cost_note, reason)

    if not space.outputs:
        # No register may hold the result (inputs read-only, no temporaries): no length works.
        return result("none", exhausted=max_len, closed=True, sizes=(1,))
    while True:
        # Search: the first length with abstract goals (or none / out of time).
        exp = explore(space, lanes, max_len, deadline, memory_limit)
        if exp.status == "timeout":
            return result("unknown", exhausted=exp.depth, sizes=exp.layer_sizes, reason=exp.reason)
        if exp.status == "exhausted":
            return result("none", exhausted=max_len, closed=exp.closed, sizes=exp.layer_sizes)
        n = exp.depth
        # Every path to a goal at that length (each real minimal sequence is one of them).
        goal_paths = minimal_paths(exp, max_solutions * 16)
        if goal_paths.stopped:
            return result("unknown", exhausted=n - 1, sizes=exp.layer_sizes, reason=goal_paths.stopped)
        total, paths = goal_paths.total, goal_paths.paths
        # Screen and prove them.
        rnd = _check_paths(paths, space, target, screen, prover, deadline, max_solutions, with_costs)
        stats["tests"] += rnd.by_tests
        stats["z3"] += rnd.by_z3
        proved, unproved, new_lanes = rnd.proved, rnd.unproved, rnd.new_lanes
        if rnd.timed_out:
            return result("unknown", exhausted=n - 1, sizes=exp.layer_sizes, reason="time limit while proving")
        if proved:
            complete = total <= len(paths) and len(proved) + unproved < max_solutions and unproved == 0
            return result("found", n, n - 1, sols=_rank(proved), complete=complete, candidates=total,
                          unproved=unproved, sizes=exp.layer_sizes)
        # All spurious: refute them with new lanes and restart from depth 0.
        new_lanes += refuting_lanes(rnd.refuted, screen, space.narrow_ok, limit=8)
        if not new_lanes:
            return result("unknown", exhausted=n - 1, candidates=total, unproved=unproved, sizes=exp.layer_sizes,
                          reason="Z3 gave up on every candidate")
        lanes = lanes + [lane for lane in dict.fromkeys(new_lanes) if lane not in lanes]
        refinements += 1


@dataclass
class _Round:
    """What screening and proving the goal paths of one search gave (stopped early when ``timed_out``)."""

    proved: list[Solution] = field(default_factory=list)
    refuted: list[np.ndarray] = field(default_factory=list)   # the screen's failures, one per refuted path
    new_lanes: list[Lane] = field(default_factory=list)       # from counterexamples the prover found
    unproved: int = 0                                          # candidates Z3 gave up on
    by_tests: int = 0                                          # spurious paths refuted by tests
    by_z3: int = 0                                             # spurious paths only Z3 refuted
    timed_out: bool = False


def _check_paths(paths: Sequence[tuple[Instr, ...]], space: Space, target: Target, screen: Screen,
                 prover: Prover, deadline: float | None, max_solutions: int, with_costs: bool) -> _Round:
    """Screen, then prove, each goal path's canonical form once: proved ones become solutions, refuted ones
    the material for new lanes (a Z3 counterexample is a lane at once, truncated above its lowest wrong
    bit when narrow lanes are exact). At most ``max_solutions`` candidates reach the prover."""
    rnd = _Round()
    done: set[tuple[Instr, ...]] = set()
    for path in paths:
        if deadline is not None and time.monotonic() > deadline:
            rnd.timed_out = True
            return rnd
        prog, out = canonical_form(path, _output_of(path, space), space)
        if prog in done:
            continue
        done.add(prog)
        fails = screen.failures(prog, out)
        if (fails >= 0).any():
            rnd.refuted.append(fails)
            rnd.by_tests += 1
            continue
        if len(rnd.proved) + rnd.unproved >= max_solutions:
            continue
        outcome = prove_sequence(prog, out, target, prover)
        if isinstance(outcome, Proved):
            rnd.proved.append(_solution(prog, out, outcome.seconds, with_costs))
        elif isinstance(outcome, Counterexample):
            if outcome.found_by == "z3":
                rnd.by_z3 += 1
            else:
                rnd.by_tests += 1
            width = _low_bit(outcome.lhs ^ outcome.rhs) + 1 if space.narrow_ok else 32
            rnd.new_lanes.append(Lane(tuple(outcome.inputs.get(v, 0) for v in space.variables), width))
        else:
            rnd.unproved += 1
    return rnd


def refuting_lanes(refuted: list[np.ndarray], screen: Screen, narrow: bool, limit: int) -> list[Lane]:
    """Few lanes, as narrow as possible, that refute the spurious paths (greedy, at most ``limit``)."""
    chosen: list[tuple[int, int]] = []   # (screen lane, width)
    for fails in refuted:
        if any(0 <= fails[i] < w for i, w in chosen):
            continue
        if len(chosen) >= limit:
            break
        wrong = np.nonzero(fails >= 0)[0]
        i = int(wrong[np.argmin(fails[wrong])]) if narrow else int(wrong[0])
        chosen.append((i, int(fails[i]) + 1 if narrow else 32))
    return [screen.lane(i, w) for i, w in chosen]


def _low_bit(x: int) -> int:
    return (x & -x).bit_length() - 1 if x else 0


def prove_sequence(program: Sequence[Instr], out: str, target: Target, prover: Prover, timeout: float | None = None):
    """Z3: running ``program`` (the real x86 semantics over terms) leaves the target formula in ``out``."""
    b = Builder()
    want = parse(target.formula, b)
    got = program_term(list(program), out, dict(target.inputs), b)
    return prover.check(got, want, timeout)


def _solution(program: tuple[Instr, ...], out: str, seconds: float, with_costs: bool) -> Solution:
    costs = uarch_costs(program)[0] if with_costs else None
    return Solution(program, out, seconds, critical_path(program, out), costs)


def _rank(sols: list[Solution]) -> list[Solution]:
    """Shortest critical path first, then mean cycles over the models that run the code, then text."""
    def key(s: Solution):
        cyc = [c for c in (s.costs or {}).values() if c is not None]
        return (s.critical_path, sum(cyc) / len(cyc) if cyc else 0.0, s.text)
    return sorted(sols, key=key)


def critical_path(program: Sequence[Instr], out: str) -> int:
    """Longest dependency chain (every instruction one unit) ending in the value of ``out``."""
    ready: dict[str, int] = {}
    for ins in program:
        t = 1 + max((ready.get(r, 0) for r in reads(ins)), default=0)
        for w in writes(ins):
            ready[w] = t
    return ready.get(out, 0)


def uarch_costs(program: Sequence[Instr]) -> tuple[dict[str, float | None] | None, str]:
    """Cycles of ``program`` run once on every model of ``search.cost`` (None where it lacks andn/rorx).

    The one piece of glue to the cost models: when the corpus models cannot
    be loaded the answer is None plus a note saying that the critical path
    stands in. Whether a model runs the code is the table's ISA level of each
    instruction (``x86.required_isa``) against the model's ``has_bmi1`` /
    ``has_bmi2``.
    """
    try:
        names = uarch.model_names()
        models = [uarch.load_model(n) for n in names]
    except Sha1optError as e:
        return None, (f"per-uarch cost unavailable ({type(e).__name__}: {e}); "
                      "showing instruction count and critical path (unit latency)")
    note = "cycles to run the sequence once, search.cost.simulate per corpus/uarch model; '-' = needs andn/rorx"
    out: dict[str, float | None] = {}
    needs = {required_isa(i) for i in program}
    for name, m in zip(names, models):
        has = {"base": True, "bmi1": m.has_bmi1, "bmi2": m.has_bmi2}
        if not all(has[level] for level in needs):
            out[name] = None
        else:
            out[name] = float(cost.simulate(list(program), m).cycles) if program else 0.0
    return out, note
