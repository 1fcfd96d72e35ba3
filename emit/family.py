"""A family of SHA-1 code: what the registry (``emit.families``) asks of scalar, hybrid and SHA-NI code alike.

A *family* is one way of writing ``sha1_block_data_order`` -- the scalar
rounds (``emit.family_scalar``), the hybrid block with its W schedule in xmm
(``emit.family_hybrid``; its vector dialects are rows of
``search.space.hybrid_dialects``), the SHA-NI function
(``emit.family_shani``). The dispatcher (``emit.dispatch_plan``) is not a
family: it composes the families' paths. Everything that differs between
families is behind the ``Family`` protocol, so export, the dispatch plan,
``search --isa``, ``show`` and the CLI walk the registry and never compare a
family's name. The protocol, by concern:

* ISA -- ``admits(level)``: whether ``--isa level`` lets the family in
  (a level belongs to the highest family admitting it: ``families.family_of``);
  ``level_features(level)`` the features a CPU needs for the family's code at
  that level; ``model_has(model, level)`` whether the model's CPU has them;
  ``path_names(levels)`` its dispatch path names (lowest preference first);
  ``per_level``: one dispatch path per level (hybrid, SHA-NI) or ``base_paths``
  once (scalar: its best and the base-ISA fallback); ``extra_paths(choice)``
  the paths a level's choice brings along (SHA-NI's ``shani_sse``);
* search -- ``search(...)``: what ``search --isa`` searches for the family
  (a report whose figure is the block-loop measure, ``search.measure``;
  stored when proved), None for the scalar family (its search is the range
  search, ``search.driver``); ``known(...)``: the family's report at a level
  for a model (its stored row first, else its search with export's budget;
  None for a family without one -- scalar, SHA-NI on a model without it),
  what ``choose`` ranks; ``shown(...)``: that report as ``show --isa``
  draws it (a ``Shown``: the code's loop items, the report's figure, its
  proof; None where ``known`` has none), for the families with ``reports``;
  ``choose(...)``: what ``export --isa`` writes for the family (a
  ``Choice`` or the notes saying why not; with no model, the family's
  default code at the level: the reference ``export --tune`` times against);
  ``ranked(...)``: up to ``limit`` of the model's candidates at the level,
  its pick first, each of a different shape (not neighbours of one optimum),
  what ``export --tune`` validates and times (``emit.tuning``); ``neighbours(...)``:
  the codes of one candidate's structure one choice away from it, what
  ``export --tune``'s climb times next around the measured winner (none for
  SHA-NI);
* code -- ``features(choice)``, ``path_text(choice)`` (a whole function without
  header, for the dispatcher), ``loop_items(choice)`` (the items of the
  block-loop measure, one iteration hashing ``blocks(choice)`` 64-byte blocks:
  2 for a two-block hybrid dialect, else 1; ``cycles(choice, model)`` below
  prices any family's choice with them, per block), ``prove
  (choice)`` (the family's block proof), ``describe(choice)``;
* export -- ``exportable(choice, ...)``: what the one export skeleton
  (``export.export_text``) needs of the family's function (its rendering
  with a given proof line, its checks, the header's proof line), and
  ``flavors`` (the object formats it writes: SHA-NI is ELF only, said by its
  entry and nowhere else; ``flavor_refusal``). ``export(choice, path, ...)``
  is the protocol's own method, the same for every family (a family class
  derives from ``Family``): a flavor the family does not write is refused,
  else ``export_text`` of the family's ``exportable`` (proved and validated
  before anything is written);
* store -- ``stored(db, model, arch, variant)``: the family's stored row as
  its parameters (``search.family_rows``), or None.

``Choice`` is one value: the family, the code its export takes (a scalar
``Schedule``, a ``HybridBlock``, ``ShaniParams``), the arch, the notes and the
figure. Example: ``export_choice(None, "x86_64", "avx")`` is ``Choice(HYBRID,
<the default avx block>, "x86_64", ["hybrid default block (avx; no --uarch to
search on)"])``; ``choice.family.export(choice, "h.S")`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model
from sha1opt.search.measure import block_loop
from sha1opt.search.progress import ProgressFn
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.emit.export import Exportable, ExportResult, export_text


@dataclass
class Choice:
    """What one family exports: ``code`` is the family's own value (module docstring)."""

    family: "Family"
    code: Any                          # Schedule | HybridBlock | ShaniParams: what ``family.export`` takes
    arch: Arch
    notes: list[str] = field(default_factory=list)
    cycles: float | None = None        # the block-loop figure as the family's search stored it (None: scalar
                                       # code, priced on demand by ``cycles``; or no model)


@dataclass(frozen=True)
class Shown:
    """A family's report at a level as ``show --isa`` draws it (``Family.shown``).

    ``items`` are the block-loop items (``search.measure``) of one iteration, which hashes ``blocks`` blocks;
    ``cycles`` is the figure the family's search stored, per block; ``code`` says what the code is; ``notes``
    what it was ranked against.
    ``missing``: why the report has no code (its search found none), ``items`` then empty.
    Example: the SHA-NI report of zen3 is ``Shown(SHANI, "x86_64", "msg1 3 ahead, ...", <its loop>,
    121.0, "block proved ...", ("default point 1.89 c/B",))``.
    """

    family: "Family"
    arch: Arch
    code: str
    items: tuple = ()
    cycles: float = 0.0
    proof: str = ""
    notes: tuple[str, ...] = ()
    missing: str | None = None
    blocks: int = 1


@dataclass(frozen=True)
class Passed:
    """A family that writes nothing for the request, and why (the notes the next family's choice starts with)."""

    notes: tuple[str, ...]


class FlavorRefused(Sha1optError):
    """Misuse: an export in a flavor the family does not write (``Family.flavor_refusal`` says why)."""


class Family(Protocol):
    name: str                          # the store's ``family`` column, printed as the candidate's kind
    flavors: frozenset[str]            # the object formats ``export`` writes
    tunable: bool                      # ``export --tune`` times its ranked candidates
    per_level: bool                    # the dispatcher takes one path per level (else the family's
                                       # ``base_paths`` once)
    reports: bool                      # ``search`` / ``known`` / ``shown`` give a whole-block report per level

    def admits(self, level: str) -> bool: ...

    def level_features(self, level: str) -> frozenset[str]: ...

    def model_has(self, model: Model, level: str) -> bool: ...

    def path_names(self, levels: Sequence[str]) -> tuple[str, ...]: ...

    def search(self, uarch: str, arch: Arch, level: str, *, evaluations: int, seed: int, time_limit: float,
               should_stop, db, progress: ProgressFn): ...

    def known(self, uarch: str, arch: Arch, level: str, db, progress: ProgressFn): ...

    def shown(self, uarch: str, arch: Arch, level: str, db, progress: ProgressFn) -> Shown | None: ...

    def choose(self, uarch: str | None, arch: Arch, level: str, db, progress: ProgressFn) -> Choice | Passed: ...

    def ranked(self, uarch: str, arch: Arch, level: str, limit: int, db, progress: ProgressFn) -> list[Choice]: ...

    def neighbours(self, choice: Choice, uarch: str, level: str) -> list[Choice]: ...

    def base_paths(self, uarch: str | None, model: Model | None, arch: Arch, db
                   ) -> tuple[list[tuple[str, Choice, str]], list[str]]: ...   # only a family without ``per_level``

    def extra_paths(self, choice: Choice, model: Model | None, db
                    ) -> tuple[list[tuple[str, Choice, str]], list[str]]: ...

    def features(self, choice: Choice) -> frozenset[str]: ...

    def path_text(self, choice: Choice) -> str: ...

    def loop_items(self, choice: Choice) -> list: ...

    def blocks(self, choice: Choice) -> int: ...       # the 64-byte blocks one iteration of ``loop_items`` hashes

    def prove(self, choice: Choice) -> bool: ...

    def describe(self, choice: Choice) -> str: ...

    def flavor_refusal(self, flavor: str, predicted: bool) -> str | None: ...

    def exportable(self, choice: Choice, *, uarch: str | None, command: str, prediction: str) -> Exportable: ...

    def export(self, choice: Choice, path: str | Path, *, flavor: str = "elf", uarch: str | None = None,
               command: str = "", prediction: str = "") -> ExportResult:
        """Validate ``choice``'s function and write it to ``path`` in ``flavor``, or write nothing and say why
        (``export.export_text`` of ``exportable``); a flavor the family does not write is refused."""
        refusal = self.flavor_refusal(flavor, predicted=False)
        if refusal:
            raise FlavorRefused(refusal)
        return export_text(self.exportable(choice, uarch=uarch, command=command, prediction=prediction), path,
                           flavor)

    def stored(self, db, model: Model, arch: Arch, variant: str): ...


def family_level(family: Family, model: Model, level: str) -> str | None:
    """The highest level at or below the cap ``level`` that ``family`` admits and whose code the model's CPU has
    (``Family.model_has``), or None. ``--isa`` is a cap: under ``--isa avx512`` zen3 (no AVX-512) gets the
    hybrid family's code at what it has, its ``avx2`` level, not no hybrid code at all; ``model_has`` itself
    stays exact (the dispatcher makes one path per level the CPU has).

    Example: ``family_level(HYBRID, load_model("zen3"), "avx512")`` is ``"avx2"`` (``HYBRID.model_has(zen3,
    "avx512")`` is False); ``family_level(SCALAR, zen3, "avx512")`` is ``"avx512"``; for ``p6`` (no SSSE3)
    ``family_level(HYBRID, p6, "shani")`` is None."""
    own = [lv for lv in LEVELS[:LEVELS.index(level) + 1] if family.admits(lv) and family.model_has(model, lv)]
    return own[-1] if own else None


def cycles(choice: Choice, model: Model) -> float:
    """``choice``'s block-loop figure on ``model``, per 64-byte block: the one its search stored, else the measure
    of its family's loop items (``search.measure.block_loop``) over the blocks an iteration hashes
    (``Family.blocks``) -- the same figure either way."""
    if choice.cycles is not None:
        return choice.cycles
    return block_loop(choice.family.loop_items(choice), model).cycles / choice.family.blocks(choice)


def cheapest_distinct(priced: list[tuple[float, str, Any]], text: Callable[[Any], str],
                      seen: set[str]) -> list[tuple[str, Any]]:
    """(key, code) of ``priced`` -- (cost on the model, key, code) -- cheapest first (ties by key), each whose
    ``text`` (the function the code renders) is not in ``seen`` nor an earlier one's: what a family's
    ``neighbours`` gives, one candidate per distinct function. ``seen`` is extended."""
    out = []
    for _, key, code in sorted(priced, key=lambda t: (t[0], t[1])):
        t = text(code)
        if t not in seen:
            seen.add(t)
            out.append((key, code))
    return out
