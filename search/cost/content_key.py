"""A content key for a model's predictions: what the cost of a schedule depends on, hashed.

``fingerprint(model)`` is 12 hex digits of sha256 over (1) a canonical JSON
form of the model's data -- dataclasses as objects, every set sorted,
mappings by sorted key, no file path -- and (2) the source text of the cost
engine's modules (``ENGINE_MODULES``). Equal keys mean equal predictions:
changing a TOML row, or any line of the simulator, changes the key, without
a hand-bumped version constant. The key does not depend on the process
(no ``repr`` of a set, no hash seed) or on where the files live.

Example: ``fingerprint(load_model("p4")) == fingerprint(load_model("p4-northwood"))``
(the same model); ``dataclasses.replace(m, window=m.window + 1)`` gets a
different key; so does the same model after an edit to ``ooo.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from sha1opt.search.cost import (allocation, attribution, classes, decode, execute, floor, inorder, model, ooo, rules,
                                 simulator)
from sha1opt.search.cost.model import Model

# Every module whose code decides a predicted cycle count.
ENGINE_MODULES = (model, rules, classes, decode, inorder, ooo, execute, allocation, attribution, floor, simulator)


def canonical(obj):
    """A JSON-able form of ``obj`` (a model or part of one) that is the same in every process."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name != "path"}
    if isinstance(obj, Mapping):
        return {str(k): canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (set, frozenset)):
        return sorted((canonical(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    return obj


@functools.lru_cache(maxsize=1)
def engine_source_digest() -> str:
    """sha256 of the engine modules' source text, in ``ENGINE_MODULES`` order (read once per process)."""
    h = hashlib.sha256()
    for mod in ENGINE_MODULES:
        h.update(mod.__name__.encode() + b"\0")
        h.update(Path(mod.__file__).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def fingerprint(m: Model) -> str:
    """12 hex digits naming ``m``'s data and the engine's code (see the module docstring)."""
    text = json.dumps(canonical(m), sort_keys=True, separators=(",", ":")) + "|" + engine_source_digest()
    return hashlib.sha256(text.encode()).hexdigest()[:12]
