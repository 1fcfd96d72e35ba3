"""``search_range``: the whole search for one (uarch, arch, round range), as a ``Report``.

1. Load the uarch model; its ISA level (BMI1/BMI2) bounds the recipes.
2. Baselines under the same model: the default (textbook) schedule for the
   range, and gcc -O2 -mtune=<cpu> of our C SHA-1 (whole block, scaled to
   the range's share of rounds -- gcc's code has no round boundaries).
3. The exact engine (``exact.py``) on the steady-state round template of
   each round kind in the range: the optimal cycles per round under the
   model's resources with a CP-SAT certificate, or its best bound.
4. The heuristic engine (``annealer.py``): a portfolio of ``workers``
   processes with seeds ``seed, seed+1, ...``, started from the stored best
   (``resume``), the textbook recipe and the template-ordered candidate, until
   the time limit or a stop request (Ctrl-C): the best so far is kept.
5. The best candidate is screened (numpy) and proved (Z3, round cut points)
   inside a whole block; only a proved result is stored and reported as a
   result.

Workers never print; progress comes back through ``progress(event)``.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import queue
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sha1opt.semantics.block import describe_failure, prove_block
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.prove import Proved
from sha1opt.semantics.x86 import Arch, Instr
from sha1opt.search.engines.anneal import anneal
from sha1opt.search.space.candidate import Candidate, block_schedule, realize
from sha1opt.search.space.recipe import ISA_RANK, TEXTBOOK, Recipe, recipes_for

IN_ORDER_I386 = ("pentium", "p4", "p4-northwood", "p4-prescott", "atom")
MTUNE = {"pentium": "pentium", "p4": "pentium4", "p4-northwood": "pentium4", "p4-prescott": "prescott",
         "atom": "bonnell", "core2": "core2", "nehalem": "nehalem", "skylake": "skylake", "zen3": "znver3"}
STANDARD_RANGES = ((0, 19), (20, 39), (40, 59), (60, 79))


def default_arch(uarch: str) -> Arch:
    return "i386" if uarch in IN_ORDER_I386 else "x86_64"


def isa_of(model) -> str:
    return "bmi2" if getattr(model, "has_bmi2", False) else ("bmi1" if getattr(model, "has_bmi1", False) else "base")


def _canonical(obj):
    """A JSON-able form of a model with every set sorted: its text must not
    depend on the process's string-hash seed (``repr`` of a frozenset does)."""
    import dataclasses
    from collections.abc import Mapping

    if dataclasses.is_dataclass(obj):
        return {f.name: _canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name != "path"}
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (set, frozenset)):
        return sorted(_canonical(v) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    return obj


def model_version(model) -> str:
    """Key of stored results: the model's data and the simulator's version, hashed deterministically."""
    import json

    from sha1opt.search.cost import simulator as cost

    text = json.dumps(_canonical(model), sort_keys=True) + "|" + str(getattr(cost, "VERSION", "0")) + \
        f"|context={CONTEXT_ROUNDS}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


CONTEXT_ROUNDS = 4  # default-schedule rounds simulated on each side of a range


def range_cost(model, first: int | None = None, last: int | None = None, arch: Arch | None = None
               ) -> Callable[[list], float]:
    """The objective: the model's cycles for the range *inside the block*.

    A range simulated alone starts on an empty machine and ends with nothing
    behind it, which flatters code that front-loads work; so the range is
    simulated between ``CONTEXT_ROUNDS`` default rounds on each side (when
    given first/last/arch), and the same context is used for every
    candidate and baseline, so differences are the range's own.
    """
    from sha1opt.search.cost.simulator import simulate

    if first is None:
        return lambda code: simulate(code, model).cycles
    before = realize(Candidate(max(0, first - CONTEXT_ROUNDS), first - 1, arch, TEXTBOOK)).code if first > 0 else []
    after = realize(Candidate(last + 1, min(79, last + CONTEXT_ROUNDS), arch, TEXTBOOK)).code if last < 79 else []
    return lambda code: simulate(before + list(code) + after, model).cycles


@dataclass
class Report:
    uarch: str
    arch: Arch
    first: int
    last: int
    cycles: float                   # predicted cycles the range adds inside the block (context subtracted)
    textbook_cycles: float
    gcc_cycles: float | None        # gcc's whole block scaled to the range (None if unavailable)
    gcc_note: str
    template: list                  # exact-engine results per round kind (see exact.py)
    candidate: Candidate
    code: list[Instr]
    proof: str                      # "proved (...)" or why not
    proved: bool
    stored: str                     # where the result went, or why not
    evaluations: int
    seconds: float
    stop_reason: str
    workers: int
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def rounds(self) -> int:
        return self.last - self.first + 1

    @property
    def cycles_per_round(self) -> float:
        return self.cycles / self.rounds

    @property
    def cycles_per_byte(self) -> float:
        return self.cycles_per_round * 80 / 64


def round_segments(items: list) -> list[int] | None:
    """Cut points of 80 rounds in foreign code: each round uses its K once.

    Finds the instruction carrying K_t (as an immediate or a displacement,
    either sign) for t = 0..79 in order, and cuts half-way between
    consecutive ones. Returns 81 indices into ``items`` (None when the code
    does not use each K exactly in round order, e.g. K kept in a register).
    """
    from sha1opt.semantics.sha1 import k_const
    from sha1opt.semantics.x86 import Imm, Instr, Mem

    pos = []
    for i, it in enumerate(items):
        if not isinstance(it, Instr):
            continue
        vals = {o.value for o in it.operands if isinstance(o, Imm)} | \
               {o.disp & 0xFFFFFFFF for o in it.operands if isinstance(o, Mem)}
        t = len(pos)
        if t < 80 and (k_const(t) in vals or (-k_const(t)) & 0xFFFFFFFF in vals):
            pos.append(i)
    if len(pos) != 80:
        return None
    cuts = [0] + [(pos[t - 1] + pos[t] + 1) // 2 for t in range(1, 80)] + [len(items)]
    return cuts


def gcc_baseline(uarch: str, arch: Arch, model, first: int, last: int) -> tuple[float | None, str]:
    """gcc -O2 -mtune=<cpu> of csrc/sha1_ref.c: the cycles of its code for rounds first..last."""
    import subprocess
    import tempfile

    from sha1opt.emit.harness import csrc
    from sha1opt.search.cost.simulator import simulate
    from sha1opt.semantics.listing import parse_listing

    tune = MTUNE.get(uarch, "generic")
    flags = f"-O2 -mtune={tune} {'-m32' if arch == 'i386' else '-m64'}"
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "ref.s"
        args = ["gcc", *flags.split(), "-fno-asynchronous-unwind-tables", "-fno-pie", "-S", "-o", str(out),
                str(csrc("sha1_ref.c"))]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, f"gcc failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}"
        try:
            listing = parse_listing(out.read_text(), arch, "gcc-sha1_ref.s")
            loop = listing.loop(strict=False)
            items = listing.items[loop.head:loop.branch + 1]
            cuts = round_segments(items)
            if cuts is not None:
                lo, hi = max(0, first - CONTEXT_ROUNDS), min(80, last + 1 + CONTEXT_ROUNDS)
                whole = simulate(items[cuts[lo]:cuts[hi]], model).cycles
                ctx = simulate(items[cuts[lo]:cuts[first]] + items[cuts[last + 1]:cuts[hi]], model).cycles
                return whole - ctx, (f"gcc {flags}, its rounds {first}-{last} (cut at each K, "
                                     f"between its own neighbouring rounds)")
            sim = simulate(items, model, loop=True)
        except Sha1optError as e:
            return None, f"gcc's code could not be analysed: {e}"
    rounds = last - first + 1
    return sim.cycles * rounds / 80, f"gcc {flags}, whole block x {rounds}/80 (no round boundaries found)"


def prove_in_block(code: list[Instr], first: int, last: int, arch: Arch) -> tuple[bool, str]:
    """Plug the range's code into textbook code for the other rounds and prove the block."""
    parts = []
    if first > 0:
        parts.append(realize(Candidate(0, first - 1, arch, TEXTBOOK)).code)
    parts.append(code)
    if last < 79:
        parts.append(realize(Candidate(last + 1, 79, arch, TEXTBOOK)).code)
    sched = block_schedule(parts, arch, "search-check")
    res = prove_block(sched.body, sched.inputs, sched.outputs, sched.pointers)
    if res.ok:
        return True, f"proved: whole block with rounds {first}-{last} from the search ({res.cuts} cuts, {res.solver_calls} Z3 calls)"
    return False, f"NOT proved: {describe_failure(res)}"


# -- workers -----------------------------------------------------------------


def _worker(args: dict, stop, out) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and tells us via `stop`
    from sha1opt.search.cost.model import load_model

    model = load_model(args["uarch"])
    start = args["start"]
    cost = range_cost(model, start.first, start.last, start.arch)
    try:
        res = anneal(args["start"], cost, isa=args["isa"], seed=args["seed"], evaluations=args["evaluations"],
                     deadline=time.monotonic() + args["seconds"], should_stop=stop.is_set,
                     on_improve=lambda c, v: out.put(("improve", args["seed"], v)))
        out.put(("done", args["seed"], res))
    except Exception as e:  # reported, never swallowed
        out.put(("error", args["seed"], f"{type(e).__name__}: {e}"))


def search_range(uarch: str, first: int, last: int, *, arch: Arch | None = None, time_limit: float = 60.0,
                 workers: int = 1, seed: int = 0, db: str | Path | None = None, resume: bool = False,
                 evaluations: int = 10**9, should_stop: Callable[[], bool] = lambda: False,
                 progress: Callable[[dict], None] | None = None, use_exact: bool = True) -> Report:
    from sha1opt.search.store import Store
    from sha1opt.search.cost.model import load_model

    t_start = time.monotonic()
    if not 0 <= first <= last <= 79:
        raise Sha1optError(f"round range {first}-{last} is not within 0-79")
    if workers < 1:
        raise Sha1optError("workers must be at least 1")
    model = load_model(uarch)
    arch = arch or default_arch(uarch)
    isa = isa_of(model)
    cost = range_cost(model, first, last, arch)
    version = model_version(model)
    notes: list[str] = []
    emit = progress or (lambda e: None)

    context_only = cost([])          # the context rounds alone: subtracted from reported figures
    textbook = Candidate(first, last, arch, TEXTBOOK)
    textbook_cycles = cost(realize(textbook).code) - context_only
    gcc_cycles, gcc_note = gcc_baseline(uarch, arch, model, first, last)

    template = []
    starts = [textbook]
    if use_exact:
        from sha1opt.search.engines.exact import solve_templates

        template = solve_templates(model, arch, first, last, isa, time_limit=max(1.0, 0.15 * time_limit))
        for t in template:
            if t.candidate is not None:
                starts.append(t.candidate)
    store = Store(db)
    stored_row = store.get(uarch, arch, first, last, version)
    if resume and stored_row is not None:
        starts.insert(0, Candidate(first, last, arch, Recipe.parse(stored_row.recipe), stored_row.offsets))
        notes.append(f"resumed from the stored result ({stored_row.cycles:.1f} cycles)")
    # Other CPUs' winners for the same range and arch are starting points too
    # (a schedule good on one uarch is often a fair start on its neighbour).
    starts += [c for c, _ in stored_elsewhere(store.rows(), uarch, arch, first, last, isa)]
    # Good recipes for this ISA as extra starting points (selection matters most).
    extra = [r for r in recipes_for(isa) if r.rol5 == ("rorx" if isa == "bmi2" else "mov-rol")][:8]
    starts += [Candidate(first, last, arch, r) for r in extra]
    starts = [s for s in starts if realize(s) is not None]

    remaining = time_limit - (time.monotonic() - t_start)
    best_c, best_cost, n_eval, reason = starts[0], cost(realize(starts[0]).code), 0, "deadline"
    for s in starts[1:]:
        v = cost(realize(s).code)
        if v < best_cost:
            best_c, best_cost = s, v
    emit({"event": "start", "best": best_cost - context_only, "textbook": textbook_cycles})
    if remaining > 0.5:
        if workers == 1:
            res = anneal(best_c, cost, isa=isa, seed=seed, evaluations=evaluations,
                         deadline=time.monotonic() + remaining - 0.3, should_stop=should_stop,
                         on_improve=lambda c, v: emit({"event": "improve", "best": v - context_only}))
            n_eval, reason = res.evaluations, res.reason
            if res.best_cost < best_cost:
                best_c, best_cost = res.best, res.best_cost
        else:
            ctx = mp.get_context("spawn")
            stop, out = ctx.Event(), ctx.Queue()
            procs = []
            for k in range(workers):
                start = best_c if k == 0 else starts[k % len(starts)]
                args = {"uarch": uarch, "start": start, "isa": isa, "seed": seed + k,
                        "evaluations": evaluations, "seconds": remaining - 2.0}
                p = ctx.Process(target=_worker, args=(args, stop, out), daemon=True)
                p.start()
                procs.append(p)
            done, reason = 0, "deadline"
            while done < workers:
                if should_stop() and not stop.is_set():
                    stop.set()
                try:
                    kind, who, payload = out.get(timeout=0.2)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs) and out.empty():
                        break
                    continue
                if kind == "improve":
                    emit({"event": "improve", "best": min(best_cost, payload) - context_only, "worker": who})
                elif kind == "done":
                    done += 1
                    n_eval += payload.evaluations
                    reason = payload.reason
                    if payload.best_cost < best_cost:
                        best_c, best_cost = payload.best, payload.best_cost
                else:
                    done += 1
                    notes.append(f"worker {who} failed: {payload}")
            for p in procs:
                p.join(timeout=5)
    if should_stop():
        reason = "interrupted"
    real = realize(best_c)
    best_cost -= context_only           # the range's own cycles inside the block
    proved, proof = prove_in_block(real.code, first, last, arch)
    stored = "not stored (not proved)"
    if proved:
        was = store.put(uarch=uarch, arch=arch, first=first, last=last, model_version=version, cycles=best_cost,
                        recipe=best_c.recipe.key(), offsets=best_c.offsets,
                        code="\n".join(map(str, real.code)), evaluations=n_eval,
                        seconds=time.monotonic() - t_start, seed=seed, proved=True)
        stored = (f"stored in {store.path}" if was else
                  f"kept the better stored result in {store.path} ({stored_row.cycles:.1f} cycles)" if stored_row else
                  f"stored in {store.path}")
        if not was and stored_row is not None and stored_row.cycles < best_cost:
            notes.append("the stored result is better than this run's")
    store.close()
    return Report(uarch, arch, first, last, best_cost, textbook_cycles, gcc_cycles, gcc_note, template, best_c,
                  real.code, proof, proved, stored, n_eval, time.monotonic() - t_start, reason, workers, seed, notes)


def stored_elsewhere(rows, uarch: str, arch: Arch, first: int, last: int, isa: str):
    """(candidate, row) for other uarchs' stored results of this range and arch that this ISA can run."""
    for row in rows:
        if row.uarch == uarch or row.arch != arch or (row.first, row.last) != (first, last):
            continue
        try:
            r = Recipe.parse(row.recipe)
        except Sha1optError:
            continue
        if ISA_RANK[r.isa()] <= ISA_RANK[isa]:
            yield Candidate(first, last, arch, r, row.offsets), row


def best_known(uarch: str, arch: Arch, first: int, last: int, db: str | Path | None = None):
    """The stored best candidate for the key (realized), or the textbook one; and where it came from."""
    from sha1opt.search.store import Store
    from sha1opt.search.cost.model import load_model

    model = load_model(uarch)
    store = Store(db)
    try:
        row = store.get(uarch, arch, first, last, model_version(model))
    finally:
        store.close()
    if row is not None:
        cand = Candidate(first, last, arch, Recipe.parse(row.recipe), row.offsets)
        real = realize(cand)
        if real is not None and "\n".join(map(str, real.code)) == row.code:
            return real, f"stored result ({row.cycles:.1f} cycles, {row.evaluations} evaluations)"
    return realize(Candidate(first, last, arch, TEXTBOOK)), "default schedule (no stored result for this key)"


def best_block(uarch: str, arch: Arch, db: str | Path | None = None):
    """A whole-block Schedule from the best known proved code for each standard range.

    Ranges are searched apart, so two good ranges can meet badly, and another
    CPU's winner may suit this one: per range the options are the default
    schedule, this uarch's stored result and the other uarchs' stored
    results for the same arch (all proved); every mix of the default and own
    results (16) is scored as a whole block, then each range's option is
    improved in turn (coordinate descent) -- never worse than the default.
    """
    from itertools import product

    from sha1opt.search.cost.simulator import simulate
    from sha1opt.search.store import Store
    from sha1opt.search.cost.model import load_model

    model = load_model(uarch)
    isa = isa_of(model)
    options: list[list[tuple[list, str]]] = []
    store = Store(db)
    try:
        rows = store.rows()
    finally:
        store.close()
    for first, last in STANDARD_RANGES:
        opts = [(realize(Candidate(first, last, arch, TEXTBOOK)).code, "default schedule")]
        real, where = best_known(uarch, arch, first, last, db)
        if where.startswith("stored"):
            opts.append((real.code, where))
        for cand, row in stored_elsewhere(rows, uarch, arch, first, last, isa):
            other = realize(cand)
            if other is not None and "\n".join(map(str, other.code)) == row.code:
                opts.append((other.code, f"proved result stored for {row.uarch}"))
        options.append(opts)

    def score(choice):
        sched = block_schedule([options[i][k][0] for i, k in enumerate(choice)], arch, f"sha1opt-{uarch}")
        return simulate(list(sched.body), model).cycles, sched

    best = None
    for mask in product(*(range(min(2, len(o))) for o in options)):
        cyc, sched = score(mask)
        if best is None or cyc < best[0]:
            best = (cyc, list(mask), sched)
    for _ in range(2):
        for i, opts in enumerate(options):
            for k in range(len(opts)):
                trial = list(best[1])
                trial[i] = k
                cyc, sched = score(trial)
                if cyc < best[0]:
                    best = (cyc, trial, sched)
    _, choice, sched = best
    sources = [f"{a}-{b}: {options[i][k][1]}" for i, ((a, b), k) in enumerate(zip(STANDARD_RANGES, choice))]
    return sched, sources
