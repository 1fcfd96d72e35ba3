"""The whole-loop check: a calibrated model must predict whole SHA-1 loops timed here no worse than its base.

A fit to microbenchmarks alone can explain every kernel with parameters that are not the machine's (an add
on one ALU, a store of four uops, a store-forwarding latency of 0 -- each kernel within noise), and such a
model then prices a SHA-1 block loop nearly twice as slow as it runs. So before
``sha1opt calibrate`` writes a model, the machine judges it on whole loops (``judge``):

* the loops: the second stage's training loops (``training_loops``: sha1opt's own codes, validated, timed
  here in interleaved pairs against the textbook, each one's core c/B from the add-chain clock) -- the same
  timings the second stage fitted, so the gate costs no second measurement;
* each model's prediction of each loop (``TimedLoop.predicted``: the block-loop measure of its items, never
  a figure a search stored under another model) and its mean absolute percentage error over the loops
  (``LoopCheck``).

The calibrated model passes when its MAPE is at most the base model's plus ``SLACK`` (1 point):
``LoopCheck.passed``. A model that fails is not written; the run says why, with both errors.
``check_loops`` times the textbook and a few recipe variants and judges: the check on its own.

Example (AMD EPYC, AuthenticAMD family 25 model 1, 2026-12-03): the first run's model (microbenchmarks only)
on 6 loops (textbook 3.88 c/B, the recipe variants 4.07-4.19): MAPE 4.4 % for zen3 against 82.3 % for
the fitted model (which priced the textbook at 7.53): not written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from sha1opt.search.cost.model import Model
from sha1opt.emit.training_loops import TimedLoop, scalar_codes, time_loops
from sha1opt.emit.tuning import Timer

SLACK = 0.01       # the calibrated model may be this much (absolute MAPE) worse than its base and still pass
LOOPS = 5          # ``check_loops``: the textbook and this many recipe variants at most
PAIRS = 20


@dataclass(frozen=True)
class Loop:
    """One timed loop: its name, measured core c/B, and the base's and the calibrated model's predictions."""

    name: str
    measured: float
    base: float
    calibrated: float


@dataclass(frozen=True)
class LoopCheck:
    """The check's loops and verdict (module docstring); ``mape`` of each model over the loops measured."""

    loops: tuple[Loop, ...]
    base_mape: float
    calibrated_mape: float

    @property
    def passed(self) -> bool:
        return bool(self.loops) and self.calibrated_mape <= self.base_mape + SLACK

    def text(self) -> str:
        if not self.loops:
            return "whole-loop check: no loop measured (no clock here): the calibrated model is not written"
        verdict = "passed" if self.passed else "FAILED: the calibrated model is not written"
        return (f"whole-loop check on {len(self.loops)} SHA-1 loops timed here: MAPE {100 * self.calibrated_mape:.1f} % "
                f"calibrated vs {100 * self.base_mape:.1f} % literature: {verdict}")


def loops(base: Model, n: int = LOOPS):
    """The textbook schedule and up to ``n`` one-field recipe variants (``training_loops.scalar_codes``)."""
    return scalar_codes(base, n)


def _mape(pairs: list[tuple[float, float]]) -> float:
    return sum(abs(p - m) / m for p, m in pairs) / len(pairs) if pairs else math.nan


def judge(timed: Sequence[TimedLoop], base: Model, calibrated: Model) -> LoopCheck:
    """Both models' predictions of the timed loops and their MAPE (module docstring)."""
    out = [Loop(x.name, x.measured, x.predicted(base), x.predicted(calibrated))
           for x in timed if math.isfinite(x.measured) and x.pairs > 0]
    return LoopCheck(tuple(out), _mape([(x.base, x.measured) for x in out]),
                     _mape([(x.calibrated, x.measured) for x in out]))


def check_loops(base: Model, calibrated: Model, *, timer: Timer | None = None, pairs: int = PAIRS,
                should_stop: Callable[[], bool] = lambda: False) -> LoopCheck:
    """Time ``loops(base)`` here and judge both models on them (module docstring)."""
    timed, _ = time_loops(loops(base), pairs=pairs, rounds=2, timer=timer, late=should_stop)
    return judge(timed, base, calibrated)
