"""The robust choice (``export --robust N``): the families' candidates judged by their worst case over a model's
uncertainty ensemble, where no host can measure them.

Measured selection (``emit.tuning``) needs the model's CPU; for a model of another CPU the single optimum of
one parameter set is where the model is most wrong (issue 25: the zen1 search's "proved optimal under the
model" block measured slower than the textbook schedule on a Zen 2). So:

1. the candidates are ``tuning.pool``'s: per family the ``--isa level`` cap admits and the model's CPU has,
   its default code and its ``n`` ranked candidates (``Family.ranked``: other shapes, not neighbours of one
   optimum), distinct code;
2. each is priced by the block-loop measure (``search.measure.block_loop`` of its family's loop items) on
   the model and on every member of its ensemble (``search.cost.uncertainty.ensemble``: seeded, deterministic);
3. the pick is the lowest worst case (``uncertainty.robust_pick``, ties by the nominal figure: the nominal
   optimum is kept when it is as robust as any), so its worst case is never above the nominal optimum's.

``describe`` says which candidate is the nominal optimum and which the robust pick, each with its nominal
c/B and its spread (min / median / max over the members); a robust pick that is not the nominal optimum is
called a robust pick, never optimal.

Where the host is the model's CPU, the machine stays the judge: ``worst_case_order`` only orders the
candidates ``export --tune`` times (``tune_ordered``), each entry carrying its spread for the report.

Example: ``robust_choice("zen1", "x86_64", "bmi2", 2)`` prices the textbook schedule, the stored scalar
best and one recipe variant on zen1 and 12 members; ``.best.choice`` is what ``export --robust 2`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.cost.uncertainty import Ensemble, ensemble, robust_pick
from sha1opt.search.robust import loop_spread
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.emit.families import family_of
from sha1opt.emit.tuning import Entry, Tuning, pool, tune


@dataclass(frozen=True)
class RobustChoice:
    """The priced candidates (each ``Entry`` with its ``spread``), the nominal optimum's and the pick's index."""

    uarch: str
    level: str
    members: int
    seed: int
    entries: tuple[Entry, ...]
    nominal: int
    pick: int

    @property
    def best(self) -> Entry:
        return self.entries[self.pick]

    @property
    def kept_nominal(self) -> bool:
        return self.pick == self.nominal


def model_level(model: Model) -> str:
    """The highest ``--isa`` level whose family's code the model's CPU has (``--robust`` without ``--isa``)."""
    return [lv for lv in LEVELS if family_of(lv).model_has(model, lv)][-1]


def priced(entries: list[Entry], ens: Ensemble) -> list[Entry]:
    """``entries`` with their block-loop spread on ``ens`` (``search.robust.loop_spread``)."""
    return [replace(e, spread=loop_spread(ens.nominal, e.choice.family.loop_items(e.choice), ens=ens,
                                          blocks=e.choice.family.blocks(e.choice))) for e in entries]


def worst_case_order(model: Model, *, members: int | None = None, seed: int = 0):
    """A ``tuning.pool`` order: entries priced on ``model``'s ensemble, lowest worst case first (ties: nominal)."""
    ens = ensemble(model, members=members, seed=seed)

    def order(entries: list[Entry]) -> list[Entry]:
        out = priced(entries, ens)
        return sorted(out, key=lambda e: (e.spread.worst, e.spread.nominal))
    return order


def robust_choice(uarch: str, arch: str, level: str | None, n: int, db=None, progress=lambda _: None,
                  flavor: str = "elf", *, members: int | None = None, seed: int = 0) -> RobustChoice:
    """Module docstring: ``tuning.pool``'s candidates priced on the model's ensemble, the lowest worst case picked."""
    model = load_model(uarch)
    level = level or model_level(model)
    return choose_robust(pool(uarch, arch, level, n, db, progress, flavor), model, level, members=members, seed=seed)


def choose_robust(entries: list[Entry], model: Model, level: str, *, members: int | None = None, seed: int = 0
                  ) -> RobustChoice:
    """``entries`` priced on ``model``'s ensemble; the nominal optimum and the lowest worst case (module docstring)."""
    ens = ensemble(model, members=members, seed=seed)
    entries = priced(entries, ens)
    spreads = [e.spread for e in entries]
    nominal = min(range(len(entries)), key=lambda k: (spreads[k].nominal, k))
    return RobustChoice(model.name, level, len(ens.members), seed, tuple(entries), nominal, robust_pick(spreads))


def tune_ordered(uarch: str, arch: str, level: str, n: int, **kw) -> Tuning:
    """``tuning.tune`` with its candidates timed in worst-case order (the measure still picks the winner)."""
    return tune(uarch, arch, level, n, order=worst_case_order(load_model(uarch)), **kw)


def describe(r: RobustChoice) -> list[str]:
    """One line per candidate (nominal c/B, spread), then the pick and, when it differs, the nominal optimum."""
    lines = [f"robust choice on {r.uarch} (--isa {r.level}): {len(r.entries)} candidates priced on the model and "
             f"its uncertainty ensemble of {r.members} (seed {r.seed}; corpus/uncertainty.toml)"]
    for k, e in enumerate(r.entries):
        lines.append(f"candidate {k}: {e.key}  {e.spread.nominal / 64:.2f} c/B nominal  "
                     f"({e.spread.text(64, 'c/B', 2)}; worst {e.spread.worst / 64:.2f})")
    best, nom = r.best, r.entries[r.nominal]
    if r.kept_nominal:
        lines.append(f"robust pick: candidate {r.pick} {best.key}, the nominal optimum too: its worst case "
                     f"{best.spread.worst / 64:.2f} c/B is the lowest")
    else:
        lines.append(f"robust pick: candidate {r.pick} {best.key}: worst case {best.spread.worst / 64:.2f} c/B "
                     f"against {nom.spread.worst / 64:.2f} for the nominal optimum, candidate {r.nominal} "
                     f"{nom.key} ({nom.spread.nominal / 64:.2f} c/B nominal); a robust pick, not the optimum "
                     f"under the model")
    return lines


def prediction(r: RobustChoice) -> str:
    """The export header's prediction for the pick: its nominal c/B and its spread, said to be a robust pick."""
    s = r.best.spread
    return (f"{s.nominal / 64:.2f} cycles/byte on {r.uarch} (robust pick; {s.text(64, 'c/B', 2)})")
