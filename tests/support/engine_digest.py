"""The cost model's outputs as one digest: a differential check that a faster engine computes the same numbers.

Every output the simulator gives -- each instruction's issue and complete tick and units, every
attribution node (``Trace.nodes``), and each ``Simulation``'s cycles, bottleneck, breakdown and
timeline -- over a fixed, seeded set of sequences, hashed (sha256 of the outputs' ``repr``):

* sequences: per arch (x86_64, i386) the textbook block and its block loop, recipe variants of it
  (one field at a time, the model's ISA), a seeded walk of the scalar search's own moves
  (``anneal.neighbour``, realized; consecutive candidates share prefixes, so the resume memo works
  as in a search) over the whole block (as loops) and over rounds 20-39 between their context
  rounds (as ``objective.range_cost`` simulates them), and the hybrid blocks' loops of every vector
  dialect the arch builds (``measure.hybrid_loop_items``);
* models: every literature model and the calibrated ones, and a member of skylake's ensemble
  (perturbed latencies and ports);
* runs: ``Simulator.simulate`` with ``loop`` False and True (one Simulator per model and arch, its
  resume memo carried from sequence to sequence, as in a search), its details (the ``record=True``
  run), and the engine itself: ``run_out_of_order`` / ``run_in_order`` with ``record`` True and
  False, and without a memo against a fresh one (asserted equal).

Invariant: the digest depends only on the engine's outputs (and the sequences, which the search
space makes): a change of the engine that changes no output leaves it unchanged. ``quick=True`` is
the reduced set (five models, rounds 20-23) ``tests/search/test_engine_digest.py`` pins;
``bench/sim_digest.py`` runs the full set.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import fields, replace
from typing import Callable

from sha1opt.search.cost import Simulator, load_model, model_names
from sha1opt.search.cost.inorder import run_in_order
from sha1opt.search.cost.model import calibrated_names
from sha1opt.search.cost.ooo import Resume, run_out_of_order
from sha1opt.search.cost.uncertainty import ensemble
from sha1opt.search.engines.anneal import neighbour
from sha1opt.search.measure import block_loop_items, hybrid_loop_items
from sha1opt.search.objective import range_context
from sha1opt.search.space.candidate import Candidate, realize, textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.recipe import TEXTBOOK, Recipe, options_for

QUICK_MODELS = ("core2", "skylake", "p4", "goldencove", "pentium")


def recipe_variants(arch: str, isa: str, limit: int) -> list[list]:
    """The textbook range code with one recipe field switched to each other option (at most ``limit``)."""
    out = []
    for f in fields(Recipe):
        for opt in options_for(f.name, isa):
            if opt != getattr(TEXTBOOK, f.name) and len(out) < limit:
                r = realize(Candidate(0, 79, arch, replace(TEXTBOOK, **{f.name: opt})))
                if r is not None:
                    out.append(list(r.code))
    return out


def walk(first: int, last: int, arch: str, isa: str, seed: int, steps: int) -> list[list]:
    """``steps`` realized candidates of a seeded walk of the search's moves (each from the previous)."""
    rng = random.Random(seed)
    c = Candidate(first, last, arch, TEXTBOOK)
    out = []
    while len(out) < steps:
        cand = neighbour(c, rng, isa)
        r = realize(cand)
        if r is not None:
            c = cand
            out.append(list(r.code))
    return out


# The dialect rows of 27949d2, whose engine computed ``bench/sim_digest.FULL_DIGEST``: a row added since
# (``ssse3k``) would change the sequence set and so the digest without any change to the engine.
DIGEST_DIALECTS = ("ssse3", "avx", "avx2x2", "avx512vl", "avx512vlx2")


def hybrid_items(arch: str) -> list[list]:
    """The loop items of the default hybrid block of every ``DIGEST_DIALECTS`` row that builds on ``arch``."""
    out = []
    for name in DIGEST_DIALECTS:
        try:
            block = build(HybridParams(isa=name, arch=arch))
        except Exception:          # a dialect the arch does not build (refused by its row)
            continue
        if block is not None:
            out.append(hybrid_loop_items(block))
    return out


def sequences(arch: str, isa: str, quick: bool) -> list[tuple[str, list, bool]]:
    """(name, items, loop?) for one arch and scalar ISA."""
    seqs: list[tuple[str, list, bool]] = []
    before, after = range_context(20, 39 if not quick else 23, arch)
    if quick:
        for k, code in enumerate(walk(20, 23, arch, isa, 7, 4)):
            seqs.append((f"range-walk{k}", before + code + after, False))
        for k, code in enumerate(walk(20, 23, arch, isa, 8, 2)):
            seqs.append((f"loop-walk{k}", code, True))
        return seqs
    body = textbook(arch)
    seqs.append(("textbook", list(body.body), False))
    seqs.append(("textbook-loop", block_loop_items(body), True))
    for k, code in enumerate(recipe_variants(arch, isa, 4)):
        seqs.append((f"recipe{k}", code, False))
    for k, code in enumerate(walk(0, 79, arch, isa, 1, 4)):
        seqs.append((f"block-walk{k}", code, True))
    for k, code in enumerate(walk(20, 39, arch, isa, 2, 4)):
        seqs.append((f"range-walk{k}", before + code + after, False))
    for k, items in enumerate(hybrid_items(arch)):
        seqs.append((f"hybrid{k}", items, True))
    return seqs


def models(quick: bool) -> list:
    if quick:
        return [load_model(n) for n in QUICK_MODELS]
    out = [load_model(n) for n in model_names()] + [load_model(n) for n in calibrated_names()]
    out.append(ensemble(load_model("skylake"), members=2, seed=3).members[1].model)
    return out


def outputs(model, seqs: list[tuple[str, list, bool]], quick: bool):
    """Every output for ``model`` over ``seqs``, as (label, value) pairs."""
    sim = Simulator(model)
    run = run_in_order if model.in_order else run_out_of_order
    for name, items, loop in seqs:
        try:
            s = sim.simulate(items, loop=loop)
            yield name + "/sim", s._values()
        except Exception as e:        # a model without a row for the code (recorded, never hidden)
            yield name + "/sim", ("refused", type(e).__name__, str(e))
            continue
        s2 = sim.simulate(items, loop=not loop)
        yield name + "/sim-other", (s2.cycles, s2.iterations)
        if quick and not loop:
            continue
        seq = sim.decode(items) * s.iterations
        for record in (False, True):
            t = run(seq, model, record)
            yield f"{name}/engine-{record}", (t.issue, t.complete, t.units, t.nodes)
            if not model.in_order and not record:
                t2 = run_out_of_order(seq, model, False, Resume())
                assert (t2.issue, t2.complete, t2.units) == (t.issue, t.complete, t.units), name


def digest(quick: bool, on_output: Callable[[str], None] | None = None) -> str:
    """The sha256 of every output (module docstring); ``on_output`` gets one line per output (its own hash)."""
    h = hashlib.sha256()
    for model in models(quick):
        for arch in ("x86_64", "i386"):
            seqs = sequences(arch, model.isa, quick)
            for label, value in outputs(model, seqs, quick):
                text = repr((model.name, arch, label, value))
                h.update(text.encode())
                if on_output is not None:
                    on_output(f"{model.name} {arch} {label} {hashlib.sha256(text.encode()).hexdigest()[:12]}")
    return h.hexdigest()
