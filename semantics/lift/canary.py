"""The stack-protector canary: the one thread-local word the lifter models, and the call that reports it.

gcc and clang with ``-fstack-protector*`` (and libraries built so, e.g.
mbedTLS) guard a frame with the C library's stack guard, a word of the
thread control block: ``%fs:0x28`` on x86-64, ``%gs:0x14`` on i386. The
prologue copies it into the frame, the epilogue compares the copy with it
and calls ``__stack_chk_fail`` (``__stack_chk_fail_local`` in i386 PIC)
when they differ::

    mov %fs:0x28, %rax ; mov %rax, 0x58(%rsp)          # entry
    mov 0x58(%rsp), %rax ; sub %fs:0x28, %rax ; jne 1f  # exit (or xor / cmp)
    ...
    1: call __stack_chk_fail

Model: ``decode`` turns exactly that segment-relative operand (no base, no
index, that segment and displacement) into a reference to the read-only
region ``CANARY_REGION``; any other segment-relative access stays refused by
name. A load of it is ``guard_value(bits)``: one opaque z3 constant, the
same at every read, of the architecture's width (an integer of the executor,
so the copy, the ``sub``/``xor``/``cmp`` and the branch are exact). A write
to it is a contract violation (``memory``). The check's branch is then
decided like any other: when the frame's copy still holds the guard, the
difference is 0 and the branch to the fail call is infeasible, so no path
reaches it; when the copy was overwritten (by a constant, say), both ways are
possible and the path that reaches ``__stack_chk_fail`` is a violation
(``control``): the code smashes its own canary. A copy overwritten with data
is refused as an untracked value at the compare. Nothing is assumed: the
guard is unconstrained, so a proof holds for every value the C library
picks.

Example: ``decode`` of ``64 48 8b 04 25 28 00 00 00`` (``mov %fs:0x28,%rax``)
on x86-64 gives ``mem_ref=Ref("canary", 0)``; ``mov %fs:0x30,%rax`` keeps
``problem="segment-relative memory is not modelled ..."``.
"""

from __future__ import annotations

import z3

CANARY_REGION = "canary"

# The stack guard's (segment register, displacement) per architecture (glibc's tcbhead_t.stack_guard).
GUARD = {"x86_64": ("fs", 0x28), "i386": ("gs", 0x14)}

# The functions a failed check calls (they do not return).
FAIL_FUNCTIONS = frozenset({"__stack_chk_fail", "__stack_chk_fail_local"})


def is_guard(arch: str, segment: str, disp: int) -> bool:
    """``segment:disp`` (no base, no index) is the stack guard of ``arch``."""
    return GUARD.get(arch) == (segment, disp)


def guard_value(bits: int) -> z3.BitVecRef:
    """The guard's value: one opaque constant of ``bits`` bits (the same z3 constant at every read)."""
    return z3.BitVec("stack_guard", bits)


def describe(arch: str) -> str:
    """The guard's operand in AT&T text: ``%fs:0x28``."""
    seg, disp = GUARD[arch]
    return f"%{seg}:0x{disp:x}"


__all__ = ["CANARY_REGION", "GUARD", "FAIL_FUNCTIONS", "is_guard", "guard_value", "describe"]
