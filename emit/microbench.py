"""The calibration microbenchmarks: small loop bodies generated from a model's own classes and rules, and their checks.

Which classes exist is asked of the cost tables (``model.CLASSES``, the BMI, vector, SHA and refined
classes; a model's own rows), never listed here: ``EXEMPLARS`` only gives each class one instruction
spelling, and ``kernels(model)`` fails (``MicrobenchError``) for a class of the model with none, so a
class added to the model without a microbenchmark is caught (tests/emit/test_microbench.py). Every
line of a class's kernels must be priced as that class by ``classes.classify``, checked when the
kernel is made. Kernels (``Kernel``, names in brackets):

* ``lat.C`` -- a dependency chain of class C (each copy reads the previous copy's result): its latency;
  ``vec_to_gpr`` / ``gpr_to_vec`` as one round trip (vector-to-scalar forwarding); a store as
  store + reload (``store_forwarding``); a read-modify-write as a chain through memory;
* ``tput.C`` -- independent copies of C on 8 general (12 vector) registers: its throughput and units;
* ``mix.A+B`` (and a few ``mix.A+B+C``) -- A and B interleaved, on disjoint registers: whether A and B
  share units (throughput only: PMEvo / Palmed's method, no per-port counters), for every pair of
  register-only classes whose compute uops live in one pool of units (``fit.pools``);
* ``rule.R`` -- one per rule the fit sets (``FITTED_RULES``): store-forwarding (to a load-op), memory
  renaming (a plain load of a just-stored slot), read-modify-write and vector-store forwarding; ``NOT_FITTED``
  says why the others are left alone;
* ``rule.scheduler.N`` -- a chain of 8 dependent loads (the pointer chase through %rbp), N adds that read its
  end, then a second chain (through %r11): while the N adds wait for the first chain in the scheduler, the
  second chain is allocated, and runs beside the first, only if the scheduler has room for them. Over N =
  ``SCHEDULER_FILLERS`` the time per iteration stays at one chain's latency, then climbs where the adds and
  the chains' loads no longer fit in the scheduler (``rules.scheduler``; in zen4 with 80 entries, from 80 adds
  on); past about 128 adds their own throughput binds too (4 ALUs), which the model prices. On a Zen 4 the
  kernel with 64 adds ran flat and the one with 80 did not (a finer sweep: the climb starts at 72-80);
* ``rule.microcode.K`` -- groups of one ``shldl $5, a, a`` (a microcoded double shift, ``fit.MICROCODED``) and
  K independent ``leal 1(%r15), x``, for K = ``MICROCODE_FILLERS``: what a microcoded instruction costs
  among others (``rules.microcode``; its own ``tput`` kernel shows it alone). On a Zen 4, 2 clocks per group
  for K = 1 to 4 and 3 clocks for K = 5, where alone it runs at 1.5 (bench/results/microcode_mix_zen4.txt);
* ``frontend.width`` -- a long body of loads, stores and register writes, more than the ALUs take: the
  issue width; ``loop.overhead`` -- the bare loop control, evidence for no row (every kernel carries the loop
  control; a slow bare loop is the loop's, not the counter's or the branch's units: the fit may not move a row
  for it, only be refuted by it).

The frame (``emit.clock``'s): %rsp 64-byte aligned over 512 private bytes, 0(%rsp) holds %rsp, %rbp
and %r11 are copies of it, %ecx = 3, %r15d = 7; the loop counter %rdi and %r12 are the harness's.

Checks (``validate``; only a ``Checked`` kernel is ever run natively, ``emit.calibrate``): registers
only or the private buffer (memory operands based on %rsp / %rbp / %r11, displacement inside the 512
bytes, no index -- but in ``lat.vec_load``, whose index is the zero lane it loaded from the zeroed buffer:
the chain through the address); no write of %rsp (push/pop balanced), %rdi, %r12, %rcx or %r15; %rbp / %r11 written
only by loading them from 0 of themselves (the pointer chase); branches only forward to a label in the
body; then assembled with gas and decoded from its machine code by the lifter: the decoded
instructions must be priced as the same classes, in the same order, as the text says.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.opaque import Opaque, gpr_name
from sha1opt.semantics.x86 import Instr, Mem, effects, required_isa
from sha1opt.search.cost.classes import classify, vector_effects
from sha1opt.search.cost.fit import ISSUE_WIDTH, MICROCODE, SCHEDULER, pools
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import READS_MEMORY, RULE_NAMES, WRITES_MEMORY, Model
from sha1opt.emit.toolchain import compile_text

__all__ = ["EXEMPLARS", "CHAINS", "NO_CHAIN", "UNMEASURED", "FITTED_RULES", "NOT_FITTED", "MicrobenchError", "Kernel", "Checked", "kernels",
           "validate", "validate_all", "priced", "groups", "LOOP_CONTROL"]


class MicrobenchError(Sha1optError):
    """A class of the model has no microbenchmark, or a kernel is not what it claims to be."""


# One spelling per class: {a} a 32-bit destination, {q} its 64-bit name, {x} a vector destination,
# {m} a 4-byte slot / {v} a 16-byte slot of the private buffer. The constant sources are %r15d / %r15 /
# %xmm15 / %rbp (never written by a throughput kernel).
EXEMPLARS: dict[str, str] = {
    "mov_rr": "movl %r15d, {a}", "mov_ri": "movl $7, {a}", "load": "movl {m}, {a}", "store": "movl %r15d, {m}",
    "add_rr": "addl %r15d, {a}", "logic_rr": "xorl %r15d, {a}", "add_rm": "addl {m}, {a}",
    "logic_rm": "xorl {m}, {a}", "alu_mr": "addl %r15d, {m}", "not": "notl {a}", "rot1": "roll $1, {a}",
    "rot_imm": "roll $5, {a}", "shift_imm": "shll $3, {a}", "shift_cl": "roll %cl, {a}", "shift_mr": "roll $5, {m}",
    "double_shift": "shldl $5, %r15d, {a}", "double_rot": "shldl $5, {a}, {a}", "lea_simple": "leal 1(%r15), {a}",
    "lea_complex": "leal 1(%r15,{q}), {a}", "bswap": "bswapl {a}", "andn": "andnl %r15d, {a}, {a}",
    "andn_rm": "andnl {m}, {a}, {a}", "rorx": "rorxl $5, %r15d, {a}", "rorx_rm": "rorxl $5, {m}, {a}",
    "compare": "cmpl %r15d, {a}", "counter": "decl {a}",
    # a taken branch per 8 instructions: denser ones measure the branch predictor's limits, which no row expresses
    "branch": "addl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\n"
              "addl %r15d, {a}\naddl %r15d, {a}\njnz {label}",
    "jump": "addl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\naddl %r15d, {a}\n"
            "addl %r15d, {a}\naddl %r15d, {a}\njmp {label}",
    "push": "pushq %r15\npopq {q}", "pop": "pushq %r15\npopq {q}", "nop": "nop",
    "vec_mov": "movdqa %xmm15, {x}", "vec_load": "movdqa {v}, {x}", "vec_store": "movdqa %xmm15, {v}",
    "vec_alu": "paddd %xmm15, {x}", "vec_alu_rm": "paddd {v}, {x}", "vec_shift": "pslld $3, {x}",
    "vec_shuffle": "pshufd $27, %xmm15, {x}", "vec_to_gpr": "movd %xmm15, {a}", "gpr_to_vec": "movd %r15d, {x}",
    "sha1rnds4": "sha1rnds4 $0, %xmm15, {x}", "sha1msg": "sha1nexte %xmm15, {x}", "sha1msg2": "sha1msg2 %xmm15, {x}",
    "vec_palignr": "palignr $8, %xmm15, {x}",
}

# Dependency chains, one repeating unit each (literal registers; two registers alternate where the
# instruction writes one and reads another). A class not here is chained through its own destination.
CHAINS: dict[str, str] = {
    "mov_rr": "movl %eax, %ebx\nmovl %ebx, %eax\n",
    "mov_ri": "movl $7, %eax\naddl %eax, %ebx\n",
    "load": "movq (%rbp), %r11\nmovq (%r11), %rbp\n",
    "store": "movl %eax, 64(%rsp)\nmovl 64(%rsp), %eax\n",
    "add_rm": "addl 64(%rsp), %eax\n", "logic_rm": "xorl 64(%rsp), %eax\n",
    "alu_mr": "addl %r15d, 64(%rsp)\n", "shift_mr": "roll $5, 64(%rsp)\n",
    "lea_simple": "leal 1(%rax), %ebx\nleal 1(%rbx), %eax\n",
    "lea_complex": "leal 1(%rax,%r15), %ebx\nleal 1(%rbx,%r15), %eax\n",
    "rorx": "rorxl $5, %eax, %ebx\nrorxl $5, %ebx, %eax\n",
    "andn_rm": "andnl 64(%rsp), %eax, %eax\n", "rorx_rm": "rorxl $5, 64(%rsp), %eax\naddl %eax, 64(%rsp)\n",
    "push": "pushq %rax\npopq %rax\n", "pop": "pushq %rax\npopq %rax\n",
    "counter": "decl %eax\n",
    "vec_mov": "movdqa %xmm0, %xmm1\nmovdqa %xmm1, %xmm0\n",
    "vec_load": "movq %xmm0, %rax\nmovdqa 128(%rsp,%rax), %xmm0\n",
    "vec_store": "movdqa %xmm0, 128(%rsp)\nmovdqa 128(%rsp), %xmm0\n",
    "vec_alu_rm": "paddd 128(%rsp), %xmm0\n",
    "vec_to_gpr": "movd %xmm0, %eax\nmovd %eax, %xmm0\n", "gpr_to_vec": "movd %eax, %xmm0\nmovd %xmm0, %eax\n",
    "sha1rnds4": "sha1rnds4 $0, %xmm1, %xmm0\n",
    "vec_shuffle": "pshufd $27, %xmm0, %xmm0\n",   # pshufd only writes its destination: read it back
}
# Classes a chain of class C may also contain (the other half of a round trip, the reload of a store).
HELPERS: dict[str, frozenset[str]] = {
    "mov_ri": frozenset({"add_rr"}), "store": frozenset({"load"}), "branch": frozenset({"add_rr"}),
    "jump": frozenset({"add_rr"}), "rorx_rm": frozenset({"alu_mr"}),
    "vec_load": frozenset({"vec_to_gpr"}),
    "vec_store": frozenset({"vec_load"}), "vec_to_gpr": frozenset({"gpr_to_vec"}),
    "gpr_to_vec": frozenset({"vec_to_gpr"}), "push": frozenset({"pop"}), "pop": frozenset({"push"}),
}
# Classes with no chain of their own (they write nothing another copy reads, or only the flags), and classes
# with no kernel at all; a class of a model must be in EXEMPLARS or UNMEASURED.
NO_CHAIN: dict[str, str] = {
    "compare": "writes only the flags", "branch": "reads only the flags", "jump": "reads nothing",
    "nop": "reads nothing",
}
UNMEASURED: dict[str, str] = {
    "opaque": "the catch-all row for instructions no class covers: no one instruction stands for it",
}
# store_forwarding is timed through a load-op and memory_renaming through a plain load: on Zen 4 the plain
# load of a just-stored slot is renamed (one clock per link: the add) while the load-op waits for the
# forward (eight: seven and the add), so one kernel for both fitted store_forwarding 7 -> 0.
RULE_KERNELS: dict[str, str] = {
    "store_forwarding": "movl %eax, 64(%rsp)\naddl 64(%rsp), %eax\n",
    "memory_renaming": "movl %eax, 64(%rsp)\nmovl 64(%rsp), %eax\naddl $1, %eax\n",
    "rmw_forwarding": "addl %ebx, 64(%rsp)\nmovl 64(%rsp), %ebx\n",
    "vector_store_forwarding": "movdqa %xmm0, 128(%rsp)\naddl 128(%rsp), %eax\nmovd %eax, %xmm0\n",
}
FITTED_RULES = ("store_forwarding", "memory_renaming", "rmw_forwarding", "vector_store_forwarding",
                "move_elimination", "scheduler", "microcode")
SCHEDULER_CHAIN = 8                         # dependent loads per chain of a scheduler kernel (L1: ~4 clocks each)
SCHEDULER_FILLERS = tuple(range(32, 161, 16))   # the adds waiting behind the first chain (``rule.scheduler.N``)
MICROCODE_FILLERS = (1, 2, 4, 5)            # instructions after each microcoded one (``rule.microcode.K``): on a
#   Zen 4 four still fit the two clocks and five do not, which pins the slots to 8. No 3: its 12 groups end on
#   a clock where the loop control's slot adds one the machine does not spend (priced 2.08 a group, measured
#   2.02-2.03) -- a kernel the slots' true value would be refuted by
NOT_FITTED: dict[str, str] = {
    "address_stall": "in-order and P4-era CPUs only (no such host runs x86-64 code here)",
    "pairing": "in-order Pentium/Atom pairing: no such host",
    "replay": "the P4's replay: no such host",
    "register_reads": "the P6 family's register-read stall: no such host",
    "port_binding": "how the engine binds uops to ports, a structure, not a constant",
    "dispatch_delay": "an issue-to-dispatch delay is not separable from latency by throughput kernels",
}
LOOP_CONTROL = "decq %rdi\njnz 1b\n"
REGS = ("eax", "ebx", "edx", "esi", "r8d", "r9d", "r13d", "r14d")
REGS64 = ("rax", "rbx", "rdx", "rsi", "r8", "r9", "r13", "r14")
VREGS = tuple(f"xmm{i}" for i in range(2, 14))
COPIES = 48             # instructions of a throughput or mix kernel (a multiple of 8 and 12)
CHAIN_LENGTH = 48
WIDTH_BODY = 96         # units of the front-end kernel (6 instructions each)
MAX_TRIPLES = 12
_PROTECTED = {"esp", "edi", "r12d", "ecx", "r15d"}       # gpr_name spelling: 32-bit names
_FRAME = {"ebp", "r11d"}


@dataclass(frozen=True)
class Kernel:
    """One microbenchmark: its loop body (AT&T), the classes it exercises and what it informs."""
    name: str
    body: str
    classes: frozenset[str]
    needs: frozenset[str]          # ISA features (``features.ISA_INCLUDES`` names)
    informs: str

    def items(self, arch: str = "x86_64") -> tuple:
        """One iteration as the simulator's items: the body and the loop control."""
        return tuple(parse_listing("1:\n" + self.body + LOOP_CONTROL, arch, self.name).items)


@dataclass(frozen=True)
class Checked:
    """A kernel ``validate`` passed: the only thing ``emit.calibrate`` runs natively."""
    kernel: Kernel


def _fill(template: str, k: int, *, regs=REGS, regs64=REGS64, vregs=VREGS, label: str = "") -> str:
    return template.format(a="%" + regs[k % len(regs)], q="%" + regs64[k % len(regs64)],
                           x="%" + vregs[k % len(vregs)], m=f"{64 + 4 * (k % 16)}(%rsp)",
                           v=f"{128 + 16 * (k % 16)}(%rsp)", label=label)


def _labelled(template: str, copies: int, fill, tag: str) -> str:
    """``copies`` units of ``template``; a ``{label}`` in it becomes a forward label right after the unit
    (``.L<tag>_<k>``: unique to the kernel, so every kernel can share one object)."""
    out = []
    for k in range(copies):
        lab = f".L{tag}_{k}"
        text = fill(template, k, lab)
        out.append(text if text.endswith("\n") else text + "\n")
        if "{label}" in template:
            out.append(f"{lab}:\n")
    return "".join(out)


def _classes(body: str, model: Model, name: str) -> list[str]:
    return [classify(it, model) for it in parse_listing("1:\n" + body, "x86_64", name).items]


def _needs(body: str, name: str) -> frozenset[str]:
    out = set()
    for it in parse_listing("1:\n" + body, "x86_64", name).items:
        if isinstance(it, Opaque) and it.kind == "vector":
            out.add(vector_effects(it).isa)
        elif isinstance(it, Instr):
            out.add(required_isa(it))
    return frozenset(out - {"base"})


def _make(name: str, body: str, model: Model, allowed: frozenset[str], informs: str) -> Kernel:
    got = _classes(body, model, name)
    stray = sorted(set(got) - allowed)
    if stray:
        raise MicrobenchError(f"{name}: priced as {', '.join(stray)}, not {', '.join(sorted(allowed))}")
    return Kernel(name, body, frozenset(got), _needs(body, name), informs)


def priced(name: str, body: str, model: Model, informs: str) -> Kernel:
    """A kernel of any ``body`` the model prices (its classes read off the model, its ISA off the body): for a
    bench that times mixes ``kernels`` does not make (bench/microcode_mix.py). ``validate`` it before it runs."""
    return Kernel(name, body, frozenset(_classes(body, model, name)), _needs(body, name), informs)


def model_classes(model: Model) -> list[str]:
    """The classes the model prices (its rows), in the model's order."""
    return list(model.classes)


def _tput(cls: str, model: Model) -> Kernel:
    t = EXEMPLARS[cls]
    units = COPIES // max(1, t.count("\n") + 1)
    body = _labelled(t, units, lambda s, k, lab: _fill(s, k, label=lab), f"t_{cls}")
    return _make(f"tput.{cls}", body, model, frozenset({cls}) | HELPERS.get(cls, frozenset()),
                 f"{cls}: throughput and units")


def _chain(cls: str, model: Model) -> Kernel:
    unit = CHAINS.get(cls) or _fill(EXEMPLARS[cls], 0, regs=("eax",), regs64=("rax",), vregs=("xmm0",)) + "\n"
    if "{m}" in unit or "{v}" in unit:
        unit = _fill(unit, 0)
    lines = unit.count("\n")
    body = _labelled(unit, max(1, CHAIN_LENGTH // lines), lambda s, k, lab: s.replace("{label}", lab), f"c_{cls}")
    return _make(f"lat.{cls}", body, model, frozenset({cls}) | HELPERS.get(cls, frozenset()),
                 f"{cls}: latency")


def _mixable(cls: str, model: Model) -> bool:
    """Register-only, one compute uop set, no control flow: a class whose pairs reveal shared units."""
    t = EXEMPLARS[cls]
    return cls not in READS_MEMORY | WRITES_MEMORY and "{label}" not in t and "\n" not in t and \
        any(not u.role for u in model.classes[cls].ports)


def _mix(classes: tuple[str, ...], model: Model) -> Kernel:
    """The classes interleaved, each on its own share of the registers (no chain between them)."""
    n = len(classes)
    lines = []
    for k in range(COPIES):
        c = classes[k % n]
        share = k % n
        regs = REGS[share * (8 // n):(share + 1) * (8 // n)] if n < 8 else REGS
        regs64 = REGS64[share * (8 // n):(share + 1) * (8 // n)] if n < 8 else REGS64
        vregs = VREGS[share * (12 // n):(share + 1) * (12 // n)]
        lines.append(_fill(EXEMPLARS[c], k // n, regs=regs, regs64=regs64, vregs=vregs) + "\n")
    return _make("mix." + "+".join(classes), "".join(lines), model, frozenset(classes),
                 f"whether {' and '.join(classes)} share units")


def _frontend(model: Model) -> Kernel:
    unit = "movl $7, {a}\nmovl 64(%rsp), {a}\nmovl $7, {a}\nmovl %r15d, {m}\nmovl $7, {a}\nmovl 68(%rsp), {a}\n"
    body = "".join(_fill(unit, k) for k in range(WIDTH_BODY))
    return _make("frontend.width", body, model, frozenset({"mov_ri", "load", "store"}),
                 "issue width: loads, stores and register writes, more than the ALUs take")


def _scheduler(model: Model, n: int) -> Kernel:
    """``rule.scheduler.N`` (module docstring): evidence for the scheduler's size only (``SCHEDULER``)."""
    body = ("movq (%rbp), %rbp\n" * SCHEDULER_CHAIN + "".join(_fill("addl %ebp, {a}\n", k) for k in range(n))
            + "movq (%r11), %r11\n" * SCHEDULER_CHAIN)
    k = _make(f"rule.scheduler.{n}", body, model, frozenset({"load", "add_rr"}),
              f"rules.scheduler: {n} adds waiting for a load chain")
    return Kernel(k.name, k.body, frozenset({SCHEDULER}), k.needs, k.informs)


def groups(subject: str, filler: str, k: int, n: int) -> str:
    """``n`` groups of ``subject`` and ``k`` copies of ``filler`` after it: ``{a}`` in the subject is %eax, %ebx,
    %edx, %esi in turn (``{q}`` its 64-bit name), ``{x}`` in a filler %r8d, %r9d, %r13d, %r14d and ``{v}``
    %xmm1-%xmm4 in turn, so nothing chains a group to the next but a subject's own register, four groups back
    (``rule.microcode.K``, bench/microcode_mix.py, bench/loop_kernels.py). Example:
    ``groups("shldl $5, %{a}, %{a}", "nop", 1, 2)`` is
    ``shldl $5, %eax, %eax; nop; shldl $5, %ebx, %ebx; nop``, one per line."""
    lines, j = [], 0
    for g in range(n):
        lines.append(subject.format(a=REGS[g % 4], q=REGS64[g % 4]))
        for _ in range(k):
            lines.append(filler.format(x=REGS[4 + j % 4], v=f"xmm{1 + j % 4}"))
            j += 1
    return "".join(line + "\n" for line in lines)


def _microcode(model: Model, k: int) -> Kernel:
    """``rule.microcode.K`` (module docstring): evidence for ``rules.microcode`` only (``MICROCODE``)."""
    body = groups("shldl $5, %{a}, %{a}", "leal 1(%r15), %{x}", k, COPIES // (1 + k))
    m = _make(f"rule.microcode.{k}", body, model, frozenset({"double_rot", "lea_simple"}),
              f"rules.microcode: a microcoded instruction and {k} others")
    return Kernel(m.name, m.body, frozenset({MICROCODE}), m.needs, m.informs)


def kernels(model: Model, *, pairs: bool = True) -> list[Kernel]:
    """Every microbenchmark of ``model`` (module docstring); ``MicrobenchError`` for a class with no exemplar."""
    unlisted = sorted(set(RULE_NAMES) - set(FITTED_RULES) - set(NOT_FITTED))
    if unlisted:
        raise MicrobenchError(f"rule {unlisted[0]!r} is neither fitted (FITTED_RULES) nor said why not (NOT_FITTED)")
    missing = [c for c in model_classes(model) if c not in EXEMPLARS and c not in UNMEASURED]
    if missing:
        raise MicrobenchError(f"no microbenchmark for class {missing[0]!r} of {model.name} (emit/microbench.py "
                              f"EXEMPLARS)")
    fe = _frontend(model)
    out = [Kernel(fe.name, fe.body, fe.classes | {ISSUE_WIDTH}, fe.needs, fe.informs), Kernel("loop.overhead", "", frozenset(), frozenset(),
                                    "the loop control alone")]
    for cls in model_classes(model):
        if cls in UNMEASURED:
            continue
        out += ([] if cls in NO_CHAIN else [_chain(cls, model)]) + [_tput(cls, model)]
    for rule, body in RULE_KERNELS.items():
        if rule == "vector_store_forwarding" and "vec_store" not in model.classes:
            continue
        k = _make(f"rule.{rule}", body * (CHAIN_LENGTH // body.count("\n")), model,
                  frozenset(_classes(body, model, rule)), f"rules.{rule}")
        # evidence for the rule (its memory classes), not for the helpers' own rows
        out.append(Kernel(k.name, k.body, k.classes & (READS_MEMORY | WRITES_MEMORY), k.needs, k.informs))
    if not model.in_order:
        out += [_scheduler(model, n) for n in SCHEDULER_FILLERS]
        if "double_rot" in model.classes and "lea_simple" in model.classes:
            out += [_microcode(model, k) for k in MICROCODE_FILLERS]
    if pairs:
        mixable = [c for c in model_classes(model) if c not in UNMEASURED and _mixable(c, model)]
        groups = pools(model)

        def pool(c: str) -> int:
            units = {u for p in model.classes[c].ports if not p.role for u in p.units}
            return next(i for i, g in enumerate(groups) if units <= g)
        for a, b in itertools.combinations(mixable, 2):
            if pool(a) == pool(b):
                out.append(_mix((a, b), model))
        triples = [t for t in itertools.combinations(mixable, 3) if len({pool(c) for c in t}) == 1 and
                   len({_units(model, c) for c in t}) == 3]
        out += [_mix(t, model) for t in triples[:MAX_TRIPLES]]
    return out


def _units(model: Model, cls: str) -> tuple[str, ...]:
    return next(tuple(u.units) for u in model.classes[cls].ports if not u.role)


# --- checks ------------------------------------------------------------------------------------------------

def _static_problem(k: Kernel) -> str | None:
    items = parse_listing("1:\n" + k.body, "x86_64", k.name).items
    labels = re.findall(r"^\s*(\.L\w+):", k.body, re.M)
    depth = 0
    for n, it in enumerate(items):
        if isinstance(it, Opaque):
            if it.kind == "stack":
                depth += 1 if it.mnemonic.startswith("push") else -1
                if depth < 0 or depth > 8:
                    return f"{it}: the stack goes below its start or deeper than 8"
            elif it.kind in ("branch", "jump"):
                target = str(it.operands[0]) if it.operands else ""
                if target not in labels or k.body.index(f"{target}:") < k.body.index(f" {target}"):
                    return f"{it}: a branch must go forward to a label of the body"
            elif it.kind not in ("vector", "compare", "counter", "nop", "opaque"):
                return f"{it}: kind {it.kind} is not allowed in a microbenchmark"
            writes = {w for w in it.writes}
            mems = [o for o in it.operands if isinstance(o, Mem)]
        else:
            eff = effects(it)
            writes = set(eff.writes)
            mems = [o for o in it.operands if isinstance(o, Mem)] if it.mnemonic != "lea" else []
        if isinstance(it, Opaque) and it.kind == "vector":
            v = vector_effects(it)
            writes = set(v.writes)
        names = {gpr_name(w) if not isinstance(w, str) else w for w in writes}
        bad = names & _PROTECTED - ({"esp"} if isinstance(it, Opaque) and it.kind == "stack" else set())
        if bad:
            return f"{it}: writes {sorted(bad)[0]}, which the harness owns"
        for m in mems:
            base = m.base.name if m.base is not None else None
            if base not in ("esp", "ebp", "r11d") and base not in ("rsp", "rbp", "r11"):
                return f"{it}: memory must be the private buffer (%rsp/%rbp/%r11 based)"
            if m.index is not None and not (k.name == "lat.vec_load"):
                return f"{it}: no index register in a microbenchmark's memory operand"
            if not 0 <= m.disp <= 512 - 16:
                return f"{it}: displacement {m.disp} is outside the 512-byte buffer"
        frame = names & _FRAME
        if frame and not (mems and not isinstance(it, Opaque) and it.mnemonic == "mov" and mems[0].disp == 0):
            return f"{it}: %rbp/%r11 may only be reloaded from 0 of the buffer (the pointer chase)"
    if depth != 0:
        return "pushes and pops do not balance"
    return None


def validate(k: Kernel, model: Model, work: Path | None = None) -> Checked:
    """``k`` checked (module docstring) and assembled; ``MicrobenchError`` naming the first problem."""
    out = validate_all([k], model, work)
    if isinstance(out[0], str):
        raise MicrobenchError(out[0])
    return out[0]


def validate_all(ks: list[Kernel], model: Model, work: Path | None = None) -> list[Checked | str]:
    """Every kernel checked: a ``Checked``, or the one-line reason it was refused (all assembled as one object)."""
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-kernel-") as d:
            return validate_all(ks, model, Path(d))
    out: list[Checked | str] = []
    text = ["\t.text"]
    for n, k in enumerate(ks):
        problem = _static_problem(k)
        out.append(f"{k.name}: {problem}" if problem else Checked(k))
        sym = f"sha1opt_kernel{n}"
        text += [f"\t.globl {sym}", f"\t.type {sym}, @function", f"{sym}:", "1:", k.body + LOOP_CONTROL,
                 f"\t.size {sym}, .-{sym}"]
    text.append('\t.section .note.GNU-stack,"",@progbits\n')
    obj = ObjectFile.parse(compile_text("\n".join(text), "x86_64", work, "kernels").read_bytes())
    for n, k in enumerate(ks):
        if isinstance(out[n], str):
            continue
        fn = decode_function(obj, obj.find_function(f"sha1opt_kernel{n}"))
        decoded = [classify(it, model) for it in cost_items(list(fn.instructions.values()))]
        intended = [classify(it, model) for it in k.items()]
        if decoded != intended:
            at = next((i for i, (a, b) in enumerate(zip(decoded, intended)) if a != b),
                      min(len(decoded), len(intended)))
            out[n] = (f"{k.name}: the machine code is not the intended instructions (at {at}: "
                      f"{decoded[at] if at < len(decoded) else 'end'} vs "
                      f"{intended[at] if at < len(intended) else 'end'})")
    return out
