"""Instruction selection: a ``Recipe`` of choices -> the operations of a round range.

Every way of writing a round that sha1opt considers is a choice here, and
each choice rests on a corpus identity (``corpus/identities.toml``, proved
by ``sha1opt prove --corpus``) named in ``JUSTIFIED_BY``:

* ``f1``: ``select`` -- d ^ (b & (c ^ d)), one temporary, 4 ops + add;
  ``andn`` (BMI1) -- (b & c) + andn(b, d), two independent terms each added
  into e; ``ands-xor`` -- (b & c) + ((b & d) ^ d), the same split on the base ISA.
* ``f2``: parity, with the first xor operand chosen (``bc`` / ``cd`` / ``bd``).
* ``f3``: ``or`` -- (b & c) | (d & (b | c)), two temporaries;
  ``sum`` -- (b & c) + (d & (b ^ c)) as two additions into e, one temporary.
* ``rol5``: ``mov-rol``, ``mov-ror`` (ror 27), ``rorx`` (BMI2, no mov), ``inplace`` (OpenSSL's SSSE3
  rounds: ``rol $5, a; add a, e`` with no copy, where the next round's f starts from a copy of its b --
  f2 ``bc``/``bd``, f3 -- that copy is taken from a before the rotate, and the next round's rotate of b
  is ``ror 7`` / ``rol 25`` (rol5 then ror7 is rol30): one ``mov`` less per such round, a rounds-only
  ALU uop on the CPUs without move elimination (Core 2, Nehalem); elsewhere, and in a range's last
  round, ``mov-rol``).
* ``brot``: ``ror`` 2 or ``rol`` 30.
* ``kw`` (how K and W reach e): ``lea`` K(e,w) / ``add`` of w then K /
  ``wk``: K added into the W temporary first, then one add into e (keeps
  e's chain one add shorter; what gcc does for slow-lea CPUs).
* ``wsrc``: the W recurrence W[t-3]^W[t-8]^W[t-14]^W[t-16]: memory-operand
  xors starting from W[t-3] (``mem``, the textbook), or ending with it
  (``late``: the recurrence through the ring is then one xor and the rotate
  after the store-to-load forward, not four), loads into a second temporary
  (``load``), or W[t-3] kept in a register since it was made (``reg3``: no
  store-to-load forward on the recurrence at all; three more live temporaries),
  or kept and xored into in place (``inplace``, OpenSSL's x86-64 integer form:
  W[t-3]'s register becomes W[t], so the recurrence needs no load at all).

Beside these hand-named choices, every proved row of ``corpus/discovered.toml``
for f1/f2/f3 (into e, or into a temporary then added; inputs kept) is an
option of its kind's field, named and justified by the row
(``search.space.synthesized``); ``recipes_for`` lists the named ones only
unless asked (the product with them is too large to list), the annealer
reaches the rest one field at a time.

Operations use the physical registers of a..e (names rotate per round, as
``search.space.frame`` does) and *virtual* temporaries ``Reg("v<n>")``, which
``regalloc`` maps to physical registers after ``order`` has chosen the
instruction order. The ops of a range, in generation order, are a valid
program (the textbook order when the recipe is the textbook's).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from itertools import product

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.sha1 import k_const, kind
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.semantics.x86 import Arch, Imm, Instr, Mem, Reg, isa_of
from sha1opt.search.space.frame import I386_DATA_SLOT, I386_STATE_SLOT, RING, state_regs
from sha1opt.search.space.synthesized import SynthesizedOption, instantiate, synthesized_options
from sha1opt.search.synth.discovered import load_discovered

KINDS = ("f1", "f2", "f3")
# The hand-named choices per field. Which ISA level an option needs is not written here:
# it is read off the instructions the option generates (``option_isa``).
NAMED_OPTIONS: dict[str, tuple[str, ...]] = {
    "f1": ("select", "andn", "ands-xor"),
    "f2": ("bc", "cd", "bd"),
    "f3": ("or", "sum"),
    "rol5": ("mov-rol", "mov-ror", "rorx", "inplace"),
    "brot": ("ror", "rol"),
    "kw": ("lea", "add", "wk"),
    "wsrc": ("mem", "late", "load", "reg3", "inplace"),
}
# The proved rows of corpus/discovered.toml for f1/f2/f3 (``synthesized``), as further f options.
SYNTHESIZED: dict[str, dict[str, SynthesizedOption]] = synthesized_options(load_discovered())
# Every choice per field: the named ones, then the synthesized ones (by row name).
OPTIONS: dict[str, tuple[str, ...]] = {f: opts + tuple(SYNTHESIZED.get(f, {})) for f, opts in NAMED_OPTIONS.items()}
JUSTIFIED_BY: dict[tuple[str, str], str] = {
    ("f1", "select"): "f1-select-is-or-of-ands",
    ("f1", "andn"): "f1-andn-two-adds",
    ("f1", "ands-xor"): "andn-without-bmi1",
    ("f2", "bc"): "f2-parity-reassociates",
    ("f2", "cd"): "f2-parity-reassociates",
    ("f2", "bd"): "f2-parity-reassociates",
    ("f3", "or"): "f3-or-of-three",
    ("f3", "sum"): "f3-split-into-e",
    ("rol5", "mov-rol"): "rol5-is-ror27",
    ("rol5", "mov-ror"): "rol5-is-ror27",
    ("rol5", "rorx"): "rol5-is-ror27",
    ("rol5", "inplace"): "rol5-then-ror7-is-rol30",
    ("brot", "ror"): "rol30-is-ror2",
    ("brot", "rol"): "rol30-is-ror2",
    ("kw", "lea"): "lea-reassociation",
    ("kw", "add"): "lea-reassociation",
    ("kw", "wk"): "lea-reassociation",
    ("wsrc", "mem"): "rol-distributes-over-xor",
    ("wsrc", "load"): "rol-distributes-over-xor",
    ("wsrc", "late"): "rol-distributes-over-xor",
    ("wsrc", "reg3"): "rol-distributes-over-xor",
    ("wsrc", "inplace"): "rol-distributes-over-xor",
}
# A synthesized option rests on its discovered row (proved by Z3 when synth found it; the tests prove every row again).
JUSTIFIED_BY.update({(f, name): name for f, opts in SYNTHESIZED.items() for name in opts})


def isa_rank(level: str) -> int:
    """Position of an ISA level in ``features.ISA_LEVELS`` (base < bmi1 < bmi2)."""
    return ISA_LEVELS.index(level)


@dataclass(frozen=True)
class Recipe:
    f1: str = "select"
    f2: str = "bc"
    f3: str = "or"
    rol5: str = "mov-rol"
    brot: str = "ror"
    kw: str = "lea"
    wsrc: str = "mem"

    def isa(self) -> str:
        """The ISA level this recipe needs: the highest any of its options needs."""
        return ISA_LEVELS[max(isa_rank(option_isa(f.name, getattr(self, f.name))) for f in fields(self))]

    def key(self) -> str:
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))

    @staticmethod
    def parse(text: str) -> "Recipe":
        r = Recipe()
        for item in filter(None, text.split(",")):
            k, _, v = item.partition("=")
            if k not in OPTIONS or v not in OPTIONS[k]:
                raise Sha1optError(f"bad recipe item {item!r}")
            r = replace(r, **{k: v})
        return r


TEXTBOOK = Recipe()


@functools.cache
def option_isa(field_name: str, option: str) -> str:
    """The ISA level of the code one option generates, asked of the semantics table.

    The option is generated for a whole block on both architectures with every
    other field at the textbook's choice, and ``x86.isa_of`` reads the level
    off the instructions (``f1=andn`` -> ``bmi1`` because ``andn`` is BMI1).
    """
    if option not in OPTIONS.get(field_name, ()):
        raise Sha1optError(f"bad recipe item {field_name}={option}")
    synth = SYNTHESIZED.get(field_name, {}).get(option)
    if synth is not None:       # the row's own instructions (the add into e is base)
        return isa_of(synth.code)
    r = replace(Recipe(), **{field_name: option})
    return ISA_LEVELS[max(isa_rank(isa_of(op.ins for op in range_ops(0, 79, r, arch))) for arch in ("i386", "x86_64"))]


def options_for(field_name: str, isa: str) -> list[str]:
    """The options of one field that the ISA level has."""
    return [o for o in OPTIONS[field_name] if isa_rank(option_isa(field_name, o)) <= isa_rank(isa)]


def recipes_for(isa: str, synthesized: bool = False) -> list[Recipe]:
    """Every recipe of named options whose instructions the ISA level has (with ``synthesized``: of
    every option -- a product of hundreds of thousands once the discovered corpus is in; the
    annealer reaches them one field at a time through ``options_for``)."""
    names = [f.name for f in fields(Recipe)]
    pick = options_for if synthesized else (lambda n, i: [o for o in options_for(n, i) if o in NAMED_OPTIONS[n]])
    return [Recipe(**dict(zip(names, combo))) for combo in product(*(pick(n, isa) for n in names))]


@dataclass(frozen=True)
class Op:
    """One instruction of a range, with where it came from (for drawing and priorities)."""

    ins: Instr
    round: int
    chain: str   # "W" (message schedule), "f" (round function), "a5" (rol a,5), "kw", "b" (rotate b)


class _Gen:
    def __init__(self, arch: Arch) -> None:
        self.arch = arch
        self.sp = Reg("esp", 64 if arch == "x86_64" else 32)
        self.data = Reg("esi", 64) if arch == "x86_64" else None
        self.ops: list[Op] = []
        self.nv = 0

    def v(self) -> Reg:
        self.nv += 1
        return Reg(f"v{self.nv}")

    def emit(self, t: int, chain: str, m: str, *ops) -> None:
        self.ops.append(Op(Instr(m, tuple(ops)), t, chain))

    def emit_all(self, t: int, chain: str, code: list[Instr]) -> None:
        self.ops += [Op(ins, t, chain) for ins in code]

    def ring(self, j: int) -> Mem:
        return Mem(self.sp, None, 1, RING + 4 * (j % 16))


def keeps_for_next(t: int, recipe: Recipe, last: int) -> bool:
    """Whether W_t stays in its register for W_{t+3} (``wsrc`` ``reg3`` / ``inplace``, W_{t+3} in the range)."""
    return recipe.wsrc in ("reg3", "inplace") and 16 <= t + 3 <= last


def ring_read_later(t: int, recipe: Recipe, last: int) -> bool:
    """Whether W_t (t >= 16) must be stored into the ring: some later W reads it from there.

    W_t is read by W_{t+3}, W_{t+8}, W_{t+14} and W_{t+16}; the last three always from the
    ring, W_{t+3} from the register when the recipe keeps it there (``keeps_for_next``). So
    W_72..76 need no store when W_{t+3} takes them from the register, as OpenSSL's x86-64
    integer code does, and W_77..79 never do. Example: ``wsrc=inplace``, rounds 60-79:
    W_71 is stored (W_79 reads it from the ring), W_72 is not; with ``wsrc=mem`` W_72..76 are.
    """
    if t + 8 <= 79:
        return True
    return t + 3 <= 79 and not keeps_for_next(t, recipe, last)


def hoists_copy(t: int, recipe: Recipe, last: int) -> bool:
    """Whether round t rotates a in place (``rol5=inplace``): round t+1 is in the range and its f starts
    from a copy of its b (a_t), which round t then takes before the rotate -- f2 ``bc``/``bd`` (b read
    once) or a named f3 (b read twice: the second copy is made from the first). Synthesized f rows and
    f1 never: their reads of b are not one leading copy."""
    if recipe.rol5 != "inplace" or t >= last:
        return False
    k1 = kind(t + 1)
    if SYNTHESIZED[k1].get(getattr(recipe, k1)) is not None:
        return False
    return k1 == "f3" or (k1 == "f2" and recipe.f2 in ("bc", "bd"))


def range_ops(first: int, last: int, recipe: Recipe, arch: Arch) -> list[Op]:
    """Operations of rounds first..last (inclusive) in generation (textbook) order.

    Entry state: a..e in ``state_regs(first)``; W_0..15 in the ring for
    i386 (the body prologue copies them) and in ``data`` for x86-64; the
    ring holds W_{t-16}..W_{t-1} when first >= 16.
    """
    if not 0 <= first <= last <= 79:
        raise Sha1optError(f"round range {first}-{last} is not within 0-79")
    g = _Gen(arch)
    wreg: dict[int, Reg] = {}   # W words kept in registers (wsrc="reg3")
    pre: Reg | None = None      # round t-1's copy of a_{t-1} (this round's b) taken before its in-place rol5
    for t in range(first, last + 1):
        a, b, c, d, e = state_regs(t)
        k = kind(t)
        # -- W_t into a temporary w ------------------------------------------
        w = g.v()
        if t < 16:
            if arch == "x86_64":
                g.emit(t, "W", "mov", Mem(g.data, None, 1, 4 * t), w)
                g.emit(t, "W", "bswap", w)
                g.emit(t, "W", "mov", w, g.ring(t))
            else:
                g.emit(t, "W", "mov", g.ring(t), w)
        else:
            kept = wreg.get(t - 3) if recipe.wsrc in ("reg3", "inplace") else None
            if recipe.wsrc in ("late", "reg3"):
                sources = (t - 8, t - 14, t - 16, t - 3)     # the newest word last
            else:
                sources = (t - 3, t - 8, t - 14, t - 16)
            if recipe.wsrc == "inplace" and kept is not None:
                w = kept                                      # W[t-3]'s register becomes W[t]: no load
                for j in sources[1:]:
                    g.emit(t, "W", "xor", g.ring(j), w)
            else:
                g.emit(t, "W", "mov", g.ring(sources[0]), w)
            for j in sources[1:] if recipe.wsrc != "inplace" or kept is None else ():
                if j == t - 3 and kept is not None:
                    g.emit(t, "W", "xor", kept, w)
                elif recipe.wsrc == "load":
                    x = g.v()
                    g.emit(t, "W", "mov", g.ring(j), x)
                    g.emit(t, "W", "xor", x, w)
                else:
                    g.emit(t, "W", "xor", g.ring(j), w)
            g.emit(t, "W", "rol", Imm(1), w)
            if ring_read_later(t, recipe, last):
                g.emit(t, "W", "mov", w, g.ring(t))
        if keeps_for_next(t, recipe, last):
            wreg[t] = w   # read again by W_{t+3}: keep it, so w must not be modified below
        # -- K and W into e ---------------------------------------------------
        if recipe.kw == "lea":
            g.emit(t, "kw", "lea", Mem(e, w, 1, k_const(t)), e)
        elif recipe.kw == "wk":
            if t in wreg:   # w is still needed: K goes into a copy made by a 2-term lea
                x = g.v()
                g.emit(t, "kw", "lea", Mem(w, None, 1, k_const(t)), x)
                g.emit(t, "kw", "add", x, e)
            else:
                g.emit(t, "kw", "add", Imm(k_const(t)), w)
                g.emit(t, "kw", "add", w, e)
        else:
            g.emit(t, "kw", "add", w, e)
            g.emit(t, "kw", "add", Imm(k_const(t)), e)
        # -- f into e ----------------------------------------------------------
        synth = SYNTHESIZED[k].get(getattr(recipe, k))
        if synth is not None:
            g.emit_all(t, "f", instantiate(synth, {"b": b.name, "c": c.name, "d": d.name, "e": e.name}, g.v))
        elif k == "f1":
            if recipe.f1 == "select":
                f = g.v()
                g.emit(t, "f", "mov", c, f)
                g.emit(t, "f", "xor", d, f)
                g.emit(t, "f", "and", b, f)
                g.emit(t, "f", "xor", d, f)
                g.emit(t, "f", "add", f, e)
            else:
                x, y = g.v(), g.v()
                if recipe.f1 == "andn":
                    g.emit(t, "f", "andn", d, b, x)       # x = ~b & d
                else:
                    g.emit(t, "f", "mov", b, x)
                    g.emit(t, "f", "and", d, x)
                    g.emit(t, "f", "xor", d, x)           # x = (b & d) ^ d = ~b & d
                g.emit(t, "f", "add", x, e)
                g.emit(t, "f", "mov", c, y)
                g.emit(t, "f", "and", b, y)
                g.emit(t, "f", "add", y, e)
        elif k == "f2":
            first_two = {"bc": (b, c, d), "cd": (c, d, b), "bd": (b, d, c)}[recipe.f2]
            if pre is not None:          # b's copy from before round t-1's rotate (``hoists_copy``)
                f = pre
            else:
                f = g.v()
                g.emit(t, "f", "mov", first_two[0], f)
            g.emit(t, "f", "xor", first_two[1], f)
            g.emit(t, "f", "xor", first_two[2], f)
            g.emit(t, "f", "add", f, e)
        elif pre is not None:            # f3 from b's copy taken before round t-1's rotate: the second copy from it
            x, y = pre, g.v()
            g.emit(t, "f", "mov", x, y)
            g.emit(t, "f", "and", c, x)
            if recipe.f3 == "or":
                g.emit(t, "f", "or", c, y)
                g.emit(t, "f", "and", d, y)
                g.emit(t, "f", "or", x, y)
                g.emit(t, "f", "add", y, e)
            else:
                g.emit(t, "f", "add", x, e)
                g.emit(t, "f", "xor", c, y)
                g.emit(t, "f", "and", d, y)
                g.emit(t, "f", "add", y, e)
        else:
            if recipe.f3 == "or":
                x, y = g.v(), g.v()
                g.emit(t, "f", "mov", b, x)
                g.emit(t, "f", "and", c, x)
                g.emit(t, "f", "mov", b, y)
                g.emit(t, "f", "or", c, y)
                g.emit(t, "f", "and", d, y)
                g.emit(t, "f", "or", x, y)
                g.emit(t, "f", "add", y, e)
            else:
                x, y = g.v(), g.v()
                g.emit(t, "f", "mov", b, x)
                g.emit(t, "f", "and", c, x)
                g.emit(t, "f", "add", x, e)
                g.emit(t, "f", "mov", b, y)
                g.emit(t, "f", "xor", c, y)
                g.emit(t, "f", "and", d, y)
                g.emit(t, "f", "add", y, e)
        # -- rol(a, 5) into e --------------------------------------------------
        rotated = pre is not None       # b holds rol5(b): round t-1 rotated it in place
        pre = None
        if hoists_copy(t, recipe, last):
            pre = g.v()
            g.emit(t, "a5", "mov", a, pre)          # round t+1's copy of its b, before a is rotated
            g.emit(t, "a5", "rol", Imm(5), a)
            g.emit(t, "a5", "add", a, e)
            g.emit(t, "b", *_brot(recipe, rotated), b)
            continue
        r = g.v()
        if recipe.rol5 == "rorx":
            g.emit(t, "a5", "rorx", Imm(27), a, r)
        else:
            g.emit(t, "a5", "mov", a, r)
            left = recipe.rol5 != "mov-ror"         # mov-rol, and inplace where it does not apply
            g.emit(t, "a5", "rol" if left else "ror", Imm(5 if left else 27), r)
        g.emit(t, "a5", "add", r, e)
        # -- b <- rol(b, 30) (rol5 already in it: ror 7 / rol 25) -------------------------------------------
        g.emit(t, "b", *_brot(recipe, rotated), b)
    return g.ops


def _brot(recipe: Recipe, rotated: bool) -> tuple[str, Imm]:
    """b's rotate to rol30(b): ``ror 2`` / ``rol 30``; when b holds rol5(b) (``rol5=inplace``) ``ror 7`` / ``rol 25``."""
    if recipe.brot == "ror":
        return "ror", Imm(7 if rotated else 2)
    return "rol", Imm(25 if rotated else 30)


def prologue(arch: Arch) -> list[Instr]:
    """Block entry: (i386) copy the block into the ring byte-swapped, then load a..e.

    On x86-64 the whole prologue is the five loads of a..e, which the emitter runs once, before the
    block loop (``frame.LOOP_CARRIES_STATE``)."""
    sp = Reg("esp", 64 if arch == "x86_64" else 32)
    out: list[Instr] = []
    if arch == "x86_64":
        state = Reg("edi", 64)
    else:
        src = Reg("esi")
        out.append(Instr("mov", (Mem(sp, None, 1, I386_DATA_SLOT), src)))
        for j in range(16):
            out.append(Instr("mov", (Mem(src, None, 1, 4 * j), Reg("eax"))))
            out.append(Instr("bswap", (Reg("eax"),)))
            out.append(Instr("mov", (Reg("eax"), Mem(sp, None, 1, RING + 4 * j))))
        out.append(Instr("mov", (Mem(sp, None, 1, I386_STATE_SLOT), src)))
        state = src
    for i, r in enumerate(state_regs(0)):
        out.append(Instr("mov", (Mem(state, None, 1, 4 * i), r)))
    return out


def epilogue(arch: Arch, temp: Reg) -> list[Instr]:
    """Feed-forward: state[i] += a..e and store (i386 reloads the state pointer into ``temp``)."""
    out: list[Instr] = []
    if arch == "x86_64":
        state = Reg("edi", 64)
    else:
        out.append(Instr("mov", (Mem(Reg("esp"), None, 1, I386_STATE_SLOT), temp)))
        state = temp
    for i, r in enumerate(state_regs(80)):
        out.append(Instr("add", (Mem(state, None, 1, 4 * i), r)))
        out.append(Instr("mov", (r, Mem(state, None, 1, 4 * i))))
    return out
