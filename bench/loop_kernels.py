"""SHA-1's own block loops timed as calibrate's kernels: where the model's error on whole loops comes from (issue 25).

The hold-out (bench/calibrate_holdout.py) finds every scalar code 4-11 % slower than the calibrated model
prices it, and calibrate's small kernels priced to about 1 %. A whole loop timed as a SHA-1 function has a
2-4 % band and one figure per code; this bench times the same loop bodies the way calibrate times its kernels
(``calibrate.measure_kernels``: core cycles per iteration from the add-chain clock, shared rounds left out),
whose bands are about 0.1 %, and takes them apart one feature at a time.

Kernels (one iteration: a block's 80 rounds, about 1240 instructions; the harness's loop control after them):

* **SHA-1 loops**: the textbook schedule and every one-field recipe variant of it
  (``family_scalar.recipe_variants``) the model's ISA and this CPU run, moved into calibrate's kernel frame
  (``frame``: a..e and the temporaries on the frame's free registers, the message words, the W ring and the
  a..e state in its private buffer) -- each as written, and with the **ring apart**: every read of the W
  ring from a slot no store writes, so no read of the ring waits for a store (the W recurrence through
  memory is cut; the a..e state's update at the end of a block still goes through its slots; the
  instructions and their classes are the same).
* **The hybrid's loop** (``families.HYBRID``'s default block at the highest level this CPU runs: vector
  message schedule, W+K through a 64-byte ring, scalar rounds), as written, and split: its scalar part alone
  (the rounds, reading W+K from the ring, which nothing then writes) and its vector part alone.
* **Rounds alone**: 80 rounds of registers only, the a..e names rotating as in a block, one part added at a
  time -- the recurrence ``mov a,t; rol $5,t; add t,e``; with ``ror $2,b``; with one f (the textbook's Ch,
  parity or Maj form) added into e; parity with instructions more that nothing reads (an add on its own
  register, at each place in the round: "at k" is before the round's k-th instruction, 0-based, and at 7 after
  the last; 1-4 loads; 1-5 moves, which the renamer eliminates, one at other places and one from another
  register; one or two nops of 1 or 4 bytes; a zero idiom; instructions that use an ALU and write no register
  the round reads: a mov of an immediate, a cmp, a test); parity and Ch with ``ror $2,b`` at each place after
  f's read of b, not only at the end; and Ch with W+K added into e from memory (a load-op, as the hybrid does).
  Two dependence cycles bound the parity round at 2 clocks (a -> rol -> add, and the f term of the round
  after), with ALUs to spare; whatever the machine loses on top is its scheduling.
* **Two fields changed**: every recipe two fields away from the textbook's (``recipe_variants`` of each
  one-field variant), as written. Over these and the one-field loops -- the recipe space the search and
  measured selection choose from -- the bench prints the spread measured and priced, and the model's Kendall
  tau and MAPE against the measurement.
* **Ablations** of the textbook with the ring apart (``ABLATIONS``): one feature changed at a time -- the
  three-term ``lea K(e,w), e`` as one ``add`` (K left out), as two adds in either order; the ring's
  memory-operand xors as register xors; the rotates as adds; the ring stores left out. They no longer
  compute SHA-1; they are timing kernels, checked as calibrate's are.
* **Orders** of the textbook with the ring apart (``ORDERS``): each round's W group (its ring loads and xors or
  bswap, rol 1, store, and the ``lea K(e,w), e``), on a temporary of its own, placed before one of f's
  instructions, before or after f's add into e, or split (W first, its lea before f's add). The same
  instructions and dependences (the adds into e commute), so each computes what the textbook with the ring
  apart computes; after f's add the lea stands on the path from the round before's a to this round's.
* **Three-term lea among adds**: groups of one ``leal 1(%r15,q), a`` and k independent adds, k = 0-5 (the
  textbook's K+W+e is such a lea; calibrate's ``tput.lea_complex`` and ``mix.X+lea_complex`` kernels time
  only k = 0 and k = 1).

Every kernel passes ``microbench.validate_all`` (registers and the private buffer only; the machine code is
the intended instructions) and needs only ISA features this CPU has -- only such code is ever run. Printed per
kernel: clocks per iteration (per group for the lea table) measured (``calibrate.kernel_time``) [p10, p90],
predicted by ``--uarch``, and measured / predicted; for an ablation, how much it moved the time on the
machine and in the model.

Usage: nice -n -10 python bench/loop_kernels.py [--uarch host] [--passes 3]
       [--out bench/results/loop_kernels.txt] (the output is prepended to ``--out``)
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Sequence

from kernel_bench import arguments, measured
from pair_table import Output, run_main

from sha1opt.emit.calibration import kendall_tau, mape
from sha1opt.emit.families import HYBRID, levels_of
from sha1opt.emit.family_scalar import recipe_variants
from sha1opt.emit.host_cpu import host, lacking
from sha1opt.emit.microbench import REGS, groups, priced
from sha1opt.emit.training_loops import family_levels
from sha1opt.search.cost.model import Model, load_model
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import SEMANTICS, Imm, Instr, Mem, Reg, effects, rename

# calibrate's kernel frame (emit.microbench): %rsp over 512 private bytes; %ecx, %r15, %rdi, %r12, %rsp are the
# harness's, %rbp / %r11 its pointer chase. The loops' a..e and temporaries go to the free registers.
MOVED = {"ecx": "r13d", "ebp": "r14d"}
FREE = {*REGS, "r10d", *(f"xmm{i}" for i in range(16))}   # microbench's eight, %r10 (emit.clock zeroes it)
DATA, STATE, RING, APART = 192, 320, 64, 400      # buffer offsets: message words, a..e, the W ring, its reads apart
SP, SI, DI = Reg("esp", 64), Reg("esi", 64), Reg("edi", 64)
CONSTANT = Reg("r15d")                            # the frame's constant register (never written by a kernel)
LEA_KS = (0, 1, 2, 3, 4, 5)
LEA_SIZE = 48                                     # instructions per lea kernel, at most


class FrameRefusal(Sha1optError):
    """A loop that does not fit calibrate's kernel frame (a register it needs, an address outside the buffer)."""


def _reg(r: Reg) -> Reg:
    name = MOVED.get(r.name, r.name)
    if name not in FREE:
        raise FrameRefusal(f"needs %{r.name}, not free in the kernel frame")
    return Reg(name, r.width)


def _mem(m: Mem, stored: bool, apart: bool, width: int) -> Mem:
    base = {SI: DATA, DI: STATE, SP: RING}.get(m.base)
    if base is None or m.index is not None or not 0 <= m.disp <= 64 - width:
        raise FrameRefusal(f"an address the frame has no room for: {m}")
    if base == RING and apart and not stored:
        base = APART
    return Mem(SP, None, 1, base + m.disp)


def frame(body: Sequence[Instr], apart: bool = False) -> list[Instr]:
    """A scalar block loop's body (no loop control) in calibrate's kernel frame: registers moved (``MOVED``),
    ``d(%rsi)`` message words at ``DATA + d``, ``d(%rdi)`` state at ``STATE + d``, the ring ``d(%rsp)`` at
    ``RING + d`` -- with ``apart``, a read of the ring at ``APART + d``, a slot no store writes.
    ``FrameRefusal`` for a register the frame does not have free. Example: ``xorl 28(%rsp), %r8d`` is
    ``xorl 92(%rsp), %r8d``, apart ``xorl 428(%rsp), %r8d``; ``leal K(%ebp,%r8d), %ebp`` is
    ``leal K(%r14d,%r8d), %r14d``."""
    used = {o.name for ins in body for o in ins.operands if isinstance(o, Reg)}
    taken = sorted(used & set(MOVED.values()))
    if taken:
        moved = next(k for k, v in MOVED.items() if v == taken[0])
        raise FrameRefusal(f"uses %{taken[0]}, where the frame moves %{moved}")
    out = []
    for ins in body:
        written = effects(ins).mem_write                  # the semantics table: the operand it stores to
        width = max([o.width // 8 for o in ins.operands if isinstance(o, Reg) and o.width >= 128] or [4])
        ops = []
        for o in ins.operands:
            if isinstance(o, Reg):
                ops.append(_reg(o))
            elif isinstance(o, Mem) and ins.mnemonic == "lea":         # registers, not an address of the buffer
                ops.append(Mem(_reg(o.base) if o.base else None, _reg(o.index) if o.index else None, o.scale,
                               o.disp))
            elif isinstance(o, Mem):
                ops.append(_mem(o, stored=o == written, apart=apart, width=width))
            else:
                ops.append(o)
        out.append(Instr(ins.mnemonic, tuple(ops)))
    return out


def text(code: Sequence[Instr]) -> str:
    return "".join(f"{i}\n" for i in code)


def _kwe(ins: Instr) -> tuple[Mem, Reg] | None:
    """(the address, e) of the textbook's ``lea K(e,w), e``, else None."""
    if ins.mnemonic == "lea" and isinstance(ins.operands[0], Mem):
        m, e = ins.operands
        if m.index is not None and m.base == e and m.disp:
            return m, e
    return None


def _lea_as(parts: Callable[[Mem, Reg], list[Instr]]) -> Callable[[list[Instr]], list[Instr]]:
    def edit(code: list[Instr]) -> list[Instr]:
        out = []
        for ins in code:
            hit = _kwe(ins)
            out += parts(*hit) if hit else [ins]
        return out
    return edit


def _ring_xor_as_register(code: list[Instr]) -> list[Instr]:
    return [Instr("xor", (CONSTANT, i.operands[1])) if i.mnemonic == "xor" and isinstance(i.operands[0], Mem) else i
            for i in code]


def _rotates_as_adds(code: list[Instr]) -> list[Instr]:
    return [Instr("add", (CONSTANT, i.operands[1])) if i.mnemonic in ("rol", "ror") else i for i in code]


def _no_ring_stores(code: list[Instr]) -> list[Instr]:
    return [i for i in code if not (i.mnemonic == "mov" and isinstance(i.operands[-1], Mem)
                                    and RING <= i.operands[-1].disp < RING + 64)]


# name -> what it changes in the textbook (ring apart); none of these compute SHA-1 any more
ABLATIONS: dict[str, Callable[[list[Instr]], list[Instr]]] = {
    "lea K(e,w),e -> add w,e": _lea_as(lambda m, e: [Instr("add", (m.index, e))]),
    "lea K(e,w),e -> lea (e,w),e": _lea_as(lambda m, e: [Instr("lea", (Mem(m.base, m.index), e))]),
    "-> add $K,e; add w,e": _lea_as(lambda m, e: [Instr("add", (Imm(m.disp), e)), Instr("add", (m.index, e))]),
    "-> add w,e; add $K,e": _lea_as(lambda m, e: [Instr("add", (m.index, e)), Instr("add", (Imm(m.disp), e))]),
    "ring xors -> register xors": _ring_xor_as_register,
    "rotates -> adds": _rotates_as_adds,
    "ring stores left out": _no_ring_stores,
}


W_TEMP = Reg("esi")           # the W group's own temporary in the order kernels (a microbench register)


def _rounds(code: list[Instr]) -> tuple[list[list[Instr]], list[Instr]]:
    """The textbook's rounds (each ends with its ``ror $2, b``) and what follows the last (the state update)."""
    rounds, cur = [], []
    for ins in code:
        cur.append(ins)
        if ins.mnemonic == "ror" and ins.operands[0] == Imm(2):
            rounds.append(cur)
            cur = []
    return rounds, cur


def _parts(r: list[Instr]) -> tuple[list[Instr], list[Instr], list[Instr]]:
    """A textbook round as (W, F, R): the W group (its ring loads and xors or bswap, rol 1, store, then the
    ``lea K(e,w), e``) on ``W_TEMP``; f up to its add into e; the rest (``mov a,t; rol $5,t; add t,e; ror $2,b``).
    Example: ``mov 92(%rsp),%r8d; ...; lea K(%r14d,%r8d),%r14d`` is W with %esi for %r8d."""
    li = next(k for k, ins in enumerate(r) if _kwe(ins))
    temp = r[0].operands[-1]
    w = [rename(i, {temp.name: W_TEMP.name}) for i in r[:li + 1]]
    rest = r[li + 1:]
    fa = next(k for k, ins in enumerate(rest) if ins.mnemonic == "add" and isinstance(ins.operands[0], Reg))
    return w, rest[:fa + 1], rest[fa + 1:]


def _w_placed(place: Callable[[list[Instr], list[Instr], list[Instr]], list[Instr]]) -> Callable[[list[Instr]],
                                                                                             list[Instr]]:
    def edit(code: list[Instr]) -> list[Instr]:
        rounds, tail = _rounds(code)
        return [ins for r in rounds for ins in place(*_parts(r))] + tail
    return edit


# name -> where each round's W group goes (the textbook: first). The same instructions and dependences, so each
# computes what the textbook with the ring apart computes; after f's add into e, the lea stands between that add
# and ``add t,e``, on the path from the round before's a to this round's. The parity f has four instructions,
# so "before f's instruction 3" is "before f's add" in rounds 20-39 and 60-79.
ORDERS: dict[str, Callable[[list[Instr]], list[Instr]]] = {
    "W group first (the textbook's)": _w_placed(lambda w, f, r: w + f + r),
    **{f"W group before f's instruction {k}": _w_placed((lambda k: lambda w, f, r: f[:k] + w + f[k:] + r)(k))
       for k in (1, 2, 3)},
    "W group before f's add into e": _w_placed(lambda w, f, r: f[:-1] + w + f[-1:] + r),
    "W group after f's add into e": _w_placed(lambda w, f, r: f + w + r),
    "W first, its lea before f's add": _w_placed(lambda w, f, r: w[:-1] + f[:-1] + w[-1:] + f[-1:] + r),
}


@dataclass(frozen=True)
class Row:
    table: str          # "loops", "pairs", "hybrid", "rounds", "ablations", "orders", "lea"
    name: str
    body: str
    per: int            # the printed figure is per iteration / this (groups for the lea table)


def lea_body(k: int) -> tuple[str, int]:
    """Groups of one three-term lea (its own chain, four groups back) and ``k`` independent adds
    (``microbench.groups``); (body, groups)."""
    n = LEA_SIZE // (1 + k)
    return groups("leal 1(%r15,%{q}), %{a}", "addl %r15d, %{x}", k, n), n


# Rounds alone (module docstring): per round, the lines after the recurrence's; {a}..{e} rotate per round
ROUND_NAMES = ("eax", "ebx", "edx", "r13d", "r14d")
ROUND = ["movl %{a}, %r8d", "roll $5, %r8d", "addl %r8d, %{e}"]
ROR = ["rorl $2, %{b}"]
CH = ["movl %{c}, %r9d", "xorl %{d}, %r9d", "andl %{b}, %r9d", "xorl %{d}, %r9d", "addl %r9d, %{e}"]
PARITY = ["movl %{b}, %r9d", "xorl %{c}, %r9d", "xorl %{d}, %r9d", "addl %r9d, %{e}"]
MAJ = ["movl %{b}, %r9d", "andl %{c}, %r9d", "movl %{b}, %r10d", "orl %{c}, %r10d", "andl %{d}, %r10d",
       "orl %r9d, %r10d", "addl %r10d, %{e}"]
WK = ["addl {wk}(%rsp), %{e}"]
ROUND_FORMS = {
    "a -> rol 5 -> add": ROUND,
    "+ ror 2 b": ROUND + ROR,
    "+ parity": PARITY + ROUND,
    "+ parity, ror 2 b": PARITY + ROUND + ROR,
    **{f"+ parity, an independent add at {k}": (PARITY + ROUND)[:k] + ["addl %r15d, %r10d"] + (PARITY + ROUND)[k:]
       for k in range(len(PARITY + ROUND) + 1)},
    **{f"+ parity, {k} independent load{'s' if k > 1 else ''}": PARITY + ROUND + ["movl 64(%rsp), %r10d"] * k
       for k in (1, 2, 3, 4)},
    **{f"+ parity, {k} independent mov{'s' if k > 1 else ''}": PARITY + ROUND + ["movl %r15d, %r10d"] * k
       for k in (1, 2, 3, 4, 5)},
    "+ parity, a nop": PARITY + ROUND + ["nop"],
    "+ parity, two nops": PARITY + ROUND + ["nop", "nop"],
    "+ parity, a 4-byte nop": PARITY + ROUND + ["nopl 0(%rsp)"],
    "+ parity, two 4-byte nops": PARITY + ROUND + ["nopl 0(%rsp)"] * 2,
    "+ parity, a zero idiom": PARITY + ROUND + ["xorl %r10d, %r10d"],
    "+ parity, a mov from %esi": PARITY + ROUND + ["movl %esi, %r10d"],
    **{f"+ parity, an independent mov at {k}": (PARITY + ROUND)[:k] + ["movl %r15d, %r10d"] + (PARITY + ROUND)[k:]
       for k in (0, 4)},
    "+ parity, a mov of an immediate": PARITY + ROUND + ["movl $1, %r10d"],
    "+ parity, a cmp": PARITY + ROUND + ["cmpl %r15d, %r10d"],
    "+ parity, a test": PARITY + ROUND + ["testl %r15d, %r15d"],
    **{f"+ parity, ror 2 b at {k}": (PARITY + ROUND)[:k] + ROR + (PARITY + ROUND)[k:] for k in range(1, 7)},
    **{f"+ Ch, ror 2 b at {k}": (CH + ROUND)[:k] + ROR + (CH + ROUND)[k:] for k in range(3, 8)},
    "+ ror 2 b, Ch": CH + ROUND + ROR,
    "+ ror 2 b, Ch, W+K from memory": WK + CH + ROUND + ROR,
    "+ ror 2 b, Maj": MAJ + ROUND + ROR,
}


def rounds_body(lines: list[str], n: int = 80) -> str:
    """``n`` rounds of ``lines`` with a..e on ``ROUND_NAMES``, renamed per round as a block does (round t's
    new a is in the register its e was in)."""
    out = []
    for t in range(n):
        a, b, c, d, e = (ROUND_NAMES[(k - t) % 5] for k in range(5))
        out += [ln.format(a=a, b=b, c=c, d=d, e=e, wk=RING + 4 * (t % 16)) for ln in lines]
    return "".join(f"{ln}\n" for ln in out)


def hybrid_rows(notes: list[str]) -> list[Row]:
    """The hybrid default block's loop at the highest hybrid level this CPU runs, whole and split (module
    docstring); none (and a note) when this CPU runs no hybrid level or the block does not fit the frame."""
    levels = [lv for lv in family_levels(host()) if lv in levels_of(HYBRID)]
    if not levels:
        notes.append("# left out: the hybrid loop: this CPU runs none of its levels")
        return []
    choice = HYBRID.choose(None, "x86_64", levels[-1])
    name = f"hybrid default ({levels[-1]})"
    try:
        whole = frame(choice.code.loop_body())
    except FrameRefusal as e:
        notes.append(f"# left out: {name}: {e}")
        return []
    vector = [i for i in whole if SEMANTICS[i.mnemonic].vector]
    scalar = [i for i in whole if not SEMANTICS[i.mnemonic].vector]
    return [Row("hybrid", name, text(whole), 1), Row("hybrid", "  its scalar part alone", text(scalar), 1),
            Row("hybrid", "  its vector part alone", text(vector), 1)]


def plan(model: Model) -> tuple[list[Row], list[str]]:
    """Every kernel (module docstring) and notes on the loops left out (the frame lacks a register they use)."""
    rows, notes = [], []
    loops = [("textbook", textbook("x86_64"))] + recipe_variants("x86_64", model.isa, model)
    for name, sched in loops:
        body = sched.body[sched.loop_start:]
        try:
            rows += [Row("loops", name, text(frame(body)), 1), Row("loops", f"{name}, ring apart",
                                                                   text(frame(body, apart=True)), 1)]
        except FrameRefusal as e:
            notes.append(f"# left out: {name}: {e}")
    firsts = {sched.recipe: name for name, sched in loops[1:]}
    seen = set(firsts)
    for first in firsts:                          # two fields changed (recipe_variants of a one-field variant)
        for name, sched in recipe_variants("x86_64", model.isa, model, base=first):
            if name == "textbook" or sched.recipe in seen:
                continue
            seen.add(sched.recipe)
            try:
                rows.append(Row("pairs", name, text(frame(sched.body[sched.loop_start:])), 1))
            except FrameRefusal:
                pass                              # the one-field loop's note says why
    rows += hybrid_rows(notes)
    rows += [Row("rounds", name, rounds_body(lines), 80) for name, lines in ROUND_FORMS.items()]
    tb_sched = loops[0][1]
    tb = frame(tb_sched.body[tb_sched.loop_start:], apart=True)
    rows += [Row("ablations", name, text(edit(tb)), 1) for name, edit in ABLATIONS.items()]
    rows += [Row("orders", name, text(edit(tb)), 1) for name, edit in ORDERS.items()]
    for k in LEA_KS:
        body, n = lea_body(k)
        rows.append(Row("lea", f"lea3 + {k} add", body, n))
    return rows, notes


def main() -> int:
    args = arguments(argparse.ArgumentParser())
    output = Output("bench/loop_kernels.py")
    say = output.say
    model = load_model(args.uarch)
    rows, notes = plan(model)
    ks = [priced(f"lk.{n}", r.body, model, "a SHA-1 loop as a kernel") for n, r in enumerate(rows)]
    cpu = host()
    runs = [(r, k) for r, k in zip(rows, ks) if not lacking(k.needs, cpu)]
    notes += [f"# left out: {r.name}: this CPU lacks {', '.join(sorted(lacking(k.needs, cpu)))}"
              for r, k in zip(rows, ks) if lacking(k.needs, cpu)]
    got = measured([k for _, k in runs], model, args.passes)
    if isinstance(got, str):
        say(f"# {got}")
        return 1
    say(f"# model {args.uarch}; {len(runs)} kernels, {args.passes} passes (core cycles from the add-chain clock, "
        f"shared rounds left out)")
    for n in notes:
        say(n)
    timed = {r.name: (r, got[k.name]) for r, k in runs}
    bases = {"ablations": timed.get("textbook, ring apart"), "orders": timed.get("W group first (the textbook's)")}
    for table, head in (("loops", "SHA-1 block loops, clocks per block"),
                        ("pairs", "SHA-1 block loops with two recipe fields changed, clocks per block"),
                        ("hybrid", "the hybrid's block loop, whole and split, clocks per block"),
                        ("rounds", "80 rounds alone, registers only, clocks per round"),
                        ("ablations", "the textbook, ring apart, one feature changed (clocks per block)"),
                        ("orders", "the textbook, ring apart, each round's W group elsewhere (clocks per block)"),
                        ("lea", "three-term lea and k adds, clocks per group")):
        say(f"## {head}")
        say(f"{'kernel':34s} {'measured':>8s} {'[p10':>7s} {'p90]':>7s} {'model':>7s} {'meas/model':>10s}"
            + (f" {'d meas':>7s} {'d model':>7s}" if table in bases else ""))
        for r, t in timed.values():
            if r.table != table:
                continue
            base = bases.get(table)
            extra = f" {t.time - base[1].time:+7.1f} {t.model - base[1].model:+7.1f}" if base else ""
            say(f"{r.name:34s} {t.time / r.per:8.2f} {t.p10 / r.per:7.2f} {t.p90 / r.per:7.2f} "
                f"{t.model / r.per:7.2f} {t.time / t.model:10.3f}{extra}")
    space = [t for r, t in timed.values()
             if r.table == "pairs" or r.table == "loops" and not r.name.endswith("ring apart")]
    if len(space) > 2:
        ts, ps = [t.time for t in space], [t.model for t in space]
        say(f"# the recipe space as written ({len(space)} loops): measured {min(ts):.1f}-{max(ts):.1f} clocks a "
            f"block, priced {min(ps):.1f}-{max(ps):.1f}; Kendall tau of model against measurement "
            f"{kendall_tau(ps, ts):.2f}; MAPE {100 * mape(ps, ts):.1f} %")
    return output.finish(args.out)


if __name__ == "__main__":
    run_main(main, "bench/loop_kernels.py")
