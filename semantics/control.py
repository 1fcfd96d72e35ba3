"""The control-flow and stack table: rows for the instructions around round code.

Compares, branches, calls,
returns, pushes and pops, and the CET markers. They have no data value
function: ``semantics.lift.executor`` gives them meaning on pointers,
counts and the four flags branches need (ZF SF CF OF), and refuses a
branch on flags a data instruction wrote. They are a table apart from
``x86.SEMANTICS`` so the data table stays what the interpreters, the synthesizer and the
cost models iterate over.

Integer and pointer forms of data mnemonics (``andq $-64,%rsp``, ``addq
$64,%rsi``, ``decq 64(%rsp)``, ``shl $6,%rdx``, ``lea (%rsi,%rdx),%rdx``)
are the same rows as the data table, at 64-bit width, executed by the
lifter on exact bit-vectors; ``inc``/``dec``/``neg``/``movzx``/
``movsxd``/``cmov<cc>`` exist only on counts and pointers there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ControlKind = Literal["compare", "branch", "flag", "jump", "call", "return", "stack", "nop"]


@dataclass(frozen=True, slots=True)
class Control:
    """One control/stack row: its kind and whether it writes the arithmetic flags.

    Example: ``CONTROL["cmp"] == Control("compare", True)``; ``CONTROL["jne"]
    == Control("branch", False)`` (reads ZF); ``CONTROL["push"] ==
    Control("stack", False)`` (moves the stack pointer by the operand width); ``CONTROL["sete"] ==
    Control("flag", False)`` (ZF as 0 or 1 in a byte register).
    """

    kind: ControlKind
    writes_flags: bool = False


_CONDITION_CODES = ("e", "ne", "s", "ns", "b", "ae", "a", "be", "l", "ge", "g", "le", "o", "no", "p", "np")

CONTROL: dict[str, Control] = {
    "cmp": Control("compare", True),
    "test": Control("compare", True),
    "bt": Control("compare", True),      # CF := the bit an immediate selects (SDM vol. 2A BT: ZF unaffected, SF, OF undefined)
    **{f"j{c}": Control("branch") for c in _CONDITION_CODES},
    **{f"set{c}": Control("flag") for c in _CONDITION_CODES},     # a condition as 0/1 in a byte register
    "jmp": Control("jump"),
    "call": Control("call"),
    "ret": Control("return"),
    "push": Control("stack"),
    "pop": Control("stack"),
    "leave": Control("stack"),
    "endbr64": Control("nop"),
    "endbr32": Control("nop"),
    "nop": Control("nop"),
}
