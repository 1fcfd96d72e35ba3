"""Verdicts this process already reached: a proof of the same inputs, under the same table and code, made once.

``VerdictMemo(watched).remembered(key, prove, kept)`` returns the result an earlier call with an equal
*whole key* gave and ``kept`` accepted (a proof that proved), else calls ``prove()`` and keeps its result
when ``kept(result)``. The whole key is the caller's ``key`` (what the proof is of: an object's content,
a unit's instructions, the contract ...) and what every verdict also depends on:

* the semantics table's content (``semantics_key``): every row of ``x86.SEMANTICS`` with its value
  function's bytecode, constants and closure (``_canonical``) -- a row
  replaced (a test's ``sub`` computed as ``add``) is another key;
* what the prover reads by name at run time (``bindings``): every module-level name of the ``watched``
  packages' loaded modules (``sha1opt.semantics``, ``z3``, and the caller's own modules) and their
  classes' attributes, by identity -- a function monkeypatched anywhere the prover looks it up
  (``z3.SolverFor``, ``ObjectFile.parse``) is another key. The memo holds those values while an entry
  names them, so an identity is never reused by another object.

Only results ``kept`` accepts are kept: an unknown (a solver timeout on a loaded machine) or a
refutation is proved again on the next call. At most ``size`` entries (the least recently used is
dropped). Nothing is written to disk: the memo ends with the process. Users: ``emit.proof_memo`` (the
whole-function proofs of exported and analyzed objects), ``search.space.shani.prove_code``.

Example: ``m = VerdictMemo(("sha1opt.semantics", "z3")); m.remembered(("f", 1), slow, ok)`` twice calls
``slow`` once when its result is ok; with ``x86.SEMANTICS["sub"]`` replaced in between, twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import threading
import types
from array import array
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import z3

from sha1opt.semantics.x86 import SEMANTICS

PROVER = ("sha1opt.semantics", "z3")            # the packages every prover here reads at run time


class VerdictMemo:
    """Results kept under their whole key (module docstring); ``watched``: the packages whose names count."""

    def __init__(self, watched: tuple[str, ...] = PROVER, size: int = 64) -> None:
        self.watched, self.size = tuple(watched), size
        self._entries: OrderedDict[tuple, tuple[Any, tuple]] = OrderedDict()
        self._snapshots: dict[str, tuple] = {}      # digest of the bindings' identities -> those values (held)
        self._lock = threading.Lock()               # (a proof runs outside it: two threads may prove one thing)

    def remembered(self, key: tuple, prove: Callable[[], Any], kept: Callable[[Any], bool]) -> Any:
        values = bindings(self.watched)
        ids = hashlib.sha256(array("Q", map(id, values)).tobytes()).hexdigest()
        whole = (key, semantics_key(), ids)
        with self._lock:
            hit = self._entries.get(whole)
            if hit is not None:
                self._entries.move_to_end(whole)
                return hit[0]
        result = prove()
        if kept(result):
            with self._lock:
                held = self._snapshots.setdefault(ids, tuple(values))    # (one tuple per state of the bindings)
                self._entries[whole] = (result, held)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
                live = {w[-1] for w in self._entries}
                for gone in [d for d in self._snapshots if d not in live]:
                    del self._snapshots[gone]
        return result


def semantics_key() -> str:
    """sha256 of the semantics table's content: each row's fields, its value function as code (``_code``)."""
    return digest({m: _canonical(row) for m, row in SEMANTICS.items()})


def bindings(watched: tuple[str, ...] = PROVER) -> list:
    """Every module-level value of the ``watched`` packages' loaded modules, and every attribute of the classes
    they define, in the modules' own order: a name rebound anywhere changes the identities of this list."""
    z3.main_ctx()          # (made lazily by z3: a first proof would otherwise change the key it is kept under)
    below = tuple(w + "." for w in watched)
    out: list = []
    for mod_name, mod in list(sys.modules.items()):          # (insertion order: a name added or moved is a miss)
        if mod_name in watched or mod_name.startswith(below):
            for value in list(vars(mod).values()):
                out.append(value)
                if isinstance(value, type) and value.__module__ == mod_name:
                    out.extend(vars(value).values())
    return out


def digest(value) -> str:
    """sha256 of a JSON-able value (``frozen``), the same in every process."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def frozen(value):
    """A JSON-able form of a value: bytes by their sha256, dataclasses, mappings and sets ordered."""
    if isinstance(value, (bytes, bytearray)):
        return "sha256:" + hashlib.sha256(value).hexdigest()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: frozen(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return [[frozen(k), frozen(v)] for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))]
    if isinstance(value, (set, frozenset)):
        return sorted((frozen(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [frozen(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return [type(value).__qualname__, repr(value)]


def _canonical(value, depth: int = 0):
    """``frozen`` that also reads functions: module, name, code, defaults and closure (``_code``)."""
    if depth > 8:                                   # (a closure that holds itself)
        return "..."
    if isinstance(value, types.FunctionType):
        cells = []
        for cell in value.__closure__ or ():
            try:
                cells.append(_canonical(cell.cell_contents, depth + 1))
            except ValueError:                      # an empty cell
                cells.append("<empty>")
        return {"fn": f"{value.__module__}.{value.__qualname__}", "code": _code(value.__code__),
                "defaults": _canonical(value.__defaults__, depth + 1), "closure": cells}
    if isinstance(value, types.CodeType):
        return _code(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        return [[frozen(k), _canonical(v, depth + 1)] for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))]
    return frozen(value)


def _code(code: types.CodeType) -> dict:
    return {"bytes": code.co_code.hex(), "names": list(code.co_names),
            "consts": [_code(c) if isinstance(c, types.CodeType) else frozen(c) for c in code.co_consts]}
