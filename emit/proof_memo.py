"""The whole-function proofs this process already made: the same object, proved the same way, proved once.

Export, tuning, calibration, ``demo`` and ``bench`` validate the same emitted code again and again (the
textbook export of each arch, the dispatching export and ``prove --object`` of the file written), and
the proof (``lift.function.prove_function``, seconds of Z3) is the costly check. ``remembered(prove,
obj, name, contract, paths)`` returns the proof an earlier call with an equal key *proved* in this
process, else calls ``prove(obj, name, contract, paths=paths)`` and keeps its result when it proved.

The key is everything the verdict depends on (``key``):

* the object: every field of the ``ObjectFile`` (sections, symbols, relocations, line table ...;
  ``object_key``; not the DWARF sections, which name the temporary folder a source was assembled in):
  a symbol added to a parsed object (``scan``'s stripped functions) is another key;
* the function's name, the contract (ABI, arguments, nblocks range) and the paths asked for;
* the prover function called (``prove``: a wrapper around ``prove_function`` is another key);
* the semantics table's content (``semantics_key``): every row of ``x86.SEMANTICS`` with its value
  function's code, constants and closure, hashed as ``search.cost.content_key`` hashes a model -- a row
  replaced (a test's ``sub`` computed as ``add``) is another key;
* what the prover reads by name at run time (``bindings``): every module-level name of the
  ``sha1opt.semantics`` modules and of ``z3`` (and their classes' attributes), by identity -- a function
  monkeypatched anywhere the prover looks it up (``z3.SolverFor``, ``ObjectFile.parse``) is another key.
  The memo holds those objects while it holds the key, so an identity is never reused by another object.

Only proofs that proved are kept: an unknown (a solver timeout on a loaded machine) or a refutation is
proved again on the next call. At most ``SIZE`` entries (the least recently used is dropped). Nothing is
written to disk: the memo ends with the process.

Example: ``export(textbook("x86_64"), F)`` then ``export(textbook("x86_64"), G)`` in one process prove
the object once (the same bytes, contract and table); with ``x86.SEMANTICS["sub"]`` replaced in between,
the second export proves again.
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

import z3

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract, FunctionProof
from sha1opt.semantics.x86 import SEMANTICS

SIZE = 64                                      # proofs kept (the least recently used dropped first)
WATCHED = ("sha1opt.semantics", "z3")          # the packages whose names the prover reads at run time
_SUBMODULES = tuple(w + "." for w in WATCHED)

_memo: OrderedDict[tuple, tuple[FunctionProof, Callable, tuple]] = OrderedDict()
_snapshots: dict[str, tuple] = {}              # digest of the bindings' identities -> those values (held)
_lock = threading.Lock()                       # (a proof runs outside it: two threads may prove one object)


def remembered(prove: Callable[..., FunctionProof], obj: ObjectFile, name: str | None, contract: Contract,
               paths: frozenset[str] | None = None) -> FunctionProof:
    """``prove(obj, name, contract, paths=paths)``, or the proof an equal call already proved (module docstring)."""
    k, values = key(prove, obj, name, contract, paths)
    with _lock:
        hit = _memo.get(k)
        if hit is not None:
            _memo.move_to_end(k)
            return hit[0]
    proof = prove(obj, name, contract, paths=paths)
    if proof.proved:
        with _lock:
            held = _snapshots.setdefault(k[-1], tuple(values))     # (one tuple per state of the bindings)
            _memo[k] = (proof, prove, held)
            while len(_memo) > SIZE:
                _memo.popitem(last=False)
            live = {kept[-1] for kept in _memo}
            for gone in [d for d in _snapshots if d not in live]:
                del _snapshots[gone]
    return proof


def key(prove: Callable, obj: ObjectFile, name: str | None, contract: Contract,
        paths: frozenset[str] | None) -> tuple[tuple, list]:
    """(the key, the values whose identities its last part digests: held with the entry, with ``prove``)."""
    values = bindings()
    ids = hashlib.sha256(array("Q", map(id, values)).tobytes()).hexdigest()
    return (id(prove), object_key(obj), name, contract, paths, semantics_key(), ids), values


def object_key(obj: ObjectFile) -> str:
    """sha256 of every field of ``obj`` (bytes as their own sha256), in a form the same in every process.

    A relocatable object's DWARF sections are left out, and its raw ELF bytes with them: they name the
    temporary file and folder the source was assembled in (``analyze`` of one ``.S`` twice gives two
    ``.debug_str``), which no verdict reads. What the prover reads of them, the line table
    (``ObjectFile.lines``), is in the key. A linked object's raw bytes stay in (its segments are read).
    """
    fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if obj.relocatable:
        del fields["elf_bytes"]
        for name in ("sections", "addresses", "alignments", "relocs"):
            fields[name] = {k: v for k, v in fields[name].items() if not _debug(k)}
        fields["executable"] = {k for k in fields["executable"] if not _debug(k)}
        fields["headers"] = [h for h in fields["headers"] if not _debug(h.name)]
        fields["lines"] = obj.lines
    return _digest({k: _frozen(v) for k, v in fields.items()})


def _debug(section: str) -> bool:
    """A DWARF section or its relocations (``.debug_info``, ``.rela.debug_line``)."""
    return section.startswith((".debug_", ".rel.debug_", ".rela.debug_"))


def semantics_key() -> str:
    """sha256 of the semantics table's content: each row's fields, its value function as code (``_code``)."""
    return _digest({m: _canonical(row) for m, row in SEMANTICS.items()})


def bindings() -> list:
    """Every module-level value of the ``WATCHED`` packages' loaded modules, and every attribute of the classes
    they define, in the modules' own order: a name rebound anywhere changes the identities of this list."""
    z3.main_ctx()          # (made lazily by z3: a first proof would otherwise change the key it is kept under)
    out: list = []
    for mod_name, mod in list(sys.modules.items()):          # (insertion order: a name added or moved is a miss)
        if mod_name.startswith(WATCHED) and (mod_name in WATCHED or mod_name.startswith(_SUBMODULES)):
            for value in list(vars(mod).values()):
                out.append(value)
                if isinstance(value, type) and value.__module__ == mod_name:
                    out.extend(vars(value).values())
    return out


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _frozen(value):
    """A JSON-able form of an object's field: bytes by their sha256, dataclasses, mappings and sets ordered."""
    if isinstance(value, (bytes, bytearray)):
        return "sha256:" + hashlib.sha256(value).hexdigest()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _frozen(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return [[_frozen(k), _frozen(v)] for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))]
    if isinstance(value, (set, frozenset)):
        return sorted((_frozen(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_frozen(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return [type(value).__qualname__, repr(value)]


def _canonical(value, depth: int = 0):
    """``_frozen`` that also reads functions: module, name, code, defaults and closure (``_code``)."""
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
        return [[_frozen(k), _canonical(v, depth + 1)] for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))]
    return _frozen(value)


def _code(code: types.CodeType) -> dict:
    return {"bytes": code.co_code.hex(), "names": list(code.co_names),
            "consts": [_code(c) if isinstance(c, types.CodeType) else _frozen(c) for c in code.co_consts]}
