"""The whole-function proofs this process already made: the same object, proved the same way, proved once.

Export, tuning, calibration, ``demo`` and ``bench`` validate the same emitted code again and again (the
textbook export of each arch in each of them), ``analyze`` proves the same file again, and the proof
(``lift.function.prove_function``, seconds of Z3) is the costly check. ``remembered(prove, obj, name,
contract, paths)`` returns the proof an earlier call with an equal key *proved* in this process, else
calls ``prove(obj, name, contract, paths=paths)`` and keeps its result when it proved
(``semantics.verdict_memo``: only what proved is kept; the semantics table's content and every name the
prover reads are in the key too).

The key of the call:

* the object: every field of the ``ObjectFile`` (sections, symbols, relocations, line table ...;
  ``object_key``; not the DWARF sections, which name the temporary folder a source was assembled in):
  a symbol added to a parsed object (``scan``'s stripped functions) is another key;
* the function's name, the contract (ABI, arguments, nblocks range) and the paths asked for;
* the prover function called (``prove``: a wrapper around ``prove_function`` is another key; the entry
  holds it, so its identity is not reused).

Example: ``export(textbook("x86_64"), F)`` then ``export(textbook("x86_64"), G)`` in one process prove
the object once (the same bytes, contract and table); with ``x86.SEMANTICS["sub"]`` replaced in between,
the second export proves again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract, FunctionProof
from sha1opt.semantics.verdict_memo import VerdictMemo, digest, frozen

_PROOFS = VerdictMemo()


def remembered(prove: Callable[..., FunctionProof], obj: ObjectFile, name: str | None, contract: Contract,
               paths: frozenset[str] | None = None) -> FunctionProof:
    """``prove(obj, name, contract, paths=paths)``, or the proof an equal call already proved (module docstring)."""
    return _PROOFS.remembered((prove, object_key(obj), name, contract, paths),
                              lambda: prove(obj, name, contract, paths=paths), lambda proof: proof.proved)


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
    return digest({k: frozen(v) for k, v in fields.items()})


def _debug(section: str) -> bool:
    """A DWARF section or its relocations (``.debug_info``, ``.rela.debug_line``)."""
    return section.startswith((".debug_", ".rel.debug_", ".rela.debug_"))
