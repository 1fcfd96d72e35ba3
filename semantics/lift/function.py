"""The whole-function proof: every path of a block function, for every nblocks its contract allows.

``prove_function(obj, name, contract)`` decodes the function (with the code
its direct jumps enter outside its symbol, ``decode.decode_reach``: a
stripped shared object's block function has no symbol), explores it
from the ABI's entry state (``executor.explore``) and proves each path:

* *entry to ret without the loop* (nblocks = 0 under sha1opt's contract):
  the state words are unchanged, callee-saved registers and the stack
  pointer restored;
* *entry to a loop head* (one per dispatch path): the loop-head state ``S0``
  becomes a template invariant ``T(k)`` (``template``) -- the chaining value
  H_k in the state words (and in any register or vector lane that held it in
  ``S0``), each pointer or count that moves by a constant per iteration at
  ``S0 + k*delta`` (the deltas read off one iteration from ``S0``), entry
  values that stay put kept, head values over block k's words (OpenSSL's
  precomputed W and W+K) as the same terms of block k, everything else
  havocked. Then (``induction``), for a symbolic k with 0 <= k < n:
  every path from ``T(k)`` back to the head has ``k+1 < n``, re-establishes
  ``T(k+1)`` (pointers, counts, saved registers: z3; the chaining value:
  ``composition.check_program`` with the whole SHA-1 compression, so
  H_{k+1} = compress(H_k, block k)), and every path to ``ret`` has
  ``k+1 == n``, leaves H_{k+1} in the state words and restores the
  callee-saved registers and the stack pointer. With ``T(0) == S0`` (the
  base case, ``induction.establishes``: every H location of ``S0`` holds the
  caller's h_i itself, not a value the prologue made of it) and ``S0``'s path
  condition implying ``n >= 1``, induction gives the result for every n the
  contract allows.

A loop that moves its data pointer by m = 2..4 blocks per iteration (OpenSSL's
AVX2 path, two blocks in ymm lanes) is proved by ``multiblock`` with an
invariant of m blocks a step and its tails (1..m-1 blocks left); the arrivals
at its head under one dispatch condition (the prologue's cmov fork on n) are
one path. Any other step of more than 64 bytes is refused by name (category
``"loop shape"``).

Unknown is never success: ``FunctionProof.proved`` is True only when every
path proved. A refusal (an instruction, address or relocation the executor
does not model) is a value naming the instruction, address and line, with
its ``category`` (``values.CATEGORIES``).

A ``PathReport`` carries its facts as fields -- ``kind``, ``label``,
``head``, ``cuts``, ``category`` -- and its ``name`` is display text made
from them in one place (``PathReport.name``); nothing reads a fact back out
of a name or a detail.

Example: the project's own x86-64 export gives two paths:
``PathReport(kind="loop not entered", label="sha1_block_data_order", head=None, cuts=0, ...)``
named ``entry -> ret, loop not entered`` (nblocks = 0: a no-op), and
``PathReport(kind="loop", label="sha1_block_data_order", head=0x2a, cuts=160, ...)`` named
``loop at 0x2a (sha1_block_data_order)``; changing its ``jnz`` to ``js``
leaves the exit path with ``k+1 == n`` unprovable (n = 2 exits after one
block): "not proved".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import z3
from z3 import z3util

from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder, Term
from sha1opt.semantics.lift import cbc, lanes
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.condition import words
from sha1opt.semantics.lift.counter import COUNTER_BOUND, entry_words
from sha1opt.semantics.lift.decode import Decoded, decode_function, decode_reach, line_table
from sha1opt.semantics.lift.candidates import sha1_candidates
from sha1opt.semantics.lift.elf import NoFunction, ObjectError, ObjectFile
from sha1opt.semantics.lift.interface import (ARG_REGS, ENTRY_ALIGNMENT, SAVED, WORKSPACE_AT, Abi,  # noqa: F401
                                              Contract)  # (Abi: re-exported)
from sha1opt.semantics.lift.executor import Int, Opq, PathEnd, PathMachine, Program, Ptr, State, explore
from sha1opt.semantics.lift.handoff import entry_changed, passed_contract
from sha1opt.semantics.lift.induction import (Ctx, block_offset, compress_holds, establishes, exit_compression, names,
                                              restored, verify_step)
from sha1opt.semantics.lift.messages import prove_messages
from sha1opt.semantics.lift.streams import dispatch
from sha1opt.semantics.lift.multiblock import MAX_BLOCKS, data_step, generic, prove_multi_block
from sha1opt.semantics.lift.proof_report import PATH_KINDS, FunctionProof, PathKind, PathReport  # noqa: F401
from sha1opt.semantics.lift.summary import Havoc
from sha1opt.semantics.lift.template import build_template
from sha1opt.semantics.lift.values import stack_base, trailing_bytes
from sha1opt.semantics.lift.verdict import Verdict, stopped
from sha1opt.semantics.lift.witness import witness
from sha1opt.semantics.prove import Prover

N_BOUND = {64: 58, 32: 26}     # nblocks < 2^N_BOUND[bits]: the byte count 64 * nblocks fits the address space

def entry_state(ctx: Ctx, section: str, entry: int) -> State:
    """The state at the function's entry: each argument's role as the contract declares it (``interface``):
    the state pointer ``state_offset`` bytes before the state words (its context), the data at block 0, the
    count ``n`` or the byte length ``64*n + r``, a workspace, a constant; callee-saved registers opaque."""
    st = State((section, entry))
    w = ctx.bits // 8
    st.regs["esp"] = Ptr("stack", ctx.bv(0))
    st.mem[("stack", "", 0)] = (Opq("return address"), w)
    c = ctx.contract
    # the state argument points state_offset bytes before the state words (its context); a byte length is
    # 64*nblocks plus trailing bytes that are not a whole block (``trailing_bytes``, 0 <= r < 64), or exactly
    # 64*nblocks under ``bytes whole``
    values = {"state": Ptr("state", ctx.bv(-c.state_offset)), "data": Ptr("data", ctx.bv(0)),
              "words": Ptr("data", ctx.bv(0)), "nblocks": Int(ctx.n),
              "bytes": Int(ctx.bv(64) * ctx.n + (ctx.bv(0) if c.whole_bytes else trailing_bytes(ctx.bits))),
              "workspace": Ptr("stack", ctx.bv(WORKSPACE_AT)), **cbc.entry_values(ctx.bits),
              **lanes.entry_values(ctx.bits)}
    consts = dict(c.constants)
    for i, role in enumerate(c.args):
        v = Int(ctx.bv(consts[i])) if i in consts else values[role]
        if c.abi == "sysv" and i < len(ARG_REGS["sysv"]):
            st.regs[ARG_REGS["sysv"][i]] = v
        elif c.abi == "sysv":
            # (SysV's seventh argument on: 8-byte stack slots above the return address)
            st.mem[("stack", "", 8 * (i - len(ARG_REGS["sysv"]) + 1))] = (v, 8)
        else:
            st.mem[("stack", "", 4 + 4 * i)] = (v, 4)
    for r in SAVED[ctx.contract.abi]:
        st.regs[r] = Opq(f"%{r}")
    st.mem.update(entry_words(ctx))       # (``state counter@OFFSET``: its words, carried by every invariant)
    return st


def _cond_text(cond: list, bits: int) -> str:
    """A path condition in words: ``bit 9 of OPENSSL_ia32cap_P+4 is 0 and n != 0`` (``condition.words``)."""
    return words(cond, {"n": N_BOUND[bits]})


# -- the proof ----------------------------------------------------------------------------------

def prove_function(obj: ObjectFile, name: str | None, contract: Contract, *, prover: Prover | None = None,
                   paths: frozenset[str] | None = None) -> FunctionProof:
    """``paths``: prove only the path ends labelled by one of these symbols (``label`` below: the symbol holding
    a path's last instruction, e.g. ``_ssse3_shortcut``); the others are reported as "not checked", so
    ``proved`` is False and ``outcome`` at best "not checked". A label no path has raises ``ObjectError``."""
    t0 = time.perf_counter()
    try:
        sym = obj.find_function(name)
    except NoFunction as e:
        found = sha1_candidates(obj)
        raise ObjectError(f"{e}" + (f"; SHA-1 candidates: {', '.join(found)}" if found else "")) from None
    lines = line_table(obj)
    fn = decode_reach(obj, sym, lines)
    program = Program(obj, fn, lambda o, s: decode_function(o, s, lines), statics=contract.one_block)
    bits = 64 if obj.arch == "x86_64" else 32
    n, k = z3.BitVec("n", bits), z3.BitVec("k", bits)
    ctx = Ctx(obj, program, bits, contract, n, k)
    ctx.axioms += [z3.ULT(n, ctx.bv(1 << N_BOUND[bits])), z3.UGE(n, ctx.bv(contract.min_blocks)),
                   z3.ULT(trailing_bytes(bits), ctx.bv(64))]
    if contract.counter_offset is not None:
        # ``state counter@OFFSET``: bytes = 64*nblocks < 2^32 (``Contract.describe``); every exit's counter is
        # proved entry + bytes (``counter.counted``, from ``restored``)
        ctx.axioms.append(z3.ULT(n, ctx.bv(1 << COUNTER_BOUND)))
    if contract.cbc:
        ctx.axioms += cbc.axioms()      # the key's round count: one aesni_set_encrypt_key writes
    if contract.block_multiple > 1:
        # ``nblocks even``: the caller passes pairs of blocks (libgcrypt's AVX2 code)
        ctx.axioms.append(n & ctx.bv(contract.block_multiple - 1) == ctx.bv(0))
    align = ENTRY_ALIGNMENT[contract.abi]
    if align is not None:
        # the ABI's entry alignment (SysV: %rsp + 8 = 0 mod 16): compiled C's aligned spills rely on it
        ctx.axioms.append(stack_base(bits) & ctx.bv(align[0] - 1) == ctx.bv(align[1]))
    # One block: no block loop (every loop left has a constant trip count and is unrolled), nblocks is 1.
    if contract.multi_buffer:
        # the block loops (the loop over groups is followed) and where each is left
        exits: dict[int, set[int]] = {}
        for g in [Cfg.build(fn)] + [Cfg.build(decode_function(obj, obj.sized(o), lines)) for o in obj.functions()
                                    if obj.relocatable and o.section == fn.section and o.name != sym.name]:
            exits.update({h: g.loop_exits(h) for h in g.innermost_heads()})
        heads: set = set(exits)
    elif contract.one_block:
        heads = set()
        ctx.axioms.append(n == ctx.bv(1))
    else:
        heads = Cfg.build(fn).loop_heads()     # (with the code the function jumps into: ``decode_reach``)
        # (a local function only called, never jumped into, is a callee: its loops are its own, ``calls``)
        jumped = {d.target for d in fn.instructions.values() if d.target is not None and d.mnemonic != "call"}
        called = {d.target for d in fn.instructions.values() if d.target is not None and d.mnemonic == "call"}
        for other in obj.functions() if obj.relocatable else ():
            # the dispatch jumps into sibling functions (OpenSSL's _ssse3_shortcut ...): their loops are heads too
            # (a linked object's thousands of functions are not decoded: its jumps' targets are in ``fn``)
            inside = range(other.value, other.value + obj.sized(other).size)
            if other.value in called and not any(t in inside for t in jumped):
                continue
            if other.section == fn.section and other.name != sym.name:
                heads |= Cfg.build(decode_function(obj, obj.sized(other), lines)).loop_heads()
    prover = prover or Prover()
    if contract.multi_buffer:
        return _prove_messages(obj, sym, fn, ctx, exits, prover, t0, paths)
    b = Builder()
    init_reg, init_mem = names(b)
    dom = TermDomain(b)

    def machine_for(st: State, block=None) -> PathMachine:
        return ctx.machine(dom, init_reg, init_mem, st, block)

    reports: list[PathReport] = []
    loop_trace: tuple = ()
    straight: tuple = ()
    ends = explore(machine_for, entry_state(ctx, fn.section, fn.entry), heads)
    while program.widen():        # a static set on first use took a value not yet assumed at entry
        ends = explore(machine_for, entry_state(ctx, fn.section, fn.entry), heads)
    findings: list[str] = program.static_findings()

    tails, entries = _stripped_entries(obj, fn, sym)

    def label(end: PathEnd) -> str:
        """The dispatch target a path ends in: the symbol holding its last instruction; in code no symbol
        covers, ``sub_<address>`` (linked address) of the first stripped entry the path passes after the
        function's own jump target (its dispatch path: ``sub_290920``, OpenSSL's SSSE3 code), else of that."""
        if not end.state.trace:
            return sym.name
        addr = end.state.trace[-1].address
        held = obj.covering(end.state.pc_addr[0] or fn.section, addr)     # (a callee may be in another section)
        if held is not None:
            return held.name
        passed = [d.address for d in end.state.trace if d.address in entries]
        entry = next((a for a in passed if a not in tails), passed[0] if passed else addr)
        return f"sub_{obj.addresses.get(fn.section, 0) + entry:x}"

    if paths is not None and not set(paths) <= {label(e) for e in ends}:
        raise ObjectError(f"no path of {sym.name} is labelled {sorted(set(paths) - {label(e) for e in ends})[0]} "
                          f"(labels: {', '.join(sorted({label(e) for e in ends}))})")
    conds: list[tuple] = []         # per report: the path condition its witness is drawn from, its environment
    consumed: set[int] = set()
    # A straight exit of a function that also has a loop is the path that skips it (nblocks = 0), not "no loop".
    exit_kind: PathKind = ("one block" if contract.one_block else
                           "loop not entered" if any(e.kind == "head" for e in ends) else "no loop")

    def report(end: PathEnd, cond: str, v: Verdict, instructions: int, t1: float, **more) -> PathReport:
        kind: PathKind = "loop" if end.kind == "head" else exit_kind if end.kind == "exit" else "stopped"
        via = label(end) if end.kind == "exit" and label(end) != sym.name else None
        return PathReport(kind, label(end), end.head if kind == "loop" else None, cond, v.outcome, v.detail,
                          instructions, time.perf_counter() - t1, v.cuts, v.category, via,
                          first_wrong=v.first_wrong, pointers=end.state.pointers, **more)

    for idx, end in enumerate(ends):
        if idx in consumed:
            continue
        t1 = time.perf_counter()
        cond = _cond_text(end.state.cond, bits)
        conds.append((end.state.cond, end.state.environment))
        if paths is not None and label(end) not in paths:
            reports.append(replace(report(end, cond, Verdict("not checked", "outside the selected paths"),
                                          len(end.state.trace), t1), seconds=0.0))
        elif end.kind in ("refused", "violation", "limit"):
            v = stopped(end)
            if end.kind == "violation":
                v = replace(v, detail=contract.named(end.reason))
            outside = callee = None
            if end.outside is not None:
                why = entry_changed(ctx, end.state, entry_state(ctx, fn.section, fn.entry))
                outside = end.outside if why is None else None
                callee = passed_contract(ctx, end.state) if why is None else None
                v = replace(v, detail=v.detail + (f"; the caller's arguments, callee-saved registers and stack are "
                                                  f"intact: the path is {end.outside}'s own proof" if why is None
                                                  else f"; not {end.outside}'s own proof: {why}"))
            reports.append(report(end, cond, v, len(end.state.trace), t1, outside=outside, callee=callee))
        elif end.kind == "exit" and contract.one_block:
            # (a path through a loop's summary, ``summary.Havoc``, did not trace the loop: no cost is made of it)
            whole = () if any(isinstance(d, Havoc) for d in end.state.trace) else tuple(end.state.trace)
            straight = whole or straight
            reports.append(report(end, cond, _prove_one_block(ctx, end, fn.section, fn.entry, prover),
                                  len(end.state.trace), t1, trace=whole, unlifted=None if whole else
                                  "a loop over an environment string is summarized: its iterations are not traced"))
        elif end.kind == "exit":
            straight = tuple(end.state.trace)
            reports.append(report(end, cond, _prove_noloop_exit(ctx, end), len(end.state.trace), t1))
        else:
            # arrivals at the same head under the same dispatch condition (a prologue's cmov fork on n):
            # a multi-block loop proves them together, one path; any other loop proves each on its own
            key = _dispatch(end.state.cond)
            group = [j for j in range(idx, len(ends)) if ends[j].kind == "head" and ends[j].head == end.head
                     and _dispatch(ends[j].state.cond) == key]
            loop = _prove_loop(ctx, [ends[j] for j in group], machine_for, fn.section, prover, init_reg, init_mem)
            if loop.arrivals > 1:
                consumed.update(group)
                cond = _cond_text(list(key), bits)
                conds[-1] = ((generic(ctx, [ends[j].state for j in group]) or end.state).cond,
                             end.state.environment)
            reports.append(report(end, cond, loop.verdict, len(loop.trace), t1, trace=loop.iteration,
                                  block_bytes=loop.block_bytes, unlifted=loop.unlifted))
            if loop.finding:
                findings.append(loop.finding)
            loop_trace = loop_trace or loop.iteration
    # one report per path end, in order: each gets the capability words that take it
    reports = [replace(r, witness=witness(c, ctx.axioms, env)) for r, (c, env) in zip(reports, conds)]
    bound = tuple(sorted({d.bound for end in ends for d in end.state.trace if d.bound} |
                         {d.bound for r in reports for d in r.trace if d.bound} |
                         {b for end in ends for b in end.state.bound}))
    arrivals = [e.state for e in ends if e.kind == "head"]
    unread = not contract.one_block and bool(arrivals) and not any(_holds_n(st) for st in arrivals)
    return FunctionProof(sym.name, obj.arch, contract, tuple(reports), time.perf_counter() - t0, loop_trace,
                         straight, tuple(findings), unread, bound)


def _prove_messages(obj: ObjectFile, sym, fn, ctx: Ctx, exits: dict[int, set[int]], prover: Prover,
                    t0: float, paths: frozenset[str] | None) -> FunctionProof:
    """A multi-buffer function (``messages``): one report per path and group count, its label the symbol holding
    the path's last instruction and the group count (``sha1_multi_block_avx, 2 groups``), its condition the
    dispatch facts (what the counts select is the detail's: "no message has blocks")."""
    def ctx_for(groups: int) -> Ctx:
        c = replace(ctx.contract, constants=((2, groups),))
        return Ctx(obj, ctx.program, ctx.bits, c, ctx.n, ctx.k, [*ctx.axioms, *lanes.axioms(groups)])

    def holder(end) -> str:
        held = obj.covering(fn.section, end.state.trace[-1].address if end.state.trace else fn.entry)
        return held.name if held else sym.name

    def label(end, groups: int) -> str:
        return f"{holder(end)}, {groups} group{'s' if groups > 1 else ''}"

    reports = []
    for p in prove_messages(ctx_for, lambda c: entry_state(c, fn.section, fn.entry), exits, prover,
                            lambda end, groups: paths is None or bool({holder(end), label(end, groups)} & paths)):
        reports.append(PathReport(p.kind, label(p.end, p.groups), p.end.head if p.kind == "loop" else None,
                                  _cond_text(dispatch(p.cond), ctx.bits), p.verdict.outcome, p.verdict.detail,
                                  len(p.end.state.trace), p.seconds, p.verdict.cuts, p.verdict.category,
                                  witness=witness(p.cond, list(p.axioms)), trace=p.trace,
                                  block_bytes=64 * max(p.messages, 1),
                                  unlifted=None if p.trace or p.kind != "loop" else "no path of the iteration was "
                                  "lifted whole"))
    known = {r.label for r in reports if r.kind == "loop"} | {r.label.rsplit(", ", 1)[0] for r in reports
                                                               if r.kind == "loop"}
    if paths is not None and not set(paths) <= known:
        raise ObjectError(f"no path of {sym.name} is labelled {sorted(set(paths) - known)[0]} (labels: "
                          f"{', '.join(sorted(known))})")
    return FunctionProof(sym.name, obj.arch, ctx.contract, tuple(reports), time.perf_counter() - t0)


def _stripped_entries(obj: ObjectFile, fn, sym) -> tuple[set[int], set[int]]:
    """Where code no symbol covers begins, as far as its jumps tell (a stripped shared object's internal
    functions and dispatch targets): (the targets of the function's jumps out of its own extent; those and
    every jump target there that follows a gap -- padding: no decoded instruction ends at it -- and is no
    loop's head). In ``libcrypto.so.3``: ``SHA1_Transform``'s jump target (the block function); with its
    dispatch paths' code, and their epilogues."""
    inside = range(sym.value, sym.value + sym.size)
    targets = {d.target for d in fn.instructions.values() if d.target is not None and d.mnemonic != "call"
               and d.target not in inside and d.target in fn.instructions}
    if not targets:
        return set(), set()
    ends_at = {d.next for d in fn.instructions.values()}
    heads = Cfg.build(fn).loop_heads()
    out = {t for t in targets if not obj.covering(fn.section, t)}
    tails = {d.target for d in fn.instructions.values() if d.address in inside} & out
    return tails, {t for t in out if t in tails or (t not in ends_at and t not in heads)}


def _holds_n(st: State) -> bool:
    """Whether nblocks is in the path condition of ``st`` or in a count or pointer it holds."""
    values = [*st.regs.values(), *(v for v, _ in st.mem.values())]
    exprs = [*st.cond, *(v.v for v in values if isinstance(v, Int)), *(v.off for v in values if isinstance(v, Ptr))]
    return any(_mentions_n(e) for e in exprs)


def _prove_noloop_exit(ctx: Ctx, end: PathEnd) -> Verdict:
    st = end.state
    if not ctx.implies(st.cond, ctx.n == ctx.bv(0)):
        return Verdict("counterexample", f"returns without the loop when {ctx.model_n(st.cond, ctx.n == ctx.bv(0))}")
    # (the state words; outside them only a byte counter is written, proved by ``restored``)
    for key, (v, _) in st.mem.items():
        if key[0] == "state" and 0 <= key[2] < 20 and not (
                isinstance(v, Term) and v.node.op == "var" and v.node.payload == f"h{key[2] // 4}"):
            return Verdict("counterexample", f"nblocks = 0 changes state word {key[2] // 4}")
    why = restored(ctx, st) or (cbc.untouched(st) if ctx.contract.cbc else None)
    if why:
        return Verdict("counterexample", f"nblocks = 0: {why}")
    return Verdict("proved", "nblocks = 0: no-op (state untouched, registers and stack pointer restored)")


def _prove_one_block(ctx: Ctx, end: PathEnd, section: str, entry: int, prover: Prover) -> Verdict:
    """A one-block interface: the path from entry to ret leaves compress(state, block) in the state words."""
    st0 = entry_state(ctx, section, entry)
    start = {("reg", r): (v, 0) for r, v in st0.regs.items()}
    start.update({("mem", key): (v, size) for key, (v, size) in st0.mem.items()})
    res, cuts = compress_holds(ctx, start, section, entry, end.state.trace, ctx.bv(0), prover, end.state.cond, False)
    if res is not None:
        return res
    why = restored(ctx, end.state)
    if why:
        return Verdict("counterexample", why)
    return Verdict("proved", f"one block: state := compress(state, block), callee-saved registers and the stack "
                   f"pointer restored; {cuts} cuts", cuts)


@dataclass(frozen=True)
class _Loop:
    """A loop's proof: its verdict, one iteration's trace as far as the proof ran, a finding about the
    contract, how many arrivals at the head it covers (a multi-block loop proves all of them together), its
    bytes per iteration; and (``_lifted``) the iteration a cost model may price, or why there is none."""

    verdict: Verdict
    trace: list
    finding: str | None = None
    arrivals: int = 1
    block_bytes: int = 64
    iteration: tuple[Decoded, ...] = ()
    unlifted: str | None = "the loop's iteration was not traced"


def _lifted(loop: _Loop, it1) -> _Loop:
    """``loop`` with its ``iteration``: one path from the head back to it, when every path of the first
    iteration (``it1``: ``_iterate`` from the arrival) was lifted; else none and ``unlifted`` saying why.

    Invariant: a cost is never made of part of a loop. An iteration some path of which the executor
    stopped (an unmodelled instruction, an untracked value, the step limit) has no ``iteration``, even
    when the instructions it did lift form a path to the head. A proved loop keeps the trace its proof
    priced until now (a path back to the head of the proof's own exploration, every path of which it
    lifted); any other takes the first path of ``it1`` back to the head.
    """
    if isinstance(it1, tuple):
        return replace(loop, iteration=(), unlifted=f"a path of the iteration stops: {it1[0].detail}")
    back = [e for e in it1 if e.kind == "head"]
    if not back:
        return replace(loop, iteration=(), unlifted="no path of the iteration returns to the loop head")
    whole = tuple(loop.trace) if loop.verdict.proved and loop.trace else tuple(back[0].state.trace)
    return replace(loop, iteration=whole, unlifted=None)


def _prove_loop(ctx: Ctx, group: list[PathEnd], machine_for, section: str, prover: Prover, init_reg,
                init_mem) -> _Loop:
    """The loop the arrivals ``group`` reach."""
    s0 = generic(ctx, [e.state for e in group]) if len(group) > 1 else None
    it1 = _iterate(ctx, machine_for, s0, group[0].head) if s0 is not None else ()
    step = data_step(s0, [e.state for e in it1 if e.kind == "head"]) if not isinstance(it1, tuple) else None
    if not (step and step > 64):
        return _prove_one_loop(ctx, group[0], machine_for, section, prover, init_reg, init_mem)
    for e in group:
        if not ctx.implies(e.state.cond, z3.UGT(ctx.n, ctx.bv(0))):
            finding = (f"nblocks = 0 enters the loop at 0x{e.head:x} (one block is read past the buffer): "
                       f"the contract must require nblocks >= 1")
            return _Loop(Verdict("counterexample", finding), [], finding, len(group))
    return replace(_lifted(_prove_wide(ctx, [e.state for e in group], s0, it1, step, section, prover), it1),
                   arrivals=len(group))


def _prove_wide(ctx: Ctx, arrivals: list[State], s0: State, it1: list[PathEnd], step: int, section: str,
                prover: Prover) -> _Loop:
    """A loop moving its data pointer by ``step`` > 64 bytes an iteration: ``multiblock``, or refused by name."""
    head = s0.pc_addr[1]
    trace = it1[0].state.trace if it1 else []
    m = step // 64
    if ctx.contract.cbc:
        # (the AES-CBC obligations, ``cbc.holds``, are the one-block step's: never proved without them)
        return _Loop(Verdict("refused", f"the loop at 0x{head:x} moves its data pointer by {step} bytes: a multi-block "
                             "invariant beside an AES-CBC stream is not modelled", 0, "loop shape"), trace,
                     block_bytes=step)
    if step % 64 or m > MAX_BLOCKS:
        return _Loop(Verdict("refused", f"the loop at 0x{head:x} moves its data pointer by {step} bytes (several "
                             f"blocks per iteration, not a whole number of blocks <= {MAX_BLOCKS}): a multi-block "
                             "invariant of this shape is not modelled", 0, "loop shape"), trace, block_bytes=step)
    s1 = generic(ctx, [e.state for e in it1 if e.kind == "head"])
    if s1 is None:
        return _Loop(Verdict("unknown", f"the loop at 0x{head:x} moves {m} blocks an iteration but no path back to "
                             "its head allows many blocks left"), trace, block_bytes=step)
    dispatch = [c for c in s0.cond if not _mentions_n(c)]
    verdict, trace2 = prove_multi_block(ctx, arrivals, s1, m, section, head, prover, dispatch)
    return _Loop(verdict, trace2 or trace, block_bytes=step)


def _mentions_n(c) -> bool:
    return any(str(v) == "n" for v in z3util.get_vars(c))


def _dispatch(cond: list) -> tuple:
    """The conjuncts of a path condition that do not mention nblocks (the dispatch and alignment facts)."""
    return tuple(c for c in cond if not _mentions_n(c))


def _prove_one_loop(ctx: Ctx, end: PathEnd, machine_for, section: str, prover: Prover, init_reg, init_mem) -> _Loop:
    head = end.head
    s0 = end.state
    if not ctx.implies(s0.cond, z3.UGT(ctx.n, ctx.bv(0))):
        finding = (f"nblocks = 0 enters the loop at 0x{head:x} (one block is read past the buffer): "
                   f"the contract must require nblocks >= 1")
        return _Loop(Verdict("counterexample", finding), [], finding)
    it1 = _iterate(ctx, machine_for, s0, head)
    return _lifted(_iterated_loop(ctx, end, it1, machine_for, section, prover), it1)


def _iterated_loop(ctx: Ctx, end: PathEnd, it1, machine_for, section: str, prover: Prover) -> _Loop:
    """The loop at ``end.head`` from the first iteration's paths ``it1`` (``_iterate``)."""
    head, s0 = end.head, end.state
    if isinstance(it1, tuple):
        return _Loop(*it1)
    back1 = [e for e in it1 if e.kind == "head"]
    wide = data_step(s0, [e.state for e in it1])
    if wide and wide > 64:
        return _prove_wide(ctx, [s0], s0, it1, wide, section, prover)
    if not back1:
        # (not a counterexample: the pass may compress several blocks, e.g. OpenSSL's AVX2 tail for n <= 2)
        return _Loop(Verdict("unknown", "no path returns to the loop head: the loop never iterates (exits after one "
                             f"pass whenever {_cond_text(it1[0].state.cond, ctx.bits) if it1 else '...'})"),
                     it1[0].state.trace if it1 else [])
    k = ctx.k
    # The base case: every location either template may call H holds the caller's chaining value
    # (the templates match S0 everywhere else by construction).
    exact = build_template(k, s0, None)
    why = establishes(ctx, exact, s0, prover)
    if why:
        return _Loop(Verdict("unknown", f"the loop head 0x{head:x} does not hold the invariant's first state: {why}"),
                     back1[0].state.trace)
    # Invariant from the entry state: T(k) = S0 + k * (S1 - S0), for 0 <= k < n.
    template = build_template(k, s0, back1[0].state)
    res = verify_step(ctx, template, k, template, z3.substitute, section, head, prover, s0.cond)
    if res[0].proved:
        return _Loop(*res)
    # Peeled: some slots settle only after the first iteration (OpenSSL i386 stores the block
    # pointer into its argument slot inside the body). Prove the first iteration from S0 exactly,
    # then T'(j) = S1 + j * (S2 - S1) for the iterations j + 1, 1 <= j + 1 < n.
    block1 = block_offset(template, ctx, ctx.bv(1))
    it2 = _iterate(ctx, lambda st: machine_for(st, block=block1), back1[0].state, head)
    back2 = [e for e in it2 if e.kind == "head"] if not isinstance(it2, tuple) else []
    later = build_template(k, back1[0].state, back2[0].state) if back2 else None
    first = verify_step(ctx, exact, ctx.bv(0), later, lambda e, sub: z3.substitute(e, (k, ctx.bv(0))),
                        section, head, prover, s0.cond) if later is not None else None
    if first is None or not first[0].proved:
        # the first iteration from the exact entry state (no guessed invariant): its counterexample is
        # about the real code; the compression at its exits names the round where it goes wrong (a
        # template guessed from wrong code havocs H: "A1 (new a of round 0)" whatever the round)
        named = exit_compression(ctx, exact, section, head, prover, s0.cond)
        return _Loop(*next((v for v in (named, first) if v is not None and v[0].outcome == "counterexample"), res))
    rest = verify_step(ctx, later, k + 1, later, z3.substitute, section, head, prover, s0.cond)
    if not rest[0].proved:
        return _Loop(*rest)
    # (the cuts: the first iteration's and the invariant's; the detail names the invariant's)
    return _Loop(Verdict("proved", "first iteration proved from the entry state, then " + rest[0].detail,
                         first[0].cuts + rest[0].cuts), rest[1])


def _iterate(ctx: Ctx, machine_for, start: State, head: int):
    """Paths of one iteration from ``start`` (a copy), or (the verdict of a path it stopped, that path's trace)."""
    first = start.copy()
    first.trace = []
    first.steps = 0
    ends = explore(machine_for, first, {head})
    bad = next((e for e in ends if e.kind in ("refused", "limit", "violation")), None)
    if bad is not None:
        return stopped(bad), bad.state.trace
    return ends
