"""A loop over an environment string's comma-separated tokens is summarized: every trip count covered, nothing assumed.

Rule (``lift.summary``; the bug: nettle's fat ``nettle_sha1_compress``, 4 of its 174 paths refused where
NETTLE_FAT_OVERRIDE has a comma): a cycle of the code that calls a known function with an unknown result (here
strchr) is explored from a state every iteration's state is covered by -- %rbx, the token, a pointer into the
string at an unknown offset; the flag %r13d one of 0 and 1; what the calls clobber any value -- and the paths
that leave it go on from there. strchr's result is the string plus an unknown offset (``calls.Known``), so the
token's length is an integer and the token's bytes new unknowns (``memory._returned_string``).

The snippet is this file's own x86-64 assembly, in the shape of nettle's ``fat_init`` loop: getenv, then
``while ((sep = strchr(p, ','))) { if (sep - p == 4 && p's 4 bytes are "fast") flag = 1; p = sep + 1; }`` and a
tail jump to ``impl_fast`` when the flag is set, else ``impl_plain``, with the caller's arguments. The flag is
set only before a comma (never by the last token), so ``impl_fast`` is reached only through an iteration the
summary covers: a summary that kept the flag's entry value would miss that path. Each mutant must not prove: a
store through the string (a violation), a loop that moves the state pointer (the jump's arguments are not the
caller's: not the target's own proof), a read of the state or the message data at a computed offset (refused).
A path's replay (the compression proof's) applies the summary as exploring did. Only exploration and replay run
(the targets are outside the object): each check is well under a second.
"""

from __future__ import annotations

import pytest
import z3

from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.decode import decode_function, decode_reach, line_table
from sha1opt.semantics.lift.function import entry_state, prove_function
from sha1opt.semantics.lift.induction import Ctx, names
from sha1opt.semantics.lift.interface import ENTRY_ALIGNMENT
from sha1opt.semantics.lift.paths import Program, explore
from sha1opt.semantics.lift.summary import Havoc
from sha1opt.semantics.lift.values import stack_base
from tests.semantics.lift.test_lift_dispatch_idioms import ONE_BLOCK, _asm

TOKENS = """
        pushq %rbx
        pushq %rbp
        pushq %r12
        pushq %r13
        subq $8, %rsp
        movq %rdi, %rbp
        movq %rsi, %r12
        xorl %r13d, %r13d
        leaq name(%rip), %rdi
        call getenv@PLT
        testq %rax, %rax
        je 8f
        movq %rax, %rbx
1:      movq %rbx, %rdi
        movl $44, %esi
        call strchr@PLT
        testq %rax, %rax
        je 8f
        movq %rax, %rcx
        subq %rbx, %rax
        cmpq $4, %rax
        jne 2f
        cmpl $0x74736166, (%rbx)
        jne 2f
        movl $1, %r13d
2:
{body}
        leaq 1(%rcx), %rbx
        jmp 1b
8:      movq %rbp, %rdi
        movq %r12, %rsi
        movl %r13d, %eax
        addq $8, %rsp
        popq %r13
        popq %r12
        popq %rbp
        popq %rbx
        testl %eax, %eax
        jne 3f
        jmp impl_plain@PLT
3:      jmp impl_fast@PLT
        .section .rodata
name:   .string "SHA1_TOKENS"
        .text
"""


def _paths(tmp_path, body: str = ""):
    return prove_function(_asm(tmp_path, TOKENS.format(body=body)), "f", ONE_BLOCK).paths


def test_token_loop_paths_each_reach_a_target_with_the_callers_arguments(tmp_path):
    paths = _paths(tmp_path)
    # every path is a tail jump with the caller's arguments intact: that implementation's own proof
    assert all(p.outside is not None and p.callee is not None for p in paths), [(p.outcome, p.detail) for p in paths]
    looped = {p.outside for p in paths if "loop@0x" in p.condition}
    # after the loop the flag is 0 or 1 (the summary's one of two values): both implementations are paths
    assert looped == {"impl_plain", "impl_fast"}, [(p.outside, p.condition) for p in paths]
    assert {p.outside for p in paths if "getenv() at" in p.condition and "not (getenv()" not in p.condition} == \
        {"impl_plain"}


@pytest.mark.parametrize("body, why", [
    ("        movb $0, (%rcx)", "writes the string getenv@"),
])
def test_token_loop_storing_through_the_string_is_a_violation(tmp_path, body, why):
    paths = _paths(tmp_path, body)
    assert any(p.outcome == "counterexample" and why in p.detail for p in paths), \
        [(p.outcome, p.detail) for p in paths]


def test_token_loop_moving_the_state_pointer_is_not_the_targets_proof(tmp_path):
    """The loop advances %rbp (the state pointer): the summary makes it a value the code may only overwrite, so
    the next iteration's add is refused and the jump after the loop passes no state pointer -- not the target's
    own proof; a summary that missed the register would have proved every path."""
    paths = _paths(tmp_path, "        addq $4, %rbp")
    looped = [p for p in paths if "loop@0x" in p.condition or "addq $4, %rbp" in p.detail]
    assert looped and all(p.outside is None and p.outcome == "refused" for p in looped), \
        [(p.outcome, p.detail) for p in looped]
    assert all("not impl_" in p.detail or "addition of a pointer and a non-integer" in p.detail for p in looped), \
        [p.detail for p in looped]
    assert any("%edi is not its entry value" in p.detail for p in looped), [p.detail for p in looped]


@pytest.mark.parametrize("body, why", [
    ("        movl (%rbp,%rax), %edx", "state accessed at a computed offset"),
    ("        movl (%r12,%rax), %edx", "data read at an address that is not block + constant"),
])
def test_token_loop_reading_the_state_or_data_at_a_computed_offset_is_refused(tmp_path, body, why):
    """Only the environment string reads at a computed offset (the token's length %rax here): the state and the
    message data, whose contents the proof relies on, stay refused by name."""
    paths = _paths(tmp_path, body)
    assert any(p.outcome == "refused" and why in p.detail for p in paths), [(p.outcome, p.detail) for p in paths]
    assert not any(p.outcome == "proved" for p in paths)


def test_token_loop_path_replays_to_the_state_it_was_explored_to(tmp_path):
    """Replay (``PathMachine.run``, what ``composition.check_program`` drives over a path's trace) applies the
    summary's ``Havoc`` as exploring did: each path replayed from the entry, under its path condition, ends with
    the same registers -- the flag the loop left, the state and data pointers, the stack pointer."""
    obj = _asm(tmp_path, TOKENS.format(body=""))
    sym = obj.find_function("f")
    fn = decode_reach(obj, sym, line_table(obj))
    ctx = Ctx(obj, Program(obj, fn, lambda o, s: decode_function(o, s, line_table(o)), statics=True), 64,
              ONE_BLOCK, z3.BitVec("n", 64), z3.BitVec("k", 64))
    mod, residue = ENTRY_ALIGNMENT["sysv"]
    ctx.axioms += [ctx.n == ctx.bv(1), stack_base(64) & ctx.bv(mod - 1) == ctx.bv(residue)]
    b = Builder()
    init_reg, init_mem = names(b)
    dom = TermDomain(b)
    ends = explore(lambda st: ctx.machine(dom, init_reg, init_mem, st), entry_state(ctx, fn.section, fn.entry), set())
    looped = [e for e in ends if any(isinstance(d, Havoc) for d in e.state.trace)]
    assert len(looped) == 2, [(e.kind, e.reason) for e in ends]
    for end in looped:
        pm = ctx.machine(dom, init_reg, init_mem, entry_state(ctx, fn.section, fn.entry))
        pm.s.cond = list(end.state.cond)
        pm.run(end.state.trace[:-1])            # (the last: the tail jump, which ends the path)
        for r in ("esp", "ebp", "r12d", "r13d", "edi", "esi", "eax"):
            assert repr(pm.s.regs.get(r)) == repr(end.state.regs.get(r)), r
