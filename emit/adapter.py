"""A declared interface run natively: ``sha1_block_data_order(state, data, nblocks)`` around the user's function.

The native harness (``harness.BlockHarness``, ``emit.confirm``) calls
``sha1_block_data_order(uint32_t state[5], const void *data, size_t
nblocks)``. For a function with another declared interface
(``semantics.lift.interface``) ``adapter_text(arch, interface, callee)`` is
the GNU-as text of that entry point: it calls ``callee`` once per block
with the arguments in the declared order (``state``, the block's address,
a workspace of the declared size in ``.bss``) -- or once with ``nblocks``
when the interface has it -- and returns.

Invariant: the adapter keeps its own values in ``.bss``, never in a
register across the call, and touches no callee-saved register, so the
harness's checks (callee-saved registers and the stack pointer restored,
canaries around the state) see exactly what the user's function did.

Example: for ``sha_transform(state, data, workspace[16])`` on x86-64 the
loop body is ``mov sha1opt_state(%rip), %rdi; mov sha1opt_data(%rip), %rsi;
lea sha1opt_workspace(%rip), %rdx; sub $8, %rsp; call sha_transform; add
$8, %rsp``, then ``addq $64, sha1opt_data(%rip)`` and the count down.
"""

from __future__ import annotations

import re
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.interface import Interface
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.toolchain import assemble

SYMBOL = "sha1_block_data_order"
_ARG_REGS_64 = ("%rdi", "%rsi", "%rdx", "%rcx")
_NAME = re.compile(r"^[A-Za-z_.$][A-Za-z0-9_.$]*$")


def _value(role: str, arch: Arch) -> str:
    """The operand that holds an argument of this role before the call."""
    rip = "(%rip)" if arch == "x86_64" else ""
    return {"state": f"sha1opt_state{rip}", "data": f"sha1opt_data{rip}", "nblocks": f"sha1opt_count{rip}",
            "workspace": f"sha1opt_workspace{rip}"}[role]


def adapter_text(arch: Arch, interface: Interface, callee: str) -> str:
    """The entry point's text (see the module docstring)."""
    if not _NAME.match(callee):
        raise Sha1optError(f"cannot call {callee!r} from the adapter (not a symbol name)")
    once = "nblocks" in interface.roles
    words = max(interface.workspace_words, 1)
    out = ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", f"{SYMBOL}:"]
    if arch == "x86_64":
        out += ["\tmov %rdi, sha1opt_state(%rip)", "\tmov %rsi, sha1opt_data(%rip)", "\tmov %rdx, sha1opt_count(%rip)"]
        if not once:
            out += ["1:\tcmpq $0, sha1opt_count(%rip)", "\tje 2f"]
        for reg, role in zip(_ARG_REGS_64, interface.roles):
            op = "lea" if role == "workspace" else "mov"
            out.append(f"\t{op} {_value(role, arch)}, {reg}")
        out += ["\tsub $8, %rsp", f"\tcall {callee}", "\tadd $8, %rsp"]
        if not once:
            out += ["\taddq $64, sha1opt_data(%rip)", "\tdecq sha1opt_count(%rip)", "\tjmp 1b", "2:"]
        word = ".quad"
    else:
        for slot, name in ((4, "state"), (8, "data"), (12, "count")):
            out += [f"\tmov {slot}(%esp), %eax", f"\tmov %eax, sha1opt_{name}"]
        if not once:
            out += ["1:\tcmpl $0, sha1opt_count", "\tje 2f"]
        for role in reversed(interface.roles):
            out.append(f"\tpush ${_value(role, arch)}" if role == "workspace" else f"\tpushl {_value(role, arch)}")
        out += [f"\tcall {callee}", f"\tadd ${4 * len(interface.roles)}, %esp"]
        if not once:
            out += ["\taddl $64, sha1opt_data", "\tdecl sha1opt_count", "\tjmp 1b", "2:"]
        word = ".long"
    out += ["\tret", f"\t.size {SYMBOL}, .-{SYMBOL}", "\t.bss", "\t.p2align 6"]
    out += [f"sha1opt_{n}:\t{word} 0" for n in ("state", "data", "count")]
    out += ["\t.p2align 6", f"sha1opt_workspace:\t.zero {4 * words}", '\t.section .note.GNU-stack,"",@progbits']
    return "\n".join(out) + "\n"


def adapter_object(arch: Arch, interface: Interface, callee: str, workdir: Path) -> Path:
    """``adapter_text`` assembled into ``workdir``."""
    return assemble(adapter_text(arch, interface, callee), arch, workdir, "interface_adapter")
