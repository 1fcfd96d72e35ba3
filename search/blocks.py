"""Whole blocks from stored results: the best known proved code per range, mixed per block.

A range's options are the default schedule, this uarch's stored result and
other uarchs' stored results for the same range and arch (every stored row
was proved inside a whole block before it was stored). A stored row is used
only if its candidate still rebuilds to exactly the code that was proved;
when it does not (the generator changed since), the default is used and the
reason is said, never hidden.

Example: ``best_block("p4", "i386")`` scores the 16 mixes of default/own per
range as whole blocks on the p4 model, improves each range's choice in turn,
and returns the Schedule with one source line per range ("40-59: stored
result (153.0 cycles, ...)"); a stored whole block (rounds 0-79 as one range,
this uarch's or another's) replaces the mix when cheaper (one source line,
"0-79: ...").

Every choice here is made by the block-loop measure (``measure.block_loop_cycles``:
``body[loop_start:]`` and the emitter's loop control run back to back in steady
state; each block under the loop control the model prices cheapest, ``loop_control.best_loop``), the whole-block search's objective and the figure ``sha1opt analyze``
gives the exported code -- never by a row's stored cycles (a range's row holds
the range's cycles inside the block, another measure). ``best_known`` gives
one key's code with its stored figure as data (``Known``), what ``show`` prints.
``capped_best`` is ``best_block`` under an ``--isa`` cap: the default schedule
when the best needs a feature the cap does not allow (the scalar family's
choice, and the scalar figure a hybrid block is ranked against).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch, isa_set
from sha1opt.search.cost.model import load_model
from sha1opt.search.measure import LOOP_CONTROL, block_loop_cycles
from sha1opt.search.objective import model_version, objective
from sha1opt.search.space.candidate import Candidate, Realized, block_schedule, realize, textbook
from sha1opt.search.space.frame import Schedule
from sha1opt.search.space.hybrid_caps import allows
from sha1opt.search.space.loop_control import best_loop
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, isa_rank
from sha1opt.search.store import Row, Store

STANDARD_RANGES = ((0, 19), (20, 39), (40, 59), (60, 79))
# The source of an option that is this CPU's own row under another model version: its code is
# proved, its stored cycles were another measure's, so only its code is used (re-measured here).
STALE = "proved result stored for this CPU under another model version, re-measured:"
__all__ = ["Known", "LOOP_CONTROL", "STANDARD_RANGES", "best_block", "best_known", "block_loop_cycles", "stale_rows",
           "stored_elsewhere"]


def _rebuild(row: Row) -> tuple[Realized | None, str]:
    """The stored row's candidate realized, if it still gives the stored code; else why not."""
    where = f"stored result for rounds {row.first}-{row.last} on {row.uarch}"
    try:
        cand = Candidate(row.first, row.last, row.arch, Recipe.parse(row.recipe), row.offsets)
    except Sha1optError as e:
        return None, f"{where} has a recipe this version cannot read ({e})"
    real = realize(cand)
    if real is None:
        return None, f"{where} no longer builds"
    if "\n".join(map(str, real.code)) != row.code:
        return None, f"{where} rebuilds to different code"
    return real, ""


def _runnable(rows, isa: str):
    """(realized, row) for the ``rows`` this ISA can run that still rebuild to their stored code."""
    for row in rows:
        try:
            r = Recipe.parse(row.recipe)
        except Sha1optError:
            continue
        if isa_rank(r.isa()) <= isa_rank(isa):
            real, _ = _rebuild(row)
            if real is not None:
                yield real, row


def stored_elsewhere(rows, uarch: str, arch: Arch, first: int, last: int, isa: str):
    """(realized, row) for other uarchs' stored results of this range and arch that this ISA can run."""
    return _runnable((row for row in rows if row.uarch != uarch and row.arch == arch
                      and (row.first, row.last) == (first, last)), isa)


def stale_rows(rows, uarch: str, arch: Arch, first: int, last: int, isa: str, version: str):
    """(realized, row) for ``uarch``'s own rows of this key stored under another model version (made
    under an older model or objective: their cycles are not this objective's, their code is still
    proved), that this ISA can run and that still rebuild to their stored code."""
    return _runnable((row for row in rows if (row.uarch, row.arch, row.first, row.last) == (uarch, arch, first, last)
                      and row.model_version != version), isa)


@dataclass(frozen=True)
class Known:
    """The best known code for a key, and its figure -- the one ``search`` stored, never re-derived.

    ``cycles`` is the stored row's figure (what the search minimised and stored for the key: a range's
    cycles inside the block, or rounds 0-79's block loop, ``objective.objective``); with no usable row,
    the default schedule's figure under the same objective. ``measure`` says which objective.
    Example: after ``search --uarch p4 --rounds 40-59`` stored 153.0 cycles, ``best_known("p4", "i386",
    40, 59).cycles`` is 153.0 and ``show`` prints it.
    """

    real: Realized
    cycles: float
    measure: str
    row: Row | None = None     # the stored row used; None: the default schedule
    refused: str = ""          # why a stored row for the key was not used (it no longer rebuilds), or ""

    @property
    def source(self) -> str:
        """Where the code came from, for the user."""
        if self.row is not None:
            return _stored_source(self.row)
        if self.refused:
            return f"{self.refused}: using the default schedule for that range"
        return "default schedule (no stored result for this key)"


def _stored_source(row: Row) -> str:
    return f"stored result ({row.cycles:.1f} cycles, {row.evaluations} evaluations)"


def _own_row(rows, uarch: str, arch: Arch, first: int, last: int, version: str) -> Row | None:
    return next((r for r in rows if (r.uarch, r.arch, r.first, r.last, r.model_version)
                 == (uarch, arch, first, last, version)), None)


def best_known(uarch: str, arch: Arch, first: int, last: int, db: str | Path | None = None) -> Known:
    """The stored best for the key (realized) with its stored figure, or the default schedule with its
    figure under the key's objective (``Known``)."""
    model = load_model(uarch)
    store = Store(db, readonly=True)
    try:
        row = store.get(uarch, arch, first, last, model_version(model, first, last))
    finally:
        store.close()
    obj = objective(model, first, last, arch)
    refused = ""
    if row is not None:
        real, refused = _rebuild(row)
        if real is not None:
            return Known(real, row.cycles, obj.measure, row)
    real = realize(Candidate(first, last, arch, TEXTBOOK))
    return Known(real, obj.cost(real.code) - obj.context, obj.measure, None, refused)


def best_block(uarch: str, arch: Arch, db: str | Path | None = None) -> tuple[Schedule, list[str]]:
    """A whole-block Schedule from the best known proved code for each standard range, and its sources.

    Every mix of the default and own results (16) is scored as a whole block,
    then each range's option (default, own, other uarchs', own rows stored under
    another model version -- ``STALE``) is improved in turn (coordinate
    descent) -- never worse than the default. Every comparison is by
    ``block_loop_cycles`` (the steady-state loop the exported code runs), never
    by a row's stored cycles.
    """
    model = load_model(uarch)
    isa = model.isa
    options: list[list[tuple[list, str]]] = []
    store = Store(db, readonly=True)
    try:
        rows = store.rows()
    finally:
        store.close()
    for first, last in STANDARD_RANGES:
        opts = [(realize(Candidate(first, last, arch, TEXTBOOK)).code, "default schedule")]
        row = _own_row(rows, uarch, arch, first, last, model_version(model, first, last))
        if row is not None:
            real, why = _rebuild(row)
            if real is not None:
                opts.append((real.code, _stored_source(row)))
            else:                                   # a stored row that could not be used: say why
                opts[0] = (opts[0][0], f"{why}: using the default schedule for that range")
        for other, row in stored_elsewhere(rows, uarch, arch, first, last, isa):
            opts.append((other.code, f"proved result stored for {row.uarch}"))
        for own, row in stale_rows(rows, uarch, arch, first, last, isa, model_version(model, first, last)):
            opts.append((own.code, f"{STALE} {row.model_version}"))
        options.append(opts)

    def price(sched: Schedule) -> float:
        return block_loop_cycles(sched, model)

    def score(choice):           # under the loop control the model prices cheapest for the block (``best_loop``)
        return best_loop(block_schedule([options[i][k][0] for i, k in enumerate(choice)], arch, f"sha1opt-{uarch}"),
                         price)

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
    cyc, choice, sched = best
    sources = [f"{a}-{b}: {options[i][k][1]}" for i, ((a, b), k) in enumerate(zip(STANDARD_RANGES, choice))]
    # A stored whole block (rounds 0-79 searched as one range: no range boundaries, so nothing is
    # reloaded or moved between ranges) replaces the mix when it is cheaper.
    whole = []
    row = _own_row(rows, uarch, arch, 0, 79, model_version(model, 0, 79))
    real = _rebuild(row)[0] if row is not None else None
    if real is not None:
        whole.append((real.code, f"0-79: {_stored_source(row)}"))
    whole += [(o.code, f"0-79: proved whole block stored for {row.uarch}")
              for o, row in stored_elsewhere(rows, uarch, arch, 0, 79, isa)]
    whole += [(o.code, f"0-79: {STALE} {row.model_version}")
              for o, row in stale_rows(rows, uarch, arch, 0, 79, isa, model_version(model, 0, 79))]
    for code, where in whole:
        cyc_w, sched_w = best_loop(block_schedule([code], arch, f"sha1opt-{uarch}"), price)
        if cyc_w < cyc:
            cyc, sched, sources = cyc_w, sched_w, [where]
    return sched, sources


@dataclass(frozen=True)
class CappedBest:
    """``best_block`` under a cap: the schedule exported, the best's source lines, and whether the cap refused it."""

    schedule: Schedule
    sources: list[str]                 # ``best_block``'s source lines of the best (also when refused)
    refused: bool                      # the best needs more than the cap: ``schedule`` is the default instead


def capped_best(uarch: str, arch: Arch, cap: str | None, db: str | Path | None = None) -> CappedBest:
    """The scalar best for ``uarch`` on ``arch`` under ``--isa cap`` (``best_block``; ``textbook(arch)`` when the
    best needs a feature the cap does not allow; no cap: the best as it is)."""
    sched, sources = best_block(uarch, arch, db)
    if cap is None or all(allows(cap, f) for f in isa_set(sched.body)):
        return CappedBest(sched, sources, False)
    return CappedBest(textbook(arch), sources, True)
