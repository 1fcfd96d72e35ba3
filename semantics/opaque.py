"""The cost models' item for an instruction without value semantics, with typed operands.

An ``Opaque`` is what the cost models price but no interpreter ever runs:
control, stack, compare and counter instructions of a listing (``listing``),
the loop control the emitters put around a block (``search.measure``), every
vector row of a block as the simulator prices it (``measure.block_items``),
and the instructions of lifted machine code the table does not model
(``search.cost.items``). ``kind`` picks its cost class (``"branch"``,
``"counter"``, ``"vector"``...).

Operands are typed, in AT&T order: ``x86.Reg`` / ``x86.Mem`` / ``x86.Imm``
(a register of any width, see ``x86.Reg``), a ``Label`` (a branch, jump or
call target), or a ``Symbol`` (an operand no other type describes -- a
symbolic displacement ``.LC0(%rip)``, ``$sym``, ``*%rax``, a segment
prefix -- with the registers it names and whether it addresses memory, read
once where the text is read). Nothing downstream reads operand text.

Invariant: ``reads``, ``writes`` and ``memory`` are functions of the typed
operands and ``kind`` alone (``effects_of``; the simulator decodes an item
once per model). Equality and the hash are the mnemonic, operands, line and
kind -- an ``Opaque`` is hashable and equal by value (``measure.block_loop``
memoises on tuples of items); the hash is computed once, at construction.

Register names in ``reads`` / ``writes`` are the 32-bit names of general
registers (``gpr_name``: ``%al``, ``%ax``, ``%ah`` and ``%rax`` are all
``"eax"``) plus ``"esp"`` for stack and call kinds and ``"flags"``;
vector registers, ``%rip`` and segment registers are left out (a vector
item's effects are the cost model's, ``search.cost.classes.vector_effects``).

Example: ``Opaque("pop", (Reg("ebx", 64),), 0, "stack")`` reads and
writes ``{"ebx", "esp"}``; ``Opaque("jne", (Label(".L2"),), 0, "branch")``
reads ``{"flags"}`` and its ``target`` is ``".L2"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sha1opt.semantics.x86 import HIGH_BYTES, I386_REGS, X64_EXTRA, Imm, Mem, Reg

GPR_NAMES = frozenset(I386_REGS + X64_EXTRA)
# Kinds that move the stack pointer (and read or write the stack).
STACK_KINDS = ("stack", "return", "call")
# Kinds whose first operand is a target (a ``Label`` when it names one).
TARGET_KINDS = ("branch", "jump", "call")


@dataclass(frozen=True, slots=True)
class Label:
    """A branch, jump or call target: ``.Lloop``, ``1b`` / ``1f`` (as written), objdump's ``L401020``."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Symbol:
    """An operand no other type describes, as written, with what the cost models need of it.

    ``registers``: the registers it names (``%fs:0x28(%rax)`` names fs and rax);
    ``memory``: it addresses memory (``.LC0(%rip)``: yes; ``*%rax``: no);
    ``immediate``: it is an immediate (``$.LC0``).
    """

    text: str
    registers: tuple[Reg, ...] = ()
    memory: bool = False
    immediate: bool = False

    def __str__(self) -> str:
        return self.text


OpaqueOperand = Reg | Mem | Imm | Label | Symbol


def gpr_name(reg: Reg) -> str | None:
    """The 32-bit name of the general register ``reg`` is part of (``%al``, ``%ah``, ``%rax``: ``"eax"``),
    or None (a vector register, ``%rip``, a segment or mask register)."""
    if reg.name in GPR_NAMES:
        return reg.name if reg.width <= 64 else None
    return HIGH_BYTES.get(reg.name) if reg.width == 0 else None


def registers_of(op: OpaqueOperand) -> tuple[Reg, ...]:
    """Every register ``op`` names: itself, a memory operand's base and index, a ``Symbol``'s."""
    if isinstance(op, Reg):
        return (op,)
    if isinstance(op, Mem):
        return tuple(r for r in (op.base, op.index) if r is not None)
    if isinstance(op, Symbol):
        return op.registers
    return ()


def addresses_memory(op: OpaqueOperand) -> bool:
    """Whether ``op`` is a memory operand (a ``Mem``, or a ``Symbol`` that addresses memory)."""
    return isinstance(op, Mem) or (isinstance(op, Symbol) and op.memory)


def _gprs(ops) -> set[str]:
    return {n for op in ops for r in registers_of(op) if (n := gpr_name(r)) is not None}


def effects_of(mnemonic: str, operands: tuple[OpaqueOperand, ...], kind: str) -> tuple[frozenset, frozenset, bool]:
    """(reads, writes, memory) of an opaque item.

    Reads: every general register any operand names (addresses included),
    ``esp`` for the stack kinds, ``flags`` for a conditional branch. Writes:
    ``esp`` for the stack kinds; a ``pop``'s register; the last operand of a
    counter or move unless it is memory; ``flags`` for compares and
    counters. Memory: an operand addresses memory, or a stack kind.
    Example: ``decq 72(%rsp)`` (kind ``"counter"``) reads ``{"esp"}``,
    writes ``{"flags"}``, touches memory; ``pop %rbx`` reads and writes
    ``{"ebx", "esp"}``.
    """
    reads = _gprs(operands)
    writes: set[str] = set()
    if kind in STACK_KINDS:
        reads.add("esp")
        writes.add("esp")
    if kind == "branch":
        reads.add("flags")
    if mnemonic.startswith("pop") and operands:
        writes |= _gprs(operands[:1])
    if kind in ("counter", "move") and operands and not addresses_memory(operands[-1]):
        writes |= _gprs(operands[-1:])
    if kind in ("compare", "counter"):
        writes.add("flags")
    memory = kind in STACK_KINDS or any(addresses_memory(op) for op in operands)
    return frozenset(reads), frozenset(writes), memory


@dataclass(frozen=True, slots=True)
class Opaque:
    """An instruction with no value semantics here: control, stack, compares, vector rows (module docstring)."""

    mnemonic: str
    operands: tuple[OpaqueOperand, ...]
    line: int
    kind: str
    _hash: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # the simulator's decode cache and the block-loop memo look items up by hash, again and again
        object.__setattr__(self, "_hash", hash((self.mnemonic, self.operands, self.line, self.kind)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def reads(self) -> frozenset[str]:
        return effects_of(self.mnemonic, self.operands, self.kind)[0]

    @property
    def writes(self) -> frozenset[str]:
        return effects_of(self.mnemonic, self.operands, self.kind)[1]

    @property
    def memory(self) -> bool:
        return effects_of(self.mnemonic, self.operands, self.kind)[2]

    @property
    def target(self) -> str | None:
        """The label a branch, jump or call goes to, when its operand is one."""
        if self.kind in TARGET_KINDS and self.operands and isinstance(self.operands[0], Label):
            return self.operands[0].name
        return None

    def __str__(self) -> str:
        return f"{self.mnemonic} {', '.join(map(str, self.operands))}".strip()
