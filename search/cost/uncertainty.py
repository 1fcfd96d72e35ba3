"""A model's uncertainty as data, the ensemble of perturbed models it spans, and the robust choice over it.

Where no host can measure (a model of another CPU, issue 25 item 4), the single optimum of one parameter
set is where the model is most wrong: so a candidate is priced on an ensemble of models whose fitted
parameters move within their uncertainty, and chosen by its worst case there.

* ``uncertainty(model)`` -- which parameters are uncertain and by how much, derived from each row's
  ``source`` by the tiers of ``corpus/uncertainty.toml`` (``load_spec``; unknown keys refused): a class
  row's ``latency`` (+-1 clock where literature sources differ, from one clock for an estimate, not at all
  for a row measured on the CPU), its compute ``ports`` (another unit set the model names in the same
  pool, ``fit.port_candidates``, for a class on part of the pool), the forwarding rules' latencies, and the ``issue_width`` where the file
  lists the widths the literature allows. Each is an ``Uncertain``: the row, the field, the nominal value,
  its alternatives, the tier and why.
* ``ensemble(model, members=12, seed=0)`` -- ``members`` perturbed models: member k draws every uncertain
  parameter from ``random.Random(f"{model.name}:{seed}:{k}")`` (kept nominal with probability ``keep``,
  else one of its alternatives), deterministic for a seed. A member is built from the model's raw table
  with the drawn rows by the loader's own checks (``model.model_from_table``): it loads like any model.
  Its name is ``<model>~<k>``.
* ``Spread`` -- one candidate's nominal figure and its figures on every member: ``low`` / ``median`` /
  ``high`` (min / median / max over the members), ``worst`` (the high, or the nominal if higher): the
  robust statistic. ``spread_of(cost, ens)`` prices one candidate (``cost``: a model -> cycles).
* ``robust_pick(spreads)`` -- the index with the lowest ``worst``, ties by the nominal figure, then the
  first: the nominal optimum is kept whenever it is as robust as any; so the pick's worst case is never
  above the nominal optimum's.

Example: ``ensemble(load_model("zen1"))`` has 12 members; the zen1 store-forwarding latency (an
"estimate, 7 clocks") moves within 5..9, its issue width within 4..6, and ``add_rr``'s latency 1 stays.
Nothing here says "optimal": a robust pick is a robust pick.
"""

from __future__ import annotations

import functools
import random
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from sha1opt.search.cost.fit import pools, port_candidates
from sha1opt.search.cost.model import Model, Uop, derived_rthroughput, model_from_table, model_table
from sha1opt.search.cost.rules import string as _text
from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, Sha1optError

_ENSEMBLE_KEYS = {"members", "keep", "source"}
_TIER_KEYS = {"name", "marks", "latency", "min_latency", "forwarding", "ports", "source"}
_WIDTH_KEYS = {"values", "source"}
FORWARDING = ("store_forwarding", "vector_store_forwarding", "rmw_forwarding", "memory_renaming")


@dataclass(frozen=True)
class Tier:
    """How far the rows whose source contains one of ``marks`` may move (``corpus/uncertainty.toml``)."""
    name: str
    marks: tuple[str, ...]
    latency: int
    min_latency: int
    forwarding: int
    ports: bool
    source: str


@dataclass(frozen=True)
class Spec:
    """``corpus/uncertainty.toml`` as a value."""
    members: int
    keep: float
    tiers: tuple[Tier, ...]
    issue_width: Mapping[str, tuple[tuple[int, ...], str]]      # model -> (widths, source)

    def tier_of(self, source: str) -> Tier:
        """The first tier one of whose marks ``source`` contains (case ignored); the last tier otherwise."""
        text = source.lower()
        return next((t for t in self.tiers if any(m.lower() in text for m in t.marks)), self.tiers[-1])


def _int(v: Any, where: str, low: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise CorpusError(f"{where}: must be an integer >= {low}")
    return v




def parse_spec(raw: Any, where: str) -> Spec:
    """The spec from a raw table; ``CorpusError`` naming ``where`` and the row for an unknown or missing key."""
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: not a table")
    check_keys(raw, where, {"ensemble", "tier"}, {"issue_width"})
    ens = raw["ensemble"]
    if not isinstance(ens, dict):
        raise CorpusError(f"{where}: ensemble: not a table")
    check_keys(ens, f"{where}: ensemble", _ENSEMBLE_KEYS)
    keep = ens["keep"]
    if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not 0 <= keep < 1:
        raise CorpusError(f"{where}: ensemble.keep: must be a number in [0, 1)")
    _text(ens["source"], f"{where}: ensemble.source")
    if not isinstance(raw["tier"], list) or not raw["tier"]:
        raise CorpusError(f"{where}: tier: must be a non-empty array of tables")
    tiers = []
    for k, t in enumerate(raw["tier"]):
        w = f"{where}: tier[{k}]"
        if not isinstance(t, dict):
            raise CorpusError(f"{w}: not a table")
        check_keys(t, w, _TIER_KEYS)
        marks = t["marks"]
        if not isinstance(marks, list) or not all(isinstance(m, str) and m for m in marks):
            raise CorpusError(f"{w}.marks: must be a list of non-empty strings")
        if bool(marks) != (k < len(raw["tier"]) - 1):
            raise CorpusError(f"{w}.marks: only the last tier, and it alone, has no marks (it takes every other row)")
        if not isinstance(t["ports"], bool):
            raise CorpusError(f"{w}.ports: must be true or false")
        tiers.append(Tier(_text(t["name"], f"{w}.name"), tuple(marks), _int(t["latency"], f"{w}.latency"),
                          _int(t["min_latency"], f"{w}.min_latency", 1), _int(t["forwarding"], f"{w}.forwarding"),
                          t["ports"], _text(t["source"], f"{w}.source")))
    widths = {}
    table = raw.get("issue_width", {})
    if not isinstance(table, dict):
        raise CorpusError(f"{where}: issue_width: not a table")
    for name, row in table.items():
        w = f"{where}: issue_width.{name}"
        if not isinstance(row, dict):
            raise CorpusError(f"{w}: not a table")
        check_keys(row, w, _WIDTH_KEYS)
        if not isinstance(row["values"], list) or not row["values"]:
            raise CorpusError(f"{w}.values: must be a non-empty list of integers")
        widths[name] = (tuple(_int(v, f"{w}.values", 1) for v in row["values"]), _text(row["source"], f"{w}.source"))
    return Spec(_int(ens["members"], f"{where}: ensemble.members", 1), float(keep), tuple(tiers), widths)


@functools.lru_cache(maxsize=None)
def load_spec(path: Path | None = None) -> Spec:
    """``corpus/uncertainty.toml`` (or ``path``), checked once per process."""
    path = path or corpus_dir() / "uncertainty.toml"
    return parse_spec(load_toml(path), path.name)


@dataclass(frozen=True)
class Uncertain:
    """One uncertain parameter: ``row`` (``classes.X``, ``rules.X``, ``issue_width``) . ``field``, its nominal value,
    the values it may take instead, the tier it was given and why (the row's source, or the width's row)."""
    row: str
    field: str
    nominal: Any
    values: tuple[Any, ...]
    tier: str
    why: str

    @property
    def name(self) -> str:
        return f"{self.row}.{self.field}"


def _latencies(nominal: float, tier: Tier, move: int) -> tuple[float, ...]:
    if move == 0 or nominal < tier.min_latency:
        return ()
    return tuple(float(v) for v in range(int(nominal) - move, int(nominal) + move + 1) if v >= 1 and v != nominal)


def _named_sets(model: Model, cls: str) -> tuple[tuple[str, ...], ...]:
    """The other unit sets ``cls``'s compute uops may move to: the sets the model names for some class in the
    same pool (``fit.port_candidates`` less its single units and whole pool when no class names them); none
    for a class that runs on the whole pool (an add on every integer ALU is in no source's doubt)."""
    named = {frozenset(u.units) for c in model.classes.values() for u in c.ports if not u.role}
    cands = port_candidates(model, cls)
    if not cands or any(set(cands[0]) == p for p in pools(model)):
        return ()
    return tuple(s for s in cands[1:] if frozenset(s) in named)


def uncertainty(model: Model, spec: Spec | None = None) -> tuple[Uncertain, ...]:
    """Every uncertain parameter of ``model`` (module docstring), issue width first, then classes, then rules."""
    spec = spec or load_spec()
    out: list[Uncertain] = []
    widths = spec.issue_width.get(model.name)
    if widths is not None and not model.in_order:
        alts = tuple(w for w in widths[0] if w != model.issue_width)
        if alts:
            out.append(Uncertain("issue_width", "value", model.issue_width, alts, "issue width", widths[1]))
    for name in sorted(model.classes):
        row = model.classes[name]
        tier = spec.tier_of(row.source)
        lats = _latencies(row.latency, tier, tier.latency)
        if lats:
            out.append(Uncertain(f"classes.{name}", "latency", row.latency, lats, tier.name, row.source))
        if tier.ports and not model.in_order and any(not u.role for u in row.ports):
            sets = _named_sets(model, name)
            if sets:
                cur = next(u.units for u in row.ports if not u.role)
                out.append(Uncertain(f"classes.{name}", "ports", cur, sets, tier.name, row.source))
    r = model.rules
    rules = {"store_forwarding": (r.store_forward_latency, r.store_forward_source),
             "vector_store_forwarding": (r.vector_store_forwarding.latency, r.vector_store_forwarding.source)
             if r.vector_store_forwarding else None,
             "rmw_forwarding": (r.rmw_forwarding.latency, r.rmw_forwarding.source) if r.rmw_forwarding else None,
             "memory_renaming": (r.memory_renaming.latency, r.memory_renaming.source) if r.memory_renaming else None}
    for name in FORWARDING:
        if rules[name] is None:
            continue
        lat, source = rules[name]
        tier = spec.tier_of(source)
        lats = _latencies(lat, replace(tier, min_latency=1), tier.forwarding)
        if lats:
            out.append(Uncertain(f"rules.{name}", "latency", lat, lats, tier.name, source))
    return tuple(out)


@dataclass(frozen=True)
class Member:
    """One perturbed model and what moved in it: (parameter name, nominal, drawn value)."""
    model: Model
    changes: tuple[tuple[str, Any, Any], ...]


@dataclass(frozen=True)
class Ensemble:
    nominal: Model
    members: tuple[Member, ...]
    seed: int
    params: tuple[Uncertain, ...]

    @property
    def models(self) -> tuple[Model, ...]:
        return tuple(m.model for m in self.members)


def _apply(raw: dict, model: Model, p: Uncertain, value: Any) -> None:
    """Write ``value`` for ``p`` into the raw table ``raw`` (a row of the loader's own schema)."""
    if p.row == "issue_width":
        raw["issue_width"] = int(value)
        return
    table, _, name = p.row.partition(".")
    row = raw[table][name]
    if p.field == "latency":
        row["latency"] = float(value)
        return
    nominal = model.classes[name]
    ports = tuple(Uop(u.role, tuple(value)) if not u.role else u for u in nominal.ports)
    row["ports"] = [str(u) for u in ports]
    row["rthroughput"] = round(derived_rthroughput(replace(nominal, ports=ports), model), 6)


def member(model: Model, params: Sequence[Uncertain], rng: random.Random, keep: float, name: str) -> Member:
    """One member: every parameter kept with probability ``keep``, else one of its values; built by the loader."""
    raw = model_table(model.name)
    raw["name"] = name
    raw.pop("aliases", None)
    changes = []
    for p in params:
        draw = rng.random()
        value = p.nominal if draw < keep else p.values[rng.randrange(len(p.values))]
        if value != p.nominal:
            _apply(raw, model, p, value)
            changes.append((p.name, p.nominal, value))
    return Member(model_from_table(raw, model.path), tuple(changes))


def ensemble(model: Model, *, members: int | None = None, seed: int = 0, spec: Spec | None = None) -> Ensemble:
    """``members`` perturbed models of ``model`` (module docstring), the same for the same seed."""
    spec = spec or load_spec()
    n = spec.members if members is None else members
    if n < 1:
        raise Sha1optError("an ensemble needs at least one member")
    try:
        same = model_from_table(model_table(model.name), model.path) == model
    except Sha1optError:
        same = False
    if not same:                # a model in memory (a fit not written, a member) has no table to perturb
        raise Sha1optError(f"{model.name}: not a model file as loaded: no ensemble of it")
    params = uncertainty(model, spec)
    out = tuple(member(model, params, random.Random(f"{model.name}:{seed}:{k}"), spec.keep, f"{model.name}~{k}")
                for k in range(n))
    return Ensemble(model, out, seed, params)


@dataclass(frozen=True)
class Spread:
    """One candidate's figure on the nominal model and on every member of an ensemble (cycles)."""
    nominal: float
    values: tuple[float, ...]

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return float(statistics.median(self.values))

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def worst(self) -> float:
        """The robust statistic: the highest figure, nominal included."""
        return max(self.high, self.nominal)

    def text(self, scale: float = 1.0, unit: str = "cycles", digits: int = 1) -> str:
        """``ensemble of 12: 281.0 / 290.5 / 301.2 cycles (min / median / max)``, figures divided by ``scale``
        (``text(64, "c/B", 2)``: per byte of a 64-byte block)."""
        lo, med, hi = (f"{v / scale:.{digits}f}" for v in (self.low, self.median, self.high))
        return f"ensemble of {len(self.values)}: {lo} / {med} / {hi} {unit} (min / median / max)"

    def json(self) -> dict:
        return {"nominal": self.nominal, "min": self.low, "median": self.median, "max": self.high,
                "members": list(self.values)}


def spread_of(cost: Callable[[Model], float], ens: Ensemble) -> Spread:
    """``cost`` (a model -> cycles of one candidate) on the nominal model and on every member."""
    return Spread(cost(ens.nominal), tuple(cost(m) for m in ens.models))


def robust_pick(spreads: Sequence[Spread]) -> int:
    """The index with the lowest worst case, ties by the nominal figure, then the lower index (module docstring)."""
    if not spreads:
        raise Sha1optError("no candidates to choose from")
    return min(range(len(spreads)), key=lambda k: (spreads[k].worst, spreads[k].nominal, k))
