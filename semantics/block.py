"""Block proof: the one entry for "does this code compute SHA-1 rounds ``first..last``?".

``prove_block(body, inputs, outputs, pointers)`` states the rounds with
``sha1.range_spec`` (by default the whole compression function: 80 rounds,
the W schedule, the feed-forward into state) and proves ``body`` against it
with ``composition.check_program``. The outcome is the checker's
``CompositionResult`` value; nothing is raised for a wrong program, only for
misuse (a spec input without a location, an output holding a pointer).

``describe_failure(result, hint)`` turns a failed result into one line:
the first definition never computed, where the proof was refuted, and the
counterexample or the solver's reason. Callers that know where values
belong (search's rotating state registers) pass ``hint``: a string, or a
callable given the failing round.

Example: the textbook x86-64 block with round 30's ``rol $5`` changed to
``rol $6`` gives ``result.ok == False`` and ``describe_failure(result)``
starts ``"first wrong value: A31 (new a of round 30) is never computed;
refuted: ..."``; ``failing_round(result) == 30``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from sha1opt.semantics.composition import CompositionResult, check_program
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.machine import Location
from sha1opt.semantics.prove import Counterexample, Prover
from sha1opt.semantics.sha1 import range_spec
from sha1opt.semantics.x86 import Instr

Hint = str | Callable[[int], str] | None

_SHOWN_INPUTS = 8  # counterexample inputs written out before "... (n more inputs)"


def prove_block(
    body: Sequence[Instr],
    inputs: dict[str, Location],
    outputs: dict[str, Location],
    pointers: dict[str, str] | None = None,
    *,
    first: int = 0,
    last: int = 79,
    prover: Prover | None = None,
    machine=None,
) -> CompositionResult:
    """Prove ``body`` computes SHA-1 rounds ``first..last`` under the given bindings.

    ``inputs`` / ``outputs`` / ``pointers`` are ``check_program``'s (a frame
    contract: ``search.space.frame.block_bindings`` or a ``Schedule``'s
    fields). A fresh ``Prover`` is used unless one is given; ``machine`` is
    ``check_program``'s interpreter factory (default ``machine.Machine``).
    """
    spec = range_spec(Builder(), first, last)
    return check_program(list(body), spec, inputs, outputs, prover or Prover(), pointers=pointers, machine=machine)


def failing_round(result: CompositionResult) -> int | None:
    """The round whose new a is the first value never computed, if that is what went wrong.

    ``missing_definition`` A31 (the new a of round 30) -> 30; a missing message word
    or no missing value -> None.
    """
    d = result.missing_definition
    return d.round if d is not None and d.name == f"A{d.round + 1}" else None


def describe_failure(result: CompositionResult, hint: Hint = None) -> str:
    """Round, location and counterexample of a failed proof, ``"; "``-separated on one line.

    ``hint`` is appended after ``"; "``: a string as is; a callable is given
    ``failing_round(result)`` and only called when there is one.
    """
    f = result.failure
    parts = []
    if result.missing:
        parts.append(f"first wrong value: {result.missing} is never computed")
    if f is not None:
        parts.append(f"refuted: {f.describe()}")
        out = f.outcome
        if isinstance(out, Counterexample):
            shown = ", ".join(f"{k}={v:#010x}" for k, v in list(sorted(out.inputs.items()))[:_SHOWN_INPUTS])
            more = len(out.inputs) - _SHOWN_INPUTS
            parts.append(f"counterexample: {shown}{f', ... ({more} more inputs)' if more > 0 else ''}; "
                         f"code gives {out.lhs:#010x}, SHA-1 gives {out.rhs:#010x}")
        else:
            parts.append(f"solver: {out.reason} (not a proof)")
    text = "; ".join(parts) or "proof failed"
    if callable(hint):
        t = failing_round(result)
        extra = hint(t) if t is not None else ""
    else:
        extra = hint or ""
    return f"{text}; {extra}" if extra else text
