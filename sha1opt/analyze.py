"""Analysis of an AT&T SHA-1 block function: predicted cost per microarchitecture, and whether it is proved.

``analyze_file(path, uarchs, arch)`` reads any AT&T-syntax file -- written by
hand, by gcc, or by sha1opt -- with ``semantics.listing``. When the file has
a block loop, the loop from its head to its backward branch (body and loop
control) is simulated as a loop in steady state, 64 bytes per iteration;
otherwise the whole listing is simulated once. Each requested model gives
one ``Analysis`` (cycles per block and per byte, the bottleneck, the
simulation itself), in the order asked.

"Proved" is decided once per file, never per model: the loop body (or the
whole straight-line listing) is checked against SHA-1's compression
function with ``semantics.block.prove_block`` under the frame
contract of ``search.space.frame.block_bindings(arch)`` (x86-64: %rdi state,
%rsi data, %rsp frame; i386: frame at %esp with the state and data pointers
at 64 and 68). Invariant: ``proved`` is True only when that check returned
``ok``; every other outcome -- a counterexample, an unknown, code that does
not follow the contract, code the checker cannot run -- is "not proved"
with the reason.

Errors: an unparsable or unsupported line raises the parser's error
(``file:line: ...``); an unknown model name raises ``UarchError``. A model
that lacks an extension the code uses (BMI1 ``andn`` on a Pentium) is not an
error of the file: that model's ``Analysis`` carries ``error`` instead of a
cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from sha1opt.semantics.att import read_source
from sha1opt.semantics.block import prove_block
from sha1opt.semantics.errors import Sha1optError, UnsupportedError
from sha1opt.semantics.listing import Listing, parse_listing_file
from sha1opt.semantics.x86 import Arch, Instr
from sha1opt.search.cost.simulator import Simulation, simulate
from sha1opt.search.cost.model import UarchError, load_model
from sha1opt.search.space.frame import block_bindings
from sha1opt.emit.assembly import guess_arch

BLOCK_BYTES = 64


@dataclass(frozen=True)
class Proof:
    proved: bool
    text: str           # "proved (160 cuts, 85 solver calls, 0.10 s)" or "not proved (reason)"


@dataclass(frozen=True)
class Analysis:
    uarch: str
    arch: Arch
    loop: bool                      # True: steady-state cycles per loop iteration (one block)
    instructions: int               # items simulated per iteration
    cycles: float | None            # None when the model cannot run the code (see error)
    cycles_per_byte: float | None
    bottleneck: str
    proof: Proof
    simulation: Simulation | None
    error: str | None = None

    @property
    def proved(self) -> bool:
        return self.proof.proved


def code_under_test(listing: Listing) -> tuple[list, bool, list[Instr] | None, str]:
    """(items to simulate, is a loop, straight-line body to prove or None, why no body)."""
    try:
        lp = listing.loop()
    except UnsupportedError:
        items = list(listing.items)
        body = [it for it in items if isinstance(it, Instr)]
        why = "" if len(body) == len(items) else "the file has no block loop and contains control instructions"
        return items, False, (body if not why else None), why
    return list(listing.items[lp.head:lp.branch + 1]), True, list(lp.body), ""


def prove_body(body: Sequence[Instr] | None, arch: Arch, why_not: str = "") -> Proof:
    """Check ``body`` is one SHA-1 block under the frame contract; never claims more than the checker said."""
    if body is None:
        return Proof(False, f"not proved ({why_not})")
    if not body:
        return Proof(False, "not proved (no instructions to check)")
    inputs, outputs, pointers = block_bindings(arch)
    try:
        res = prove_block(body, inputs, outputs, pointers)
    except Sha1optError as e:
        return Proof(False, f"not proved (does not follow the {arch} frame contract: {e})")
    if res.ok:
        return Proof(True, f"proved SHA-1 ({res.cuts} cuts, {res.solver_calls} solver calls, {res.seconds:.2f} s)")
    outcome = type(res.outcome).__name__.lower()
    where = f" at {res.failure.describe()}" if res.failure else ""
    hint = f"; first value never computed: {res.missing}" if res.missing else ""
    return Proof(False, f"not proved ({outcome}{where}{hint})")


def analyze_file(path: str | Path, uarchs: Sequence[str], arch: Arch | None = None) -> list[Analysis]:
    """One ``Analysis`` per model in ``uarchs`` for the function in ``path`` (``arch`` guessed when None)."""
    p = Path(path)
    if arch is None:
        arch = guess_arch(read_source(p))     # bounded read: limits.SOURCE_BYTES, regular files only
    models = [load_model(u) for u in uarchs]   # unknown names fail before any work
    listing = parse_listing_file(p, arch)
    items, is_loop, body, why = code_under_test(listing)
    proof = prove_body(body, arch, why)
    n = len(items)
    out: list[Analysis] = []
    for m in models:
        try:
            sim = simulate(items, m, loop=is_loop, bytes_per_iteration=BLOCK_BYTES)
        except UarchError as e:
            out.append(Analysis(m.name, arch, is_loop, n, None, None, "n/a", proof, None, str(e)))
            continue
        out.append(Analysis(m.name, arch, is_loop, n, sim.cycles, sim.cycles_per_byte, sim.bottleneck, proof, sim))
    return out

