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

The measure every choice here is made by (``block_loop_cycles``, defined in
``objective.py``: it is the whole-block search's objective too) is the block
*loop* in steady state -- ``body[loop_start:]`` and the emitter's loop control
(``LOOP_CONTROL``: advance the data pointer, count down, branch back) run back
to back, as ``simulate(..., loop=True)`` costs it -- not the body simulated
once: it is the figure ``sha1opt analyze`` gives the exported code (the
acceptance table's "ours", bench/search_acceptance.py). The measures
disagree: on nehalem x86-64 a longer search improved the once-simulated block
while the table's loop went 5.95 -> 6.00 c/B; and the loop control alone
reorders blocks (in the acceptance store of 2026-12-01, a nehalem block at 373.0 cycles per iteration without
it is 380.0 with it, core2's 378.5 is 376.5).
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import load_model
from sha1opt.search.objective import LOOP_CONTROL, block_loop_cycles, model_version
from sha1opt.search.space.candidate import Candidate, Realized, block_schedule, realize
from sha1opt.search.space.frame import Schedule
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, isa_rank
from sha1opt.search.store import Row, Store

STANDARD_RANGES = ((0, 19), (20, 39), (40, 59), (60, 79))
# The source of an option that is this CPU's own row under another model version: its code is
# proved, its stored cycles were another measure's, so only its code is used (re-measured here).
STALE = "proved result stored for this CPU under another model version, re-measured:"
__all__ = ["LOOP_CONTROL", "STANDARD_RANGES", "best_block", "best_known", "block_loop_cycles", "stale_rows",
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


def best_known(uarch: str, arch: Arch, first: int, last: int, db: str | Path | None = None
               ) -> tuple[Realized, str]:
    """The stored best for the key (realized), or the default schedule; and where it came from (or why not)."""
    model = load_model(uarch)
    store = Store(db, readonly=True)
    try:
        row = store.get(uarch, arch, first, last, model_version(model, first, last))
    finally:
        store.close()
    if row is None:
        return realize(Candidate(first, last, arch, TEXTBOOK)), "default schedule (no stored result for this key)"
    real, why = _rebuild(row)
    if real is not None:
        return real, f"stored result ({row.cycles:.1f} cycles, {row.evaluations} evaluations)"
    return realize(Candidate(first, last, arch, TEXTBOOK)), f"{why}: using the default schedule for that range"


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
        real, where = best_known(uarch, arch, first, last, db)
        if where.startswith("stored result ("):
            opts.append((real.code, where))
        elif not where.startswith("default"):      # a stored row that could not be used: say why
            opts[0] = (opts[0][0], where)
        for other, row in stored_elsewhere(rows, uarch, arch, first, last, isa):
            opts.append((other.code, f"proved result stored for {row.uarch}"))
        for own, row in stale_rows(rows, uarch, arch, first, last, isa, model_version(model, first, last)):
            opts.append((own.code, f"{STALE} {row.model_version}"))
        options.append(opts)

    def score(choice):
        sched = block_schedule([options[i][k][0] for i, k in enumerate(choice)], arch, f"sha1opt-{uarch}")
        return block_loop_cycles(sched, model), sched

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
    real, where = best_known(uarch, arch, 0, 79, db)
    if where.startswith("stored result ("):
        whole.append((real.code, f"0-79: {where}"))
    whole += [(o.code, f"0-79: proved whole block stored for {row.uarch}")
              for o, row in stored_elsewhere(rows, uarch, arch, 0, 79, isa)]
    whole += [(o.code, f"0-79: {STALE} {row.model_version}")
              for o, row in stale_rows(rows, uarch, arch, 0, 79, isa, model_version(model, 0, 79))]
    for code, where in whole:
        sched_w = block_schedule([code], arch, f"sha1opt-{uarch}")
        cyc_w = block_loop_cycles(sched_w, model)
        if cyc_w < cyc:
            cyc, sched, sources = cyc_w, sched_w, [where]
    return sched, sources
