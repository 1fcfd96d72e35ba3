"""The scalar-round forms of the hybrid family, by name: the values ``HybridParams.scalar`` takes besides "recipe".

A ``RoundsForm`` names one way to write the 80 rounds around the W+K ring
(``hybrid_rounds``: f in a's register, six registers in rotation;
``hybrid_pinned``: f in one fixed register, rol30 in place; ``hybrid_lazy``:
five registers and two temporaries, a rotated in place and b late, the next
round's f prepared -- the one form i386's seven registers hold; with BMI,
``hybrid_seven``'s Ch and Maj rounds without copies between lazy parity
rounds) and its choices:
BMI2 (``rorx``/``andn``), which rounds take OpenSSL's lean f forms, how many
rounds ahead W+K is added into e (0, 1, 2), whether a..e end in
``STATE_REGS`` (``keep``; always for the pinned form) and, pinned only, the
order of ``add rol5, e`` (``order``). ``FORMS`` maps each name to its form,
the first slice's four first (``FIRST_FORMS``, names and code unchanged), so
every form is a point the hybrid search can score and the block proof checks.

Names: ``rotate[-bmi][-lean|-mix|-leanch|-leanchp][-early|-early2][-majn][-keep]``,
``pin[-bmi][-leanch][-early|-early2][-majn][-chain]`` and ``lazy[-chain]``, ``lazy-bmi`` (``-majn``: Maj's
``C1 & C`` by ``andn``, one copy fewer per Maj round; offered one round
early with the state kept). Example:
``FORMS["rotate-bmi-early-keep"]`` is ``RoundsForm("rotate", True, "", 1,
True)`` and its ``rounds()`` are 706 instructions; ``FORMS["pin-bmi-early"]``
is 720.
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.space.hybrid_lazy import lazy_rounds
from sha1opt.search.space.hybrid_pinned import ORDERS, PIN_LEAN, pinned_rounds
from sha1opt.search.space.hybrid_rounds import LEAN, RotatingRounds, rotating_rounds
from sha1opt.search.space.hybrid_seven import bmi_lazy_rounds

LAYOUTS = ("rotate", "pin", "lazy")
# the temporaries of the forms that run on i386 (``hybrid_i386``: esi, edi) and on x86-64
LAZY_TEMPS = {"x86_64": ("r10d", "r11d"), "i386": ("esi", "edi")}
_LEAN_NAMES = {"": "", "parity": "-mix", "all": "-lean", "ch": "-leanch", "ch+parity": "-leanchp"}
_EARLY_NAMES = {0: "", 1: "-early", 2: "-early2"}


@dataclass(frozen=True)
class RoundsForm:
    """One scalar-rounds form (module docstring); ``name`` is its ``HybridParams.scalar`` value."""

    layout: str
    bmi: bool
    lean: str = ""
    early: int = 0
    keep: bool = False
    order: str = "f"
    majn: bool = False          # Maj's C1 & C by andn (BMI, non-lean Maj only)

    def __post_init__(self) -> None:
        ok = (self.layout in LAYOUTS and self.lean in LEAN and self.early in _EARLY_NAMES and self.order in ORDERS
              and (self.layout == "rotate" and self.order == "f"
                   or self.layout == "pin" and self.keep and self.early and self.lean in PIN_LEAN
                   or self.layout == "lazy" and self.keep and not (self.lean or self.early)
                   and (not self.bmi or self.order == "f"))
              and (not self.majn or self.bmi and self.lean != "all"))
        if not ok:
            raise Sha1optError(f"no scalar-rounds form {self!r}")

    @property
    def name(self) -> str:
        tail = _LEAN_NAMES[self.lean] + _EARLY_NAMES[self.early] + ("-majn" if self.majn else "")
        if self.layout == "lazy":
            return "lazy" + ("-bmi" if self.bmi else "") + ("-chain" if self.order == "chain" else "")
        if self.layout == "pin":
            return "pin" + ("-bmi" if self.bmi else "") + tail + ("-chain" if self.order == "chain" else "")
        return "rotate" + ("-bmi" if self.bmi else "") + tail + ("-keep" if self.keep else "")

    @property
    def arches(self) -> tuple[str, ...]:
        """The arches whose hybrid block has the registers for this form (``lazy``: seven GPRs; ``lazy-bmi``
        i386 only: x86-64 has the nine registers of the rotating BMI forms)."""
        if self.layout == "lazy" and self.bmi:
            return ("i386",)
        return tuple(LAZY_TEMPS) if self.layout == "lazy" else ("x86_64",)

    def rounds(self, arch: str = "x86_64") -> RotatingRounds:
        if arch not in self.arches:
            raise Sha1optError(f"the scalar rounds {self.name} need more registers than {arch} has")
        if self.layout == "lazy":
            return bmi_lazy_rounds(LAZY_TEMPS[arch]) if self.bmi else lazy_rounds(LAZY_TEMPS[arch], self.order)
        if self.layout == "pin":
            return pinned_rounds(self.bmi, self.lean, self.early, self.order, self.majn)
        return rotating_rounds(self.bmi, self.lean, self.early, self.keep, self.majn)


def _all_forms() -> list[RoundsForm]:
    first = [RoundsForm("rotate", False), RoundsForm("rotate", True), RoundsForm("rotate", True, "all"),
             RoundsForm("rotate", True, "parity")]
    rest = [RoundsForm("rotate", bmi, lean, early, keep) for bmi in (False, True)
            for lean in (LEAN if bmi else ("",)) for early in (0, 1, 2) for keep in (False, True)]
    rest += [RoundsForm("pin", bmi, lean, early, True, order) for bmi in (False, True)
             for lean in (PIN_LEAN if bmi else ("",)) for early in (1, 2) for order in ORDERS]
    rest += [RoundsForm("rotate", True, lean, 1, True, majn=True) for lean in ("", "ch", "parity", "ch+parity")]
    rest += [RoundsForm("pin", True, lean, 1, True, majn=True) for lean in PIN_LEAN]
    rest += [RoundsForm("lazy", False, keep=True, order=order) for order in ORDERS]
    rest += [RoundsForm("lazy", True, keep=True)]
    return first + [f for f in rest if f not in first]     # the lean forms use andn: BMI only


FORMS: dict[str, RoundsForm] = {f.name: f for f in _all_forms()}
FIRST_FORMS = tuple(FORMS)[:4]


def one_change(name: str) -> tuple[str, ...]:
    """The forms of ``FORMS`` that differ from form ``name`` in exactly one of its choices (layout, BMI, lean,
    early, keep, order, majn), in ``FORMS`` order; none for a name that is not a form ("recipe").
    Example: ``one_change("rotate-bmi-early-majn-keep")`` holds ``rotate-bmi-early-keep`` (majn),
    ``rotate-bmi-mix-early-majn-keep`` (lean) and ``pin-bmi-early-majn`` (layout), not ``rotate-bmi-mix-early``
    (three choices apart)."""
    me = FORMS.get(name)
    if me is None:
        return ()
    keys = ("layout", "bmi", "lean", "early", "keep", "order", "majn")
    return tuple(other for other, f in FORMS.items()
                 if sum(getattr(f, k) != getattr(me, k) for k in keys) == 1)
