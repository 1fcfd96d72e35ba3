"""The whole-function proof: every path of a block function, for every nblocks its contract allows.

``prove_function(obj, name, contract)`` decodes the function, explores it
from the ABI's entry state (``executor.explore``) and proves each path:

* *entry to ret without the loop* (nblocks = 0 under sha1opt's contract):
  the state words are unchanged, callee-saved registers and the stack
  pointer restored;
* *entry to a loop head* (one per dispatch path): the loop-head state ``S0``
  becomes a template invariant ``T(k)`` -- the chaining value H_k in the
  state words (and in any register that held it in ``S0``), each pointer or
  count that moves by a constant per iteration at ``S0 + k*delta`` (the
  deltas read off one iteration from ``S0``), entry values that stay put
  kept, everything else havocked. Then, for a symbolic k with 0 <= k < n:
  every path from ``T(k)`` back to the head has ``k+1 < n``, re-establishes
  ``T(k+1)`` (pointers, counts, saved registers: z3; the chaining value:
  ``composition.check_program`` with the whole SHA-1 compression, so
  H_{k+1} = compress(H_k, block k)), and every path to ``ret`` has
  ``k+1 == n``, leaves H_{k+1} in the state words and restores the
  callee-saved registers and the stack pointer. With ``T(0) == S0`` and
  ``S0``'s path condition implying ``n >= 1``, induction gives the result
  for every n the contract allows.

Unknown is never success: ``FunctionProof.proved`` is True only when every
path proved. A refusal (an instruction, address or relocation the executor
does not model) is a value naming the instruction, address and line.

Example: the project's own x86-64 export gives two paths, ``nblocks == 0:
no-op`` and ``loop at 0x...: proved (compress: 160 cuts)``; changing its
``jnz`` to ``js`` leaves the exit path with ``k+1 == n`` unprovable (n = 2
exits after one block): "not proved".
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Literal

import z3

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.composition import check_program
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder, Term, evaluate, variables
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.decode import Decoded, decode_function, line_table
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import ARG_REGS, SAVED, WORKSPACE_AT, Abi, Contract  # noqa: F401 (Abi: re-exported)
from sha1opt.semantics.lift.executor import Int, Opq, PathEnd, PathMachine, Program, Ptr, State, explore, is_data
from sha1opt.semantics.prove import Counterexample, Proved, Prover
from sha1opt.semantics.sha1 import Definition, Spec, range_spec

Outcome = Literal["proved", "counterexample", "unknown", "refused"]


@dataclass(frozen=True)
class PathReport:
    name: str
    condition: str
    outcome: Outcome
    detail: str
    instructions: int
    seconds: float


@dataclass(frozen=True)
class FunctionProof:
    function: str
    arch: str
    contract: Contract
    paths: tuple[PathReport, ...]
    seconds: float
    loop_trace: tuple[Decoded, ...] = ()         # one iteration of the first loop (for cost models)
    straight: tuple[Decoded, ...] = ()           # the whole path when there is no loop
    findings: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        return bool(self.paths) and all(p.outcome == "proved" for p in self.paths)

    @property
    def outcome(self) -> Outcome:
        for o in ("refused", "counterexample", "unknown"):
            if any(p.outcome == o for p in self.paths):
                return o  # type: ignore[return-value]
        return "proved" if self.paths else "unknown"

    @property
    def refusal(self) -> str | None:
        return next((p.detail for p in self.paths if p.outcome == "refused"), None)


@dataclass
class _Ctx:
    obj: ObjectFile
    program: Program
    bits: int
    contract: Contract
    n: z3.BitVecRef
    k: z3.BitVecRef
    axioms: list = field(default_factory=list)

    def bv(self, v: int) -> z3.BitVecRef:
        return z3.BitVecVal(v, self.bits)

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


def _names(b: Builder):
    def init_reg(r: str) -> Term:
        return b.var(f"%{r}")

    def init_mem(region: str, off: int) -> Term:
        if region == "state" and off % 4 == 0 and 0 <= off < 20:
            return b.var(f"h{off // 4}")
        if region == "data" and off % 4 == 0 and 0 <= off < 64:
            return b.var(f"m{off // 4}")
        return b.var(f"{region}[{off}]")
    return init_reg, init_mem


def entry_state(ctx: _Ctx, section: str, entry: int) -> State:
    st = State((section, entry))
    w = ctx.bits // 8
    st.regs["esp"] = Ptr("stack", ctx.bv(0))
    st.mem[("stack", "", 0)] = (Opq("return address"), w)
    values = {"state": Ptr("state", ctx.bv(0)), "data": Ptr("data", ctx.bv(0)), "nblocks": Int(ctx.n),
              "workspace": Ptr("stack", ctx.bv(WORKSPACE_AT))}
    for i, role in enumerate(ctx.contract.args):
        if ctx.contract.abi == "sysv":
            st.regs[ARG_REGS["sysv"][i]] = values[role]
        else:
            st.mem[("stack", "", 4 + 4 * i)] = (values[role], 4)
    for r in SAVED[ctx.contract.abi]:
        st.regs[r] = Opq(f"%{r}")
    return st


def _cond_text(cond: list) -> str:
    """A path condition in words: ``bit 9 of OPENSSL_ia32cap_P+4 is 0 and n != 0``."""
    if not cond:
        return "always"
    text = " and ".join(str(z3.simplify(c)) for c in cond)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"Extract\((\d+), \1, ([\w.+]+)\) == (\d)", r"bit \1 of \2 is \3", text)
    text = re.sub(r"Not\(bit (\d+) of ([\w.+]+) is (\d)\)", lambda m: f"bit {m[1]} of {m[2]} is {1 - int(m[3])}", text)
    return re.sub(r"Not\(n == 0\)", "n != 0", text)


# -- template ------------------------------------------------------------------------------

@dataclass(frozen=True)
class _H:
    index: int


@dataclass(frozen=True)
class _Const:
    term: Term


_FREE = "free"
_KIND = {"refused": "refused", "limit": "unknown", "violation": "counterexample"}


def build_template(ctx: _Ctx, s0: State, s1: State) -> dict:
    """Location -> template value (Ptr/Int with k, Opq, _H, _Const, _FREE)."""
    out: dict = {}
    sizes = {key: sz for key, (_, sz) in list(s0.mem.items()) + list(s1.mem.items())}
    # Only the stack and the state words are writable; other regions' entries are cached loads.
    locs = [("reg", r) for r in set(s0.regs) | set(s1.regs)] + [
        ("mem", key) for key in set(s0.mem) | set(s1.mem) if key[0] in ("stack", "state")]
    for loc in locs:
        if loc[0] == "reg":
            v0, v1 = s0.regs.get(loc[1]), s1.regs.get(loc[1])
        else:
            v0 = s0.mem.get(loc[1], (None, 0))[0]
            v1 = s1.mem.get(loc[1], (None, 0))[0]
            if loc[1][0] == "state" and v0 is None:
                continue            # untouched state word: holds H_k (read as h_i)
        if v0 is None:
            out[loc] = _FREE
            continue
        if isinstance(v0, Ptr) and isinstance(v1, Ptr) and v0.region == v1.region:
            delta = z3.simplify(v1.off - v0.off)
            out[loc] = Ptr(v0.region, v0.off + delta * ctx.k) if z3.is_bv_value(delta) else _FREE
        elif isinstance(v0, Int) and isinstance(v1, Int):
            delta = z3.simplify(v1.v - v0.v)
            out[loc] = Int(v0.v + delta * ctx.k) if z3.is_bv_value(delta) else _FREE
        elif isinstance(v0, Opq):
            out[loc] = v0 if (isinstance(v1, Opq) and v1.name == v0.name) else _FREE
        elif is_data(v0) and isinstance(v0, Term):
            i = _h_index(s0, v0)
            if loc[0] == "mem" and loc[1][0] == "state":
                out[loc] = _H(loc[1][2] // 4) if loc[1][2] % 4 == 0 and 0 <= loc[1][2] < 20 else _FREE
            elif i is not None and is_data(v1) and _h_index(s1, v1) == i:
                out[loc] = _H(i)        # holds the chaining value at both heads: an H location
            elif v0.node.op == "const" and v1 == v0:
                out[loc] = _Const(v0)
            else:
                out[loc] = _FREE
        else:
            out[loc] = _FREE
        if loc[0] == "mem" and loc[1][0] == "state" and not isinstance(out[loc], _H):
            out[loc] = _FREE
    return {loc: (tv, sizes.get(loc[1], 4) if loc[0] == "mem" else 0) for loc, tv in out.items()}


def _h_index(st: State, v) -> int | None:
    """Which state word ``v`` equals at this head (the untouched word i is the variable h_i)."""
    for i in range(5):
        sv = st.mem.get(("state", "", 4 * i), (None, 0))[0]
        if sv is None:
            if isinstance(v, Term) and v.node.op == "var" and v.node.payload == f"h{i}":
                return i
        elif isinstance(sv, Term) and v == sv:
            return i
    return None


def materialize(template: dict, section: str, head: int, domain, init_reg, init_mem, fresh) -> State:
    st = State((section, head))
    for loc, (tv, size) in template.items():
        if isinstance(tv, _H):
            v = init_mem("state", 4 * tv.index)
        elif isinstance(tv, _Const):
            v = domain.const(tv.term.node.payload)
        elif tv == _FREE:
            v = init_reg(f"havoc{next(fresh)}")
        else:
            v = tv
        if loc[0] == "reg":
            st.regs[loc[1]] = v
        else:
            st.mem[loc[1]] = (v, size)
    return st


# -- the proof ----------------------------------------------------------------------------------

def prove_function(obj: ObjectFile, name: str | None, contract: Contract, *, prover: Prover | None = None) -> FunctionProof:
    t0 = time.perf_counter()
    sym = obj.find_function(name)
    lines = line_table(obj)
    fn = decode_function(obj, sym, lines)
    program = Program(obj, fn, lambda o, s: decode_function(o, s, lines))
    bits = 64 if obj.arch == "x86_64" else 32
    n, k = z3.BitVec("n", bits), z3.BitVec("k", bits)
    ctx = _Ctx(obj, program, bits, contract, n, k)
    bound = 58 if bits == 64 else 26
    ctx.axioms += [z3.ULT(n, ctx.bv(1 << bound)), z3.UGE(n, ctx.bv(contract.min_blocks))]
    # One block: no block loop (every loop left has a constant trip count and is unrolled), nblocks is 1.
    heads = set() if contract.one_block else Cfg.build(fn).loop_heads()
    if contract.one_block:
        ctx.axioms.append(n == ctx.bv(1))
    prover = prover or Prover()
    b = Builder()
    init_reg, init_mem = _names(b)
    dom = TermDomain(b)

    def machine_for(st: State, block=None) -> PathMachine:
        return PathMachine(program, dom, init_reg, init_mem, st, bits=bits, block=block, axioms=ctx.axioms,
                           stack_writable=ctx.stack_writable)

    reports: list[PathReport] = []
    findings: list[str] = []
    loop_trace: tuple = ()
    straight: tuple = ()
    ends = explore(machine_for, entry_state(ctx, fn.section, fn.entry), heads)

    def label(end: PathEnd) -> str:
        """The dispatch target a path ends in: the symbol holding its last instruction."""
        if not end.state.trace:
            return sym.name
        addr = end.state.trace[-1].address
        best = [s for s in obj.symbols if s.section == fn.section and s.name and s.value <= addr
                and s.kind in ("STT_FUNC", "STT_NOTYPE") and not s.name.startswith(".L")]
        return max(best, key=lambda s: s.value).name if best else sym.name

    for end in ends:
        t1 = time.perf_counter()
        cond = _cond_text(end.state.cond)
        if end.kind == "refused":
            reports.append(PathReport(label(end), cond, "refused", end.reason, len(end.state.trace),
                                      time.perf_counter() - t1))
        elif end.kind == "violation":
            reports.append(PathReport(label(end), cond, "counterexample", contract.named(end.reason),
                                      len(end.state.trace), time.perf_counter() - t1))
        elif end.kind == "limit":
            reports.append(PathReport(label(end), cond, "unknown", end.reason, len(end.state.trace),
                                      time.perf_counter() - t1))
        elif end.kind == "exit" and contract.one_block:
            straight = tuple(end.state.trace)
            outcome, detail = _prove_one_block(ctx, end, fn.section, fn.entry, prover)
            reports.append(PathReport("entry -> ret, one block", cond, outcome, detail, len(end.state.trace),
                                      time.perf_counter() - t1))
        elif end.kind == "exit":
            straight = tuple(end.state.trace)
            outcome, detail = _prove_noloop_exit(ctx, end)
            reports.append(PathReport("entry -> ret, no loop", cond, outcome, detail, len(end.state.trace),
                                      time.perf_counter() - t1))
        else:
            rep, trace, finding = _prove_loop(ctx, end, machine_for, fn.section, prover, init_reg, init_mem)
            reports.append(PathReport(f"loop at 0x{end.head:x} ({label(end)})", cond, rep[0], rep[1], len(trace),
                                      time.perf_counter() - t1))
            if finding:
                findings.append(finding)
            loop_trace = loop_trace or tuple(trace)
    return FunctionProof(sym.name, obj.arch, contract, tuple(reports), time.perf_counter() - t0, loop_trace,
                         straight, tuple(findings))


def _restored(ctx: _Ctx, st: State) -> str | None:
    """Why the exit state breaks the ABI (callee-saved registers, stack pointer), or None."""
    for r in SAVED[ctx.contract.abi]:
        v = st.regs.get(r)
        if not (isinstance(v, Opq) and v.name == f"%{r}"):
            return f"callee-saved %{r} is not restored"
    sp = st.regs.get("esp")
    w = ctx.bits // 8
    if not (isinstance(sp, Ptr) and sp.region == "stack" and ctx.implies(st.cond, sp.off == ctx.bv(w))):
        return "the stack pointer is not restored at ret"
    return None


def _prove_noloop_exit(ctx: _Ctx, end: PathEnd) -> tuple[Outcome, str]:
    st = end.state
    if not ctx.implies(st.cond, ctx.n == ctx.bv(0)):
        return "counterexample", f"returns without the loop when {ctx.model_n(st.cond, ctx.n == ctx.bv(0))}"
    for key, (v, _) in st.mem.items():
        if key[0] == "state" and not (isinstance(v, Term) and v.node.op == "var" and v.node.payload == f"h{key[2] // 4}"):
            return "counterexample", f"nblocks = 0 changes state word {key[2] // 4}"
    why = _restored(ctx, st)
    if why:
        return "counterexample", f"nblocks = 0: {why}"
    return "proved", "nblocks = 0: no-op (state untouched, registers and stack pointer restored)"


def _prove_one_block(ctx: _Ctx, end: PathEnd, section: str, entry: int, prover: Prover) -> tuple[Outcome, str]:
    """A one-block interface: the path from entry to ret leaves compress(state, block) in the state words."""
    st0 = entry_state(ctx, section, entry)
    start = {("reg", r): (v, 0) for r, v in st0.regs.items()}
    start.update({("mem", key): (v, size) for key, (v, size) in st0.mem.items()})
    res, cuts = _compress_holds(ctx, start, section, entry, end.state.trace, ctx.bv(0), prover, end.state.cond, False)
    if res is not None:
        return res
    why = _restored(ctx, end.state)
    if why:
        return "counterexample", why
    return "proved", (f"one block: state := compress(state, block), callee-saved registers and the stack pointer "
                      f"restored; {cuts} cuts")


def _prove_loop(ctx: _Ctx, end: PathEnd, machine_for, section: str, prover: Prover, init_reg, init_mem):
    head = end.head
    s0 = end.state
    if not ctx.implies(s0.cond, z3.UGT(ctx.n, ctx.bv(0))):
        finding = (f"nblocks = 0 enters the loop at 0x{head:x} (one block is read past the buffer): "
                   f"the contract must require nblocks >= 1")
        return ("counterexample", finding), [], finding
    it1 = _iterate(ctx, machine_for, s0, head)
    if isinstance(it1, tuple):
        return it1 + (None,)
    back1 = [e for e in it1 if e.kind == "head"]
    if not back1:
        return ("counterexample", "no path returns to the loop head: the loop never iterates "
                f"(exits after one block whenever {_cond_text(it1[0].state.cond) if it1 else '...'})"), \
            it1[0].state.trace if it1 else [], None
    k = ctx.k
    # Invariant from the entry state: T(k) = S0 + k * (S1 - S0), for 0 <= k < n.
    template = build_template(ctx, s0, back1[0].state)
    res = _verify_step(ctx, template, k, template, z3.substitute, section, head, prover, s0.cond)
    if res[0][0] == "proved":
        return res + (None,)
    # Peeled: some slots settle only after the first iteration (OpenSSL i386 stores the block
    # pointer into its argument slot inside the body). Prove the first iteration from S0 exactly,
    # then T'(j) = S1 + j * (S2 - S1) for the iterations j + 1, 1 <= j + 1 < n.
    block1 = z3.simplify(z3.substitute(_block_offset(template, ctx), (k, ctx.bv(1))))
    it2 = _iterate(ctx, lambda st: machine_for(st, block=block1), back1[0].state, head)
    if isinstance(it2, tuple):
        return res + (None,)
    back2 = [e for e in it2 if e.kind == "head"]
    if not back2:
        return res + (None,)
    exact = build_template(ctx, s0, s0)
    later = build_template(ctx, back1[0].state, back2[0].state)
    first = _verify_step(ctx, exact, ctx.bv(0), later, lambda e, sub: z3.substitute(e, (k, ctx.bv(0))),
                         section, head, prover, s0.cond)
    if first[0][0] != "proved":
        return res + (None,)
    rest = _verify_step(ctx, later, k + 1, later, z3.substitute, section, head, prover, s0.cond)
    if rest[0][0] != "proved":
        return rest + (None,)
    return ("proved", "first iteration proved from the entry state, then " + rest[0][1]), rest[1], None


def _iterate(ctx: _Ctx, machine_for, start: State, head: int):
    """Paths of one iteration from ``start`` (a copy), or a (kind, reason) failure."""
    first = start.copy()
    first.trace = []
    first.steps = 0
    ends = explore(machine_for, first, {head})
    bad = next((e for e in ends if e.kind in ("refused", "limit", "violation")), None)
    if bad is not None:
        return (_KIND[bad.kind], bad.reason), bad.state.trace
    return ends


def _verify_step(ctx: _Ctx, template: dict, kabs, target: dict, subst, section: str, head: int, prover: Prover,
                 cond0: list):
    """One iteration from ``template`` (block ``kabs``; symbol k free): back to ``target`` at k+1, or exit at n.

    ``subst(expr, (k, k+1))`` maps the target's values to the next head (plain ``z3.substitute``
    when the target is the same template).
    """
    k = ctx.k
    fresh = iter(range(1 << 30))
    b = Builder()
    tdom = TermDomain(b)
    ir, im = _names(b)
    tk = materialize(template, section, head, tdom, ir, im, fresh)
    tk.cond = list(cond0) + [z3.ULT(kabs, ctx.n), z3.ULT(k, ctx.bv(1 << (ctx.bits - 8)))]
    block = _block_offset(template, ctx)
    if not ctx.implies([], block == ctx.bv(64) * kabs):
        # The spec's block k is whatever the data reads are relative to: it must be data + 64*k.
        return ("counterexample", f"block k is read at data+{z3.simplify(block)}, not data+64*k: the loop does not "
                "advance the data pointer by one block per iteration"), []

    def machine_k(st: State) -> PathMachine:
        return PathMachine(ctx.program, tdom, ir, im, st, bits=ctx.bits, block=block, axioms=ctx.axioms,
                           stack_writable=ctx.stack_writable)

    start = tk.copy()
    paths = explore(machine_k, tk, {head})
    for p in paths:
        if p.kind in ("refused", "limit", "violation"):
            return (_KIND[p.kind], p.reason), p.state.trace
    for p in paths:
        st = p.state
        if p.kind == "head":
            if not ctx.implies(st.cond, z3.ULT(kabs + 1, ctx.n)):
                return ("counterexample", "the loop branches back past the last block "
                        f"({ctx.model_n(st.cond, z3.ULT(kabs + 1, ctx.n))})"), st.trace
            why = _template_holds(ctx, target, st, subst)
            if why:
                return ("unknown", f"loop invariant not re-established: {why}"), st.trace
        else:
            if not ctx.implies(st.cond, kabs + 1 == ctx.n):
                return ("counterexample", f"the loop exits before the last block ({ctx.model_n(st.cond, kabs + 1 == ctx.n)}, "
                        f"i.e. after k+1 of n blocks)"), st.trace
            why = _restored(ctx, st)
            if why:
                return ("counterexample", why), st.trace
    # The paths share the iteration up to the loop branch: prove compress once on that prefix, then
    # check each path's suffix leaves the state words and H locations as the prefix did (same terms).
    n_common = _common_prefix([p.state.trace for p in paths])
    prefix = paths[0].state.trace[:n_common]
    backs = any(p.kind == "head" for p in paths)
    res, solver_cuts = _compress_holds(ctx, template, section, head, prefix, block, prover, paths[0].state.cond,
                                       backs, target)
    at_prefix = machine_k(start.copy())
    at_prefix.run(prefix)
    for p in paths:
        if not _same_results(target, at_prefix.s, p.state, p.kind == "head"):
            res, extra = _compress_holds(ctx, template, section, head, p.state.trace, block, prover, p.state.cond,
                                         p.kind == "head", target)
            if res is not None:
                return res, p.state.trace
            solver_cuts += extra
    if res is not None:
        return res, prefix
    trace_for_cost = next((p.state.trace for p in paths if p.kind == "head"), prefix)
    return ("proved", f"invariant (H := compress(H, block), pointers and counts by constant steps) holds on entry, "
            f"is preserved and gives the result at every exit; {len(paths)} path(s) from the head, "
            f"{solver_cuts} cuts"), trace_for_cost


def _block_offset(template: dict, ctx: _Ctx):
    for tv, _ in template.values():
        if isinstance(tv, Ptr) and tv.region == "data":
            step = z3.simplify(z3.substitute(tv.off, (ctx.k, ctx.k + 1)) - tv.off)
            if not (z3.is_bv_value(step) and step.as_long() == 0):
                return tv.off
    return ctx.bv(0)


def _template_holds(ctx: _Ctx, template: dict, st: State, subst=z3.substitute) -> str | None:
    for loc, (tv, _) in template.items():
        got = st.regs.get(loc[1]) if loc[0] == "reg" else st.mem.get(loc[1], (None, 0))[0]
        what = f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1][0]}{loc[1][2]:+d}"
        if isinstance(tv, Ptr):
            want = subst(tv.off, (ctx.k, ctx.k + 1))
            if not (isinstance(got, Ptr) and got.region == tv.region and ctx.implies(st.cond, got.off == want)):
                return f"{what} should be {tv.region}+{z3.simplify(want)}"
        elif isinstance(tv, Int):
            want = subst(tv.v, (ctx.k, ctx.k + 1))
            if not (isinstance(got, Int) and ctx.implies(st.cond, got.v == want)):
                return f"{what} should be {z3.simplify(want)}"
        elif isinstance(tv, Opq):
            if not (isinstance(got, Opq) and got.name == tv.name):
                return f"{what} should still hold {tv.name}"
        elif isinstance(tv, _Const):
            if not (isinstance(got, Term) and got.node.op == "const" and got.node.payload == tv.term.node.payload):
                return f"{what} should still hold {tv.term.node.payload:#x}"
    return None


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


def _common_prefix(traces: list) -> int:
    n = min(len(t) for t in traces)
    for i in range(n):
        if any(t[i] is not traces[0][i] for t in traces):
            return i
    return n


def _same_results(template: dict, a: State, b: State, back: bool) -> bool:
    """The state words (and, for a path back to the head, every H location) hold the same term in ``a`` and ``b``."""
    keys = [("mem", ("state", "", 4 * i)) for i in range(5)] + [loc for loc, (tv, _) in template.items()
                                                                 if isinstance(tv, _H) and back]
    for loc in keys:
        va = a.regs.get(loc[1]) if loc[0] == "reg" else a.mem.get(loc[1], (None, 0))[0]
        vb = b.regs.get(loc[1]) if loc[0] == "reg" else b.mem.get(loc[1], (None, 0))[0]
        if not (va is vb or (isinstance(va, Term) and va == vb)):
            return False
    return True


def _compress_holds(ctx: _Ctx, template: dict, section: str, head: int, trace: list, block, prover: Prover,
                    cond: list, back: bool, target: dict | None = None):
    """check_program over the path's trace: the state words (and H registers) hold compress(H, block)."""
    spec = range_spec(Builder(), 0, 79)
    inputs = {f"h{i}": ("mem", "state", 4 * i) for i in range(5)}
    inputs.update({f"m{j}": ("mem", "data", 4 * j) for j in range(16)})
    outputs = {f"h{i}": ("mem", "state", 4 * i) for i in range(5)}
    machines: list[PathMachine] = []

    def factory(dom, init_reg, init_mem, pointers=None):
        fresh = iter(range(1 << 30))
        s = materialize(template, section, head, dom, init_reg, init_mem, fresh)
        s.cond = list(cond)
        pm = PathMachine(ctx.program, dom, init_reg, init_mem, s, bits=ctx.bits, block=block, axioms=ctx.axioms,
                         stack_writable=ctx.stack_writable)
        machines.append(pm)
        return pm

    res = first = check_program(trace, spec, inputs, outputs, prover, machine=factory)
    for _ in range(8):
        # A compiler may fold a round's new a into the feed-forward sum (gcc: h0 + A80 reassociated,
        # clang: h1 + (A79 - K) + K): the cut symbol then stands for a value the output is not built
        # from, so inline the definitions that output names and prove it without those cuts.
        if res.ok or res.failure is None or not res.failure.definition.startswith("output"):
            break
        out_name = res.failure.definition.split(" ")[1]
        names = [v for v in variables([spec.outputs[out_name]]) if v not in spec.inputs]
        if res.missing:
            names.append(res.missing.split(" ")[0])
        if not names:
            break
        for nm in dict.fromkeys(names):
            spec = _inline(spec, nm)
        machines.clear()
        res = check_program(trace, spec, inputs, outputs, prover, machine=factory)
    if not res.ok:
        # The first check (all cuts) names the first round never computed and its counterexample.
        kind = "counterexample" if isinstance(res.outcome, Counterexample) else "unknown"
        return (kind, f"the iteration does not compute compress(H, block): {describe_failure(first)}"), 0
    # registers that held H_k at the head must hold H_{k+1} again
    m_t = machines[-1]
    for loc, (tv, _) in (target if target is not None else template).items():
        if not back or not isinstance(tv, _H) or loc == ("mem", ("state", "", 4 * tv.index)):
            continue
        got = m_t.s.regs.get(loc[1]) if loc[0] == "reg" else m_t.s.mem.get(loc[1], (None, 0))[0]
        want = m_t.get(("mem", "state", 4 * tv.index))
        if got is None or not is_data(got) or not (got == want or isinstance(prover.check(got, want), Proved)):
            what = f"%{loc[1]}" if loc[0] == "reg" else f"{loc[1][0]}{loc[1][2]:+d}"
            return ("unknown", f"{what} held h{tv.index} at the loop head but not after an iteration"), 0
    return None, res.cuts
