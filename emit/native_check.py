"""One native check of a function under its interface, whatever its contract's kind.

A block function's state is compared with SHA-1 (``confirm``); a multi-buffer
function's every lane (``lanes_confirm``); a stitched AES-CBC + SHA-1
function's hash, then its ciphertext and iv (``cbc_confirm``). Callers --
``analyze`` confirming a failed proof, ``bench/lift_mutants`` judging a
mutant -- ask ``native_finding``, never one of the three by the contract's
kind.

Example: ``native_finding(uo, "sha1_multi_block", 0, work, parse_interface("(lanes, messages, groups)"))`` runs
``lanes_finding``: a ``Finding`` for the first record on which a lane differs from SHA-1, else None.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from sha1opt.semantics.lift.function import FunctionProof
from sha1opt.semantics.lift.interface import ABI_OF, Interface
from sha1opt.semantics.lift.witness import ENV
from sha1opt.emit.cbc_confirm import cbc_finding
from sha1opt.emit.confirm import Finding, Unavailable, confirm
from sha1opt.emit.lanes_confirm import lanes_finding
from sha1opt.emit.objfile import UserObject


def split_words(symbols: Mapping[str, bytes] | None) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A path's witness (``lift.witness``) as (data symbols' bytes, environment variables' values)."""
    items = (symbols or {}).items()
    return ({k: v for k, v in items if not k.startswith(ENV)}, {k[len(ENV):]: v for k, v in items if k.startswith(ENV)})


def native_finding(uo: UserObject, function: str, min_blocks: int, workdir: Path, interface: Interface,
                   symbols: Mapping[str, bytes] | None = None,
                   lifted: FunctionProof | None = None) -> Finding | Unavailable | None:
    """The first record on which the function (run with the data symbols ``symbols`` gives: one dispatch path)
    leaves other than its contract says, or why it could not run (``Unavailable``), or None when all agree.
    ``symbols`` may hold a path's environment (``witness.ENV`` entries): the block check's hosted archive harness
    runs with those variables set and no others."""
    symbols, environment = split_words(symbols)
    contract = interface.contract(ABI_OF[uo.arch])
    if contract.multi_buffer:
        return lanes_finding(uo, function, workdir, symbols=symbols)
    found = confirm(uo, function, min_blocks, workdir, interface=interface, symbols=symbols, lifted=lifted,
                    environment=environment)
    if contract.cbc and not isinstance(found, Finding):
        return cbc_finding(uo, function, workdir, symbols=symbols)
    return found
