"""Native tuning of a hybrid export: the model's few best candidates, validated, then timed against each other here.

Within a few percent the cost model's ranking of hybrid blocks is port-binding noise (on the Emerald
Rapids host, goldencove's first choice measured 0.965 of OpenSSL's AVX2 path and a form it ranked
lower 0.928), so ``export --tune N`` measures instead, as the seeds' hand-tuners did:

1. ``ranked_blocks(uarch, arch, level, limit)`` -- the hybrid search export runs (same budget, seed 0:
   ``family_hybrid.EXPORT_EVALUATIONS``; x86-64 ``engines.hybrid.search_hybrid``, i386
   ``engines.hybrid_i386.search_hybrid_i386``), its scored points (``HybridSearch.ranked``: the
   search's best first, then cheapest first), one per *shape* (``shape``: dialect, lead,
   placement, read-ahead, recurrence, scalar form -- the interleaving and the rounds; the
   cheapest point of each, so the priority offsets and recipe fields the annealing tuned under the
   model stay the model's), built into blocks; two that render the same text are one candidate.
2. ``tune_blocks(blocks, n, ...)`` -- every candidate is checked *before any timing*: the block
   proof (``hybrid_proof.prove_hybrid``) and the exported function's checks
   (``hybrid_export.validate_hybrid``: assembled, the whole function proved from the object, native
   vectors). Candidates that fail are dropped (said in ``notes``) and the next ranked one is taken,
   until ``n`` passed. Then rounds: in each round every candidate, in a rotating order, runs in
   one timing process (``csrc/bench.c``, built and run by the timing driver ``emit.timing``) as peer 0 against the model's first
   choice as peer 1 (its object with the entry renamed ``sha1_ref_block_data_order``), ``pairs /
   rounds`` interleaved pairs at ``SIZE`` (16 KiB) per call -- so a load swing falls on every
   candidate (one process per candidate and round: bench.c pairs two peers). The figure is the
   median of the paired ratios candidate / first choice (ticks per byte), with p10 / p90; the
   first choice is also timed against itself: the control (median about 1; its p10 / p90 are
   the noise).
3. The winner is the candidate with the lowest median, when that is ``MARGIN`` (1 %) below the
   control's -- the same code in both peers has read 1.006, not 1, here, and a sub-percent
   difference at this noise is a coin toss, so the model's pick stays then. Example (18:24 UTC,
   load 5.4): goldencove avx512, 4 candidates: control 1.000 [0.990, 1.036], pin-bmi-early 0.963
   [0.951, 1.021], exported.
   ``should_stop()`` (Ctrl-C in the CLI) or a ``KeyboardInterrupt`` inside a timing run ends the
   rounds: the winner is then taken over the pairs measured so far (a candidate with fewer than
   ``MIN_PAIRS`` pairs is not ranked), always among validated candidates.

The host rule (``emit.host_cpu.host_refusal``): timing decides only for the CPU that runs it, so
tuning for a model is allowed only when this CPU is that model's (``corpus/cpus.toml`` says which
model a CPU is; a CPU missing from it is no model's, and tuning is refused). Example: on the
Emerald Rapids host (GenuineIntel family 6 model 207) ``--uarch goldencove`` tunes, ``--uarch
zen5`` is refused.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.space.hybrid import HybridBlock, HybridParams
from sha1opt.search.space.hybrid_caps import check_level
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.emit.hybrid_bench_i386 import PEER
from sha1opt.emit.family_hybrid import ARCHES, EXPORT_EVALUATIONS, HYBRID
from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.hybrid_export import function_text, validate_hybrid
from sha1opt.emit.timing import PairPlan, band, timing_program
from sha1opt.emit.toolchain import run, which
from sha1opt.emit.validate import Validation

SIZE = 16384          # bytes per call
MIN_BYTES = 1 << 20   # each timed call repeated to this many bytes
SPARE = 2             # ``tune`` ranks SPARE x n blocks, so that n remain when some fail validation
MARGIN = 0.01         # a candidate replaces the first choice only when its median is this far below the control
MIN_PAIRS = 4         # fewer measured pairs (an interrupted run): the candidate is not ranked


Timer = Callable[[Path, Path, str, int], np.ndarray]
Check = Callable[[HybridBlock, Path], "Validation | str"]


@dataclass(frozen=True)
class Candidate:
    """A validated candidate: its block, predicted c/B under the model, and the checks it passed."""

    block: HybridBlock
    predicted: float
    validation: Validation

    @property
    def key(self) -> str:
        p = self.block.params
        return p.key() + (f" ({len(p.offsets)} offsets)" if p.offsets else "")


@dataclass(frozen=True)
class Measurement:
    """Paired ratios candidate / first choice: median [p10, p90] over ``pairs`` (NaN when none)."""

    median: float
    p10: float
    p90: float
    pairs: int

    @staticmethod
    def of(ratios: list[float]) -> Measurement:
        if not ratios:
            return Measurement(math.nan, math.nan, math.nan, 0)
        return Measurement(*band(ratios), len(ratios))


@dataclass(frozen=True)
class Tuning:
    """What ``tune_blocks`` did: the validated candidates (first: the model's choice), each one's
    measurement (index 0: the first choice against itself, the noise control), the winner's index,
    why it won, and how the rounds ended ("done" or "interrupted")."""

    candidates: tuple[Candidate, ...]
    measured: tuple[Measurement, ...]
    winner: int
    why: str
    stop: str
    rounds: int
    notes: tuple[str, ...] = field(default=())

    @property
    def best(self) -> Candidate:
        return self.candidates[self.winner]


def shape(p: HybridParams) -> tuple:
    """What makes two candidates different enough to time (module docstring, 1): all but offsets and recipe."""
    return (p.arch, p.isa, p.lead, p.every if p.placement == "every" else "slots", p.ahead, p.recurrence, p.scalar)


def ranked_blocks(uarch: str, arch: str, level: str, limit: int, evaluations: int = EXPORT_EVALUATIONS
                  ) -> list[HybridBlock]:
    """Up to ``limit`` distinct blocks of the hybrid search on ``uarch`` under ``level``, its best first
    (module docstring, 1). Example: goldencove, x86_64, avx512, 2 gives the export's block
    (rotate-bmi-leanch-early, 3.03 c/B) and the next shape (pin-bmi-early at the same interleaving)."""
    check_level(level)
    if not HYBRID.admits(level):
        raise Sha1optError(f"--isa {level} has no vector dialect: nothing to tune (the hybrid families need ssse3+)")
    model = load_model(uarch)
    engine = ARCHES[arch].engine
    found = engine(model, cap=level, evaluations=evaluations, seed=0)
    if found.params is None:
        raise Sha1optError(f"no hybrid block to tune on {model.name}: {found.reason}")
    shapes: set[tuple] = set()
    texts: set[str] = set()
    out: list[HybridBlock] = []
    for p in found.ranked or (found.params,):
        if len(out) == limit:
            break
        if shape(p) in shapes:
            continue
        b = ARCHES[arch].build_on(p, model)
        text = function_text(b) if b is not None else None
        if text is not None and text not in texts:
            shapes.add(shape(p))
            texts.add(text)
            out.append(b)
    return out


def check_block(block: HybridBlock, work: Path) -> Validation | str:
    """The block proof, then export's checks of its function: the ``Validation``, or why it failed."""
    res = prove_hybrid(block)
    if not res.ok:
        return f"block NOT proved: {describe_failure(res)}"
    v = validate_hybrid(function_text(block), block, work)
    if not v.ok:
        f = v.failure
        return f"{f.name} failed: {f.detail}" if f else "validation failed"
    missing = lacking(v.features or ())
    if missing:                          # timed natively below: never on a CPU without its features
        return f"not timed: {lacks_text(missing)}"
    return v


def native_timer(work: Path) -> Timer:
    """Paired ratios of one timing process: peer 0 the candidate object, peer 1 the reference object
    (renamed ``sha1_ref_block_data_order``); each program is built once and reused from round to round."""
    programs: dict[tuple[Path, Path], Path] = {}
    renamed: dict[Path, Path] = {}

    def program(cand: Path, ref: Path, arch: str) -> Path:
        if ref not in renamed:
            out = work / f"ref{len(renamed)}.o"
            run([which("objcopy"), f"--redefine-sym=sha1_block_data_order={PEER}", str(ref), str(out)],
                "renaming the first choice's entry")
            renamed[ref] = out
        if (cand, ref) not in programs:
            name = f"tune{len(programs)}"
            programs[(cand, ref)] = timing_program(arch, [renamed[ref], cand], work, name)
        return programs[(cand, ref)]

    def timer(cand: Path, ref: Path, arch: str, pairs: int) -> np.ndarray:
        return PairPlan((SIZE,), pairs, MIN_BYTES).run(program(cand, ref, arch)).ratios()

    return timer


def _validated(blocks, n: int, uarch: str, work: Path, check: Check, should_stop) -> tuple[list[Candidate], list[str]]:
    model = load_model(uarch)
    out: list[Candidate] = []
    notes: list[str] = []
    for k, b in enumerate(blocks):
        if len(out) == n or (out and should_stop()):
            break
        d = work / f"cand{k}"
        d.mkdir()
        v = check(b, d)
        if isinstance(v, str):
            notes.append(f"dropped {b.params.key()}: {v}")
            continue
        out.append(Candidate(b, block_cost(b, model).cycles_per_byte, v))
    return out, notes


def _winner(measured: list[Measurement]) -> tuple[int, str]:
    control = measured[0].median if measured[0].pairs >= MIN_PAIRS else 1.0
    ranked = [(m.median, k) for k, m in enumerate(measured) if k and m.pairs >= MIN_PAIRS]
    if not ranked:
        return 0, "no other candidate has enough measured pairs: the model's first choice stays"
    med, k = min(ranked)
    if med > control - MARGIN:
        return 0, (f"no candidate's median is {MARGIN:.0%} below the first choice's own ({control:.3f}; best other "
                   f"{med:.3f}): the model's first choice stays")
    return k, (f"lowest median of paired ratios against the model's first choice: {med:.3f} vs its own "
               f"{control:.3f} ({measured[k].pairs} pairs; p90 {measured[k].p90:.3f})")


def tune_blocks(blocks: list[HybridBlock], n: int, uarch: str, *, pairs: int = 40, rounds: int = 5,
                work: Path | None = None, timer: Timer | None = None, check: Check = check_block,
                should_stop: Callable[[], bool] = lambda: False) -> Tuning:
    """Validate the first ``n`` blocks that pass, then time them against the first (module docstring, 2-3)."""
    if n < 1 or pairs < 2 or rounds < 1:
        raise Sha1optError("--tune needs n >= 1, pairs >= 2 and rounds >= 1")
    if not blocks:
        raise Sha1optError("no candidate blocks to tune")
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-tune-") as d:
            return tune_blocks(blocks, n, uarch, pairs=pairs, rounds=rounds, work=Path(d), timer=timer,
                               check=check, should_stop=should_stop)
    work.mkdir(parents=True, exist_ok=True)
    cands, notes = _validated(blocks, n, uarch, work, check, should_stop)
    if not cands:
        raise Sha1optError("no candidate validated: " + "; ".join(notes))
    timer = timer or native_timer(work)
    arch = cands[0].block.params.arch
    ref = cands[0].validation.obj
    per_round = max(2, math.ceil(pairs / rounds))
    ratios: list[list[float]] = [[] for _ in cands]
    stop, done = "done", 0
    for r in range(rounds if len(cands) > 1 else 0):
        for j in range(len(cands)):
            k = (j + r) % len(cands)
            if should_stop():
                stop = "interrupted"
                break
            try:
                ratios[k].extend(float(x) for x in timer(cands[k].validation.obj, ref, arch, per_round))
            except KeyboardInterrupt:
                stop = "interrupted"
                break
        if stop != "done":
            break
        done += 1
    measured = [Measurement.of(x) for x in ratios]
    winner, why = _winner(measured) if len(cands) > 1 else (0, "one candidate: nothing to compare")
    if stop == "interrupted":
        why = f"interrupted after {done} full round(s): best validated so far by the pairs measured; {why}"
    return Tuning(tuple(cands), tuple(measured), winner, why, stop, done, tuple(notes))


def tune(uarch: str, arch: str, level: str, n: int, *, pairs: int = 40, rounds: int = 5,
         timer: Timer | None = None, should_stop: Callable[[], bool] = lambda: False) -> Tuning:
    """``ranked_blocks`` then ``tune_blocks``: what ``export --tune n`` runs (the host check is the caller's)."""
    blocks = ranked_blocks(uarch, arch, level, SPARE * n)
    return tune_blocks(blocks, n, uarch, pairs=pairs, rounds=rounds, timer=timer, should_stop=should_stop)


def describe(t: Tuning) -> list[str]:
    """One line per candidate (key, predicted c/B, measured median [p10, p90]), then the choice."""
    lines = list(t.notes)
    for k, (c, m) in enumerate(zip(t.candidates, t.measured)):
        what = "first choice vs itself (noise)" if k == 0 else "vs first choice"
        fig = "not measured" if not m.pairs else f"{m.median:.3f} [{m.p10:.3f}, {m.p90:.3f}] ({m.pairs} pairs)"
        lines.append(f"candidate {k}: {c.key}  predicted {c.predicted:.3f} c/B  measured {what}: {fig}")
    lines.append(f"tuned ({t.rounds} round(s), {SIZE} bytes per call): exporting candidate {t.winner} "
                 f"{t.best.key}: {t.why}")
    return lines
