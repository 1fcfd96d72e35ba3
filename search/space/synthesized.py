"""Synthesized sequences as instruction-selection options: the proved rows of ``corpus/discovered.toml``.

Every row that ``sha1opt synth`` proved for a round-function target the
round needs becomes one option of that kind's recipe field, named by the
row (``f3=f3-into-e/t1/base/keep/3``); the row's name is the option's
justification, as ``recipe.JUSTIFIED_BY`` names corpus identities. New rows
enter the space when the file gains them, without code changes.

Which rows (the synthesis frame: b=ebx, c=ecx, d=edx, e=ebp, temporaries
esi, edi, eax, r8d, ...):

* ``fK-into-e`` (e += f(b,c,d), result in ebp), and ``fK`` (f(b,c,d) in a
  temporary: the only one, or the register the last instruction writes, as
  ``synth`` reports it), which the round then adds into e;
* inputs kept (``destroy = false``): b, c and d are live after f, so a row
  that overwrites them is not a round's f;
* not ``fK-round`` (it also folds K and W, which the ``kw`` field chooses) or
  ``w-word``.

Instantiating an option (``instantiate``) renames ebx/ecx/edx/ebp to the
round's b, c, d, e and each temporary to a fresh virtual register (the
allocator maps them later), so a row's temporaries count against the same
budget as every other temporary. Rows whose instantiated code is the same
(e.g. the same sequence found with one and with two temporaries) are one
option, named by the first row in name order.

Example: the row ``f2-into-e/t1/base/keep/1`` (``mov %ebx, %esi; xor %ecx,
%esi; xor %edx, %esi; add %esi, %ebp``) in round 40 (b=ebx... rotated)
becomes ``mov b, v; xor c, v; xor d, v; add v, e``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from sha1opt.search.synth.discovered import Discovered
from sha1opt.semantics.x86 import Instr, Reg, rename, writes

FRAME = {"ebx": "b", "ecx": "c", "edx": "d", "ebp": "e"}
KINDS = ("f1", "f2", "f3")


@dataclass(frozen=True)
class SynthesizedOption:
    """One proved row as an f option: its code in the synthesis frame and where its result is."""

    field: str                    # "f1", "f2" or "f3"
    name: str                     # the discovered row's name: the option's name and its justification
    code: tuple[Instr, ...]       # frame registers (FRAME) and temporaries
    output: str                   # "ebp" (already into e) or the temporary holding f
    temps: tuple[str, ...]        # the temporaries, in order of first use

    @property
    def into_e(self) -> bool:
        return self.output == "ebp"


def option_of(row: Discovered) -> SynthesizedOption | None:
    """The option a row gives, or None when the row is not a round's f (see the module docstring)."""
    base, _, suffix = row.target.partition("-")
    if base not in KINDS or suffix not in ("", "into-e") or row.destroy or not row.minimal:
        return None
    code = tuple(row.program)
    temps: list[str] = []
    for ins in code:
        for op in ins.operands:
            regs = [op] if isinstance(op, Reg) else [r for r in (getattr(op, "base", None), getattr(op, "index", None))
                                                     if r is not None]
            for r in regs:
                if r.name not in FRAME and r.name not in temps:
                    temps.append(r.name)
    if suffix == "into-e":
        output = "ebp"
    elif row.temps == 1 and temps:
        output = temps[0]
    else:
        written = [r for r in writes(code[-1]) if r in temps]
        if not written:
            return None
        output = written[0]
    return SynthesizedOption(base, row.name, code, output, tuple(temps))


def synthesized_options(rows: Iterable[Discovered]) -> dict[str, dict[str, SynthesizedOption]]:
    """Per f field, the options the rows give (name -> option), one per distinct instantiated code."""
    out: dict[str, dict[str, SynthesizedOption]] = {k: {} for k in KINDS}
    seen: set[tuple] = set()
    for row in sorted(rows, key=lambda r: r.name):
        opt = option_of(row)
        if opt is None:
            continue
        shape = (opt.field, tuple(str(i) for i in instantiate(opt, {v: v for v in FRAME.values()},
                                                              _counter())))
        if shape in seen:
            continue
        seen.add(shape)
        out[opt.field][opt.name] = opt
    return out


def _counter() -> Callable[[], Reg]:
    n = [0]

    def fresh() -> Reg:
        n[0] += 1
        return Reg(f"t{n[0]}")
    return fresh


def instantiate(opt: SynthesizedOption, state: dict[str, str], fresh: Callable[[], Reg]) -> list[Instr]:
    """The option's code for one round: ``state`` maps "b", "c", "d", "e" to register names, ``fresh()``
    gives a new temporary per row temporary; ends with f added into e."""
    mapping = {reg: state[v] for reg, v in FRAME.items()}
    for t in opt.temps:
        mapping[t] = fresh().name
    code = [rename(ins, mapping) for ins in opt.code]
    if not opt.into_e:
        code.append(Instr("add", (Reg(mapping[opt.output]), Reg(state["e"]))))
    return code
