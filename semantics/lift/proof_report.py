"""A function proof's result as data: one ``PathReport`` per path, the ``FunctionProof`` of all of them.

Made by ``function.prove_function`` (and, for a multi-buffer function, from ``messages.MessagePath``); read by
``analyze``, ``scan`` and the benches. A report's facts are fields; its ``name`` is display text made from them
here only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sha1opt.semantics.lift.decode import Decoded
from sha1opt.semantics.lift.interface import Contract
from sha1opt.semantics.lift.values import Category
from sha1opt.semantics.lift.verdict import Outcome

# What a path is, from where exploration ended it:
#   "loop"              at a loop head: the induction (or the multi-block invariant) over the loop
#   "no loop"           at ret, in a function without a block loop: nblocks = 0 a no-op
#   "loop not entered"  at ret, in a function with one: the path that skips it (nblocks = 0)
#   "one block"         at ret, under a one-block interface: state := compress(state, block)
#   "stopped"           before a loop head or ret: refused, a contract violation, the step limit (``category``)
PathKind = Literal["loop", "no loop", "loop not entered", "one block", "stopped"]
PATH_KINDS: tuple[PathKind, ...] = ("loop", "no loop", "loop not entered", "one block", "stopped")


@dataclass(frozen=True)
class PathReport:
    """One path of the function and what its proof gave, as data.

    ``label`` is the dispatch symbol the path ends in (the symbol holding its last instruction: a
    loop's head is in it); ``head`` the loop head's address for a ``"loop"`` path, else None;
    ``cuts`` the cut points its compression checks proved (``verdict.Verdict.cuts``); ``category``
    why the executor stopped it, for a path ``"stopped"`` or a loop whose iteration was (else None).
    ``name`` is the display text, made from ``kind``, ``head`` and ``label`` here only: e.g.
    ``loop at 0x13e0 (_ssse3_shortcut)``, ``entry -> ret, loop not entered``, or the label of a
    stopped path.
    """

    kind: PathKind
    label: str
    head: int | None
    condition: str
    outcome: Outcome
    detail: str
    instructions: int
    seconds: float
    cuts: int = 0
    category: Category | None = None
    # An exit path that ends in code other than the function's own symbol: where (``sub_<address>`` in
    # stripped code), so that one-block dispatch paths have names of their own.
    via: str | None = None
    # Capability words that take this path: a model of its condition over the undefined symbols'
    # bytes (``OPENSSL_ia32cap_P``), for native runs of this path (``emit.confirm`` ``symbols``).
    witness: tuple[tuple[str, bytes], ...] = ()
    # A loop path: one whole iteration (a path from the head back to it, every path of the iteration
    # lifted: what a cost model may price) and the data bytes it consumes; or () and ``unlifted``, why not.
    # A one-block path: the whole path, entry to ret.
    trace: tuple[Decoded, ...] = ()
    block_bytes: int = 64
    unlifted: str | None = None
    # A compression that does not hold: the earliest spec definition no value of the code matches
    # (``verdict.Verdict.first_wrong``, e.g. "A31": the new a of round 30).
    first_wrong: str | None = None
    # The function pointers this path jumped or called through and the value it took (``calls``):
    # each value of a pointer is a path of its own, named by it.
    pointers: tuple[tuple[str, str], ...] = ()
    # A refused path that ends in a jump to this function outside the object (a function pointer's value)
    # with the caller's arguments, callee-saved registers and stack intact: its proof is that function's
    # own, under ``callee``: the caller's contract with any constant arguments the path adds
    # (``handoff.passed_contract``; ``analyze`` takes it from the archive member defining it).
    outside: str | None = None
    callee: Contract | None = None

    @property
    def name(self) -> str:
        through = "".join(f" [{var} = {target}]" for var, target in self.pointers)
        if self.kind == "loop":
            return f"loop at 0x{self.head:x} ({self.label})" + through
        if self.kind == "stopped":
            return self.label + through
        return f"entry -> ret, {self.kind}" + (f" (via {self.via})" if self.via else "") + through


@dataclass(frozen=True)
class FunctionProof:
    function: str
    arch: str
    contract: Contract
    paths: tuple[PathReport, ...]
    seconds: float
    loop_trace: tuple[Decoded, ...] = ()         # one whole iteration of the first loop lifted whole (cost models)
    straight: tuple[Decoded, ...] = ()           # the whole path when there is no loop
    findings: tuple[str, ...] = ()
    # Every path reached its loop head with nblocks neither tested nor held anywhere (and some did): the code
    # overwrote the argument, a constant (``SHA1_Transform``: ``mov $1, %edx``): a one-block function.
    nblocks_unread: bool = False
    # The object's own globals a PLT call or GOT slot was taken to (``Decoded.bound``), or a function pointer's
    # value was (``pointers.Target.bound``): the proof holds where no other object interposes those names.
    assumes: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        return bool(self.paths) and all(p.outcome == "proved" for p in self.paths)

    @property
    def outcome(self) -> Outcome:
        for o in ("refused", "counterexample", "unknown", "not checked"):
            if any(p.outcome == o for p in self.paths):
                return o  # type: ignore[return-value]
        return "proved" if self.paths else "unknown"

    @property
    def refusal(self) -> str | None:
        return next((p.detail for p in self.paths if p.outcome == "refused"), None)

    def loop_paths(self) -> list[PathReport]:
        """One report per loop (its ``head`` and ``label``), in order: of several paths to one loop (OpenSSL's
        i386 integer loop, reached with and without SSE), the longest whole iteration; a loop none of whose
        paths was lifted whole is kept too, its ``trace`` empty and its ``unlifted`` saying why."""
        best: dict[tuple, PathReport] = {}
        for p in self.paths:
            key = (p.head, p.label)
            if p.kind == "loop" and (key not in best or len(p.trace) > len(best[key].trace)):
                best[key] = p
        return list(best.values())


__all__ = ["PathKind", "PATH_KINDS", "PathReport", "FunctionProof"]
