"""The second stage's training set: whole SHA-1 block loops of sha1opt's own codes, timed here, as fit observations.

Issue 25, item 2 (DiffTune's idea: learn the simulator's parameters from timed whole blocks): after the
microbenchmarks, ``sha1opt calibrate`` fits the model to whole loops timed on this CPU. Which loops
(``entries``) -- sha1opt's own codes only, x86-64, distinct code:

* the textbook schedule and every one-field recipe variant the base model's ISA admits
  (``scalar_codes``: ``family_scalar.recipe_variants``);
* for every family, at the highest of its ``--isa`` levels this CPU runs (``family_levels``: on a Zen 3
  ``bmi2``, ``avx2`` and ``shani``), its default and its ``RANKED`` best candidates under the base model
  (``tuning.pool``: the scalar pick and recipe variants, the hybrid search's interleavings at seed 0, the
  SHA-NI structural classes).

Never in it: OpenSSL's paths, gcc's and clang's builds, blocks of other searches -- the hold-out
(bench/calibrate_holdout.py), which no fit sees. The set depends only on the base model, the CPU's
features and the results database, so a second run (``--check``) trains on the same loops.

Timing (``time_loops``): ``tuning.tune_choices`` -- every loop validated (assembled, proved from its object,
vectors) before anything runs, then interleaved pairs against the textbook, the textbook's core c/B from
the add-chain clock; a loop's c/B is its median ratio x that, its band the p10 / p90 ratios x that. A
deadline ends the rounds after the first (every code is timed at least once).

As observations (``observations``): one ``fit.Observation`` per loop, named ``sha1.<key>``: the family's
block-loop items (``Family.loop_items``: what ``search.measure.block_loop`` prices, loop control included),
core cycles per iteration = c/B x 64 x the blocks an iteration hashes (``Family.blocks``: 2 for a two-block
hybrid dialect, else 1), ``classes`` None (evidence for every class
it holds). ``predicted`` prices a loop under any model from its items, never from a figure a search stored.
"""

from __future__ import annotations

import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sha1opt.search.cost.fit import Observation
from sha1opt.search.cost.model import Model
from sha1opt.search.measure import block_loop
from sha1opt.search.space.candidate import textbook
from sha1opt.emit.family import Choice
from sha1opt.emit.families import FAMILIES, levels_of
from sha1opt.emit.family_scalar import SCALAR, recipe_variants
from sha1opt.emit.host_cpu import HostCpu, levels
from sha1opt.emit.measurements import digest
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.emit.tuning import Entry, Timer, check_choice, host_level, native_timer, pool, tune_choices

RANKED = 3          # ranked candidates per family (``tuning.pool``'s n)
PAIRS = 20          # interleaved pairs per loop, over ``ROUNDS`` rounds
ROUNDS = 2
BYTES = 64          # bytes per block
PREFIX = "sha1."     # observation names: ``sha1.<family> <what>`` (kernels are ``lat.``, ``tput.``, ``mix.``...)


@dataclass(frozen=True)
class TimedLoop:
    """One training loop: its name, family, block-loop items, code digest, measured core c/B with its band,
    and the blocks one iteration of ``items`` hashes."""

    name: str
    family: str
    items: tuple
    digest: str
    measured: float
    p10: float
    p90: float
    pairs: int
    blocks: int = 1

    @property
    def bytes(self) -> int:
        """The bytes one iteration of ``items`` hashes."""
        return BYTES * self.blocks

    def predicted(self, model: Model) -> float:
        """``model``'s c/B of this loop (the block-loop measure of its items over the bytes an iteration hashes)."""
        return block_loop(self.items, model).cycles / self.bytes


def scalar_codes(base: Model, n: int | None = None) -> list[Entry]:
    """The textbook schedule and (up to ``n`` of) its one-field recipe variants the base model's CPU runs."""
    out = [Entry(Choice(SCALAR, textbook("x86_64"), "x86_64"), True, 0.0)]
    for key, sched in recipe_variants("x86_64", base.isa, base)[:n]:
        out.append(Entry(Choice(SCALAR, sched, "x86_64", [f"recipe {key}"]), False, 0.0))
    return out


def family_levels(cpu: HostCpu) -> list[str]:
    """Per family (``families.FAMILIES``), the highest of its ``--isa`` levels ``cpu`` runs, up to
    ``tuning.host_level`` (a family's own features count, as there); families it runs none of are left out."""
    top = host_level(cpu)
    runs = set(levels(cpu)) | {top}
    out = []
    for fam in FAMILIES:
        mine = [lv for lv in levels_of(fam) if lv in runs and LEVELS.index(lv) <= LEVELS.index(top)]
        if mine:
            out.append(mine[-1])
    return out


def entries(base: Model, cpu: HostCpu, *, ranked: int = RANKED, db=None, progress=lambda _: None) -> list[Entry]:
    """The training codes (module docstring): the textbook first (the timing reference), distinct code."""
    out: list[Entry] = []
    seen: set[str] = set()
    pooled = [e for lv in family_levels(cpu) for e in pool(base.name, "x86_64", lv, ranked, db, progress)]
    for e in [*scalar_codes(base), *pooled]:
        text = e.choice.family.path_text(e.choice)
        if text not in seen:
            seen.add(text)
            out.append(e)
    return out


def _name(e: Entry, taken: set[str]) -> str:
    base = PREFIX + re.sub(r"[^A-Za-z0-9_.=+,-]+", "_", e.key).strip("_")
    name, k = base, 2
    while name in taken:
        name, k = f"{base}.{k}", k + 1
    taken.add(name)
    return name


def time_loops(codes: list[Entry], *, pairs: int = PAIRS, rounds: int = ROUNDS, timer: Timer | None = None,
               late: Callable[[], bool] = lambda: False,
               progress: Callable[[str], None] = lambda _: None) -> tuple[list[TimedLoop], tuple[str, ...]]:
    """Validate and time ``codes`` here (``tuning.tune_choices``, the first the reference); the loops with a
    measured c/B, and the notes (dropped codes). ``late()`` ends the timing -- but only once every code has
    been validated and timed in one round (a deadline drops pairs, never a code). ``progress`` hears of each
    validation."""
    count = iter(range(1, len(codes) + 1))

    def check(choice, work):
        progress(f"validating training loop {next(count)}/{len(codes)}: {choice.family.name} "
                 f"{choice.family.describe(choice)}")
        return check_choice(choice, work)
    with tempfile.TemporaryDirectory(prefix="sha1opt-training-") as d:
        inner = timer or native_timer(Path(d))
        calls = [0]

        def counted(cand, ref, arch, n):
            calls[0] += 1
            return inner(cand, ref, arch, n)
        t = tune_choices(codes, pairs=pairs, rounds=rounds, work=Path(d), timer=counted, check=check,
                         should_stop=lambda: calls[0] >= len(codes) and late())
    out: list[TimedLoop] = []
    taken: set[str] = set()
    for k, (c, m) in enumerate(zip(t.candidates, t.measured)):
        if not m.pairs or not math.isfinite(t.reference_cpb):
            continue
        fam = c.choice.family
        out.append(TimedLoop(_name(c.entry, taken), fam.name, tuple(fam.loop_items(c.choice)),
                             digest(fam.path_text(c.choice)), t.measured_cpb(k), m.p10 * t.reference_cpb,
                             m.p90 * t.reference_cpb, m.pairs, fam.blocks(c.choice)))
    return out, t.notes


def observations(timed: list[TimedLoop]) -> list[Observation]:
    """One ``fit.Observation`` per timed loop (module docstring): core cycles per iteration and its band."""
    return [Observation(x.name, x.items, x.measured * x.bytes, x.p10 * x.bytes, x.p90 * x.bytes) for x in timed]
