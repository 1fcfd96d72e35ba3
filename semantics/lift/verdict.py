"""The result of one step of a function proof, as data: outcome, the one line saying it, cuts, category.

Every step of ``function``, ``induction`` and ``multiblock`` (a loop's
iteration, an exit, a chain of compressions) returns a ``Verdict``; the
path report copies its fields. The ``detail`` is display text only: the
facts a caller decides on are fields --

* ``cuts``: how many cut points the compression checks of this step proved
  (``composition.check_program``'s ``cuts``, summed over every check the
  step made: each path's suffix, each block of a multi-block chain, a
  peeled first iteration and the invariant); 0 when nothing was checked;
* ``category``: why a path the executor stopped was stopped
  (``values.CATEGORIES``), for a refusal, a contract violation or the step
  limit; None for a verdict of the proof itself;
* ``first_wrong``: for a compression that does not hold, the spec definition
  (``"A31"``: the new a of round 30; ``"W42"``) that no value of the code
  matches, earliest in round order (``CompositionResult.missing_definition``);
  None when every definition was matched or nothing was checked.

Example: the textbook x86-64 export's loop gives
``Verdict("proved", "invariant (...) ...; 2 path(s) from the head, 160 cuts", 160)``;
a loop whose iteration uses an unmodelled instruction gives
``Verdict("refused", "unsupported instruction ... at 0x..", 0, "instruction")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sha1opt.semantics.lift.paths import PathEnd
from sha1opt.semantics.lift.values import Category

Outcome = Literal["proved", "counterexample", "unknown", "refused", "not checked"]

# A path end the executor stopped: the outcome it gives (a violation of the contract is a counterexample).
STOPPED: dict[str, Outcome] = {"refused": "refused", "limit": "unknown", "violation": "counterexample"}


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    detail: str
    cuts: int = 0
    category: Category | None = None
    first_wrong: str | None = None

    @property
    def proved(self) -> bool:
        return self.outcome == "proved"


def stopped(end: PathEnd) -> Verdict:
    """The verdict of a path end the executor stopped (``end.kind`` in ``STOPPED``): its reason and category."""
    return Verdict(STOPPED[end.kind], end.reason, 0, end.category)


__all__ = ["Outcome", "STOPPED", "Verdict", "stopped"]
