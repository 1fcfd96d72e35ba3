"""Whole functions in AT&T syntax, for the cost models: straight-line code plus the control around it.

Nothing is proved from a ``Listing``: every proof reads machine code
(``semantics.lift``). What reads text this way is cost work only -- the
peers' loop (``emit.peers.gcc_reference_loop``: gcc -S of our C SHA-1),
the calibration's variants (``emit.calibration.loop_items``) and
``bench/cost_fidelity.py``; ``Opaque`` is also the cost models' item for an
instruction without value semantics (``analyze.cost_items`` makes them from
decoded machine code).

A SHA-1 function -- ours or gcc's -- pushes and pops registers, counts
blocks and branches back. This module reads such text into a ``Listing``:
table instructions become ``x86.Instr``, a fixed set of control, stack and
compare instructions become ``Opaque`` items (no value semantics, but the
registers they read and write), labels are kept, and anything else is
refused with ``file:line`` and the mnemonic.

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

from sha1opt.semantics.att import (LABEL, parse_statement, refuse_non_ascii_digits, split_operands,
                                   strip_block_comments)
from sha1opt.semantics.errors import ParseError, UnsupportedError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.x86 import I386_REGS, R64_TO_R32, X64_EXTRA, Arch, Imm, Instr, Mem, Reg

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
_REG_RE = re.compile(r"%([a-z0-9]+)")


@dataclass(frozen=True, slots=True)
class Opaque:
    """An instruction with no value semantics here: control, stack, compares."""

    mnemonic: str
    operands: tuple[str, ...]
    line: int
    kind: str
    target: str | None = None   # branch/jump/call target label

    @property
    def reads(self) -> set[str]:
        regs = {_canon(r) for op in self.operands for r in _REG_RE.findall(op)}
        if self.kind in ("stack", "return", "call"):
            regs.add("esp")
        if self.kind == "branch":
            regs.add("flags")
        return {r for r in regs if r}

    @property
    def writes(self) -> set[str]:
        out: set[str] = set()
        if self.kind in ("stack", "return", "call"):
            out.add("esp")
        if self.mnemonic.startswith("pop") and self.operands:
            out |= {_canon(r) for r in _REG_RE.findall(self.operands[0])}
        if self.kind in ("counter", "move") and self.operands:
            out |= {_canon(r) for r in _REG_RE.findall(self.operands[-1]) if "(" not in self.operands[-1]}
        if self.kind in ("compare", "counter"):
            out.add("flags")
        return {r for r in out if r}

    @property
    def memory(self) -> bool:
        return any("(" in op for op in self.operands) or self.kind in ("stack", "return", "call")

    def __str__(self) -> str:
        return f"{self.mnemonic} {', '.join(self.operands)}".strip()


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


def _canon(name: str) -> str:
    n = name.lower()
    if n in R64_TO_R32:
        return R64_TO_R32[n]
    if n in I386_REGS or n in X64_EXTRA:
        return n
    small = {"al": "eax", "ah": "eax", "ax": "eax", "bl": "ebx", "bx": "ebx", "cl": "ecx", "cx": "ecx",
             "dl": "edx", "dx": "edx", "si": "esi", "di": "edi", "bp": "ebp", "sp": "esp"}
    if n in small:
        return small[n]
    m = re.fullmatch(r"r([0-9]+)[bwd]?", n)
    return f"r{m.group(1)}d" if m else ""


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
                operands = tuple(split_operands(rest)) if rest.strip() else ()
                lst.items.append(Opaque(word.lower(), operands, lineno, "vector"))
                continue
            if op is not None:
                operands = tuple(split_operands(rest)) if rest.strip() else ()
                kind = OPAQUE_KINDS[op]
                target = None
                if kind in ("branch", "jump", "call") and operands:
                    target = _target(operands[0])
                lst.items.append(Opaque(op, operands, lineno, kind, target))
                continue
            try:
                ins = parse_statement(s, arch, lineno)
            except (ParseError, UnsupportedError) as e:
                raise type(e)(clip(f"{filename}:{lineno}: {e}")) from None
            if ins is not None:
                lst.items.append(ins)
    return lst


def _target(operand: str) -> str:
    """Branch target as a label: ``.Lloop``, ``1b``/``1f`` (kept as written), or objdump's address."""
    t = operand.strip()
    m = re.match(r"^([0-9a-f]+)\s*<", t)   # objdump: "401020 <f+0x20>" -> label "L401020"
    if m:
        return "L" + (m.group(1).lstrip("0") or "0")
    return t
