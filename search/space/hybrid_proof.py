"""The block proof of a hybrid block: ``block.prove_block`` with the vector writes cut lane by lane.

``composition.check_program`` finds cut points by matching each written value
against the spec's definitions (``W{t}``, ``A{t+1}``) and substitutes the
proved ones by their symbols. A vector instruction writes four (or eight)
32-bit lanes at once -- ``vprold $1`` of T leaves W_t, W_t+1, W_t+2 and a
partial word in one register -- so ``LaneMachine`` hands each lane of a
vector write to the checker's hook as its own write (location
``%xmm3.2`` / ``stack+8``), under a virtual index ``LANE_STRIDE * i + lane``
(scalar writes get ``LANE_STRIDE * i``), and writes the (possibly
substituted) lanes back. The checker's soundness argument is per value, so
it holds per lane: each lane cut is a proved ``value == definition`` over
the earlier symbols.

``prove_hybrid(block)`` proves each of ``block.proved_units()`` -- ``block.setup + block.body`` (the constants
built once, then one block), or a two-block dialect's two units (``hybrid_pair``) -- equal to the 80-round compression function
with feed-forward under ``frame.block_bindings(block.params.arch)`` (i386: the
pointers in stack slots); the W+K words
are ordinary stack words the rounds add into e. Message-schedule cuts go
through ``semantics.lift.schedule.ScheduleProver`` (affine identities over
the spec's W definitions), so W_32..79 may be computed by the rol2
recurrence (``hybrid_w8``). The outcome is the
checker's ``CompositionResult``: ``ok`` only for ``Proved`` (an Unknown is
a failure).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from sha1opt.semantics.composition import CompositionResult, check_program
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.schedule import ScheduleProver
from sha1opt.semantics.prove import Prover
from sha1opt.semantics.sha1 import range_spec
from sha1opt.semantics.x86 import Instr
from sha1opt.search.space.frame import block_bindings
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.space.lane_machine import lane_machine

def prove_unit(code: Sequence[Instr], prover: Prover | None = None, arch: str = "x86_64") -> CompositionResult:
    """``code`` (a setup, then one block) = SHA-1's compression function under ``frame.block_bindings``.

    ``block.prove_block``'s check, with the schedule cuts proved through the spec's W definitions
    (``ScheduleProver``: the rol2 recurrence of ``hybrid_w8`` is true only through them).
    """
    inputs, outputs, pointers = block_bindings(arch)
    spec = range_spec(Builder(), 0, 79)
    return check_program(list(code), spec, inputs, outputs, ScheduleProver(prover or Prover(), spec),
                         pointers=pointers, machine=lane_machine)


def prove_hybrid(block: HybridBlock, prover: Prover | None = None) -> CompositionResult:
    """Setup + one block = SHA-1's compression function (80 rounds, W schedule, feed-forward), for every unit
    of ``block.proved_units()`` (a two-block dialect has two: ``hybrid_pair``): the first that is not proved,
    else one result with the units' cuts, calls and seconds summed."""
    results = []
    for unit in block.proved_units():
        res = prove_unit(unit, prover, block.params.arch)
        if not res.ok:
            return res
        results.append(res)
    if len(results) == 1:
        return results[0]
    return replace(results[0], cuts=sum(r.cuts for r in results), solver_calls=sum(r.solver_calls for r in results),
                   seconds=sum(r.seconds for r in results))
