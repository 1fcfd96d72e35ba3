"""Targets and the instruction vocabulary: what synthesis is asked to compute, and with what.

A *target* (``TARGETS``) is a formula over inputs that live in fixed
registers (b=ebx, c=ecx, d=edx, e=ebp, W=eax) and says where the result
goes: any register the code may write (``f1 f2 f3``, ``w-word``) or e's
register (``*-into-e``: e + f(b,c,d); ``*-round``: e + f + K + W). A
*setting* (``Setting``) says how many free temporaries there are (esi, edi,
eax, r8d, ... minus input registers), the ISA level (``base`` i386,
``bmi1`` adds andn, ``bmi2`` adds rorx; ``features.ISA_LEVELS``, each level
including the ones before it) and whether input registers may be
overwritten (``destroy``); with ``destroy`` off they are read-only -- never
written, not even to be restored.

"Minimal" is relative to the vocabulary (``space_for`` builds it): mov,
add, sub, and, or, xor, not, lea (base+index, scale 1, and with the
target's constants as displacement), andn (bmi1), the target's constants as
immediates, and rotates/shifts/bswap only with the counts the target itself
uses (rol $n; rorx $(32-n) on bmi2). No memory operands, no ``ror``
spelling (``ror $k`` is ``rol $(32-k)``), no lea scale other than 1.
Whether an ISA level has an instruction is the semantics table's ``isa``
column (``isa_has``), nothing else.

Example: ``TARGETS["f3-into-e"]`` is ``e + ((b & c) | (d & (b | c)))`` with
the result in ebp; under ``Setting(temps=1)`` esi is the one temporary and
ebp the only input register that may be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sha1opt.search.synth.explore import Space
from sha1opt.semantics.errors import Sha1optError, UnsupportedError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import MASK32, Builder, Term, reachable, variables
from sha1opt.semantics.sha1 import F_FORMS, K
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg, required_isa

ISAS: tuple[str, ...] = ISA_LEVELS
TEMP_ORDER = ("esi", "edi", "eax", "r8d", "r9d", "r10d", "r11d", "r12d")


@dataclass(frozen=True)
class Target:
    """One synthesis target (see the module docstring); ``TARGETS`` holds the built-in ones."""

    name: str
    formula: str                         # user grammar over the input variables
    inputs: tuple[tuple[str, str], ...]  # (variable, register), in lane order
    output: str | None                   # the result's register, or None: any register the code may write
    about: str


def _make_targets() -> dict[str, Target]:
    forms = {"f1": F_FORMS["f1"]["select"], "f2": F_FORMS["f2"]["parity"], "f3": F_FORMS["f3"]["or-form"]}
    words = {"f1": "choose", "f2": "parity", "f3": "majority"}
    bcd = (("b", "ebx"), ("c", "ecx"), ("d", "edx"))
    e, w = ("e", "ebp"), ("w", "eax")
    out: dict[str, Target] = {}
    for i, (k, form) in enumerate(forms.items()):
        out[k] = Target(k, form, bcd, None, f"{words[k]} f(b,c,d) = {form} in any writable register")
        out[f"{k}-into-e"] = Target(f"{k}-into-e", f"e + ({form})", bcd + (e,), "ebp",
                                    f"e += {words[k]}(b,c,d), the result in e's register (ebp)")
        out[f"{k}-round"] = Target(f"{k}-round", f"e + ({form}) + {K[i]:#x} + w", bcd + (e, w), "ebp",
                                   f"e += {words[k]}(b,c,d) + K + W (W in eax), the round minus rol(a,5)")
    out["w-word"] = Target("w-word", "rol(w3 ^ w8 ^ w14 ^ w16, 1)",
                           (("w3", "eax"), ("w8", "ebx"), ("w14", "ecx"), ("w16", "edx")), None,
                           "the next message word W = rol(w3 ^ w8 ^ w14 ^ w16, 1) in any writable register")
    return out


TARGETS: dict[str, Target] = _make_targets()


@dataclass(frozen=True)
class Setting:
    """How many temporaries, which ISA level, and whether inputs may be overwritten (checked on creation)."""

    temps: int
    isa: str = "base"
    destroy: bool = False

    def __post_init__(self) -> None:
        if self.isa not in ISAS:
            raise Sha1optError(f"unknown ISA level {self.isa!r}; expected one of {', '.join(ISAS)}")
        if not 0 <= self.temps <= len(TEMP_ORDER):
            raise Sha1optError(f"temps must be 0..{len(TEMP_ORDER)}, got {self.temps}")


@dataclass(frozen=True)
class Vocabulary:
    """The target's constants and counts: what immediates, rotates, shifts and bswap the vocabulary has.

    Example: ``vocabulary_of(parse("rol(w3 ^ w8, 1)"))`` has ``rotates=(1,)``
    and no immediates (a count is not an immediate operand).
    """

    immediates: tuple[int, ...]
    rotates: tuple[int, ...]      # rol counts (ror n is rol 32-n)
    shl: tuple[int, ...]
    shr: tuple[int, ...]
    bswap: bool


def vocabulary_of(term: Term) -> Vocabulary:
    """Constants and counts the target uses; rotate/shift counts must be constants."""
    b = term.builder
    imms: set[int] = set()
    rot: set[int] = set()
    shl: set[int] = set()
    shr: set[int] = set()
    swap = False
    counts: set[int] = set()
    for i in reachable([term]):
        n = b.nodes[i]
        if n.op in ("rol", "ror", "shl", "shr"):
            c = b.nodes[n.args[1]]
            if c.op != "const":
                raise UnsupportedError(f"synthesis needs constant {n.op} counts")
            k = c.payload & 31
            counts.add(n.args[1])
            if k == 0:
                continue
            {"rol": rot, "shl": shl, "shr": shr}.get(n.op, rot).add(k if n.op != "ror" else 32 - k)
        elif n.op == "bswap":
            swap = True
    for i in reachable([term]):
        n = b.nodes[i]
        if n.op == "const" and i not in counts:
            imms.add(n.payload)
    return Vocabulary(tuple(sorted(imms)), tuple(sorted(rot)), tuple(sorted(shl)), tuple(sorted(shr)), swap)


def temps_for(target: Target, n: int) -> tuple[str, ...]:
    used = {r for _, r in target.inputs}
    free = [r for r in TEMP_ORDER if r not in used]
    if n > len(free):
        raise Sha1optError(f"at most {len(free)} temporaries for {target.name}")
    return tuple(free[:n])


def space_for(target: Target, setting: Setting, builder: Builder | None = None) -> Space:
    """The enumeration space of one target under one setting (see the module docstring).

    Example: ``space_for(TARGETS["f1"], Setting(1))`` has variables b, c, d
    in ebx, ecx, edx (read-only), one temporary esi that is the only
    writable register and the only output, and a vocabulary of every
    instruction writing esi.
    """
    b = builder or Builder()
    term = parse(target.formula, b)
    names = [v for v, _ in target.inputs]
    stray = sorted(set(variables([term])) - set(names))
    if stray:
        raise Sha1optError(f"target {target.name}: variable {stray[0]!r} has no register")
    in_regs = tuple(r for _, r in target.inputs)
    temps = temps_for(target, setting.temps)
    if setting.destroy:
        writable = in_regs + temps
    else:
        writable = ((target.output,) if target.output in in_regs else ()) + temps
    if target.output is not None:
        if target.output not in writable:
            raise Sha1optError(f"target {target.name}: output {target.output} is not writable")
        outputs: tuple[str, ...] = (target.output,)
    else:
        outputs = writable if setting.destroy else temps
    voc = vocabulary_of(term)
    instrs = _instructions(writable, in_regs + temps, setting.isa, voc)
    return Space(tuple(names), dict(target.inputs), temps, writable, outputs, tuple(instrs), term)


def _instructions(writable: Sequence[str], readable: Sequence[str], isa: str, voc: Vocabulary) -> list[Instr]:
    R = {r: Reg(r) for r in readable}
    out: list[Instr] = []
    add = lambda m, *ops: out.append(Instr(m, tuple(ops)))  # noqa: E731
    for d in writable:
        D = R[d]
        for s in readable:
            if s == d:
                add("xor", D, D)        # the zero idiom (sub r,r is the same value)
                add("add", D, D)        # doubling; and/or/mov r,r are no-ops
                continue
            for m in ("add", "sub", "and", "or", "xor"):
                add(m, R[s], D)
            add("mov", R[s], D)
        add("not", D)
        for k in voc.immediates:
            for m in ("add", "sub", "and", "or", "xor", "mov"):
                add(m, Imm(k), D)
        for i, s1 in enumerate(readable):
            for s2 in readable[i:]:     # lea is commutative in base and index
                add("lea", Mem(R[s1], R[s2]), D)
                for k in voc.immediates:
                    add("lea", Mem(R[s1], R[s2], 1, _disp(k)), D)
            for k in voc.immediates:
                add("lea", Mem(R[s1], None, 1, _disp(k)), D)
        if isa_has(isa, "andn"):
            for s1 in readable:
                for s2 in readable:
                    if s1 != s2:
                        add("andn", R[s2], R[s1], D)   # D = ~s1 & s2
        for n in voc.rotates:
            add("rol", Imm(n), D)
            if isa_has(isa, "rorx"):
                for s in readable:
                    add("rorx", Imm(32 - n), R[s], D)
        for n in voc.shl:
            add("shl", Imm(n), D)
        for n in voc.shr:
            add("shr", Imm(n), D)
        if voc.bswap:
            add("bswap", D)
    return out


def _disp(k: int) -> int:
    """A constant as a signed 32-bit displacement (how GNU as spells it)."""
    k &= MASK32
    return k - (1 << 32) if k >= 1 << 31 else k


def isa_has(isa: str, mnemonic: str) -> bool:
    """Whether ISA level ``isa`` has ``mnemonic``: its table row's level is ``isa`` or below.

    Example: ``isa_has("bmi1", "andn")`` and ``not isa_has("bmi1", "rorx")``.
    """
    return ISA_LEVELS.index(required_isa(Instr(mnemonic, ()))) <= ISA_LEVELS.index(isa)
