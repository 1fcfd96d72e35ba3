"""Marginal costs on this host: what one more instruction a round costs a real SHA-1 loop, timed and predicted.

Whole-loop figures hide why a model is wrong (issue 25): a block 8 % faster than predicted may be
bound by something the model never charges. This bench perturbs one hybrid block and compares what the
machine and the model say each perturbation costs:

* the subject: this CPU's model (``--uarch``, default ``host``), the highest hybrid dialect of ``--arch``
  this CPU runs, the lazy-chain rounds (``hybrid_lazy``, the form both arches' blocks take), lead 2,
  every 3, read-ahead -- on Zen 4 the i386 block ``export --tune`` picks;
* fillers: after every one of the 80 rounds, 1 or 2 instructions that change no result, each writing
  the round's dead temporary (the one whose next access is the next round's ``mov a, T``): a load of
  the round's W+K slot (``load``), a copy of the live temporary (``move``, a register move the models
  eliminate), or ``add $1`` (``alu``, one integer ALU operation);
* neighbours: the lazy rounds (the other order), no read-ahead, lead and every one step away.

Two side effects, both small: the fillers are scalar ops to the interleaving too, so at ``every`` 3 the
vector ops sit about a tenth further apart (the subject's every 2 / every 4 neighbours show what density
does); and the read-ahead merge waits only for a round's ``add`` of a ring slot, so a load filler in the
last rounds may read a slot the next block's words already replaced (a dead value: the proof holds).

Every variant is validated as an export is -- assembled, the whole function proved from its object
(so a filler that changed a result would be refused), the vectors run natively -- and timed against
the subject in interleaved pairs (``tuning.tune_choices``, ``--pairs`` over ``--rounds`` rounds); the
subject's core cycles/byte come from the add-chain clock. Printed per variant: the measured ratio
variant / subject, median [p10, p90]; the model's ratio; and for fillers the marginal core cycles per
added instruction, measured (ratio - 1 x the subject's cycles per block / 80 n) and predicted.

Usage: nice -n -10 python bench/marginal_costs.py [--arch i386] [--uarch host] [--pairs 60] [--rounds 6]
       [--out bench/results/marginal_costs.txt] (the output is prepended to ``--out``)
"""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from dataclasses import dataclass, replace

from pair_table import Output, host_model, load, run_main

from sha1opt.emit.family import Choice
from sha1opt.emit.family_hybrid import ARCHES, HYBRID
from sha1opt.emit.host_cpu import lacking
from sha1opt.emit.tuning import Entry, tune_choices
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost, dialects_for
from sha1opt.search.space import hybrid_forms
from sha1opt.search.space.hybrid import HybridParams, features
from sha1opt.search.space.hybrid_forms import LAZY_TEMPS
from sha1opt.search.space.hybrid_regs import wk_slot
from sha1opt.search.space.hybrid_rounds import RotatingRounds
from sha1opt.semantics.x86 import Imm, Instr, Reg

ROUNDS = 80
SUBJECT_FORM = "lazy-chain"


def filler(kind: str, t: int, dead: Reg, live: Reg) -> Instr:
    """One instruction after round ``t`` that writes only ``dead`` (module docstring)."""
    if kind == "load":
        return Instr("mov", (wk_slot(t), dead))
    if kind == "move":
        return Instr("mov", (live, dead))
    return Instr("add", (Imm(1), dead))


def filled(rounds: RotatingRounds, temps: tuple[str, str], kind: str, n: int) -> RotatingRounds:
    """``rounds`` (the lazy rounds with ``temps``) with ``n`` fillers of ``kind`` after each round's last
    instruction: round t's dead temporary is ``temps[t % 2]`` (``hybrid_lazy``: the temporaries swap roles
    every round, and the next round's first access to it is ``mov a, T``)."""
    code, tags = [], []
    for k, (ins, t) in enumerate(zip(rounds.code, rounds.rounds)):
        code.append(ins)
        tags.append(t)
        last = k + 1 == len(rounds.code) or rounds.rounds[k + 1] != t
        if last and t < ROUNDS - 1:
            dead, live = Reg(temps[t % 2]), Reg(temps[(t + 1) % 2])
            code += [filler(kind, t, dead, live)] * n
            tags += [t] * n
    return RotatingRounds(tuple(code), tuple(tags), rounds.final)


@dataclass(frozen=True)
class _Filled:
    """A stand-in for ``FORMS[SUBJECT_FORM]`` while a filled block is built (its ``rounds`` with fillers)."""

    form: hybrid_forms.RoundsForm
    kind: str
    n: int

    @property
    def arches(self) -> tuple[str, ...]:
        return self.form.arches

    def rounds(self, arch: str = "x86_64") -> RotatingRounds:
        return filled(self.form.rounds(arch), LAZY_TEMPS[arch], self.kind, self.n)


@contextmanager
def fillers(kind: str, n: int):
    """``FORMS[SUBJECT_FORM]`` builds its rounds with fillers inside the ``with`` (the block's key still names
    the form: the table labels variants itself)."""
    form = hybrid_forms.FORMS[SUBJECT_FORM]
    hybrid_forms.FORMS[SUBJECT_FORM] = _Filled(form, kind, n)       # type: ignore[assignment]
    try:
        yield
    finally:
        hybrid_forms.FORMS[SUBJECT_FORM] = form


def subject(model, arch: str) -> HybridParams | None:
    """The subject block's point: the highest dialect of ``arch`` the model has and this CPU runs."""
    for isa in reversed(dialects_for(model, None, arch)):
        p = HybridParams(isa=isa, lead=2, every=3, arch=arch, scalar=SUBJECT_FORM, ahead=True)
        block = ARCHES[arch].build_on(p, model)
        if block is not None and block.params.dialect.blocks == 1 and not lacking(features(block)):
            return p
    return None


def variants(p: HybridParams) -> list[tuple[str, HybridParams, tuple[str, int] | None]]:
    """(label, point, fillers or None): the subject first."""
    out: list[tuple[str, HybridParams, tuple[str, int] | None]] = [("subject", p, None)]
    out += [(f"+{n} {kind}/round", p, (kind, n)) for kind in ("load", "move", "alu") for n in (1, 2)]
    out += [("lazy rounds", replace(p, scalar="lazy"), None), ("no read-ahead", replace(p, ahead=False), None)]
    out += [(f"lead {lead}", replace(p, lead=lead), None) for lead in (p.lead - 1, p.lead + 1)]
    out += [(f"every {e}", replace(p, every=e), None) for e in (p.every - 1, p.every + 1)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="i386", choices=("i386", "x86_64"))
    ap.add_argument("--uarch", default="host", help="the model that prices the variants (default: this CPU's)")
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--out", default=None, help="also prepend the output to this file")
    args = ap.parse_args()
    if args.pairs < 2 or args.rounds < 1:
        ap.error("--pairs must be at least 2 and --rounds at least 1")
    args.uarch = host_model(ap, args.uarch)
    output = Output("bench/marginal_costs.py")
    say = output.say
    model = load_model(args.uarch)
    p = subject(model, args.arch)
    if p is None:
        say(f"# no one-block hybrid dialect of {args.arch} on {args.uarch} runs on this CPU: nothing to time")
        return 1
    entries, labels, added = [], [], []
    for label, q, fill in variants(p):
        if fill is None:
            block = ARCHES[args.arch].build_on(q, model)
        else:
            with fillers(*fill):
                block = ARCHES[args.arch].build_on(q, model)
        if block is None:
            continue
        cycles = block_cost(block, model).cycles
        entries.append(Entry(Choice(HYBRID, block, args.arch, [label]), not labels, cycles / 64))
        labels.append(label)
        added.append(ROUNDS - 1 if fill is None else (ROUNDS - 1) * fill[1])
    say(f"# subject: {p.key()} on {args.uarch}; each variant validated (assembled, proved whole from its object, "
        f"vectors) and timed against the subject, {args.pairs} interleaved pairs in {args.rounds} rounds")
    t = tune_choices(entries, pairs=args.pairs, rounds=args.rounds)
    if t.candidates[0].entry is not entries[0]:
        say(f"# the subject did not validate: nothing is measured against it ({'; '.join(t.notes)})")
        return 1
    base_pred = t.candidates[0].entry.predicted
    block_cycles = t.reference_cpb * 64
    say(f"# the subject: {t.reference_cpb:.2f} c/B measured (add-chain clock), {base_pred:.2f} predicted; "
        f"{t.shared[0]} of {t.shared[1]} pairs left out (another hardware thread shared the core)")
    say(f"{'variant':18s} {'measured':>8s} {'[p10':>6s} {'p90]':>6s} {'model':>7s}   marginal c/instr: "
        "measured  model")
    for cand, meas in zip(t.candidates, t.measured):
        k = entries.index(cand.entry)
        pred = cand.entry.predicted / base_pred
        text = f"{labels[k]:18s} {meas.median:8.3f} {meas.p10:6.3f} {meas.p90:6.3f} {pred:7.3f}"
        if labels[k].startswith("+"):
            n = added[k]
            text += f"   {'':17s} {(meas.median - 1) * block_cycles / n:7.3f} {(pred - 1) * base_pred * 64 / n:6.3f}"
        say(text)
    say(f"# done; {load()}")
    say("# measured = median [p10, p90] of the paired ratios variant / subject in TSC ticks per byte; model = the "
        "same ratio under the model; marginal = core cycles per added instruction (fillers after rounds 0-78)")
    output.prepend(args.out)
    return 0


if __name__ == "__main__":
    run_main(main, "bench/marginal_costs.py")
