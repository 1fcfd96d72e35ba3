"""A declared interface run natively: ``sha1_block_data_order(state, data, nblocks)`` around the user's function.

The native harness (``harness.BlockHarness``, ``emit.confirm``) calls
``sha1_block_data_order(uint32_t state[5], const void *data, size_t
nblocks)``. For a function with another declared interface
(``semantics.lift.interface``) ``adapter_text(arch, interface, callee)`` is
the GNU-as text of that entry point: it calls ``callee`` once per block
with the arguments in the declared order (``state``, the block's address,
a workspace of the declared size in ``.bss``) -- or once with ``nblocks``
(or its byte length) when the interface has it -- and returns.

Invariant: the adapter keeps its own values in ``.bss``, never in a
register across the call, and touches no callee-saved register, so the
harness's checks (callee-saved registers and the stack pointer restored,
canaries around the state) see exactly what the user's function did. A state
at an offset in a context (``state@OFFSET``) is copied into the adapter's
zeroed context before the call and back after it (the harness's canaries then
guard the adapter's copy, not the context's other bytes); a state before the
argument (``state@-0x58``) has the argument point that far into the context;
a wide state (``state@S wide``) is copied into the low halves of 64-bit slots
whose upper halves are the block's words complemented -- values that differ
from record to record, so code that reads them computes a wrong state; a
workspace in the context (``+ workspace@W[N]``) is the context's bytes there
(NSS's ``(state@-0x58 wide + workspace@-0x30[32], data)``: the argument is
``sha1opt_ctx+152``, state word 1 at ``sha1opt_ctx+72``); host-order words
(``words``) are the block byte-swapped into the adapter's buffer, one call per
block, and a clobbered block (``data clobbered``) is copied there as it is; a
block inside the state's context (``state@0x40 + words@0``) is copied into
the adapter's context at its byte (byte-swapped for ``words``) beside the
state, and the one argument is the context; a
byte length is ``64 * nblocks`` plus the record's trailing bytes
(``sha1opt_tail``, 0..63, set by the harness per record: in the buffer after the
blocks, never hashed under the contract; always 0 under ``bytes whole``), or
``64`` plus them per block; a constant is passed as declared. A byte counter
(``state counter@OFFSET``) lives in the adapter's zeroed context beside the
state copy: the callee increases it there, the harness checks the state. A
stitched AES-CBC + SHA-1 function (``plain, cipher, key, iv`` roles, x86-64:
``_cbc_text``) gets the data as its plaintext too, a ciphertext buffer and a
fixed key schedule of its own, and its seventh argument on the stack; its
ciphertext is checked apart (``cbc_confirm``).

Example: for ``sha_transform(state, data, workspace[16])`` on x86-64 the
loop body is ``mov sha1opt_state(%rip), %rdi; mov sha1opt_data(%rip), %rsi;
lea sha1opt_workspace(%rip), %rdx; sub $8, %rsp; call sha_transform; add
$8, %rsp``, then ``addq $64, sha1opt_data(%rip)`` and the count down.
"""

from __future__ import annotations

import re
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.interface import CONST, COUNT_ROLES, Interface
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.toolchain import assemble

SYMBOL = "sha1_block_data_order"
_ARG_REGS_64 = ("%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9")
_ARG_REGS_32 = ("%edi", "%esi", "%edx", "%ecx", "%r8d", "%r9d")     # (x86-64: a constant zero-extends)
_NAME = re.compile(r"^[A-Za-z_.$][A-Za-z0-9_.$]*$")


def _once(interface: Interface) -> bool:
    """The callee is called once with the whole count (else once per block): it has a count and takes bytes."""
    return not interface.one_block and "words" not in interface.roles


def _in_context(interface: Interface) -> bool:
    """The state is passed inside the adapter's context: at an offset, beside a block inside it (``state@S +
    words@D``), or beside a byte counter the callee writes (``state counter@OFFSET``: the counter's words are the
    adapter's, never the harness's canaries), in 64-bit slots (``wide``) or beside a workspace in the context."""
    return bool(interface.state_offset) or interface.counter_offset is not None or bool(interface.shared_data) \
        or interface.state_wide or interface.context_workspace is not None


def _stride(interface: Interface) -> int:
    return 8 if interface.state_wide else 4


def _context_base(interface: Interface) -> int:
    """The byte of the adapter's context the state argument points at: 0, or past every region declared before
    the argument (NSS: ``state@-0x58``, the pointer 0x58 bytes into the context), 64 bytes to spare."""
    least = min(interface.state_offset, interface.context_workspace[0] if interface.context_workspace else 0)
    return -least + 64 if least < 0 else 0


def _context_bytes(interface: Interface) -> int:
    """The adapter's context: the state words, a block inside it, the counter and a workspace (when declared) at
    their bytes, 64 bytes to spare."""
    block = interface.data_offset + 64 if interface.shared_data else 0
    counter = interface.counter_offset + 8 if interface.counter_offset is not None else 0
    scratch = 0
    if interface.context_workspace is not None:
        scratch = interface.context_workspace[0] + 4 * interface.context_workspace[1]
    return _context_base(interface) + max(interface.state_offset + 5 * _stride(interface), block, counter,
                                          scratch) + 64


def _copies(arch: Arch, interface: Interface) -> tuple[list[str], list[str]]:
    """The instructions before the call (the state into the adapter's context at its offset, the block
    byte-swapped into host-order words) and after it (the state back), in caller-saved scratch only."""
    rip = "(%rip)" if arch == "x86_64" else ""
    ptr, tmp = ("%rax", "%ecx") if arch == "x86_64" else ("%eax", "%ecx")
    before: list[str] = []
    after: list[str] = []
    off = _context_base(interface) + interface.state_offset
    stride = _stride(interface)
    if _in_context(interface):
        before.append(f"\tmov sha1opt_state{rip}, {ptr}")
        after.append(f"\tmov sha1opt_state{rip}, {ptr}")
        for j in range(0, 20, 4):
            slot = f"sha1opt_ctx+{off + j * stride // 4}{rip}"
            before += [f"\tmov {j}({ptr}), {tmp}", f"\tmov {tmp}, {slot}"]
            after += [f"\tmov {slot}, {tmp}", f"\tmov {tmp}, {j}({ptr})"]
    if interface.state_wide:
        # each slot's upper half: the block's word j complemented, a value of this record's (no proof may rely on it)
        before.append(f"\tmov sha1opt_data{rip}, {ptr}")
        for j in range(0, 20, 4):
            before += [f"\tmov {j}({ptr}), {tmp}", f"\tnot {tmp}", f"\tmov {tmp}, sha1opt_ctx+{off + 2 * j + 4}{rip}"]
    words = "words" in interface.roles or interface.shared_data == "words"
    if words or interface.data_clobbered or interface.shared_data:
        swap = ["\tbswap " + tmp] if words else []
        into = f"sha1opt_ctx+{interface.data_offset}" if interface.shared_data else "sha1opt_words"
        before.append(f"\tmov sha1opt_data{rip}, {ptr}")
        for j in range(0, 64, 4):
            before += [f"\tmov {j}({ptr}), {tmp}", *swap, f"\tmov {tmp}, {into}+{j}{rip}"]
    return before, after


def _arg(arch: Arch, interface: Interface, i: int, role: str) -> list[str]:
    """The instructions that put argument ``i`` in its register (x86-64) or push it (i386)."""
    rip = "(%rip)" if arch == "x86_64" else ""
    once = _once(interface)
    address = {"workspace": "sha1opt_workspace", "words": "sha1opt_words"}
    if interface.data_clobbered:
        address["data"] = "sha1opt_words"           # (a copy of the block: the harness's data stays unchanged)
    if role == "state" and _in_context(interface):
        address["state"] = f"sha1opt_ctx+{_context_base(interface)}" if _context_base(interface) else "sha1opt_ctx"
    if arch == "x86_64":
        reg, reg32 = _ARG_REGS_64[i], _ARG_REGS_32[i]
        if role in address:
            return [f"\tlea {address[role]}(%rip), {reg}"]
        if role == CONST:
            return [f"\tmov ${dict(interface.constants)[i]:#x}, {reg32}"]
        tail = [f"\tadd sha1opt_tail(%rip), {reg}"] if role == "bytes" else []
        if role in COUNT_ROLES and not once:
            return [f"\tmov ${1 if role == 'nblocks' else 64}, {reg32}"] + tail
        load = {"state": "sha1opt_state", "data": "sha1opt_data", "nblocks": "sha1opt_count",
                "bytes": "sha1opt_count"}[role]
        return [f"\tmov {load}{rip}, {reg}"] + ([f"\tshl $6, {reg}"] if role == "bytes" else []) + tail
    if role in address:
        return [f"\tpush ${address[role]}"]
    if role == CONST:
        return [f"\tpushl ${dict(interface.constants)[i]:#x}"]
    if role == "bytes":
        count = "\tmov $64, %eax" if not once else "\tmov sha1opt_count, %eax\n\tshl $6, %eax"
        return [count, "\tadd sha1opt_tail, %eax", "\tpush %eax"]
    if role in COUNT_ROLES and not once:
        return ["\tpushl $1"]
    return [f"\tpushl sha1opt_{'count' if role == 'nblocks' else role}"]


CBC_CHUNK = 64      # blocks a call of a stitched AES-CBC function gets at most (its ciphertext buffer's size)
CBC_ROUNDS = 9      # the key schedule's aesenc round count (a 128-bit key, ``cbc.AES_ROUNDS``)


def _cbc_text(interface: Interface, callee: str) -> list[str]:
    """A stitched AES-CBC + SHA-1 function (``(plain, cipher, nblocks, key, iv, state, data)``, x86-64): called
    with the record's blocks in calls of at most ``CBC_CHUNK`` (once with 0 for nblocks = 0), the plaintext the data itself, the ciphertext
    into the adapter's buffer, a fixed key schedule (round key words 0x01010101 * (r+1) + j, ``CBC_ROUNDS``
    rounds) and a zero iv. Only the hash is the harness's to check; the seventh argument and on are pushed
    (SysV: at entry + 8), the stack kept 16-byte aligned at the call."""
    regs = {"plain": "mov sha1opt_data(%rip), {r}", "cipher": "lea sha1opt_cipher(%rip), {r}",
            "key": "lea sha1opt_key(%rip), {r}", "iv": "lea sha1opt_iv(%rip), {r}",
            "state": "mov sha1opt_state(%rip), {r}", "data": "mov sha1opt_data(%rip), {r}",
            "nblocks": "mov sha1opt_chunk(%rip), {r}"}
    if any(role not in regs for role in interface.roles):
        raise Sha1optError("a stitched AES-CBC function is run natively with the roles plain, cipher, nblocks, key, "
                           "iv, state and data only")
    stacked = interface.roles[len(_ARG_REGS_64):]
    out = ["1:\tmov sha1opt_count(%rip), %rax",
           f"\tcmp ${CBC_CHUNK}, %rax", "\tjbe 3f", f"\tmov ${CBC_CHUNK}, %eax", "3:\tmov %rax, sha1opt_chunk(%rip)"]
    out += ["\tsub $8, %rsp"] if len(stacked) % 2 == 0 else []
    for role in reversed(stacked):
        out += ["\t" + regs[role].format(r="%rax"), "\tpush %rax"]
    for reg, role in zip(_ARG_REGS_64, interface.roles):
        out.append("\t" + regs[role].format(r=reg))
    out += [f"\tcall {callee}", f"\tadd ${8 * (len(stacked) + (len(stacked) % 2 == 0))}, %rsp",
            "\tmov sha1opt_chunk(%rip), %rax", "\tsub %rax, sha1opt_count(%rip)", "\tshl $6, %rax",
            "\tadd %rax, sha1opt_data(%rip)", "\tcmpq $0, sha1opt_count(%rip)", "\tjne 1b", "\tret",
            f"\t.size {SYMBOL}, .-{SYMBOL}", "\t.data",
            "\t.p2align 6", "sha1opt_key:"]
    out += [f"\t.long {0x01010101 * (r + 1) + j:#x}" for r in range(15) for j in range(4)]
    out += [f"\t.long {CBC_ROUNDS}", "\t.bss", "\t.p2align 6"]
    out += [f"sha1opt_{n}:\t.quad 0" for n in ("state", "data", "count", "chunk")]
    out += ["\t.p2align 6", "sha1opt_iv:\t.zero 16", "\t.p2align 6", f"sha1opt_cipher:\t.zero {64 * CBC_CHUNK}",
            '\t.section .note.GNU-stack,"",@progbits']
    return out


def adapter_text(arch: Arch, interface: Interface, callee: str) -> str:
    """The entry point's text (see the module docstring)."""
    if not _NAME.match(callee):
        raise Sha1optError(f"cannot call {callee!r} from the adapter (not a symbol name)")
    if "cipher" in interface.roles:
        if arch != "x86_64":
            raise Sha1optError("a stitched AES-CBC function is run natively on x86-64 only")
        head = ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", f"{SYMBOL}:",
                "\tmov %rdi, sha1opt_state(%rip)", "\tmov %rsi, sha1opt_data(%rip)", "\tmov %rdx, sha1opt_count(%rip)"]
        return "\n".join(head + _cbc_text(interface, callee)) + "\n"
    once = _once(interface)
    words = max(interface.workspace_words, 1)
    before, after = _copies(arch, interface)
    out = ["\t.text", f"\t.globl {SYMBOL}", f"\t.type {SYMBOL}, @function", f"{SYMBOL}:"]
    if arch == "x86_64":
        out += ["\tmov %rdi, sha1opt_state(%rip)", "\tmov %rsi, sha1opt_data(%rip)", "\tmov %rdx, sha1opt_count(%rip)"]
        if not once:
            out += ["1:\tcmpq $0, sha1opt_count(%rip)", "\tje 2f"]
        out += before
        for i, role in enumerate(interface.roles):
            out += _arg(arch, interface, i, role)
        out += ["\tsub $8, %rsp", f"\tcall {callee}", "\tadd $8, %rsp"] + after
        if not once:
            out += ["\taddq $64, sha1opt_data(%rip)", "\tdecq sha1opt_count(%rip)", "\tjmp 1b", "2:"]
        word = ".quad"
    else:
        for slot, name in ((4, "state"), (8, "data"), (12, "count")):
            out += [f"\tmov {slot}(%esp), %eax", f"\tmov %eax, sha1opt_{name}"]
        if not once:
            out += ["1:\tcmpl $0, sha1opt_count", "\tje 2f"]
        out += before
        for i in reversed(range(len(interface.roles))):
            out += _arg(arch, interface, i, interface.roles[i])
        out += [f"\tcall {callee}", f"\tadd ${4 * len(interface.roles)}, %esp"] + after
        if not once:
            out += ["\taddl $64, sha1opt_data", "\tdecl sha1opt_count", "\tjmp 1b", "2:"]
        word = ".long"
    out += ["\tret", f"\t.size {SYMBOL}, .-{SYMBOL}", "\t.bss", "\t.p2align 6"]
    out += [f"sha1opt_{n}:\t{word} 0" for n in ("state", "data", "count")]
    out += ["\t.p2align 6", f"sha1opt_workspace:\t.zero {4 * words}", "\t.p2align 6", "sha1opt_words:\t.zero 64",
            "\t.p2align 6", f"sha1opt_ctx:\t.zero {_context_bytes(interface)}",
            '\t.section .note.GNU-stack,"",@progbits']
    return "\n".join(out) + "\n"


def adapter_object(arch: Arch, interface: Interface, callee: str, workdir: Path) -> Path:
    """``adapter_text`` assembled into ``workdir``."""
    return assemble(adapter_text(arch, interface, callee), arch, workdir, "interface_adapter")
