"""Hybrid and SHA-NI results in the store: a proved block <-> a ``family`` row, its parameters as data.

A row's ``params`` is the JSON object of the family's parameter dataclass
(``HybridParams``, ``ShaniParams``): one member per field, a ``Recipe`` as
its ``key()``, tuples as lists. Reading it back is exact: every field name
must be the dataclass's and every field present but those of ``NEWER_FIELDS``
(added since rows were first written: absent, it takes its default -- a
``HybridParams`` row from before ``shifts`` is the point without shifts),
every value of its field's type, and the
dataclass's own checks must pass -- else ``StoreError`` (one line), as for
any impossible row. The row is used only if the parameters still build to
the stored ``code`` (the proved block's text); a row that no longer does is
skipped (said in ``Stored``'s absence: the caller searches again).

Keys: ``family`` "hybrid" with ``variant`` the ``--isa`` cap it was searched
under (``""``: none) and ``arch`` the block's; ``family`` "shani" with
``variant`` ``SHANI_FULL`` or ``SHANI_NO_AVX`` (the block without AVX, the
dispatcher's ``shani_sse`` path). Rounds 0-79; ``cycles`` the block-loop
measure (``search.measure``); model version ``family_version``: the model's
content and the measure's definition, per family.

Example: after ``search --uarch zen3 --isa avx``, ``stored_hybrid(db, "zen3",
"x86_64", "avx")`` gives the proved block's parameters, its block and its
cycles per block; ``export --uarch zen3 --isa avx`` uses it without searching.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import Model
from sha1opt.search.engines.hybrid_i386 import build_on_arch
from sha1opt.search.cost import Simulator
from sha1opt.search.engines.shani import ShaniReport, best_shani, block_cycles, loop_text
from sha1opt.search.objective import model_version
from sha1opt.search.space.hybrid import HybridBlock, HybridParams
from sha1opt.search.space.recipe import Recipe
from sha1opt.search.space.shani import ShaniParams, default_params
from sha1opt.search.store import Row, Store, StoreError

NEWER_FIELDS = frozenset({"shifts"})     # fields a stored row may lack (module docstring)
SHANI_FULL = "sha"            # the SHA-NI block with every feature the model's CPU has
SHANI_NO_AVX = "sha-no-avx"       # without AVX / AVX-512 / BMI (``best_shani(..., without=...)``)


def family_version(model: Model, family: str) -> str:
    """The model version of a ``family`` row: the model's content and the block-loop measure's definition
    (``objective.model_version`` of rounds 0-79), named per family."""
    return hashlib.sha256(f"{model_version(model, 0, 79)}|{family}".encode()).hexdigest()[:12]


def _lists(v):
    return [_lists(x) for x in v] if isinstance(v, tuple) else v


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def params_json(params) -> dict:
    """The JSON object of a parameter dataclass (module docstring)."""
    return {f.name: (getattr(params, f.name).key() if isinstance(getattr(params, f.name), Recipe)
                     else _lists(getattr(params, f.name))) for f in fields(params)}


def params_from(cls, data: dict, where: str):
    """``cls`` from ``params_json``'s object, exactly, or ``StoreError`` naming the row (``where``)."""
    names = [f.name for f in fields(cls)]
    if not set(data) <= set(names) or not set(names) - NEWER_FIELDS <= set(data):
        raise StoreError(f"{where}: params are not {cls.__name__}'s fields")
    values = {}
    for f in fields(cls):
        if f.name not in data:          # one of NEWER_FIELDS: its default (module docstring)
            continue
        default, v = f.default, data[f.name]
        if isinstance(default, Recipe):
            if not isinstance(v, str):
                raise StoreError(f"{where}: params {f.name} is not a recipe key")
            try:
                v = Recipe.parse(v)
            except Sha1optError as e:
                raise StoreError(f"{where}: params {f.name}: {e}") from None
        elif isinstance(default, tuple):
            if not isinstance(v, list):
                raise StoreError(f"{where}: params {f.name} is not a list")
            v = _tuples(v)
        elif type(v) is not type(default):
            raise StoreError(f"{where}: params {f.name} is not {type(default).__name__}")
        values[f.name] = v
    try:
        return cls(**values)
    except (Sha1optError, TypeError) as e:
        raise StoreError(f"{where}: params are not a valid {cls.__name__} ({e})") from None


def hybrid_code(block: HybridBlock) -> str:
    return "\n".join(map(str, block.code()))


def shani_code(params: ShaniParams, arch: Arch) -> str:
    return loop_text(params, arch)


@dataclass(frozen=True)
class Stored:
    """A usable stored row of a family: its parameters, what they build, and the figure stored."""

    params: HybridParams | ShaniParams
    block: HybridBlock | None          # the hybrid block (None for SHA-NI)
    cycles: float                      # per block, the block-loop measure, as the search stored it
    row: Row


def _get(db, family: str, variant: str, uarch: str, arch: Arch, model: Model) -> Row | None:
    store = Store(db, readonly=True)        # an explicit --db that does not exist is refused, as for show
    try:
        return store.get(uarch, arch, 0, 79, family_version(model, family), family=family, variant=variant)
    finally:
        store.close()


def stored_hybrid(db, model: Model, arch: Arch, cap: str | None) -> Stored | None:
    """The stored proved hybrid block of ``model`` on ``arch`` searched under ``cap``, if it still builds."""
    row = _get(db, "hybrid", cap or "", model.name, arch, model)
    if row is None:
        return None
    params = params_from(HybridParams, row.params, f"results database: row hybrid/{row.uarch}/{row.arch}")
    block = build_on_arch(params, model)
    if block is None or hybrid_code(block) != row.code:
        return None
    return Stored(params, block, row.cycles, row)


def stored_shani(db, model: Model, arch: Arch, variant: str) -> Stored | None:
    """The stored proved SHA-NI point of ``model`` on ``arch`` (``variant``: ``SHANI_FULL`` / ``SHANI_NO_AVX``)."""
    row = _get(db, "shani", variant, model.name, arch, model)
    if row is None:
        return None
    params = params_from(ShaniParams, row.params, f"results database: row shani/{row.uarch}/{row.arch}")
    if shani_code(params, arch) != row.code:
        return None
    return Stored(params, None, row.cycles, row)


def put_hybrid(db, model: Model, cap: str | None, block: HybridBlock, cycles: float, *, evaluations: int,
               seconds: float, seed: int, proved: bool) -> bool:
    """Store a proved hybrid block (``Store.put``: kept only if better); whether it is now the key's."""
    return _put(db, "hybrid", cap or "", model, block.params.arch, block.params, block.params.key(),
                hybrid_code(block), cycles, evaluations, seconds, seed, proved)


def put_shani(db, model: Model, arch: Arch, variant: str, params: ShaniParams, cycles: float, *,
              evaluations: int, seconds: float, seed: int, proved: bool) -> bool:
    """Store a proved SHA-NI point (``Store.put``: kept only if better); whether it is now the key's."""
    return _put(db, "shani", variant, model, arch, params, params.describe(), shani_code(params, arch), cycles,
                evaluations, seconds, seed, proved)


def _put(db, family, variant, model, arch, params, recipe, code, cycles, evaluations, seconds, seed, proved) -> bool:
    store = Store(db)
    try:
        return store.put(uarch=model.name, arch=arch, first=0, last=79, model_version=family_version(model, family),
                         cycles=cycles, recipe=recipe, offsets=(), code=code, evaluations=evaluations,
                         seconds=seconds, seed=seed, proved=proved, family=family, variant=variant,
                         params=params_json(params)).stored
    finally:
        store.close()


# Features the SHANI_NO_AVX block leaves out (what a SHA-NI CPU without AVX lacks).
WITHOUT_AVX = frozenset({"avx", "avx2", "avx512vl", "bmi1", "bmi2"})


def search_shani(model: Model, arch: Arch, budget: int, db, variant: str = SHANI_FULL) -> ShaniReport:
    """``engines.shani.best_shani`` on ``model`` (``variant`` ``SHANI_NO_AVX``: without ``WITHOUT_AVX``); its
    proved point is stored (kept if better than the key's row)."""
    rep = best_shani(model, arch, budget, without=WITHOUT_AVX if variant == SHANI_NO_AVX else frozenset())
    if rep.proved:
        put_shani(db, model, arch, variant, rep.params, rep.cycles, evaluations=rep.evaluations, seconds=rep.seconds,
                  seed=1, proved=True)
    return rep


def known_shani(model: Model, arch: Arch, budget: int, db, variant: str = SHANI_FULL) -> ShaniReport:
    """The stored proved SHA-NI point for the key as a ``ShaniReport`` (its figure the stored one; the
    default point's figure beside it); only when there is none, ``search_shani`` (which stores it)."""
    stored = stored_shani(db, model, arch, variant)
    if stored is None:
        return search_shani(model, arch, budget, db, variant)
    row = stored.row
    default = block_cycles(default_params(arch), arch, Simulator(model))
    return ShaniReport(model.name, arch, stored.params, stored.cycles, stored.cycles / 64, default, True,
                       f"proved (stored result, {row.evaluations} evaluations)", row.evaluations, 0, row.seconds,
                       "stored")
