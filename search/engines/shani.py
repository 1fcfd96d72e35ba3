"""The SHA-NI search: cost each legal ``ShaniParams`` on one model, keep the cheapest, prove it.

``best_shani(model, arch, budget)`` walks ``space.shani.grid(arch)`` in
``space.shani.walk_order`` (the default point, one point per structural
class, then a seeded random order; the whole grid when ``budget`` covers
it), drops illegal points (``shani.legal``: a concrete run, no cost, no
proof; points using an ISA feature the model's CPU lacks -- the vector
``sha1msg2`` forms -- are skipped), prices each legal one as the steady-state loop body (the block
inside its own loop control, ``Parts.head`` / ``Parts.tail``) with
``search.cost``'s simulator, and proves the cheapest with
``shani.prove_shani`` -- a ``ShaniReport`` is ``proved`` only for a
``Proved`` outcome (an Unknown is not success; the next point is tried, up
to ``PROVE_TRIES``). Points within ``TIE_FRACTION`` of the cheapest are a
tie, ordered by ``shani.slack_key`` (rounds before the schedule ops, the
schedule furthest ahead, saves in registers, the plainer loop): the model
cannot rank them, the host can. Stop reasons: ``"grid exhausted"``,
``"budget of N evaluations"``, ``"deadline"``.

The model must have SHA-NI (``vector_isa`` lists ``sha``): goldencove, zen1,
zen3 and zen5 do; others raise ``Sha1optError`` (misuse: there is no SHA-NI
code for them).

Example: ``best_shani(load_model("zen5"), "x86_64", budget=40).cycles_per_byte``
is about 1.9 (20 dependent ``sha1rnds4`` of latency 6 per 64-byte block),
the schedule four groups ahead, after the rounds (a tie the slack rule
decides); on goldencove 1.58 (101 cycles against 112 with ``sha1msg2``: its
model makes the SHA unit, which ``sha1rnds4`` holds 3 clocks, the bound, so
the AVX-512 ``msg2_form`` that moves the last schedule step to the vector
ALUs wins).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost import Model, Simulator
from sha1opt.search.measure import block_items, block_loop
from sha1opt.search.space.shani import (
    LOOP_LABEL, ShaniParams, default_params, isa_rows_used, legal, parts, prove_shani, slack_key, walk_order,
)

PROVE_TRIES = 3
# Predicted cycles within this fraction of the cheapest are a tie, decided by ``space.shani.slack_key``:
# the simulator spreads the grid's forms over 111.4-112.0 cycles on goldencove while the host separates
# them by 0.90-1.04 x OpenSSL (bench/results/shani.txt), so differences this small do not rank them.
TIE_FRACTION = 0.01


@dataclass(frozen=True)
class ShaniReport:
    """The outcome of one SHA-NI search (module docstring); ``params`` is the point to emit."""

    uarch: str
    arch: Arch
    params: ShaniParams
    cycles: float                 # predicted cycles per block, steady state
    cycles_per_byte: float
    default_cycles: float         # the same for ``default_params(arch)``
    proved: bool
    proof: str
    evaluations: int
    legal: int
    seconds: float
    stop_reason: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """No failure: the point is proved."""
        return self.proved


def loop_text(params: ShaniParams, arch: Arch) -> str:
    """The block as the loop body the simulator prices, as text (what the store keeps): ``parts``' loop
    control around the body, each instruction its ``line``."""
    p = parts(params, arch)
    return "\n".join([f"{LOOP_LABEL}:", *p.lines((*p.head, *p.body, *p.tail))]) + "\n"


def loop_items(params: ShaniParams, arch: Arch) -> list:
    """The simulator's items of the block as its loop runs it: ``parts``' typed loop control around the body,
    vector rows as the cost model's vector items (``measure.block_items``); ``cmovne`` (no row in the table:
    the lifter forks on it) is the opaque item ``analyze`` gives the same instruction of OpenSSL's loop
    (``cost.items``). Built from the same instructions the export renders, with no text in between."""
    p = parts(params, arch)
    return block_items((*p.head, *p.body, *p.tail))


def block_cycles(params: ShaniParams, arch: Arch, sim: Simulator) -> float:
    """Predicted cycles per 64-byte block of ``params``' loop on ``sim``'s model: the block-loop measure
    (``measure.block_loop``) of ``loop_items``, its loop control included."""
    return block_loop(loop_items(params, arch), sim.model).cycles


def has_shani(model: Model) -> bool:
    return model.has_vector("sha")


def best_shani(model: Model, arch: Arch, budget: int = 200, *, seed: int = 1,
               deadline: float | None = None, without: frozenset[str] = frozenset()) -> ShaniReport:
    """The cheapest legal, proved SHA-NI block for ``model`` within ``budget`` evaluations (module docstring).

    ``without`` names ISA features (``x86`` spellings: ``"avx512vl"``, ``"avx"``) the block must not use
    although the model's CPU has them: ``best_shani(m, a, without=frozenset({"avx", "avx2", "avx512vl"}))``
    is the best SHA-NI block for the CPUs of that family without AVX (the ``sha1msg2`` form, never the
    vector-op replacement of ``MSG2_FORMS``)."""
    if not has_shani(model):
        raise Sha1optError(f"{model.name} has no SHA-NI (its vector_isa has no 'sha')")
    if budget < 1:
        raise Sha1optError("budget must be at least 1")
    t0 = time.perf_counter()
    sim = Simulator(model)
    base = default_params(arch)
    points = walk_order(arch, seed)
    scored: list[tuple[float, int, ShaniParams]] = []
    evaluations = 0
    stop = "grid exhausted"
    runs: dict[str, bool] = {}      # msg2 form -> whether the model's CPU has every ISA feature the unit uses
    for k, p in enumerate(points):
        if p.msg2_form not in runs:
            used = set(isa_rows_used(p, arch).values())
            runs[p.msg2_form] = not used & without and all(model.has_vector(isa) for isa in used)
        if not runs[p.msg2_form]:
            continue
        if evaluations >= budget:
            stop = f"budget of {budget} evaluations"
            break
        if deadline is not None and time.perf_counter() - t0 > deadline:
            stop = "deadline"
            break
        evaluations += 1
        if legal(p, arch):
            scored.append((block_cycles(p, arch, sim), k, p))
    if not scored:
        raise Sha1optError("no legal SHA-NI point evaluated (the default point is always legal: a bug)")
    scored.sort(key=lambda s: (s[0], s[1]))
    tie = scored[0][0] * (1 + TIE_FRACTION)
    scored = sorted((s for s in scored if s[0] <= tie), key=lambda s: (slack_key(s[2]), s[0], s[1])) + \
        [s for s in scored if s[0] > tie]
    default_cycles = next(c for c, _, p in scored if p == base)
    notes = []
    for cycles, _, p in scored[:PROVE_TRIES]:
        res = prove_shani(p, arch)
        if res.ok:
            proof = f"proved: {res.cuts} cuts, {res.solver_calls} solver calls, {res.seconds:.1f} s"
            return ShaniReport(model.name, arch, p, cycles, cycles / 64, default_cycles, True, proof, evaluations,
                               len(scored), time.perf_counter() - t0, stop, tuple(notes))
        notes.append(f"{p.describe()}: not proved ({res.outcome})")
    cycles, _, p = scored[0]
    return ShaniReport(model.name, arch, p, cycles, cycles / 64, default_cycles, False, "; ".join(notes),
                       evaluations, len(scored), time.perf_counter() - t0, stop, tuple(notes))
