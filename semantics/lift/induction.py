"""The inductive step of a loop proof: one iteration from the template back to the head, or to an exit.

``verify_step(ctx, template, kabs, target, ...)`` materializes the loop-head
template (``template.materialize``) for block ``kabs`` (k symbolic), explores
every path of one iteration (``paths.explore``) and proves, per path:

* back at the head: ``kabs + 1 < n``; pointers, counts and entry values at
  their ``target`` values for k+1 (z3); constants unchanged (identity); every
  head value ``Term(t)`` equal to ``t`` over the next chaining value (the
  values at the H homes) and the next block's words (identity, else the
  prover); the chaining value -- every H location -- equal to
  ``compress(H, block)`` (``composition.check_program`` over the path's
  trace, the whole compression, with the head values written over the spec's
  message-word symbols, ``template.WordDomain``);
* at ``ret``: ``kabs + 1 == n``, the state words hold ``compress(H, block)``,
  callee-saved registers and the stack pointer restored.

The block being compressed starts at ``64 * kabs`` in the data region (the
contract's block k); words read beyond it (OpenSSL reads block k+1 ahead)
are named ``data[64+4j]`` and allowed only inside the buffer (``64*n``).

Example: OpenSSL's ``_ssse3_shortcut`` from its head gives two paths (back to
the head when ``data + 64 + 64k != data + 64n``, else to the exit); the
compression is proved once on their common prefix (160 cuts), the W+K ring
of block k+1 on the stack by term identity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.composition import check_program
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder, Term, evaluate, variables
from sha1opt.semantics.lift import cbc, lanes
from sha1opt.semantics.lift.counter import counted, loop_counted
from sha1opt.semantics.lift.executor import Int, Opq, PathMachine, Program, Ptr, State, explore, is_data
from sha1opt.semantics.lift.memory import host_words, wide_slots
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.schedule import ScheduleProver
from sha1opt.semantics.lift.template import (Const, H, HeadTerm, Lanes, WordDomain, compress_location, describe,
                                             flat_locations, h_homes, head_var, materialize, read,
                                             uses_block_words)
from sha1opt.semantics.lift.interface import SAVED, WORKSPACE_AT
from sha1opt.semantics.lift.verdict import Verdict, stopped
from sha1opt.semantics.prove import Counterexample, Proved, Prover
from sha1opt.semantics.sha1 import Definition, Spec, range_spec
from sha1opt.semantics.vector import VECTOR_ROWS

@dataclass
class Ctx:
    """One function proof's fixed parts: the object, its code, the symbols n and k, the axioms."""

    obj: ObjectFile
    program: Program
    bits: int
    contract: object                 # interface.Contract (abi, min_blocks, args, workspace)
    n: z3.BitVecRef
    k: z3.BitVecRef
    axioms: list = field(default_factory=list)

    def bv(self, v: int) -> z3.BitVecRef:
        return z3.BitVecVal(v, self.bits)

    @property
    def data_size(self) -> z3.BitVecRef:
        return self.bv(64) * self.n

    def implies(self, cond: list, goal) -> bool:
        s = z3.Solver()
        s.set("timeout", 10000)
        s.add(*self.axioms, *cond, z3.Not(goal))
        return s.check() == z3.unsat

    def model_n(self, cond: list, goal) -> str:
        s = z3.Solver()
        s.set("timeout", 10000)
        s.add(*self.axioms, *cond, z3.Not(goal))
        if s.check() == z3.sat:
            m = s.model()
            vals = [f"{d.name()}={m[d]}" for d in m.decls() if d.name() in ("n", "k")]
            return ", ".join(sorted(vals))
        return "unknown"

    def stack_writable(self, off: int) -> bool:
        c = self.contract
        if c.workspace_words and WORKSPACE_AT <= off < WORKSPACE_AT + 4 * c.workspace_words:
            return True
        return off < 0 or (c.abi == "cdecl" and 4 <= off < 4 + 4 * len(c.args))

    def machine(self, domain, init_reg, init_mem, st: State, block=None) -> PathMachine:
        if self.contract.host_words:
            init_mem = host_words(domain, init_mem)
        if self.contract.state_wide:
            init_mem = wide_slots(init_mem)
        return PathMachine(self.program, domain, init_reg, init_mem, st, bits=self.bits, block=block,
                           axioms=self.axioms, stack_writable=self.stack_writable, data_size=self.data_size,
                           data_writable=self.contract.data_clobbered, counter=self.counter,
                           block_in_context=self.contract.block_in_context, state_wide=self.contract.state_wide,
                           scratch=self.contract.scratch_in_context,
                           select_cmov=self.contract.multi_buffer, messages=self.messages)

    @property
    def messages(self) -> int:
        """A multi-buffer contract's descriptors (4 a group: ``groups`` is a constant of each proof), else 0."""
        groups = dict(self.contract.constants).get(2) if self.contract.multi_buffer else None
        return lanes.PER_GROUP * groups if groups else 0

    @property
    def counter(self) -> int | None:
        """``state counter@OFFSET``: the counter's low word as an offset from the state words, or None."""
        c = self.contract
        return None if c.counter_offset is None else c.counter_offset - c.state_offset


def names(b: Builder):
    """``initial_reg`` / ``initial_mem`` of the lifter: h_i, m_j (current block), data[c] beyond it."""
    def init_reg(r: str) -> Term:
        return b.var(f"%{r}")

    def init_mem(region: str, off: int) -> Term:
        if region == "state" and off % 4 == 0 and 0 <= off < 20:
            return b.var(f"h{off // 4}")
        if region == "data" and off % 4 == 0 and 0 <= off < 64:
            return b.var(f"m{off // 4}")
        return b.var(f"{region}[{off}]")
    return init_reg, init_mem


def restored(ctx: Ctx, st: State, counter: bool = True) -> str | None:
    """Why the exit state breaks the ABI (callee-saved registers, stack pointer) or, with ``counter``, the
    contract's byte counter (``counted``), or None. Every exit's proof asks it: one-block and nblocks = 0 exits
    whole; a loop's exits ask the counter apart (``loop_counted``: an invariant may have lost it)."""
    for r in SAVED[ctx.contract.abi]:
        v = st.regs.get(r)
        if not (isinstance(v, Opq) and v.name == f"%{r}"):
            return f"callee-saved %{r} is not restored"
    sp = st.regs.get("esp")
    w = ctx.bits // 8
    if not (isinstance(sp, Ptr) and sp.region == "stack" and ctx.implies(st.cond, sp.off == ctx.bv(w))):
        return "the stack pointer is not restored at ret"
    return counted(ctx, st) if counter else None


def block_offset(template: dict, ctx: Ctx, kabs) -> z3.BitVecRef:
    """Where block ``kabs`` starts: its index times the data pointer's step (64 bytes a block).

    A loop whose data pointer stays put and whose reads are indexed by a count moving one block per
    iteration (``mov 4(%rsi,%r15)`` with ``%rsi`` the end of the data and ``%r15`` counting -64n up to 0:
    sha1opt's ``index`` loop control, ``search.space.loop_control``) has no moving data pointer: the
    block then starts at that count's step times ``kabs``. The choice is only the hypothesis the
    induction checks (the caller requires ``64 * kabs``; every read is then proved against that block),
    so a wrong pick fails the proof, never passes it.
    """
    moving = []
    for tv, _ in template.values():
        if isinstance(tv, Ptr) and tv.region == "data" or isinstance(tv, Int):
            step = z3.simplify(z3.substitute(tv.off if isinstance(tv, Ptr) else tv.v, (ctx.k, ctx.k + 1))
                               - (tv.off if isinstance(tv, Ptr) else tv.v))
            if z3.is_bv_value(step) and step.as_long() != 0:
                moving.append((isinstance(tv, Int), step.as_long(), step))
    for is_int, value, step in sorted(moving, key=lambda m: m[0]):     # a data pointer's step first
        if not is_int or value == 64:           # else a count moving one block
            return z3.simplify(step * kabs)
    return ctx.bv(0)


@dataclass
class _Step:
    """One iteration explored from a materialized template: its paths and what checking them needs."""

    paths: list
    block: z3.BitVecRef
    tdom: TermDomain
    init_mem: object
    machine: object              # State -> PathMachine (block ``block``)
    start: State                 # the head state the paths start from


def _explore_step(ctx: Ctx, template: dict, kabs, section: str, head: int, cond0: list):
    """The paths of one iteration from ``template`` (block ``kabs``), or (the verdict, trace) that stops it:
    a block not read at ``64 * kabs``, or a path the executor stopped."""
    k = ctx.k
    fresh = iter(range(1 << 30))
    b = Builder()
    tdom = TermDomain(b)
    ir, im = names(b)
    tk = materialize(template, section, head, tdom, ir, im, fresh)
    tk.cond = list(cond0) + [z3.ULT(kabs, ctx.n), z3.ULT(k, ctx.bv(1 << (ctx.bits - 8)))]
    block = block_offset(template, ctx, kabs)
    if not ctx.implies([], block == ctx.bv(64) * kabs):
        # The spec's block k is whatever the data reads are relative to: it must be data + 64*k.
        return Verdict("counterexample", f"block k is read at data+{z3.simplify(block)}, not data+64*k: the loop "
                       "does not advance the data pointer by one block per iteration"), []

    def machine_k(st: State) -> PathMachine:
        return ctx.machine(tdom, ir, im, st, block)

    start = tk.copy()
    paths = explore(machine_k, tk, {head})
    for p in paths:
        if p.kind in ("refused", "limit", "violation"):
            return stopped(p), p.state.trace
    return _Step(paths, block, tdom, im, machine_k, start)


def exit_compression(ctx: Ctx, exact: dict, section: str, head: int, prover: Prover, cond0: list):
    """The first iteration from the loop's exact entry state (``exact``: ``build_template`` of S0 alone) checked
    where its result is known without a guess: each path that leaves the loop (nblocks = 1), and each path back
    to the head that writes all five state words (libgcrypt stores the chaining value every block), must leave
    ``compress(H, block)`` in the state words. (verdict, trace) of the first that does not, else None.

    No guess of the invariant is involved, so the verdict names the round where wrong code goes astray, where
    the template guessed from wrong code's own states havocs H (H is not compress(H) one iteration on) and
    every new a is "never computed" from A1 on: every mutant of libgcrypt's and OpenSSL's SSSE3/AVX loops,
    whose heads hold the next block's W + K, was named A1. A path back to the head that keeps H in registers
    only (Crypto++'s SHA-NI loop) is not checked here: where H is there is what the invariant guesses.
    """
    step = _explore_step(ctx, exact, ctx.bv(0), section, head, cond0)
    if isinstance(step, tuple):
        return None
    for p in step.paths:
        if p.kind == "head" and not all(_written(step.start, p.state, ("state", "", 4 * i)) for i in range(5)):
            continue
        res, _ = compress_holds(ctx, exact, section, head, p.state.trace, step.block, prover, p.state.cond, False,
                                exact)
        if res is not None:
            return res, p.state.trace
    return None


def _written(start: State, end: State, key: tuple) -> bool:
    """Whether the memory word ``key`` holds another value at ``end`` than at ``start`` (a path wrote it)."""
    got = end.mem.get(key)
    return got is not None and (key not in start.mem or got[0] is not start.mem[key][0] and got[0] != start.mem[key][0])


def verify_step(ctx: Ctx, template: dict, kabs, target: dict, subst, section: str, head: int, prover: Prover,
                cond0: list):
    """One iteration from ``template`` (block ``kabs``; symbol k free): back to ``target`` at k+1, or exit at n.

    ``subst(expr, (k, k+1))`` maps the target's values to the next head (plain ``z3.substitute``
    when the target is the same template). Returns ``(Verdict, trace)``: a proved verdict's ``cuts``
    are every cut its compression checks proved (the common prefix's and each differing suffix's).
    """
    step = _explore_step(ctx, template, kabs, section, head, cond0)
    if isinstance(step, tuple):
        return step
    paths, block, tdom, im, machine_k, start = (step.paths, step.block, step.tdom, step.init_mem, step.machine,
                                                 step.start)
    for p in paths:
        st = p.state
        if p.kind == "head":
            if not ctx.implies(st.cond, z3.ULT(kabs + 1, ctx.n)):
                return Verdict("counterexample", "the loop branches back past the last block "
                               f"({ctx.model_n(st.cond, z3.ULT(kabs + 1, ctx.n))})"), st.trace
            why = template_holds(ctx, target, st, subst) or head_terms_hold(target, st, tdom, im, prover)
            if why:
                return Verdict("unknown", f"loop invariant not re-established: {why}"), st.trace
        else:
            if not ctx.implies(st.cond, kabs + 1 == ctx.n):
                return Verdict("counterexample", f"the loop exits before the last block "
                               f"({ctx.model_n(st.cond, kabs + 1 == ctx.n)}, i.e. after k+1 of n blocks)"), st.trace
            why = restored(ctx, st, counter=False)
            if why:
                return Verdict("counterexample", why), st.trace
            bad = loop_counted(ctx, st, z3.is_bv_value(z3.simplify(kabs)))     # (kabs a constant: the exact head)
            if bad is not None:
                return bad, st.trace
        if ctx.contract.cbc:
            # the AES-CBC stream: this block's ciphertext and the chain (or, at an exit, the iv)
            bad = cbc.holds(ctx, target if p.kind == "head" else template, st, p.kind == "head", tdom, im, prover,
                            flat_locations, read)
            if bad:
                return Verdict(bad[0], f"AES-CBC: {bad[1]}"), st.trace
    # The paths share the iteration up to the loop branch: prove compress once on that prefix, then
    # check each path's suffix leaves the state words and H locations as the prefix did (same terms).
    n_common = common_prefix([p.state.trace for p in paths])
    prefix = paths[0].state.trace[:n_common]
    backs = any(p.kind == "head" for p in paths)
    res, solver_cuts = compress_holds(ctx, template, section, head, prefix, block, prover, paths[0].state.cond,
                                      backs, target)
    start.cond = list(paths[0].state.cond)
    at_prefix = machine_k(start.copy())
    at_prefix.run(prefix)
    for p in paths:
        if not same_results(target, at_prefix.s, p.state, p.kind == "head"):
            res, extra = compress_holds(ctx, template, section, head, p.state.trace, block, prover, p.state.cond,
                                        p.kind == "head", target)
            if res is not None:
                return res, p.state.trace
            solver_cuts += extra
    if res is not None:
        return res, prefix
    trace_for_cost = next((p.state.trace for p in paths if p.kind == "head"), prefix)
    chain = "; the AES-CBC chain C := E(P xor C) over the block's 4 ciphertext blocks" if ctx.contract.cbc else ""
    return Verdict("proved", f"invariant (H := compress(H, block), pointers and counts by constant steps{chain}) "
                   f"holds on entry, is preserved and gives the result at every exit; {len(paths)} path(s) from the "
                   f"head, {solver_cuts} cuts", solver_cuts), trace_for_cost


def establishes(ctx: Ctx, template: dict, st: State, prover: Prover) -> str | None:
    """Why the arrival ``st`` at the loop head does not satisfy ``template`` at iteration 0, or None.

    The base case of the induction: pointers, counts and entry values at their k = 0 values (z3),
    constants and head values as they are (identity, else the prover), and every H location
    holding the *caller's* chaining value: the variable h_i itself (a state word the prologue never
    wrote reads as h_i). A template read off the arrival matches it everywhere but there: a prologue
    that changes a state word (``notl (%rdi)``) leaves a head whose "H" is not the caller's, and the
    result would be the compression of the wrong chaining value.
    """
    zero = [(ctx.k, ctx.bv(0))]
    for loc, (tv, _) in template.items():
        got = read(st, loc)
        if isinstance(tv, Ptr):
            want = z3.substitute(tv.off, *zero)
            if not (isinstance(got, Ptr) and got.region == tv.region and ctx.implies(st.cond, got.off == want)):
                return f"{_where(loc)} is not {tv.region}+{z3.simplify(want)}"
        elif isinstance(tv, Int):
            want = z3.substitute(tv.v, *zero)
            if not (isinstance(got, Int) and ctx.implies(st.cond, got.v == want)):
                return f"{_where(loc)} is not {z3.simplify(want)}"
    for loc, tv in flat_locations(template):
        got = read(st, loc)
        if isinstance(tv, Opq) and not (isinstance(got, Opq) and got.name == tv.name):
            return f"{_where(loc)} does not hold {tv.name}"
        if isinstance(tv, H):
            if got is None and loc == ("mem", ("state", "", 4 * tv.index)):
                continue                                    # untouched state word: holds h_i
            if not (isinstance(got, Term) and got.node.op == "var" and got.node.payload == f"h{tv.index}"):
                return f"{_where(loc)} does not hold the caller's state word {tv.index} (h{tv.index})"
        elif isinstance(tv, Const):
            if not (isinstance(got, Term) and got.node.op == "const" and got.node.payload == tv.term.node.payload):
                return f"{_where(loc)} does not hold {tv.term.node.payload:#x}"
        elif isinstance(tv, HeadTerm):
            if not (isinstance(got, Term) and got.builder is tv.term.builder
                    and (got == tv.term or isinstance(prover.check(got, tv.term), Proved))):
                return f"{_where(loc)} does not hold its head value"
    if ctx.contract.cbc:
        return cbc.entered(st, template, flat_locations, read)
    return None


def _where(loc) -> str:
    return f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1][0]}{loc[1][2]:+d}"


def template_holds(ctx: Ctx, template: dict, st: State, subst=z3.substitute) -> str | None:
    """Pointers, counts, entry values and constants of ``template`` at k+1 in ``st``, or why not."""
    for loc, (tv, _) in template.items():
        got = read(st, loc)
        what = describe(loc)
        if isinstance(tv, Ptr):
            want = subst(tv.off, (ctx.k, ctx.k + 1))
            if not (isinstance(got, Ptr) and got.region == tv.region and ctx.implies(st.cond, got.off == want)):
                return f"{what} should be {tv.region}+{z3.simplify(want)}"
        elif isinstance(tv, Int):
            want = subst(tv.v, (ctx.k, ctx.k + 1))
            if not (isinstance(got, Int) and ctx.implies(st.cond, got.v == want)):
                return f"{what} should be {z3.simplify(want)}"
    for loc, tv in flat_locations(template):
        if isinstance(tv, Opq) and not (isinstance(read(st, loc), Opq) and read(st, loc).name == tv.name):
            return f"{describe(loc)} should still hold {tv.name}"      # (a register, a slot or a vector lane)
        if isinstance(tv, Const):
            got = read(st, loc)
            if not (isinstance(got, Term) and got.node.op == "const" and got.node.payload == tv.term.node.payload):
                return f"{describe(loc)} should still hold {tv.term.node.payload:#x}"
    return None


def head_terms_hold(template: dict, st: State, tdom: TermDomain, init_mem, prover: Prover,
                    blocks: int = 1) -> str | None:
    """Every head value ``Term(t)`` of ``template`` holds ``t`` over H_{k+1} and block k+1 in ``st``, or why not.

    H_{k+1} is read at the H homes (proved to hold compress(H, block) by ``compress_holds``); for a
    loop of ``blocks`` blocks per iteration every data word of ``t`` is read ``64*blocks`` bytes on.
    """
    homes = h_homes(template)
    h_next = {f"h{i}": read(st, loc) for i, loc in homes.items()}

    def lookup(name: str):
        if name[0] == "h":
            v = h_next[name]
            return v if is_data(v) and v is not None else init_mem("state", 4 * int(name[1]))
        return head_var(name, init_mem, blocks)      # (a data word: the next iteration's)

    cache: dict = {}
    for loc, tv in flat_locations(template):
        if not isinstance(tv, HeadTerm):
            continue
        got = read(st, loc)
        want = evaluate([tv.term], tdom, lookup, cache)[0]
        if not isinstance(got, Term) or not (got == want or isinstance(prover.check(got, want), Proved)):
            return f"{describe(loc)} should hold the next block's value of its head term"
    return None


def cut_head_values(st: State, template: dict, cuts: ScheduleProver) -> None:
    """Each head value of ``st`` (materialized from ``template``) with its schedule words cut to symbols."""
    for loc, (tv, size) in template.items():
        if isinstance(tv, HeadTerm):
            v = read(st, loc)
            if isinstance(v, Term):
                _put(st, loc, cuts.head_cuts(v), size)
        elif isinstance(tv, Lanes) and any(isinstance(t, HeadTerm) for t in tv.kinds):
            lanes = st.regs[loc[1]]
            st.regs[loc[1]] = tuple(cuts.head_cuts(v) if isinstance(t, HeadTerm) and isinstance(v, Term) else v
                                    for t, v in zip(tv.kinds, lanes))


def _put(st: State, loc, v, size: int) -> None:
    if loc[0] == "reg":
        st.regs[loc[1]] = v
    else:
        st.mem[loc[1]] = (v, size)


def _inline(spec: Spec, name: str) -> Spec:
    """``spec`` without the cut ``name``: its definition substituted into later definitions and the outputs."""
    b = spec.builder
    env: dict[str, Term] = {}
    cache: dict[int, object] = {}
    lookup = lambda v: env.get(v) or b.var(v)  # noqa: E731
    dom = TermDomain(b)
    defs = []
    for dfn in spec.definitions:
        term = evaluate([dfn.term], dom, lookup, cache)[0] if env else dfn.term
        if dfn.name == name:
            env[name] = term
            cache.clear()
            continue
        defs.append(Definition(dfn.name, term, dfn.what, dfn.round))
    outs = {k: evaluate([t], dom, lookup, cache)[0] for k, t in spec.outputs.items()}
    return Spec(b, spec.first, spec.last, list(spec.inputs), defs, outs)


def common_prefix(traces: list) -> int:
    n = min(len(t) for t in traces)
    for i in range(n):
        if any(t[i] is not traces[0][i] for t in traces):
            return i
    return n


def same_results(template: dict, a: State, b: State, back: bool) -> bool:
    """The state words (and, for a path back to the head, every H location) hold the same term in ``a`` and ``b``."""
    keys = [("mem", ("state", "", 4 * i)) for i in range(5)] + [loc for loc, tv in flat_locations(template)
                                                                 if isinstance(tv, H) and back]
    for loc in keys:
        va, vb = read(a, loc), read(b, loc)
        if not (va is vb or (isinstance(va, Term) and va == vb)):
            return False
    return True


def compress_holds(ctx: Ctx, template: dict, section: str, head: int, trace: list, block, prover: Prover,
                   cond: list, back: bool, target: dict | None = None, flags=None):
    """check_program over the path's trace: the H homes (state words at an exit) hold compress(H, block).

    Returns ``(None, cuts)`` when they do (``cuts``: the cut points ``check_program`` proved), else
    ``(Verdict, 0)`` saying what fails.

    ``flags``: the flags at the start of ``trace`` (a trace cut inside an iteration, ``multiblock``).
    Head values over the block's words that contain schedule words W16.. (OpenSSL's AVX2 keeps W+K
    of rounds 0-31 on the stack at its head) have those subterms cut to the spec's symbols first,
    each proved equal to its definition (``ScheduleProver.head_cuts``).
    """
    spec = range_spec(Builder(), 0, 79)
    target = target if target is not None else template
    inputs = {f"h{i}": ("mem", "state", 4 * i) for i in range(5)}
    words = uses_block_words(template)
    if words:
        # The head holds the block's message words precomputed: W0..W15 become the inputs
        # (data word j is bswap(W_j)), so head values and the rounds reading them meet the symbols.
        spec = Spec(spec.builder, 0, 79, [f"h{i}" for i in range(5)] + [f"W{j}" for j in range(16)],
                    [d for d in spec.definitions if not (d.name[0] == "W" and int(d.name[1:]) < 16)], spec.outputs)
        inputs.update({f"W{j}": ("mem", "W", 4 * j) for j in range(16)})
    else:
        inputs.update({f"m{j}": ("mem", "data", 4 * j) for j in range(16)})
    stride = ctx.contract.state_stride          # (``state@S wide``: the words are 64-bit slots' low halves)
    homes = h_homes(target) if back else {i: ("mem", ("state", "", stride * i)) for i in range(5)}
    outputs = {f"h{i}": compress_location(loc) for i, loc in homes.items()}
    machines: list[PathMachine] = []

    def factory(dom, init_reg, init_mem, pointers=None):
        fresh = iter(range(1 << 30))
        if words:
            dom = WordDomain(dom.builder) if isinstance(dom, TermDomain) else dom
            given = init_mem

            def init_mem(region: str, off: int):
                if region == "data" and off % 4 == 0 and 0 <= off < 64:
                    return dom.apply("bswap", given("W", off))
                return given(region, off)
        s = materialize(template, section, head, dom, init_reg, init_mem, fresh)
        s.cond = list(cond)
        s.flags = flags
        if words and isinstance(dom, TermDomain) and isinstance(cuts_prover, ScheduleProver):
            cut_head_values(s, template, cuts_prover)
        pm = ctx.machine(dom, init_reg, init_mem, s, block)
        machines.append(pm)
        return pm

    # sha1rnds4 computes four rounds in one value, so rounds 1-3 of each group are never written:
    # the schedule prover cuts the rounds inside such a value one at a time (also for a block loaded in the loop);
    # a vector message schedule loaded in the loop (the i386 hybrid's rol2 recurrence) is true only through
    # the W definitions, which the schedule prover also proves (it tries the plain prover first)
    multi_round = any(d.mnemonic == "sha1rnds4" or d.mnemonic in VECTOR_ROWS for d in trace)
    cuts_prover = ScheduleProver(prover, spec) if words or multi_round else prover
    res = first = check_program(trace, spec, inputs, outputs, cuts_prover, machine=factory)
    for _ in range(8):
        # A compiler may fold a round's new a into the feed-forward sum (gcc: h0 + A80 reassociated,
        # clang: h1 + (A79 - K) + K): the cut symbol then stands for a value the output is not built
        # from, so inline the definitions that output names and prove it without those cuts.
        if res.ok or res.failure is None or res.failure.output is None:
            break
        if res.cuts == 0 and isinstance(res.outcome, Counterexample) and res.outcome.found_by == "tests":
            break       # the output differs on concrete states: inlining the spec cannot change that
        out_name = res.failure.output
        missing = [v for v in variables([spec.outputs[out_name]]) if v not in spec.inputs]
        if res.missing_definition is not None:
            missing.append(res.missing_definition.name)
        if not missing:
            break
        for nm in dict.fromkeys(missing):
            spec = _inline(spec, nm)
        machines.clear()
        cuts_prover = ScheduleProver(prover, spec) if words or multi_round else prover
        res = check_program(trace, spec, inputs, outputs, cuts_prover, machine=factory)
    if not res.ok:
        # The first check (all cuts) names the first round never computed and its counterexample.
        kind = "counterexample" if isinstance(res.outcome, Counterexample) else "unknown"
        wrong = first.missing_definition.name if first.missing_definition is not None else None
        return Verdict(kind, f"the iteration does not compute compress(H, block): {describe_failure(first)}", 0,
                       None, wrong), 0
    # every other location that held H_k at the head must hold H_{k+1} again
    m_t = machines[-1]
    for loc, tv in flat_locations(target):
        if not back or not isinstance(tv, H) or loc == homes[tv.index]:
            continue
        got = read(m_t.s, loc)
        want = m_t.get(compress_location(homes[tv.index]))
        if got is None or not is_data(got) or not (got == want or isinstance(prover.check(got, want), Proved)):
            return Verdict("unknown", f"{describe(loc)} held h{tv.index} at the loop head but not after an "
                           "iteration"), 0
    return None, res.cuts


__all__ = ["Ctx", "SAVED", "names", "restored", "verify_step", "exit_compression",
           "block_offset", "compress_holds", "establishes", "template_holds", "head_terms_hold"]
