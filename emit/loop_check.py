"""The whole-loop check: a calibrated model must predict whole SHA-1 loops timed here no worse than its base.

A fit to microbenchmarks alone can explain every kernel with parameters that are not the machine's (an add
on one ALU, a store of four uops, a store-forwarding latency of 0 -- each kernel within noise), and such a
model then prices a SHA-1 block loop nearly twice as slow as it runs. So before
``sha1opt calibrate`` writes a model, the machine judges it on whole loops:

* the loops (``loops``): the textbook schedule and its one-field recipe variants
  (``family_scalar.recipe_variants`` under the base model's ISA), x86-64 -- distinct shapes, validated
  (assembled, proved from the object, vectors) before they run;
* their core cycles/byte, measured here (``tuning.tune_choices``: interleaved pairs against the textbook,
  the reference's c/B from the add-chain clock, a candidate's = its median ratio x that);
* each model's prediction of each loop (``family.cycles``: the block-loop measure) and its mean absolute
  percentage error over the loops (``LoopCheck.mape``).

The calibrated model passes when its MAPE is at most the base model's plus ``SLACK`` (1 point):
``LoopCheck.passed``. A model that fails is not written; the run says why, with both errors.

Example (AMD EPYC, AuthenticAMD family 25 model 1, 2026-12-03): ``check_loops(load_model("zen3"), fitted)``
on the first run's model timed 6 loops (textbook 3.88 c/B, the recipe variants 4.07-4.19) and gave MAPE
4.4 % for zen3 against 82.3 % for the fitted model (which priced the textbook at 7.53): not written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from sha1opt.search.cost.model import Model
from sha1opt.search.space.candidate import textbook
from sha1opt.emit.family import Choice, cycles
from sha1opt.emit.family_scalar import SCALAR, recipe_variants
from sha1opt.emit.tuning import Entry, Timer, tune_choices

SLACK = 0.01       # the calibrated model may be this much (absolute MAPE) worse than its base and still pass
LOOPS = 5          # the textbook and this many recipe variants at most
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


def loops(base: Model, n: int = LOOPS) -> list[Entry]:
    """The textbook schedule and up to ``n`` one-field recipe variants the base model's CPU runs (x86-64)."""
    out = [Entry(Choice(SCALAR, textbook("x86_64"), "x86_64"), True, 0.0)]
    for key, sched in recipe_variants("x86_64", "bmi2", base)[:n]:
        out.append(Entry(Choice(SCALAR, sched, "x86_64", [f"recipe {key}"]), False, 0.0))
    return out


def _mape(pairs: list[tuple[float, float]]) -> float:
    return sum(abs(p - m) / m for p, m in pairs) / len(pairs) if pairs else math.nan


def check_loops(base: Model, calibrated: Model, *, timer: Timer | None = None, pairs: int = PAIRS,
                should_stop: Callable[[], bool] = lambda: False) -> LoopCheck:
    """Time ``loops(base)`` here and compare both models' predictions with them (module docstring)."""
    t = tune_choices(loops(base), pairs=pairs, rounds=2, timer=timer, should_stop=should_stop)
    out = []
    for k, c in enumerate(t.candidates):
        measured = t.measured_cpb(k)
        if not math.isfinite(measured) or t.measured[k].pairs == 0:
            continue
        out.append(Loop(SCALAR.describe(c.choice), measured, cycles(c.choice, base) / 64,
                        cycles(c.choice, calibrated) / 64))
    return LoopCheck(tuple(out), _mape([(x.base, x.measured) for x in out]),
                     _mape([(x.calibrated, x.measured) for x in out]))
