"""Canonical forms: one representative per class of sequences that differ only in unimportant ways.

Two sequences are the same solution when one becomes the other by renaming
the temporaries and reordering independent instructions. ``canonical_form``
picks, over every renaming of the temporaries, the lexicographically least
dependence-preserving order (``least_order``: destination's writable index,
then text), and the least of those. Dependences are read after write, write
after read and write after write, from the semantics table
(``x86.reads``/``x86.writes``), except that a *zero idiom* (``xor r,r`` or
``sub r,r``: the result is 0 whatever ``r`` held) reads nothing
(``value_reads``); the enumerator uses the same rule for its dead-write and
partial-order pruning, so the two agree on what "independent" means.

Invariant: sequences equal up to temp renaming and reordering of
independent instructions have the same canonical form, and the canonical
form computes the same value into the (renamed) output.

Example, temps (esi, edi), majority with the result in edi: ``mov %ebx,%edi;
and %ecx,%edi; mov %ebx,%esi; or %ecx,%esi; and %edx,%esi; or %esi,%edi``
has the canonical form ``mov %ebx,%esi; and %ecx,%esi; mov %ebx,%edi;
or %ecx,%edi; and %edx,%edi; or %edi,%esi`` with the result in esi (esi and
edi swap names; the two independent halves keep their order, esi's first).
"""

from __future__ import annotations

import itertools
import re
from typing import Protocol, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, reads, rename, writes


class Registers(Protocol):
    """What canonical forms need of a search space (``explore.Space`` has it)."""

    @property
    def temps(self) -> tuple[str, ...]: ...

    @property
    def writable(self) -> tuple[str, ...]: ...


def zero_idiom(ins: Instr) -> bool:
    """``xor r,r`` / ``sub r,r``: the result is 0 whatever ``r`` held."""
    return ins.mnemonic in ("xor", "sub") and len(ins.operands) == 2 and ins.operands[0] == ins.operands[1]


def value_reads(ins: Instr) -> set[str]:
    """The registers whose values the result depends on: ``x86.reads``, or none for a zero idiom."""
    return set() if zero_idiom(ins) else reads(ins)


def canonical_form(program: Sequence[Instr], out: str, space: Registers) -> tuple[tuple[Instr, ...], str]:
    """The canonical form of ``program`` with its result in ``out``, and where the result then is
    (see the module docstring)."""
    best: tuple[tuple[str, ...], tuple[Instr, ...], str] | None = None
    # Compare with temporaries spelled by their rank, so the first temp (esi) is preferred.
    rank = {f"%{t}": f"%~{k}" for k, t in enumerate(space.temps)}
    spell = re.compile("|".join(re.escape(t) + r"\b" for t in rank)) if rank else None
    for perm in itertools.permutations(space.temps):
        ren = dict(zip(space.temps, perm))
        prog = least_order([rename(i, ren) for i in program], space)
        key = tuple(spell.sub(lambda m: rank[m.group(0)], str(i)) if spell else str(i) for i in prog)
        key += (ren.get(out, out),)
        if best is None or key < best[0]:
            best = (key, prog, ren.get(out, out))
    if best is None:   # pragma: no cover - permutations() always yields at least one
        raise Sha1optError("no renaming of the temporaries")
    return best[1], best[2]


def least_order(prog: Sequence[Instr], space: Registers) -> tuple[Instr, ...]:
    """The lexicographically least order of ``prog`` that keeps every dependence (a topological sort
    that always takes the ready instruction with the lowest destination index, then text)."""
    rd = [value_reads(i) for i in prog]
    wr = [writes(i) for i in prog]
    preds = [{j for j in range(k) if wr[j] & (rd[k] | wr[k]) or wr[k] & rd[j]} for k in range(len(prog))]
    rank = {r: i for i, r in enumerate(space.writable)}
    placed: set[int] = set()
    order: list[int] = []
    while len(order) < len(prog):
        ready = [k for k in range(len(prog)) if k not in placed and preds[k] <= placed]
        k = min(ready, key=lambda k: (rank.get(next(iter(wr[k])), -1), str(prog[k])))
        placed.add(k)
        order.append(k)
    return tuple(prog[k] for k in order)
