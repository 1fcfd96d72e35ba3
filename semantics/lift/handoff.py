"""A tail jump out of the function: whether the target's own proof is this call's, and under which contract.

A path that ends in a jump to a function outside the object (a function pointer's value, nettle's fat
entry; a wrapper's tail call) is proved by that function's own proof only when the target would compute
the same as if our caller had called it: ``entry_changed`` says why not (an argument, a callee-saved
register, the stack pointer or the return address changed; the state words, the caller's stack, a clobbered
block or an AES-CBC stream's ciphertext or iv written), ``passed_contract`` the contract the target is called
under (the caller's, plus constant arguments the path set). Example: Crypto++'s ``SHA1::Transform`` jumps to
``SHA1_HashMultipleBlocks_SHANI`` with 64 and 0 in %rdx and %rcx: ``(state, words, 64, 0)``.
"""

from __future__ import annotations

from dataclasses import replace

import z3

from sha1opt.semantics.ir import Term
from sha1opt.semantics.lift import cbc
from sha1opt.semantics.lift.induction import Ctx
from sha1opt.semantics.lift.interface import ARG_REGS, CONST, Contract
from sha1opt.semantics.lift.paths import State
from sha1opt.semantics.lift.values import Int, Opq, Ptr


def _same(a, b) -> bool:
    if isinstance(a, Ptr) and isinstance(b, Ptr):
        return a.region == b.region and z3.is_true(z3.simplify(a.off == b.off))
    if isinstance(a, Int) and isinstance(b, Int):
        return z3.is_true(z3.simplify(a.v == b.v))
    if isinstance(a, Opq) and isinstance(b, Opq):
        return a.name == b.name
    return a is b


def entry_changed(ctx: Ctx, st: State, st0: State) -> str | None:
    """Why a jump out of the function at ``st`` is not the same call of its target as the caller's call of the
    function (entry state ``st0``): an argument, a callee-saved register, the stack pointer or the return
    address changed, or the state words, the caller's stack or a clobbered block written; or None: what the target computes from
    here is what it computes called by our caller (``calls.Outside``)."""
    for r, v in st0.regs.items():
        if not _same(st.regs.get(r), v):
            return f"%{r} is not its entry value"
    for key, (v, _) in st0.mem.items():
        got = st.mem.get(key)
        if got is not None and not _same(got[0], v):
            return (f"the byte counter's word at state{key[2]:+d} is not its entry value" if key[0] == "state" else
                    f"the caller's stack slot {key[2]:+d} is not its entry value")
    for key, (v, _) in st.mem.items():
        if key[0] == "state" and key in st0.mem:
            continue            # (``state counter@OFFSET``: its words at their entry values, just checked)
        if key[0] == "state" and not (isinstance(v, Term) and v.node.op == "var" and
                                      v.node.payload == f"h{key[2] // ctx.contract.state_stride}"):
            return f"state word {key[2] // ctx.contract.state_stride} was written"
        if key[0] == "stack" and (key[1] or key[2] >= 0) and key not in st0.mem:
            return f"the caller's stack (entry stack pointer {key[2]:+d}) was written"
        if key[0] == "data" and ctx.contract.data_clobbered and not _entry_word(v, key, ctx.contract.host_words):
            # (a clobbered block written before the jump: the target would hash other words than the caller's)
            return f"block word {key[2] // 4} was written"
    wrote = cbc.untouched(st) if ctx.contract.cbc else None
    return f"{wrote} before the jump" if wrote else None    # (the target would encrypt from another iv)


def _entry_word(v, key, host: bool) -> bool:
    """Whether ``v`` at data ``key`` is the block's word as the caller passed it (``names``: m_j, bswapped for
    host-order words), i.e. read, never written."""
    if key[1] or not (isinstance(v, Term) and 0 <= key[2] < 64 and key[2] % 4 == 0):
        return False
    want = v.builder.var(f"m{key[2] // 4}")
    if host:
        want = v.builder.node("bswap", [want])
    return v.id == want.id


def passed_contract(ctx: Ctx, st: State) -> Contract:
    """The contract a function reached by a tail jump at ``st`` is called under (its arguments intact,
    ``entry_changed``): the caller's, plus each further SysV argument register, in order, that the path set to
    a constant -- a fixed argument (Crypto++'s ``SHA1::Transform`` jumps to ``SHA1_HashMultipleBlocks_SHANI``
    with the length 64 and the byte order 0 in %rdx and %rcx: ``(state, words, 64, 0)``). The first register
    holding anything else ends them (the callee's proof refuses a read of one it was not given)."""
    c = ctx.contract
    if c.abi != "sysv":
        return c
    args, consts = list(c.args), list(c.constants)
    for i in range(len(args), len(ARG_REGS["sysv"])):
        v = st.regs.get(ARG_REGS["sysv"][i])
        k = z3.simplify(v.v) if isinstance(v, Int) else None
        if k is None or not z3.is_bv_value(k) or k.as_long() >> 32:
            break
        args.append(CONST)
        consts.append((i, k.as_long()))
    return replace(c, args=tuple(args), constants=tuple(consts))
