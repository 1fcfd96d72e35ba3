"""Loops that compress several blocks per iteration: the invariant of a step of m blocks, with its tails.

OpenSSL's AVX2 path computes W+K of two blocks at once (ymm lanes 0-3 block
2j, lanes 4-7 block 2j+1), stores them interleaved on the stack, runs block
2j's rounds and then block 2j+1's while computing the next pair's words, and
advances its data pointer by 128 bytes. A ``cmp``/``cmov`` clamps the
read-ahead pointer at the end of the buffer, and for an odd count the last
iteration runs one block and leaves by a ``je`` in the middle.

``prove_multi_block`` proves such a loop for every n >= 1 by induction over
the iteration index j (the symbol ``k``), with r_j = n - m*j blocks left:

* the template ``Full(j)`` (``template.build_template(..., blocks=m)``, read
  off the arrival with the most blocks left and one iteration from it):
  H_{m*j} in the state words (and every register holding it), pointers at
  ``S0 + j*delta``, head values as terms of the words of blocks m*j ..
  m*j+m-1; ``Tail_r(j)`` for 1 <= r < m is ``Full(j)`` with every head value
  that reads a block >= r of the iteration havocked (those blocks do not
  exist; OpenSSL's clamp fills the lanes with an older block);
* the invariant: ``r_j >= m`` and ``Full(j)``, or ``r_j = r`` and ``Tail_r(j)``;
* entry: every arrival at the head (the prologue's ``cmov`` forks: n >= 2 and
  n = 1 for AVX2) establishes, under its condition and each case's, the
  template of every case its condition allows at j = 0
  (``induction.establishes``: pointers, counts and entry values by z3, H the
  caller's h_i, constants and head values by identity or the prover);
* step: from each case every path back to the head has r_{j+1} >= 1 and
  establishes the template of every case its condition allows at j+1
  (``induction.template_holds``, ``head_terms_hold``), its H locations
  holding the m chained compressions;
  every path to ``ret`` has r_j = c for the c blocks it compresses (m from
  ``Full``, r from ``Tail_r``) and leaves them in the state words, callee-saved
  registers and the stack pointer restored;
* c chained compressions (``compress_chain``) are c compression checks: the
  path is cut at the first instruction after which every word of
  compress(H, block) is held somewhere (found on random inputs, then every
  such location proved, ``induction.compress_holds``); the state there is
  generalized (``mid_template``) -- H' where it was proved, pointers, counts
  and flags exact, values over the next block's words as head values of that
  block, everything else havocked -- and the rest of the path is proved from
  it against compress(H', next block).

Unknown is never success, and a wrong guess (a cut, a template kind) can only
make a proof fail. Example: OpenSSL's ``_avx2_shortcut`` with m = 2: Full(j)
under n >= 2j+2 gives three paths (exit at n = 2j+2, back with the clamp at
n = 2j+3 into Tail_1(j+1), back at n >= 2j+4 into Full(j+1)); Tail_1(j) under
n = 2j+1 gives one, the exit after block 2j. A case the contract excludes
is not a path: libgcrypt's ``_gcry_sha1_transform_amd64_avx2_bmi2`` is called
only with an even nblocks >= 2 (``Contract.block_multiple``), so Tail_1 never
holds and its loop (head at the ``add $0x80`` of the data pointer; a ``je``
late in block 2j+1's rounds leaves for the last rounds, which load no next
pair) has only the Full case.
"""

from __future__ import annotations

import numpy as np
import z3

from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.ir import Builder, Term, evaluate, variables
from sha1opt.semantics.lift.counter import loop_counted
from sha1opt.semantics.lift.induction import (Ctx, compress_holds, establishes, head_terms_hold, names, restored,
                                              template_holds)
from sha1opt.semantics.lift.paths import State, explore
from sha1opt.semantics.lift.template import (FREE, Const, H, HeadTerm, Lanes, build_template,
                                             flat_locations, materialize, read, word_name, word_offset)
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.values import Int, Opq, Ptr, Refused, is_data
from sha1opt.semantics.lift.verdict import Verdict, stopped
from sha1opt.semantics.prove import Prover
from sha1opt.semantics.sha1 import compress

MAX_BLOCKS = 4          # more blocks per iteration are refused by name
_MANY = 1 << 20         # a block count no clamp or tail applies to


def data_step(s0: State, ends: list[State]) -> int | None:
    """The largest constant step (bytes) of a data pointer register from ``s0`` to a later state, or None."""
    best = None
    for st in ends:
        for r, v0 in s0.regs.items():
            v1 = st.regs.get(r)
            if isinstance(v0, Ptr) and isinstance(v1, Ptr) and v0.region == v1.region == "data":
                off = z3.simplify(v1.off - v0.off)
                if z3.is_bv_value(off) and 0 < off.as_long() < 1 << 20:
                    best = max(best or 0, off.as_long())
    return best


def generic(ctx: Ctx, states: list[State]) -> State | None:
    """The state whose path condition allows many blocks (no clamp, no tail), or None."""
    for st in states:
        s = z3.Solver()
        s.set("timeout", 5000)
        s.add(*ctx.axioms, *st.cond, ctx.n == ctx.bv(_MANY))
        if s.check() == z3.sat:
            return st
    return None


def tail_template(full: dict, r: int) -> dict:
    """``full`` with every head value that reads block r or later of the iteration havocked."""
    def kind(tv):
        if isinstance(tv, HeadTerm) and any((word_offset(v) or 0) >= 64 * r for v in variables([tv.term])):
            return FREE
        return tv
    return {loc: ((Lanes(tuple(kind(t) for t in tv.kinds)) if isinstance(tv, Lanes) else kind(tv)), size)
            for loc, (tv, size) in full.items()}


def _cases(ctx: Ctx, full: dict, m: int, j):
    """(blocks left, template, condition at iteration j): ``m`` means r_j >= m (Full), else r_j == r."""
    base = ctx.bv(m) * j
    out = [(m, full, z3.ULE(base + ctx.bv(m), ctx.n))]
    out += [(r, tail_template(full, r), ctx.n == base + ctx.bv(r)) for r in range(1, m)]
    return out


def prove_multi_block(ctx: Ctx, arrivals: list[State], s1: State, m: int, section: str, head: int,
                      prover: Prover, cond0: list):
    """The loop at ``head`` for every n (see the module docstring): (Verdict, trace); a proved verdict's
    ``cuts`` sum every case's compression chains."""
    k = ctx.k
    s0 = generic(ctx, arrivals) or arrivals[0]
    full = build_template(k, s0, s1, blocks=m)
    held = {tv.index for _, tv in flat_locations(full) if isinstance(tv, H)}
    missing = sorted(set(range(5)) - held)
    if missing:
        # name what goes wrong on the first iteration itself, from the exact entry state
        # (the state words after it against the m chained compressions)
        exact = build_template(k, s0, None)
        res, _ = compress_chain(ctx, exact, section, head, s1.trace, ctx.bv(0), m, prover, s1.cond, False, None)
        if res is not None:
            return Verdict(res.outcome, f"the first iteration: {res.detail}"), s1.trace
        return Verdict("unknown", f"one iteration of the loop at 0x{head:x} does not leave the {m} chained "
                       f"compressions of its {64 * m} bytes in any location of chaining-value word {missing[0]}"), \
            s1.trace
    at0 = _cases(ctx, full, m, ctx.bv(0))
    for a in arrivals:
        # each arrival establishes the case of every count it allows (one arrival may allow several)
        if not ctx.implies(a.cond, z3.Or(*(c for _, _, c in at0))):
            return Verdict("unknown", f"the loop head 0x{head:x} is reached with no block left "
                           f"({ctx.model_n(a.cond, z3.Or(*(c for _, _, c in at0)))})"), []
        for r, tmpl, c in at0:
            st = a.copy()
            st.cond.append(c)
            if not ctx.implies(st.cond, z3.BoolVal(False)):
                why = establishes(ctx, tmpl, st, prover)
                if why:
                    return Verdict("unknown", f"the entry state does not establish the {m}-block invariant "
                                   f"({f'{m} or more' if r == m else r} block(s) left): {why}"), []
    cuts = 0
    trace = []
    tails = []
    for r, tmpl, cond in _cases(ctx, full, m, k):
        if ctx.implies([*cond0, cond, z3.ULT(k, ctx.bv(1 << (ctx.bits - 8)))], z3.BoolVal(False)):
            continue            # a count the contract excludes (libgcrypt's AVX2 code: nblocks even, no tail)
        verdict, case_trace = _verify_case(ctx, full, m, r, tmpl, cond, section, head, prover, cond0)
        if not verdict.proved:
            return verdict, case_trace
        cuts += verdict.cuts
        trace = trace or case_trace
        if r < m:
            tails.append(f"{r} left: {r} compression(s), exit")
    left = "; ".join([f"{m} or more left: {m} compressions", *tails] if tails else
                     [f"{m} or more left: {m} compressions; no tail (the contract's counts are multiples of {m})"])
    return Verdict("proved", f"{m}-block invariant (H := {m} chained compressions, pointers and counts by constant "
                   f"steps, head values of the next {m} blocks) holds on entry for every count left, is preserved "
                   f"and gives the result at every exit ({left}); {cuts} cuts", cuts), trace


def _verify_case(ctx: Ctx, full: dict, m: int, r: int, tmpl: dict, case_cond, section: str, head: int,
                 prover: Prover, cond0: list):
    """Every path of one iteration from the case ``r`` (blocks left; ``m``: ``m`` or more): (Verdict, trace),
    a proved verdict with no detail of its own and the cuts of its compression chains."""
    k, n = ctx.k, ctx.n
    b = Builder()
    tdom = TermDomain(b)
    ir, im = names(b)
    tk = materialize(tmpl, section, head, tdom, ir, im, iter(range(1 << 30)))
    tk.cond = list(cond0) + [case_cond, z3.ULT(k, ctx.bv(1 << (ctx.bits - 8)))]
    base = ctx.bv(64 * m) * k
    paths = explore(lambda st: ctx.machine(tdom, ir, im, st, base), tk, {head})
    for p in paths:
        if p.kind in ("refused", "limit", "violation"):
            return stopped(p), p.state.trace
    proved: dict[int, set] = {i: set() for i in range(5)}
    cuts = 0
    what = f"{r} block(s) left" if r < m else f"{m} or more blocks left"
    for p in paths:
        st = p.state
        if p.kind == "head":
            if not ctx.implies(st.cond, z3.ULT(ctx.bv(m) * k + ctx.bv(m), n)):
                return Verdict("counterexample", f"{what}: the loop branches back past the last block "
                               f"({ctx.model_n(st.cond, z3.ULT(ctx.bv(m) * k + ctx.bv(m), n))})"), st.trace
            # the case of every count the path allows at j+1 (they cover r_{j+1} >= 1): its template holds
            for r1, target, c in _cases(ctx, full, m, k + 1):
                st1 = st.copy()
                st1.cond.append(c)
                if ctx.implies(st1.cond, z3.BoolVal(False)):
                    continue
                why = template_holds(ctx, target, st1) or head_terms_hold(target, st1, tdom, im, prover, m)
                if why:
                    left = f"{m} or more" if r1 == m else str(r1)
                    return Verdict("unknown", f"{what}: loop invariant ({left} block(s) left) not re-established: "
                                   f"{why}"), st.trace
            target = full            # (every case has full's H locations)
            count = m
            outs = [(loc, tv.index) for loc, tv in flat_locations(target) if isinstance(tv, H)]
        else:
            count = r
            done = ctx.bv(m) * k + ctx.bv(count)
            if not ctx.implies(st.cond, n == done):
                return Verdict("counterexample", f"{what}: the loop exits after {count} block(s) of the iteration "
                               f"when that is not the last ({ctx.model_n(st.cond, n == done)})"), st.trace
            why = restored(ctx, st, counter=False)
            if why:
                return Verdict("counterexample", why), st.trace
            bad = loop_counted(ctx, st, False)
            if bad is not None:
                return bad, st.trace
            target = None
            outs = [(("mem", ("state", "", 4 * i)), i) for i in range(5)]
        if all(isinstance(read(st, loc), Term) and read(st, loc).id in proved[i] for loc, i in outs):
            continue                # the same terms as a path already proved: the same values
        res, extra = compress_chain(ctx, tmpl, section, head, st.trace, base, count, prover, st.cond,
                                    p.kind == "head", target)
        if res is not None:
            return Verdict(res.outcome, f"{what}: {res.detail}"), st.trace
        cuts += extra
        for loc, i in outs:
            v = read(st, loc)
            if isinstance(v, Term):
                proved[i].add(v.id)
    trace = next((p.state.trace for p in paths if p.kind == "head"), paths[0].state.trace if paths else [])
    return Verdict("proved", "", cuts), trace


def compress_chain(ctx: Ctx, template: dict, section: str, head: int, trace: list, base, count: int,
                   prover: Prover, cond: list, back: bool, target: dict | None):
    """``count`` compressions chained over ``trace`` (see the module docstring): (None, cuts) or (Verdict, 0)."""
    seg_t, blk, start, flags, cuts = template, base, 0, None, 0
    for i in range(count - 1):
        found = find_cut(ctx, seg_t, section, head, trace[start:], blk, cond, flags)
        if found is None:
            # name what goes wrong: the rest of the path against block i's compression alone (its
            # first wrong round and a counterexample), unless that holds (one compression, not count)
            res, _ = _holds(ctx, seg_t, section, head, trace[start:], blk, prover, cond, False, None, flags)
            if res is not None:
                return Verdict(res.outcome, f"block {i} of the iteration: {res.detail}"), 0
            return Verdict("unknown", f"no point of the iteration holds compress(H, block) of its block {i} "
                           f"({count} blocks per iteration)"), 0
        c, holders = found
        seg = trace[start:start + c]
        cut_target = _holder_template(holders)
        res, extra = _holds(ctx, seg_t, section, head, seg, blk, prover, cond, True, cut_target, flags)
        if res is not None:
            return Verdict(res.outcome, f"block {i} of the iteration: {res.detail}"), 0
        cuts += extra
        seg_t, flags = mid_template(ctx, seg_t, section, head, seg, blk, cond, flags, holders)
        blk = blk + ctx.bv(64)
        start += c
    res, extra = _holds(ctx, seg_t, section, head, trace[start:], blk, prover, cond, back, target, flags)
    if res is not None:
        return (Verdict(res.outcome, f"block {count - 1} of the iteration: {res.detail}") if count > 1 else res), 0
    return None, cuts + extra


def _holds(ctx: Ctx, *args):
    """``induction.compress_holds`` on a segment; a segment that does not replay from its cut (block 2j+1's
    rounds reading block 2j's words, before the new block) is unknown, not a crash."""
    try:
        return compress_holds(ctx, *args)
    except Refused as e:
        return Verdict("unknown", f"the segment does not replay from its cut: {e}"), 0


def _holder_template(holders: dict) -> dict:
    """The locations holding compress(H, block) at a cut as a template of H kinds (lanes grouped)."""
    out: dict = {}
    lanes: dict[str, list] = {}
    for loc, i in holders.items():
        if loc[0] == "reg" and "." in loc[1]:
            reg, j = loc[1].split(".")
            lanes.setdefault(reg, [FREE] * 8)[int(j)] = H(i)
        elif loc[0] == "reg":
            out[loc] = (H(i), 0)
        else:
            out[("mem", (loc[1], "", loc[2]))] = (H(i), 4)
    for reg, kinds in lanes.items():
        out[("reg", reg)] = (Lanes(tuple(kinds)), 0)
    return out


def _np_names(rng):
    env: dict[str, np.ndarray] = {}

    def var(name: str) -> np.ndarray:
        if name not in env:
            env[name] = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
        return env[name]
    b = Builder()
    reg_name, mem_name = names(b)
    return (lambda r: var(reg_name(r).node.payload)), (lambda region, off: var(mem_name(region, off).node.payload))


def find_cut(ctx: Ctx, template: dict, section: str, head: int, trace: list, blk, cond: list, flags):
    """The shortest prefix of ``trace`` after which every word of compress(H, block) is held somewhere,
    and those locations (``("reg", r)``, ``("reg", "xmmN.j")``, ``("mem", region, off)`` -> word), on
    random inputs; None when no such point exists or the trace does not replay."""
    dom = NumpyDomain(64)
    ir, im = _np_names(np.random.default_rng(29))
    want = compress(dom, [im("state", 4 * i) for i in range(5)], [im("data", 4 * j) for j in range(16)])
    index = {w.tobytes(): i for i, w in enumerate(want)}
    writes: list = []

    def machine():
        st = materialize(template, section, head, dom, ir, im, iter(range(1 << 30)))
        st.cond, st.flags = list(cond), flags
        return ctx.machine(dom, ir, im, st, blk)

    pm = machine()

    def spot(key, ins, loc, v):
        writes.append((pm.replay_index, loc, v))
        return v
    try:
        pm.run(trace, spot)
    except (Refused, Sha1optError):      # a trace that does not replay from here has no cut
        return None
    holders: dict = {}
    for pos, (idx, loc, v) in enumerate(writes):
        i = index.get(v.tobytes()) if isinstance(v, np.ndarray) else None
        if i is None:
            holders.pop(loc, None)
        else:
            holders[loc] = i
        if (pos + 1 == len(writes) or writes[pos + 1][0] != idx) and set(holders.values()) == set(range(5)):
            again = machine()
            again.run(trace[:idx + 1])
            # keep only the locations that hold the word after the prefix (a write the hook does not
            # see, e.g. a pointer over a register, may have replaced one)
            kept = {loc: i for loc, i in holders.items()
                    if np.array_equal(np.asarray(again.get(loc)), want[i])}
            if set(kept.values()) == set(range(5)):
                return idx + 1, kept
    return None


def mid_template(ctx: Ctx, template: dict, section: str, head: int, seg: list, blk, cond: list, flags,
                 holders: dict):
    """The state after ``seg`` generalized to the next block (see the module docstring), and its flags."""
    b = Builder()
    dom = TermDomain(b)
    ir, im = names(b)
    st = materialize(template, section, head, dom, ir, im, iter(range(1 << 30)))
    st.cond, st.flags = list(cond), flags
    pm = ctx.machine(dom, ir, im, st, blk)
    pm.run(seg)
    tb = Builder()
    tdom = TermDomain(tb)

    def rebase(name: str) -> Term:
        return tb.var(word_name(word_offset(name) - 64))

    def kind(v, loc):
        if loc in holders:
            return H(holders[loc])
        if isinstance(v, (Ptr, Int, Opq)):
            return v
        if not isinstance(v, Term) or not is_data(v):
            return FREE
        if v.node.op == "const":
            return Const(tb.const(v.node.payload))
        vs = variables([v])
        if vs and all((word_offset(x) or -1) >= 64 and word_offset(x) % 4 == 0 for x in vs):
            return HeadTerm(evaluate([v], tdom, rebase)[0])
        return FREE

    out: dict = {}
    for r, v in pm.s.regs.items():
        if isinstance(v, tuple):
            out[("reg", r)] = (Lanes(tuple(kind(x, ("reg", f"{r}.{j}")) for j, x in enumerate(v))), 0)
        else:
            out[("reg", r)] = (kind(v, ("reg", r)), 0)
    for key, (v, size) in pm.s.mem.items():
        if key[0] == "stack" or key[0] == "state":
            k = kind(v, ("mem", key[0], key[2]) if not key[1] else None)
            if key[0] == "state" and not isinstance(k, H):
                k = FREE
            out[("mem", key)] = (k, size)
    for i in range(5):
        # a state word the segment never touched still holds the old H: never the next block's input
        loc = ("mem", ("state", "", 4 * i))
        if loc not in out:
            out[loc] = (H(holders[("mem", "state", 4 * i)]) if ("mem", "state", 4 * i) in holders else FREE, 4)
    return out, pm.s.flags


__all__ = ["MAX_BLOCKS", "data_step", "generic", "tail_template", "prove_multi_block", "compress_chain",
           "find_cut", "mid_template"]
