"""Whole functions in AT&T syntax, for the cost models: straight-line code plus the control around it.

Nothing is proved from a ``Listing``: every proof reads machine code
(``semantics.lift``). What reads text this way is cost work only -- the
peers' loop (``emit.peers.gcc_reference_loop``: gcc -S of our C SHA-1),
the calibration's variants (``emit.calibration.loop_items``) and
``bench/cost_fidelity.py``. ``Opaque`` (``semantics.opaque``) is the cost
models' item for an instruction without value semantics; this module is the
one place its operands are read from text (``opaque_operands``: here, and
for the AT&T text of decoded machine code in ``search.cost.items``), once,
into typed operands.

A SHA-1 function -- ours or gcc's -- pushes and pops registers, counts
blocks and branches back. This module reads such text into a ``Listing``:
table instructions become ``x86.Instr``, a fixed set of control, stack and
compare instructions, and any instruction naming an xmm/ymm/zmm register,
become ``Opaque`` items (no value semantics, but the registers they read and
write), labels are kept, and anything else is refused with ``file:line`` and
the mnemonic.

``Listing.loop()`` finds the block loop: the last backward conditional
branch, its target label, and the body in between (loop-control
instructions -- pointer advance, counter update, compare -- and any other
opaque item split off into ``control``), which is what gets costed per block.

Numbers (local labels ``1:``/``1b``, register numbers, objdump addresses)
are ASCII digits only, as in ``att.py``.

Invariant: ``items`` keeps source order; ``labels[name]`` is the index of the
item the label precedes; an ``Opaque`` is never given to an interpreter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sha1opt.semantics.att import (LABEL, integer, parse_statement, refuse_non_ascii_digits, split_operands,
                                   strip_block_comments)
from sha1opt.semantics.errors import ParseError, UnsupportedError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.opaque import TARGET_KINDS, Label, Opaque, OpaqueOperand, Symbol
from sha1opt.semantics.x86 import (BYTE_NAMES, I386_REGS, R64_TO_R32, WORD_NAMES, X64_EXTRA, Arch, Imm, Instr, Mem,
                                   Reg)

_CONDITIONS = ("o no b c nae ae nb nc e z ne nz be na a nbe s ns p pe np po l nge ge nl le ng g nle").split()
BRANCHES = {"j" + c for c in _CONDITIONS}
# Opaque mnemonics: name -> kind. Suffixed spellings (pushq, decl, cmpq...) are folded.
OPAQUE_KINDS: dict[str, str] = {
    "push": "stack", "pop": "stack", "ret": "return", "call": "call", "leave": "stack",
    "jmp": "jump", "cmp": "compare", "test": "compare", "dec": "counter", "inc": "counter",
    "nop": "nop", "endbr64": "nop", "endbr32": "nop", "movzbl": "move", "movzwl": "move",
    "cltq": "move", "cdqe": "move", "movslq": "move", "xchg": "move", "int3": "nop", "ud2": "nop",
    **{b: "branch" for b in BRANCHES},
}
# AT&T operand shapes, read once here into typed operands (``opaque``): a register, a memory operand with a
# numeric displacement, and the registers any other operand names.
_REGISTER = re.compile(r"%([a-z0-9]+)")
_MEMORY = re.compile(r"(?P<disp>[^()%$*:]*)\((?P<base>%[a-z0-9]+)?(?:,(?P<index>%[a-z0-9]+)?(?:,(?P<scale>[0-9]))?)?\)")
_VECTOR = re.compile(r"([xyz])mm([0-9]+)")
_BY_SPELLING = {**{v: Reg(k, 8) for k, v in BYTE_NAMES.items()}, **{v: Reg(k, 16) for k, v in WORD_NAMES.items()},
                **{r: Reg(r, 32) for r in I386_REGS + X64_EXTRA}, **{k: Reg(v, 64) for k, v in R64_TO_R32.items()}}


Item = Instr | Opaque


@dataclass
class Loop:
    head: int                       # index of the first body item (the branch target)
    branch: int                     # index of the backward conditional branch
    body: list[Instr]               # straight-line body without loop control
    control: list[Item]             # the loop-control items that were split off


@dataclass
class Listing:
    arch: Arch
    filename: str
    items: list[Item] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    # GNU local labels ("1:") may repeat; "1b"/"1f" pick the nearest one.
    numeric_labels: dict[str, list[int]] = field(default_factory=dict)

    def resolve(self, target: str | None, at: int) -> int | None:
        """Item index a branch at index ``at`` to ``target`` goes to, if known."""
        if target is None:
            return None
        m = re.fullmatch(r"([0-9]+)([bf])", target)
        if m:
            spots = self.numeric_labels.get(m.group(1), [])
            if m.group(2) == "b":
                back = [p for p in spots if p <= at]
                return back[-1] if back else None
            fwd = [p for p in spots if p > at]
            return fwd[0] if fwd else None
        return self.labels.get(target)

    def loop(self) -> Loop:
        """The block loop: the last backward conditional branch and its body (opaque items in ``control``)."""
        for i in range(len(self.items) - 1, -1, -1):
            it = self.items[i]
            if isinstance(it, Opaque) and it.kind == "branch":
                head = self.resolve(it.target, i)
                if head is not None and head <= i:
                    return _split_loop(self, head, i)
        raise UnsupportedError(f"{self.filename}: no loop (backward conditional branch) found")


def _fold(word: str) -> str | None:
    w = word.lower()
    if w in OPAQUE_KINDS:
        return w
    if w[-1:] in ("l", "q", "w", "b") and w[:-1] in OPAQUE_KINDS and w[:-1] not in BRANCHES:
        return w[:-1]
    return None


def _is_pointer_advance(it: Item) -> bool:
    """``add $64, %rsi`` / ``addl $64, 68(%esp)`` / ``lea 64(%rsi), %rsi``: moving to the next block."""
    if not isinstance(it, Instr):
        return False
    if it.mnemonic in ("add", "sub") and isinstance(it.operands[0], Imm) and it.operands[0].value in (64, 0xFFFFFFC0):
        return True
    if it.mnemonic == "lea" and isinstance(it.operands[0], Mem) and it.operands[0].disp == 64:
        m = it.operands[0]
        return m.index is None and isinstance(it.operands[1], Reg) and m.base is not None and m.base.name == it.operands[1].name
    return False


def _split_loop(listing: Listing, head: int, branch: int) -> Loop:
    """Body = items[head:branch] minus the trailing loop control."""
    items = listing.items[head:branch]
    control: list[Item] = []
    # Walk back from the branch over control: compares, counters, pointer
    # advances (and a counter kept in a register: sub $1 / dec).
    k = len(items)
    while k > 0:
        it = items[k - 1]
        if isinstance(it, Opaque) and it.kind in ("compare", "counter", "nop"):
            k -= 1
        elif _is_pointer_advance(it) or (isinstance(it, Instr) and it.mnemonic == "sub"
                                         and isinstance(it.operands[0], Imm) and it.operands[0].value == 1):
            k -= 1
        else:
            break
    control = list(items[k:])
    body = []
    for it in items[:k]:
        if isinstance(it, Opaque):
            if it.kind != "nop":
                control.append(it)
            continue
        body.append(it)
    return Loop(head, branch, body, control)


def parse_listing(text: str, arch: Arch, filename: str = "<input>") -> Listing:
    lst = Listing(arch, filename)
    for lineno, raw in enumerate(strip_block_comments(text).splitlines(), start=1):
        code = raw.split("#", 1)[0]
        refuse_non_ascii_digits(code, filename, lineno)
        for stmt in code.split(";"):
            while True:
                m = LABEL.match(stmt)
                if not m:
                    break
                name = m.group(1)
                if name.isascii() and name.isdigit():
                    lst.numeric_labels.setdefault(name, []).append(len(lst.items))
                else:
                    lst.labels[name] = len(lst.items)
                stmt = stmt[m.end():]
            s = stmt.strip()
            if not s:
                continue
            word, _, rest = s.replace("\t", " ").partition(" ")
            prefix = word.lower() in ("rep", "repz", "repe", "notrack", "bnd", "lock")
            if prefix:
                word, _, rest = rest.strip().partition(" ")
            op = _fold(word) if not word.startswith(".") else None
            if op is None and re.search(r"%[xyz]mm[0-9]", rest):
                # SIMD code (e.g. gcc vectorising the state update): costed as
                # an opaque instruction, never given semantics.
                lst.items.append(Opaque(word.lower(), opaque_operands(rest, False), lineno, "vector"))
                continue
            if op is not None:
                kind = OPAQUE_KINDS[op]
                lst.items.append(Opaque(op, opaque_operands(rest, kind in TARGET_KINDS), lineno, kind))
                continue
            try:
                ins = parse_statement(s, arch, lineno)
            except (ParseError, UnsupportedError) as e:
                raise type(e)(clip(f"{filename}:{lineno}: {e}")) from None
            if ins is not None:
                lst.items.append(ins)
    return lst


def opaque_operands(text: str, branch: bool) -> tuple[OpaqueOperand, ...]:
    """The typed operands of an opaque item's operand list (``opaque_operand`` each); ``branch``: its first
    operand is a target."""
    return tuple(opaque_operand(o, branch and k == 0) for k, o in enumerate(split_operands(text))) \
        if text.strip() else ()


def opaque_operand(text: str, target: bool = False) -> OpaqueOperand:
    """One AT&T operand as an opaque item's typed operand; nothing is refused.

    ``%reg`` is a ``Reg`` (``opaque_register``); ``$n`` an ``Imm``;
    ``disp(base,index,scale)`` with a numeric displacement a ``Mem``; a
    ``target`` without ``%``/``$``/``(``/``*`` a ``Label`` (objdump's
    ``401020 <f+0x20>`` is ``L401020``); anything else a ``Symbol`` with the
    registers it names (``.LC0(%rip)``, ``$sym``, ``*%rax``, ``%fs:0x28``).
    """
    t = text.strip()
    reg = _REGISTER.fullmatch(t.lower())
    if reg:
        return opaque_register(reg.group(1))
    if t.startswith("$") and (value := integer(t[1:])) is not None:
        return Imm(value)
    mem = _MEMORY.fullmatch(t.lower().replace(" ", ""))
    if mem and (not mem.group("disp") or integer(mem.group("disp")) is not None):
        return Mem(opaque_register(mem.group("base")[1:]) if mem.group("base") else None,
                   opaque_register(mem.group("index")[1:]) if mem.group("index") else None,
                   int(mem.group("scale") or 1), integer(mem.group("disp")) if mem.group("disp") else 0)
    if target and t and not any(c in t for c in "%$(*"):
        m = re.match(r"^([0-9a-f]+)\s*<", t)   # objdump: "401020 <f+0x20>" -> label "L401020"
        return Label("L" + (m.group(1).lstrip("0") or "0") if m else t)
    return Symbol(t, tuple(opaque_register(r) for r in _REGISTER.findall(t.lower())), "(" in t, t.startswith("$"))


def opaque_register(spelling: str) -> Reg:
    """The register spelled ``spelling`` (no ``%``, lower case) as an opaque item names it (``x86.Reg``'s
    widths): ``"al"`` -> ``Reg("eax", 8)``, ``"r9w"`` -> ``Reg("r9d", 16)``, ``"zmm3"`` -> ``Reg("xmm3", 512)``,
    ``"rip"`` / ``"ah"`` -> width 0, as written."""
    known = _BY_SPELLING.get(spelling)
    if known is not None:
        return known
    v = _VECTOR.fullmatch(spelling)
    if v:
        return Reg(f"xmm{v.group(2)}", {"x": 128, "y": 256, "z": 512}[v.group(1)])
    return Reg(spelling, 0)
