"""Synthesis, the superoptimizer core: the shortest x86 sequences for a SHA-1 fragment, proved.

A *target* is a formula over inputs that live in fixed registers (b=ebx,
c=ecx, d=edx, e=ebp, W=eax) and says where the result goes: any register
the code may write (``f1 f2 f3``, ``w-word``) or e's register (``*-into-e``:
e + f(b,c,d); ``*-round``: e + f + K + W). A *setting* says how many free
temporaries there are (esi, edi, eax, r8d, ... minus input registers), the
ISA level (``base`` i386, ``bmi1`` adds andn, ``bmi2`` adds rorx) and
whether input registers may be overwritten (``destroy``); with ``destroy``
off they are read-only -- never written, not even to be restored.

Method: CEGIS around the exhaustive enumerator (``enumerate.py``). Search
the lane abstraction breadth-first up to ``max_len``; at the first length
with abstract goals, list every path there, screen each as x86 code on
32-bit random and corner states (numpy, through ``machine.Machine``), then
prove the survivors with Z3 -- running the real ``Machine`` over terms
(``prove.program_term``) against the target formula, so what is proved is
the reported x86 code. Every refuted path yields a lane (its narrowest
failing test, truncated to the lowest wrong bit when the vocabulary allows
narrow lanes) and the search restarts with the grown lane set; a Z3
counterexample also joins the prover's own test set (``Prover.check`` does
that). The initial lanes are the "pure" rows -- every input all-zeros or
all-ones, one bit wide when narrow lanes are exact -- so most searches run
on 8- or 16-bit truth tables and only the carries the refutations ask for
are added. Outcomes:

* ``found``: length N is minimal -- every length < N was exhausted with no
  abstract goal, which ``enumerate.py`` shows implies no sequence at all --
  and ``solutions`` lists every N-instruction sequence that was proved (all
  of them when ``complete``), up to the reordering of independent
  instructions and the renaming of temporaries;
* ``none``: no sequence of length <= ``max_len`` (``closed`` when no new
  machine state is reachable at all, so no length works);
* ``unknown``: the time limit or the memory budget ran out (lengths
  <= ``exhausted`` were searched), or Z3 gave up on every candidate --
  never reported as success.

The sequences listed are the *canonical forms* (``canonical_form``): over
every renaming of the temporaries, the least dependence-preserving order.
Their cost differs per uarch, so all of them are kept and ranked by critical
path, then by mean simulated cycles.

"Minimal" is relative to the vocabulary, which ``Result.vocabulary`` spells
out: mov, add, sub, and, or, xor, not, lea (base+index, scale 1, and with
the target's constants as displacement), andn (bmi1), the target's
constants as immediates, and rotates/shifts/bswap only with the counts the
target itself uses (rol $n; rorx $(32-n) on bmi2). No memory operands, no
``ror`` spelling (``ror $k`` is ``rol $(32-k)``), no lea scale other than 1.

Per-uarch cost: ``uarch_costs`` prices a sequence with ``search.cost``
(every model in ``corpus/uarch``); when that module is missing it says so
and the critical path (unit latency) stands in.

Discovered sequences are rows of a discovered file (``load_discovered``,
strict keys), with their provenance: the shipped ``corpus/discovered.toml``
is read-only; ``save_discovered`` writes the user's file
(``user_discovered_path()``, ``$XDG_DATA_HOME/sha1opt/discovered.toml``).
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from sha1opt import __version__
from sha1opt.semantics.datafiles import atomic_output, check_keys, corpus_dir, load_toml, output_dir, user_data_dir
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import CorpusError, ParseError, Sha1optError, UnsupportedError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import MASK32, Builder, Term, evaluate, reachable, variables
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.prove import Counterexample, Proved, Prover, TestSet, program_term
from sha1opt.semantics.sha1 import F_FORMS, K
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg, reads, writes
from sha1opt.search.synth.explore import Lane, Space, explore, minimal_paths

ISAS = ("base", "bmi1", "bmi2")
TEMP_ORDER = ("esi", "edi", "eax", "r8d", "r9d", "r10d", "r11d", "r12d")
SOURCE = "sha1opt synth"


@dataclass(frozen=True)
class Target:
    name: str
    formula: str                         # user grammar over the input variables
    inputs: tuple[tuple[str, str], ...]  # (variable, register), in lane order
    output: str | None                   # the result's register, or None: any register the code may write
    about: str


def _make_targets() -> dict[str, Target]:
    forms = {"f1": F_FORMS["f1"]["select"], "f2": F_FORMS["f2"]["parity"], "f3": F_FORMS["f3"]["or-form"]}
    words = {"f1": "choose", "f2": "parity", "f3": "majority"}
    bcd = (("b", "ebx"), ("c", "ecx"), ("d", "edx"))
    e, w = ("e", "ebp"), ("w", "eax")
    out: dict[str, Target] = {}
    for i, (k, form) in enumerate(forms.items()):
        out[k] = Target(k, form, bcd, None, f"{words[k]} f(b,c,d) = {form} in any writable register")
        out[f"{k}-into-e"] = Target(f"{k}-into-e", f"e + ({form})", bcd + (e,), "ebp",
                                    f"e += {words[k]}(b,c,d), the result in e's register (ebp)")
        out[f"{k}-round"] = Target(f"{k}-round", f"e + ({form}) + {K[i]:#x} + w", bcd + (e, w), "ebp",
                                   f"e += {words[k]}(b,c,d) + K + W (W in eax), the round minus rol(a,5)")
    out["w-word"] = Target("w-word", "rol(w3 ^ w8 ^ w14 ^ w16, 1)",
                           (("w3", "eax"), ("w8", "ebx"), ("w14", "ecx"), ("w16", "edx")), None,
                           "the next message word W = rol(w3 ^ w8 ^ w14 ^ w16, 1) in any writable register")
    return out


TARGETS: dict[str, Target] = _make_targets()


@dataclass(frozen=True)
class Setting:
    temps: int
    isa: str = "base"
    destroy: bool = False

    def __post_init__(self) -> None:
        if self.isa not in ISAS:
            raise Sha1optError(f"unknown ISA level {self.isa!r}; expected one of {', '.join(ISAS)}")
        if not 0 <= self.temps <= len(TEMP_ORDER):
            raise Sha1optError(f"temps must be 0..{len(TEMP_ORDER)}, got {self.temps}")

    @property
    def label(self) -> str:
        return f"temps={self.temps} isa={self.isa} {'destroy' if self.destroy else 'keep-inputs'}"


# --- the search space ---------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    immediates: tuple[int, ...]
    rotates: tuple[int, ...]      # rol counts (ror n is rol 32-n)
    shl: tuple[int, ...]
    shr: tuple[int, ...]
    bswap: bool

    def describe(self, isa: str) -> str:
        parts = ["mov add sub and or xor not", "lea(base+index, scale 1)"]
        if isa in ("bmi1", "bmi2"):
            parts.append("andn")
        parts += [f"rol ${n}" for n in self.rotates]
        if isa == "bmi2":
            parts += [f"rorx ${32 - n}" for n in self.rotates]
        parts += [f"shl ${n}" for n in self.shl] + [f"shr ${n}" for n in self.shr]
        if self.bswap:
            parts.append("bswap")
        if self.immediates:
            parts.append("immediates " + ",".join(f"{k:#x}" for k in self.immediates))
        return "; ".join(parts) + " (registers only; a temporary is written before it is read)"


def vocabulary_of(term: Term) -> Vocabulary:
    """Constants and counts the target uses; rotate/shift counts must be constants."""
    b = term.builder
    imms: set[int] = set()
    rot: set[int] = set()
    shl: set[int] = set()
    shr: set[int] = set()
    swap = False
    counts: set[int] = set()
    for i in reachable([term]):
        n = b.nodes[i]
        if n.op in ("rol", "ror", "shl", "shr"):
            c = b.nodes[n.args[1]]
            if c.op != "const":
                raise UnsupportedError(f"synthesis needs constant {n.op} counts")
            k = c.payload & 31
            counts.add(n.args[1])
            if k == 0:
                continue
            {"rol": rot, "shl": shl, "shr": shr}.get(n.op, rot).add(k if n.op != "ror" else 32 - k)
        elif n.op == "bswap":
            swap = True
    for i in reachable([term]):
        n = b.nodes[i]
        if n.op == "const" and i not in counts:
            imms.add(n.payload)
    return Vocabulary(tuple(sorted(imms)), tuple(sorted(rot)), tuple(sorted(shl)), tuple(sorted(shr)), swap)


def temps_for(target: Target, n: int) -> tuple[str, ...]:
    used = {r for _, r in target.inputs}
    free = [r for r in TEMP_ORDER if r not in used]
    if n > len(free):
        raise Sha1optError(f"at most {len(free)} temporaries for {target.name}")
    return tuple(free[:n])


def space_for(target: Target, setting: Setting, builder: Builder | None = None) -> Space:
    """The enumeration space of one target under one setting (see the module docstring)."""
    b = builder or Builder()
    term = parse(target.formula, b)
    names = [v for v, _ in target.inputs]
    stray = sorted(set(variables([term])) - set(names))
    if stray:
        raise Sha1optError(f"target {target.name}: variable {stray[0]!r} has no register")
    in_regs = tuple(r for _, r in target.inputs)
    temps = temps_for(target, setting.temps)
    if setting.destroy:
        writable = in_regs + temps
    else:
        writable = ((target.output,) if target.output in in_regs else ()) + temps
    if target.output is not None:
        if target.output not in writable:
            raise Sha1optError(f"target {target.name}: output {target.output} is not writable")
        outputs: tuple[str, ...] = (target.output,)
    else:
        outputs = writable if setting.destroy else temps
    voc = vocabulary_of(term)
    instrs = _instructions(writable, in_regs + temps, setting.isa, voc)
    return Space(tuple(names), dict(target.inputs), temps, writable, outputs, tuple(instrs), term)


def _instructions(writable: Sequence[str], readable: Sequence[str], isa: str, voc: Vocabulary) -> list[Instr]:
    R = {r: Reg(r) for r in readable}
    out: list[Instr] = []
    add = lambda m, *ops: out.append(Instr(m, tuple(ops)))  # noqa: E731
    for d in writable:
        D = R[d]
        for s in readable:
            if s == d:
                add("xor", D, D)        # the zero idiom (sub r,r is the same value)
                add("add", D, D)        # doubling; and/or/mov r,r are no-ops
                continue
            for m in ("add", "sub", "and", "or", "xor"):
                add(m, R[s], D)
            add("mov", R[s], D)
        add("not", D)
        for k in voc.immediates:
            for m in ("add", "sub", "and", "or", "xor", "mov"):
                add(m, Imm(k), D)
        for i, s1 in enumerate(readable):
            for s2 in readable[i:]:     # lea is commutative in base and index
                add("lea", Mem(R[s1], R[s2]), D)
                for k in voc.immediates:
                    add("lea", Mem(R[s1], R[s2], 1, _disp(k)), D)
            for k in voc.immediates:
                add("lea", Mem(R[s1], None, 1, _disp(k)), D)
        if isa in ("bmi1", "bmi2"):
            for s1 in readable:
                for s2 in readable:
                    if s1 != s2:
                        add("andn", R[s2], R[s1], D)   # D = ~s1 & s2
        for n in voc.rotates:
            add("rol", Imm(n), D)
            if isa == "bmi2":
                for s in readable:
                    add("rorx", Imm(32 - n), R[s], D)
        for n in voc.shl:
            add("shl", Imm(n), D)
        for n in voc.shr:
            add("shr", Imm(n), D)
        if voc.bswap:
            add("bswap", D)
    return out


def _disp(k: int) -> int:
    """A constant as a signed 32-bit displacement (how GNU as spells it)."""
    k &= MASK32
    return k - (1 << 32) if k >= 1 << 31 else k


# --- results ------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
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
    vocabulary: str
    cost_note: str
    reason: str = ""

    @property
    def claim(self) -> str:
        if self.status == "found":
            s = f"minimal length {self.length}: no sequence of length < {self.length} exists"
            return s + f"; {len(self.solutions)} {'' if self.complete else 'or more '}minimal sequence(s), each proved"
        if self.status == "none":
            if self.closed:
                return "no sequence of any length exists (every reachable machine state was enumerated)"
            return f"none up to length {self.max_len}: no sequence of length <= {self.max_len} exists"
        done = f"lengths <= {self.exhausted} exhausted" if self.exhausted >= 0 else "nothing exhausted"
        return f"unknown ({self.reason}); {done} -- not a result"

    def as_dict(self) -> dict:
        return {
            "target": self.target, "temps": self.setting.temps, "isa": self.setting.isa,
            "destroy": self.setting.destroy, "max_len": self.max_len, "status": self.status,
            "length": self.length, "exhausted": self.exhausted, "closed": self.closed, "claim": self.claim,
            "complete": self.complete, "candidates": self.candidates, "unproved": self.unproved,
            "refinements": self.refinements, "lanes": self.lanes, "layer_sizes": list(self.layer_sizes),
            "refuted_by_tests": self.refuted_by_tests, "refuted_by_z3": self.refuted_by_z3,
            "solver_calls": self.solver_calls, "seconds": round(self.seconds, 3),
            "vocabulary": self.vocabulary, "cost_note": self.cost_note, "reason": self.reason,
            "solutions": [{"code": [str(i) for i in s.program], "output": s.output,
                           "critical_path": s.critical_path, "proof_seconds": round(s.proof_seconds, 4),
                           "cycles": s.costs} for s in self.solutions],
        }


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


class _Screen:
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
    voc = vocabulary_of(space.target).describe(isa)
    prover = prover or Prover(timeout=10.0, seed=seed)
    calls0 = prover.solver_calls
    screen = _Screen(space, screen_lanes, seed)
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
        exp = explore(space, lanes, max_len, deadline, memory_limit)
        if exp.status == "timeout":
            return result("unknown", exhausted=exp.depth, sizes=exp.layer_sizes, reason=exp.reason)
        if exp.status == "exhausted":
            return result("none", exhausted=max_len, closed=exp.closed, sizes=exp.layer_sizes)
        n = exp.depth
        goal_paths = minimal_paths(exp, max_solutions * 16)
        if goal_paths.stopped:
            return result("unknown", exhausted=n - 1, sizes=exp.layer_sizes, reason=goal_paths.stopped)
        total, paths = goal_paths.total, goal_paths.paths
        proved: list[Solution] = []
        refuted: list[np.ndarray] = []
        new_lanes: list[Lane] = []
        unproved = 0
        done: set[tuple[Instr, ...]] = set()
        for path in paths:
            if deadline is not None and time.monotonic() > deadline:
                return result("unknown", exhausted=n - 1, sizes=exp.layer_sizes, reason="time limit while proving")
            prog, out = canonical_form(path, _output_of(path, space), space)
            if prog in done:
                continue
            done.add(prog)
            fails = screen.failures(prog, out)
            if (fails >= 0).any():
                refuted.append(fails)
                stats["tests"] += 1
                continue
            if len(proved) + unproved >= max_solutions:
                continue
            outcome = prove_sequence(prog, out, target, prover)
            if isinstance(outcome, Proved):
                proved.append(_solution(prog, out, outcome.seconds, with_costs))
            elif isinstance(outcome, Counterexample):
                stats["z3" if outcome.found_by == "z3" else "tests"] += 1
                width = _low_bit(outcome.lhs ^ outcome.rhs) + 1 if space.narrow_ok else 32
                new_lanes.append(Lane(tuple(outcome.inputs.get(v, 0) for v in space.variables), width))
            else:
                unproved += 1
        if proved:
            complete = total <= len(paths) and len(proved) + unproved < max_solutions and unproved == 0
            return result("found", n, n - 1, sols=_rank(proved), complete=complete, candidates=total,
                          unproved=unproved, sizes=exp.layer_sizes)
        new_lanes += _refuting_lanes(refuted, screen, space.narrow_ok, limit=8)
        if not new_lanes:
            return result("unknown", exhausted=n - 1, candidates=total, unproved=unproved, sizes=exp.layer_sizes,
                          reason="Z3 gave up on every candidate")
        lanes = lanes + [lane for lane in dict.fromkeys(new_lanes) if lane not in lanes]
        refinements += 1


def _refuting_lanes(refuted: list[np.ndarray], screen: _Screen, narrow: bool, limit: int) -> list[Lane]:
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


def canonical_form(program: Sequence[Instr], out: str, space: Space) -> tuple[tuple[Instr, ...], str]:
    """One representative per class of sequences equal up to renaming the temporaries and reordering
    independent instructions: over every renaming of the temporaries, the lexicographically least
    dependence-preserving order (destination's writable index, then text), and the least of those.
    Dependences: read after write, write after read, write after write; ``xor r,r`` reads nothing."""
    best: tuple[tuple[str, ...], tuple[Instr, ...], str] | None = None
    # Compare with temporaries spelled by their rank, so the first temp (esi) is preferred.
    rank = {f"%{t}": f"%~{k}" for k, t in enumerate(space.temps)}
    spell = re.compile("|".join(re.escape(t) + r"\b" for t in rank)) if rank else None
    for perm in itertools.permutations(space.temps):
        ren = dict(zip(space.temps, perm))
        prog = _least_order([_rename(i, ren) for i in program], space)
        key = tuple(spell.sub(lambda m: rank[m.group(0)], str(i)) if spell else str(i) for i in prog)
        key += (ren.get(out, out),)
        if best is None or key < best[0]:
            best = (key, prog, ren.get(out, out))
    if best is None:   # pragma: no cover - permutations() always yields at least one
        raise Sha1optError("no renaming of the temporaries")
    return best[1], best[2]


def _least_order(prog: list[Instr], space: Space) -> tuple[Instr, ...]:
    rd = [set() if _zero_idiom(i) else reads(i) for i in prog]
    wr = [writes(i) for i in prog]
    preds = [{j for j in range(k) if wr[j] & (rd[k] | wr[k]) or wr[k] & rd[j]} for k in range(len(prog))]
    rank = {r: i for i, r in enumerate(space.writable)}
    placed: set[int] = set()
    order: list[int] = []
    while len(order) < len(prog):
        ready = [k for k in range(len(prog)) if k not in placed and preds[k] <= placed]
        k = min(ready, key=lambda k: (rank.get(next(iter(wr[k])), -1), str(prog[k])))
        placed.add(k)
        order.append(k)
    return tuple(prog[k] for k in order)


def _zero_idiom(ins: Instr) -> bool:
    return ins.mnemonic in ("xor", "sub") and len(ins.operands) == 2 and ins.operands[0] == ins.operands[1]


def _rename(ins: Instr, ren: dict[str, str]) -> Instr:
    def r(x):
        if isinstance(x, Reg):
            return Reg(ren.get(x.name, x.name), x.width)
        if isinstance(x, Mem):
            return Mem(r(x.base) if x.base else None, r(x.index) if x.index else None, x.scale, x.disp)
        return x
    return Instr(ins.mnemonic, tuple(r(o) for o in ins.operands), ins.line)


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

    The one piece of glue to the cost models: when they cannot be loaded the
    answer is None plus a note saying that the critical path stands in.
    """
    try:
        from sha1opt.search.cost import simulator as cost
        from sha1opt.search.cost import model as uarch
        names = uarch.model_names()
        models = [uarch.load_model(n) for n in names]
    except (ImportError, AttributeError, Sha1optError) as e:
        return None, (f"per-uarch cost unavailable ({type(e).__name__}: {e}); "
                      "showing instruction count and critical path (unit latency)")
    note = "cycles to run the sequence once, search.cost.simulate per corpus/uarch model; '-' = needs andn/rorx"
    out: dict[str, float | None] = {}
    need1 = any(i.mnemonic == "andn" for i in program)
    need2 = any(i.mnemonic == "rorx" for i in program)
    for name, m in zip(names, models):
        if (need1 and not m.has_bmi1) or (need2 and not m.has_bmi2):
            out[name] = None
        else:
            out[name] = float(cost.simulate(list(program), m).cycles) if program else 0.0
    return out, note


# --- the discovered corpus ----------------------------------------------------

DISCOVERED_KEYS = {"name", "target", "temps", "isa", "destroy", "length", "code", "minimal",
                   "proved_by", "date", "tool_version", "source"}
_TYPES = {"name": str, "target": str, "temps": int, "isa": str, "destroy": bool, "length": int, "code": str,
          "minimal": bool, "proved_by": str, "date": str, "tool_version": str, "source": str}


@dataclass(frozen=True)
class Discovered:
    """One row of ``corpus/discovered.toml``: a proved sequence and where it came from."""

    name: str
    target: str
    temps: int
    isa: str
    destroy: bool
    length: int
    code: str
    minimal: bool
    proved_by: str
    date: str
    tool_version: str
    source: str

    @property
    def program(self) -> list[Instr]:
        from sha1opt.semantics.att import parse_text
        return parse_text(self.code, "x86_64", self.name)


def discovered_path() -> Path:
    """The shipped corpus (read-only: it is part of the installed package)."""
    return corpus_dir() / "discovered.toml"


def user_discovered_path() -> Path:
    """Where ``synth --save`` writes by default: ``$XDG_DATA_HOME/sha1opt/discovered.toml``
    (``~/.local/share/sha1opt/discovered.toml``), never into the installed package."""
    return user_data_dir() / "discovered.toml"


def discovered_rows(result: Result, date: str | None = None, limit: int | None = None) -> list[dict]:
    """The corpus rows for a found result: one per proved minimal sequence, best ``limit`` if given."""
    if result.status != "found":
        return []
    s = result.setting
    day = date or _dt.date.today().isoformat()
    base = f"{result.target}/t{s.temps}/{s.isa}/{'destroy' if s.destroy else 'keep'}"
    return [{"name": f"{base}/{k + 1}", "target": result.target, "temps": s.temps, "isa": s.isa,
             "destroy": s.destroy, "length": len(sol.program), "code": sol.text, "minimal": True,
             "proved_by": "z3", "date": day, "tool_version": __version__, "source": SOURCE}
            for k, sol in enumerate(result.solutions[:limit])]


def load_discovered(path: Path | None = None) -> list[Discovered]:
    """Rows of the discovered corpus; unknown/missing keys, wrong types, duplicate names, bad code refused."""
    path = path or discovered_path()
    if not path.exists():
        return []
    data = load_toml(path)
    extra = sorted(set(data) - {"sequence"})
    if extra:
        raise CorpusError(f"{path}: unknown top-level key {extra[0]!r}")
    rows = data.get("sequence", [])
    if not isinstance(rows, list):
        raise CorpusError(f"{path}: 'sequence' must be an array of tables")
    out: list[Discovered] = []
    names: set[str] = set()
    for i, row in enumerate(rows, start=1):
        where = f"{path.name}: sequence #{i}"
        if not isinstance(row, dict):
            raise CorpusError(f"{where}: not a table")
        check_keys(row, where, DISCOVERED_KEYS)
        for k, typ in _TYPES.items():
            if type(row[k]) is not typ:
                raise CorpusError(f"{where}: {k} must be {typ.__name__}")
        if row["name"] in names:
            raise CorpusError(f"{path.name}: duplicate sequence name {row['name']!r}")
        names.add(row["name"])
        d = Discovered(**row)
        try:
            prog = d.program
        except (ParseError, UnsupportedError) as e:
            raise CorpusError(f"{where}: code: {e}") from None
        if len(prog) != d.length:
            raise CorpusError(f"{where}: length {d.length} but the code has {len(prog)} instructions")
        out.append(d)
    return out


def save_discovered(results: Sequence[Result], path: Path | None = None, date: str | None = None,
                    limit: int | None = None) -> Path:
    """Merge found results into the file (best ``limit`` sequences of each; default the user's
    ``user_discovered_path()``), replacing rows of the same target and setting; written through
    ``datafiles.atomic_output`` (all or nothing, regular files only, umask honoured)."""
    if path is None:
        path = user_discovered_path()
        output_dir(path.parent)
    keep = load_discovered(path)
    fresh: list[dict] = []
    replaced: set[tuple] = set()
    for res in results:
        rows = discovered_rows(res, date, limit)
        if rows:
            s = res.setting
            replaced.add((res.target, s.temps, s.isa, s.destroy))
            fresh += rows
    old = [r.__dict__ for r in keep if (r.target, r.temps, r.isa, r.destroy) not in replaced]
    text = _toml_rows(old + fresh)
    with atomic_output(path, suffix=".toml") as tmp:
        tmp.write_text(text)
    return path


def _toml_rows(rows: list[dict]) -> str:
    lines = ["# Sequences found by `sha1opt synth --save`: each proved equal to its target with Z3",
             "# (x86 semantics over terms) and minimal in length for its setting (all shorter",
             "# lengths searched exhaustively). Written by sha1opt.search.synth.save_discovered.", ""]
    order = ["name", "target", "temps", "isa", "destroy", "length", "code", "minimal", "proved_by",
             "date", "tool_version", "source"]
    for row in sorted(rows, key=lambda r: r["name"]):
        lines.append("[[sequence]]")
        for k in order:
            v = row[k]
            if isinstance(v, bool):
                lines.append(f"{k} = {'true' if v else 'false'}")
            elif isinstance(v, int):
                lines.append(f"{k} = {v}")
            else:
                lines.append(f"{k} = {json.dumps(v)}")   # JSON string escapes are valid TOML basic strings
        lines.append("")
    return "\n".join(lines)


# --- text report ----------------------------------------------------------------


def render(result: Result, show: int = 8) -> str:
    """The human report of one result: claim, setting, search figures, the best ``show`` sequences."""
    s = result.setting
    lines = [f"synth {result.target}: {s.label}, max-len {result.max_len}",
             f"result: {result.claim}",
             f"vocabulary: {result.vocabulary}",
             f"search: {result.refinements} refinement(s), {result.lanes} lanes, states per depth "
             f"{' '.join(map(str, result.layer_sizes))}; spurious paths refuted by tests {result.refuted_by_tests}, "
             f"by Z3 {result.refuted_by_z3}; {result.solver_calls} Z3 call(s); {result.seconds:.2f} s"]
    if result.unproved:
        lines.append(f"unproved: Z3 gave up on {result.unproved} candidate(s) (not listed)")
    if result.solutions:
        shown = result.solutions[:show]
        lines.append(f"sequences ({len(shown)} of {len(result.solutions)}{'' if result.complete else '+'}, "
                     f"shortest critical path first; {result.cost_note}):")
        for k, sol in enumerate(shown, start=1):
            lines.append(f"{k:3d}. {sol.text}    -> %{sol.output}")
            extra = f"critical path {sol.critical_path}"
            if sol.costs is not None:
                extra += " | cycles: " + " ".join(f"{m} {'-' if c is None else f'{c:g}'}" for m, c in sol.costs.items())
            lines.append("     " + extra)
    return "\n".join(lines)
