"""``sha1opt calibrate``: the host's model, measured on the host -- microbenchmarks and whole SHA-1 loops timed, fitted.

The run (``calibrate``):

1. the CPU (``host_cpu.host``) and its literature model (``corpus/cpus.toml``'s row: the base);
2. the base's microbenchmarks (``microbench.kernels``), less those needing a feature this CPU lacks,
   each checked (``microbench.validate_all``: only a ``Checked`` kernel runs natively);
3. measurement in passes: every pass runs every kernel ``ROUNDS_PER_PASS`` times, ``BATCH`` kernels per
   bounded child program (``clock.loop_samples``: each sample beside its own add-chain clock sample, the
   kernels of a round interleaved), until ``passes`` passes or ``MEASURE_SHARE`` of the budget is spent;
   a round during which another hardware thread shared the core is left out (``measure_kernels``);
4. the training loops (``training_loops``: the textbook, its recipe variants, every family's ranked
   candidates under the base model), validated and timed here in interleaved pairs against the textbook,
   until ``LOOPS_SHARE`` of the budget (timing ends before any fitting starts: the fits would disturb it);
5. stage 1: the fit (``search.cost.fit``, with its admissibility rule: no row without a kernel bound by
   that resource, none a measurement refutes) of the base to the kernels, for ``STAGE1_SHARE`` of the time
   left to 95 % of the budget (at least ``FIT_FLOOR`` of the budget for both fits: a slow validation of the
   training loops makes the run overrun its budget rather than fit nothing);
6. stage 2 (DiffTune's idea, issue 25 item 2): the fit of stage 1's model to the training loops, the
   kernels as constraints (a change may not move a kernel stage 1 explains out of its noise band, nor
   refute one: ``fit``'s rule 3), over the parameters the loops touch (``stage2_parameters``: rules,
   latencies, then units), until the budget's end (``training`` off: skipped). Both fits price candidates
   in ``WORKERS`` processes;
7. the whole-loop check (``loop_check.judge``) on the training loops: a calibrated model that predicts
   them worse than its base is not written (``Run.loop_check``);
8. the calibrated model written to ``corpus/uarch/calibrated/<cpu key>.toml`` (``calibrated.calibrated_text``):
   the changed rows whole, and per change its old and new value and the measurements it came from; every
   kernel's and training loop's median, p10, p90 (cycles per iteration) and both models' predictions.

Ctrl-C keeps what was measured: during the measurement the kernels measured so far are fitted and written
(``interrupted`` set), during a fit the best model so far. ``check`` (``sha1opt calibrate --check``)
measures and fits again and compares with the stored file (``Agreement``).

Noise: a measurement's band is its samples' p10..p90; two measurements agree when their medians differ by at
most the wider of the two bands. A row of the second fit agrees with the stored row when it is the same
value, or when the stored model predicts every measurement that row's change cites within that
measurement's noise (the two values are not told apart by the measurements).

Hooks: ``measure_kernels`` returns plain (name -> samples); ``train_loops`` the timed training loops
(``training_loops.TimedLoop``); ``fit.fit`` takes any list of ``fit.Observation``.
"""

from __future__ import annotations

import datetime
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from sha1opt.semantics.datafiles import atomic_write, load_toml
from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.cost.calibrated import (Calibration, Change, Measured, calibrated_text, check_calibration, cpu_key,
                                            plain as _plain)
from sha1opt.search.cost.fit import MIN_SPREAD, Fit, Observation, fit, parameters, predict
from sha1opt.search.cost.model import Model, calibrated_dir, load_model
from sha1opt.emit.clock import loop_samples
from sha1opt.emit.timing import kept_quotients
from sha1opt.emit.host_cpu import HostCpu, HostError, host, identify, lacking, lacks_text
from sha1opt.emit.loop_check import LoopCheck, check_loops, judge
from sha1opt.emit.microbench import Checked, Kernel, kernels, validate_all
from sha1opt.emit.training_loops import PREFIX, TimedLoop, entries, observations as loop_observations, time_loops

BUDGET = 600.0              # seconds: the whole run, by default (issue 25: at most 10 minutes on 2 cores)
MEASURE_SHARE = 0.25        # of the budget, at most, for measuring the kernels
LOOPS_SHARE = 0.52          # ... and the training loops, by this share
STAGE1_SHARE = 0.45         # of the time left for fitting (to 95 % of the budget), stage 1's; stage 2 the rest
FIT_FLOOR = 0.15            # the fits get at least this share of the budget, even when the timing overran it
WORKERS = 2                 # processes pricing the fits' candidates (nothing is timed while they run)
BATCH = 40                  # kernels per timing program
ROUNDS_PER_PASS = 7         # samples of every kernel per pass
PASSES = 3
ITERATIONS = 400            # loop iterations per sample (48-instruction bodies: ~20-100 k cycles)
SHARE_PROBES = ("lat.add_rr", "tput.add_rr")    # run in every batch: their quotient says whether the core was shared

Progress = Callable[[str], None]


@dataclass
class Run:
    """What one calibration did: the CPU, the base, the kernels, their samples, the training loops, the fits
    (stage 1's, and the final one: ``fitted``) and the file."""
    cpu: HostCpu
    base: str
    kernels: list[Kernel]
    skipped: dict[str, str] = field(default_factory=dict)       # kernel -> why it did not run
    samples: dict[str, np.ndarray] = field(default_factory=dict)
    fitted: Fit | None = None
    calibration: Calibration | None = None
    path: Path | None = None
    interrupted: bool = False
    seconds: float = 0.0
    loop_check: LoopCheck | None = None     # the whole-loop check of the fitted model (None: not run)
    loops: list[TimedLoop] = field(default_factory=list)        # the training loops timed (stage 2)
    notes: tuple[str, ...] = ()             # training codes dropped, and why
    stage1: Fit | None = None
    observations: list[Observation] = field(default_factory=list)   # everything fitted: kernels, then loops


def band(x: np.ndarray) -> tuple[float, float, float]:
    return float(np.median(x)), float(np.percentile(x, 10)), float(np.percentile(x, 90))


def host_base(cpu: HostCpu | None = None) -> tuple[HostCpu, str]:
    """This CPU and the literature model its row of ``corpus/cpus.toml`` names; ``HostError`` when none."""
    cpu = cpu if cpu is not None else host()
    if cpu is None:
        raise HostError("calibrate: this CPU's identification could not be read (not x86?)")
    row = identify(cpu.id)
    if row is None:
        raise HostError(f"calibrate: this CPU ({cpu}) is in no row of corpus/cpus.toml: no model to start from")
    return cpu, row.model


def runnable(model: Model, cpu: HostCpu, only: tuple[str, ...] = ()) -> tuple[list[Checked], dict[str, str]]:
    """The model's kernels this CPU runs (names starting with one of ``only``, if given), checked; and the
    others with the reason."""
    ks = [k for k in kernels(model) if not only or k.name.startswith(only)]
    skipped = {}
    keep = []
    for k in ks:
        miss = lacking(k.needs, cpu)
        if miss:
            skipped[k.name] = lacks_text(miss)
        else:
            keep.append(k)
    checked = []
    for r in validate_all(keep, model):
        if isinstance(r, str):
            skipped[r.split(":", 1)[0]] = r
        else:
            checked.append(r)
    return checked, skipped


def measure_kernels(checked: list[Checked], *, passes: int = PASSES, rounds: int = ROUNDS_PER_PASS,
                    deadline: float | None = None, progress: Progress | None = None,
                    into: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Core cycles per iteration, every sample, of each checked kernel (``into`` is filled as they come, so
    an interrupted caller keeps them). Stops at ``deadline`` (``time.monotonic``) after a whole batch.

    Rounds of a shared core are left out (``shared_rounds``): every batch also runs ``SHARE_PROBES`` (the
    add chain and the independent adds, ``lat.add_rr`` and ``tput.add_rr`` when checked), and a round whose
    independent adds ran more than ``timing.SHARED_SLACK`` slower against its chain than the least 10th
    percentile of the passes so far loses every kernel's sample of that round. Without that, a sibling
    hardware thread's share widened the throughput kernels' bands to p90 1.5-1.7x (the Zen 4 host,
    bench/results/core_share.txt), and a band that wide refutes no unit set the fit tries."""
    out = into if into is not None else {}
    probes = {c.kernel.name: c.kernel.body for c in checked if c.kernel.name in SHARE_PROBES}
    batches = [checked[i:i + BATCH] for i in range(0, len(checked), BATCH)]
    alone = [math.inf]
    dropped = total = 0
    for p in range(passes):
        for b, batch in enumerate(batches):
            if deadline is not None and time.monotonic() > deadline and p > 0:
                return out
            got = loop_samples({**probes, **{c.kernel.name: c.kernel.body for c in batch}}, ITERATIONS, rounds,
                               time_limit=120)
            keep = shared_rounds(got, alone)
            dropped, total = dropped + int((~keep).sum()), total + len(keep)
            for c in batch:
                x = got[c.kernel.name][keep]
                out[c.kernel.name] = np.concatenate([out[c.kernel.name], x]) if c.kernel.name in out else x
            if progress:
                progress(f"measured pass {p + 1}/{passes}, batch {b + 1}/{len(batches)} ({len(out)} kernels; "
                         f"{dropped} of {total} rounds left out: the core was shared)")
    return out


def shared_rounds(got: dict[str, np.ndarray], alone: list[float]) -> np.ndarray:
    """Which rounds of one ``loop_samples`` run to keep: those whose ``SHARE_PROBES`` quotient (independent adds
    over the chain) is within ``timing.SHARED_SLACK`` of the core alone -- ``alone[0]``, updated to the least
    10th percentile of the runs so far. Every round when the probes were not run, or fewer than 2 would stay.
    Example: quotients 0.26 x 6 and 0.43 -> the seventh round left out."""
    chain, copies = SHARE_PROBES
    n = len(next(iter(got.values())))
    if chain not in got or copies not in got:
        return np.ones(n, dtype=bool)
    q = got[copies] / got[chain]
    alone[0] = min(alone[0], float(np.percentile(q, 10)))
    return kept_quotients(q, alone[0])


def kernel_time(median: float, p10: float) -> float:
    """A kernel's time: its median, but at most ``MIN_SPREAD`` above its p10. A microbenchmark's samples spread
    only by interference (a sibling hardware thread, the host), which only slows them, so a median further above
    the p10 is a slowed median. Example: tput.logic_rm in one Zen 4 run (AuthenticAMD family 25 model 17):
    median 19.06, p10 16.26, p90 31.44 (quiet runs: 16.5, 16.3): its time is 16.59. With the median, stage 2
    put logic_rm on two ALUs (24 clocks, within that band) and the hold-out's Kendall tau fell from 0.89 to
    0.38 (bench/results/calibrate_holdout_zen4.txt)."""
    return min(median, p10 * (1 + MIN_SPREAD)) if p10 > 0 else median


def observations(checked: list[Checked], samples: dict[str, np.ndarray]) -> list[Observation]:
    """One ``fit.Observation`` per measured kernel: its items, time (``kernel_time``: the median, or the p10
    and ``MIN_SPREAD`` when the median was slowed), p10, p90, and the classes it informs."""
    out = []
    for c in checked:
        if c.kernel.name in samples:
            m, lo, hi = band(samples[c.kernel.name])
            out.append(Observation(c.kernel.name, c.kernel.items(), kernel_time(m, lo), lo, hi, c.kernel.classes))
    return out


def train_loops(model: Model, cpu: HostCpu, *, timer=None, deadline: float | None = None,
                progress: Progress | None = None) -> tuple[list[TimedLoop], tuple[str, ...]]:
    """The training loops (``training_loops.entries``) validated and timed here; the rounds after the first
    stop at ``deadline``."""
    said: set[str] = set()

    def phase(p) -> None:           # the searches' progress: each phase once
        if progress and p.phase not in said:
            said.add(p.phase)
            progress(f"stage 2 codes: {p.phase}")
    codes = entries(model, cpu, progress=phase)
    if progress:
        progress(f"stage 2: {len(codes)} training loops (sha1opt's own codes), validating and timing them")
    late = (lambda: time.monotonic() > deadline) if deadline is not None else (lambda: False)
    return time_loops(codes, timer=timer, late=late, progress=progress or (lambda _: None))


def stage2_parameters(model: Model, loops: list[TimedLoop]) -> list:
    """The parameters the training loops touch (``fit.parameters``): the rules, then latencies, then units --
    the order the fit breaks ties in (it sweeps the worst-explained evidence first)."""
    rank = {"rules": 0, "latency": 1}
    return sorted(parameters(model, loop_observations(loops)),
                  key=lambda p: rank.get(p.row.partition(".")[0], rank.get(p.field, 2)))


def _merged(model: Model, first: Fit, second: Fit | None, obs: list[Observation]) -> Fit:
    """One ``Fit`` from the base ``model`` to the last model: the changes of both stages against the base (a
    row stage 2 put back is no change), predictions of every observation under the base and the last model."""
    last = second if second is not None else first
    rows: dict[str, list[Any]] = {}
    for f in (first, second) if second is not None else (first,):
        for name, old, new, ev in f.changes:
            if name in rows:
                rows[name][1], rows[name][2] = new, tuple(dict.fromkeys(ev + rows[name][2]))
            else:
                rows[name] = [old, new, ev]
    changes = tuple((n, old, new, ev) for n, (old, new, ev) in rows.items() if old != new)
    before, after = predict(model, obs), predict(last.model, obs)
    return Fit(last.model, changes, before, after, first.objective_before, last.objective_after,
               first.complete and last.complete)


def calibrate(*, budget: float = BUDGET, only: tuple[str, ...] = (), passes: int = PASSES,
              rounds: int = ROUNDS_PER_PASS, write: bool = True, out_dir: Path | None = None,
              progress: Progress | None = None, cpu: HostCpu | None = None, loop_timer=None,
              training: bool = True) -> Run:
    """Calibrate this CPU's model (module docstring). ``only``: kernel-name prefixes (a partial run, for tests);
    ``training`` False: no stage 2 (the whole-loop check then times the textbook and a few variants itself)."""
    if budget <= 0:
        raise Sha1optError("the time budget must be a positive number of seconds")
    start = time.monotonic()
    cpu, base = host_base(cpu)
    model = load_model(base)
    checked, skipped = runnable(model, cpu, only)
    if not checked:
        raise Sha1optError("calibrate: no microbenchmark selected" + (f" by {', '.join(only)}" if only else ""))
    run = Run(cpu, base, [c.kernel for c in checked], skipped)
    if progress:
        progress(f"{cpu}: base model {base}; {len(checked)} kernels checked, {len(skipped)} skipped")
    try:
        measure_kernels(checked, passes=passes, rounds=rounds, deadline=start + budget * MEASURE_SHARE,
                        progress=progress, into=run.samples)
        if training:
            run.loops, run.notes = train_loops(model, cpu, timer=loop_timer, deadline=start + budget * LOOPS_SHARE,
                                               progress=progress)
    except KeyboardInterrupt:
        run.interrupted = True
    kern = observations(checked, run.samples)
    run.observations = kern + loop_observations(run.loops)
    if not kern:
        run.seconds = time.monotonic() - start
        return run
    try:
        if not run.interrupted:
            if progress:
                progress(f"stage 1: fitting {base} to {len(kern)} kernels")
            now = time.monotonic()
            end = max(start + budget * 0.95 - 10, now + budget * FIT_FLOOR)
            run.stage1 = fit(model, kern, deadline=now + (end - now) * STAGE1_SHARE if run.loops else end,
                             progress=progress, workers=WORKERS)
            if run.loops:
                if progress:
                    progress(f"stage 2: fitting to {len(run.loops)} whole loops, {len(kern)} kernels as constraints")
                second = fit(run.stage1.model, loop_observations(run.loops), constraints=kern,
                             params=stage2_parameters(run.stage1.model, run.loops),
                             deadline=end, progress=progress, workers=WORKERS)
            else:
                second = None
            run.fitted = _merged(model, run.stage1, second, run.observations)
    except KeyboardInterrupt:
        run.interrupted = True
        if run.stage1 is not None:          # stage 2 interrupted: stage 1's model stands
            run.fitted = _merged(model, run.stage1, None, run.observations)
    if run.fitted is None:      # interrupted: the measurements are kept, priced by the base model
        before = predict(model, run.observations)
        run.fitted = Fit(model, (), before, before, 0.0, 0.0, False)
    if write and run.fitted.changes and not run.interrupted:
        try:
            if run.loops:
                run.loop_check = judge(run.loops, model, run.fitted.model)
            else:
                if progress:
                    progress("whole-loop check: timing SHA-1 loops here, predicted by both models")
                run.loop_check = check_loops(model, run.fitted.model, timer=loop_timer)
        except KeyboardInterrupt:
            run.interrupted = True
    run.seconds = time.monotonic() - start
    counts = {n: len(x) for n, x in run.samples.items()} | {x.name: x.pairs for x in run.loops}
    run.calibration = record(cpu, base, run.fitted, run.observations, run.seconds, counts)
    unjudged = bool(run.fitted.changes) and run.loop_check is None     # changes no whole loop has judged
    if write and not unjudged and (run.loop_check is None or run.loop_check.passed):
        run.path = write_model(run.calibration, run.fitted.model, model, out_dir)
    return run


def record(cpu: HostCpu, base: str, f: Fit, obs: list[Observation], seconds: float,
           counts: dict[str, int]) -> Calibration:
    """The ``[calibration]`` record of a fit (``counts``: samples per kernel)."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    meas = {o.name: Measured(o.cycles, o.p10, o.p90, counts.get(o.name, 0), f.before[o.name], f.after[o.name])
            for o in obs}
    changes = tuple(Change(n.rpartition(".")[0], n.rpartition(".")[2], old, new, ev) for n, old, new, ev in f.changes)
    return Calibration(cpu.id.vendor, cpu.id.family, cpu.id.model, cpu.stepping, cpu.brand, date, base, seconds,
                       changes, meas)


def _row(model: Model, row: str, why: str) -> dict:
    kind, _, name = row.partition(".")
    if kind == "classes":
        c = model.classes[name]
        return {"uops": c.uops, "latency": c.latency, "rthroughput": c.rthroughput, "ports": [str(u) for u in c.ports],
                **({"busy": c.busy} if c.busy != 1 else {}), "source": why}
    r = model.rules
    if name == "store_forwarding":
        return {"latency": r.store_forward_latency, "source": why}
    if name == "vector_store_forwarding":
        return {"latency": r.vector_store_forwarding.latency, "source": why}
    if name == "rmw_forwarding":
        return {"latency": r.rmw_forwarding.latency, "immediate": r.rmw_forwarding.immediate, "source": why}
    if name == "memory_renaming":
        return {"latency": r.memory_renaming.latency, "source": why}
    if name == "scheduler":
        return {"name": r.scheduler.name, "entries": r.scheduler.entries, "source": why}
    if name == "microcode":
        return {"classes": sorted(r.microcode.classes), "slots": r.microcode.slots, "source": why}
    if name == "move_elimination":
        out = {"classes": sorted(r.move_elimination), "source": why}
        if r.move_elimination_slots is not None:
            out["slots"] = r.move_elimination_slots
        return out
    raise Sha1optError(f"no calibrated row for {row!r}")


def write_model(cal: Calibration, fitted: Model, base: Model, out_dir: Path | None = None) -> Path:
    """Write the calibrated model file; loads it back (``load_model``) unless ``out_dir`` is elsewhere."""
    rows: dict = {}
    for c in cal.changes:
        name, fld, ev = c.row, c.field, ", ".join(c.measurements)
        if name == "issue_width":
            rows["issue_width"] = fitted.issue_width
            continue
        prior = rows.get(name, {}).get("source", "")
        why = f"calibrated {cal.date} on {cal.cpu_name or cal.vendor}: {fld} {c.old} -> {c.new} from {ev}"
        rows[name] = _row(fitted, name, f"{prior}; {why}" if prior else why)
    text = calibrated_text(cal, rows, f"{base.name} calibrated on {cal.cpu_name or cal.vendor} ({cal.vendor} family "
                                      f"{cal.family} model {cal.model} stepping {cal.stepping}), {cal.date[:10]}")
    d = out_dir if out_dir is not None else calibrated_dir()
    d.mkdir(parents=True, exist_ok=True)
    return atomic_write(d / f"{cal.key}.toml", text)


def stored(cpu: HostCpu, out_dir: Path | None = None) -> tuple[Path, Calibration]:
    """The stored calibrated model file of this CPU and its record; ``Sha1optError`` when there is none."""
    key = cpu_key(cpu.id.vendor, cpu.id.family, cpu.id.model, cpu.stepping)
    path = (out_dir if out_dir is not None else calibrated_dir()) / f"{key}.toml"
    if not path.exists():
        raise Sha1optError(f"no calibrated model for this CPU ({cpu}): run `sha1opt calibrate` first")
    return path, check_calibration(load_toml(path).get("calibration"), path.name)


@dataclass(frozen=True)
class Agreement:
    """A second run against the stored one: kernels and rows that disagree beyond noise (empty: agreement)."""
    kernels: int
    kernel_disagreements: tuple[tuple[str, float, float, float], ...]    # name, stored, new, allowed difference
    rows: int
    row_disagreements: tuple[tuple[str, object, object], ...]            # row.field, stored, new
    run: Run

    @property
    def agree(self) -> bool:
        return not self.row_disagreements


def check(*, budget: float = BUDGET, passes: int = PASSES, rounds: int = ROUNDS_PER_PASS,
          progress: Progress | None = None, out_dir: Path | None = None, cpu: HostCpu | None = None) -> Agreement:
    """Measure and fit again (nothing written) and compare with the stored calibration (module docstring)."""
    cpu, _ = host_base(cpu)
    path, old = stored(cpu, out_dir)
    kernel_names = tuple(n for n in old.measurements if not n.startswith(PREFIX))
    run = calibrate(budget=budget, passes=passes, rounds=rounds, write=False, progress=progress, cpu=cpu,
                    only=kernel_names, training=len(kernel_names) < len(old.measurements))
    new = run.calibration
    if new is None:
        raise Sha1optError("calibrate --check: nothing was measured")
    allowed = {}
    kd = []
    for name, m in new.measurements.items():
        o = old.measurements.get(name)
        if o is None:
            continue
        tol = max(o.p90 - o.p10, m.p90 - m.p10)
        allowed[name] = (m.median, tol)
        if abs(o.median - m.median) > tol:
            kd.append((name, o.median, m.median, tol))
    old_rows = {f"{c.row}.{c.field}": c for c in old.changes}
    new_rows = {f"{c.row}.{c.field}": c for c in new.changes}
    stored_model = load_model(old.key) if out_dir is None else None
    rd = []
    for key in sorted(set(old_rows) | set(new_rows)):
        a, b = old_rows.get(key), new_rows.get(key)
        va = _plain(a.new if a else (b.old if b else None))     # as the file holds them: lists, "absent"
        vb = _plain(b.new if b else (a.old if a else None))
        if va == vb:
            continue
        cited = (a.measurements if a else ()) + (b.measurements if b else ())
        if stored_model is not None and cited and _explains(stored_model, run, cited, allowed):
            continue
        rd.append((key, va, vb))
    return Agreement(len(allowed), tuple(kd), len(set(old_rows) | set(new_rows)), tuple(rd), run)


def _explains(model: Model, run: Run, names: tuple[str, ...], allowed: dict[str, tuple[float, float]]) -> bool:
    """Whether ``model`` predicts every kernel of ``names`` of ``run`` within its noise."""
    by = {o.name: o for o in run.observations}
    obs = [Observation(n, by[n].items, allowed[n][0]) for n in names if n in by and n in allowed]
    if not obs:
        return False
    pred = predict(model, obs)
    return all(abs(pred[o.name] - o.cycles) <= allowed[o.name][1] for o in obs)
