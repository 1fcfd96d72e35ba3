"""Microcoded instructions among others, on this host: what ``shld`` costs in a mix, timed and predicted (issue 25).

``sha1opt calibrate`` times every class alone (``tput.X``, ``lat.X``) and in pairs of classes of the model
(``mix.A+B``). The double shifts (``shld``/``shrd``: classes ``double_rot`` and ``double_shift``) are the
model's only multi-uop integer classes; on AMD CPUs an instruction of more than two macro-ops comes from the
microcode sequencer, not the op cache. Alone, their throughput is what the calibrated rows say. This bench
asks whether they cost the same between other instructions -- OpenSSL's AVX SHA-1 path writes every
rotate of its rounds as ``shld``/``shrd``, and the calibrated Zen 4 model without ``rules.microcode`` priced
that loop 28 % fast (with it, 6 %: ``bench/results/calibrate_holdout_zen4.txt``).

Kernels (each about 48 instructions, the loop control after them): groups of one *subject* and ``k`` fillers,
for k = 0 to 5:

* subjects: ``shldl $5, a, a`` (a rotate, ``double_rot``), ``shldl $5, %r15d, a`` (``double_shift``), and
  ``roll $5, a`` (``rot_imm``, one macro-op: the control);
* fillers: ``nop``, ``leal 1(%r15), x`` (an integer ALU op with a constant input), ``movl 64(%rsp), x``
  (a load), ``pshufd $27, %xmm15, v`` (a vector op). The groups are ``microbench.groups``' (calibrate's
  ``rule.microcode.K`` kernels are the shld-and-lea rows): nothing chains a group to the next but a subject's
  own register, four groups back.

Every kernel is checked as calibrate's are (``microbench.validate_all``: registers and the private buffer
only, and the machine code is the intended instructions) and timed the same way (``calibrate.measure_kernels``:
core cycles per iteration from the add-chain clock, rounds of a shared core left out by its probes). Printed per
kernel: core cycles per group, measured (``calibrate.kernel_time`` [p10, p90]) and predicted by ``--uarch``;
and for the microcoded subjects, the clocks each costs beyond the model (measured - model, per group).

Usage: nice -n -10 python bench/microcode_mix.py [--uarch host] [--passes 3]
       [--out bench/results/microcode_mix.txt] (the output is prepended to ``--out``)
"""

from __future__ import annotations

import argparse

from kernel_bench import arguments, measured
from pair_table import Output, run_main

from sha1opt.emit.microbench import groups, priced
from sha1opt.search.cost.model import load_model

SUBJECTS = {"shld rotate": "shldl $5, %{a}, %{a}", "shld shift": "shldl $5, %r15d, %{a}", "rol": "roll $5, %{a}"}
FILLERS = {"nop": "nop", "lea": "leal 1(%r15), %{x}", "load": "movl 64(%rsp), %{x}",
           "vector": "pshufd $27, %xmm15, %{v}"}     # registers: ``microbench.groups``
KS = (0, 1, 2, 3, 4, 5)
SIZE = 48                                    # instructions per kernel, at most (SIZE // (1 + k) groups)


def plan() -> list[tuple[str, str, int, str, int]]:
    """(subject, filler, k, body, groups) per kernel (``microbench.groups``); k = 0 once per subject."""
    out = []
    for s in SUBJECTS:
        for f in FILLERS:
            for k in KS:
                if k == 0 and f != next(iter(FILLERS)):
                    continue
                n = SIZE // (1 + k)
                out.append((s, f if k else "-", k, groups(SUBJECTS[s], FILLERS[f], k, n), n))
    return out


def main() -> int:
    args = arguments(argparse.ArgumentParser())
    output = Output("bench/microcode_mix.py")
    say = output.say
    model = load_model(args.uarch)
    rows = plan()
    ks = [priced(f"mc.{n}", text, model, "microcoded instructions in a mix") for n, (*_, text, _g) in enumerate(rows)]
    timed = measured(ks, model, args.passes)
    if isinstance(timed, str):
        say(f"# {timed}")
        return 1
    say(f"# model {args.uarch}; {len(ks)} kernels of {SIZE} instructions, {args.passes} passes (core cycles "
        f"from the add-chain clock, shared rounds left out); per group of one subject and k fillers:")
    say(f"{'subject':12s} {'filler':6s} {'k':>2s} {'groups':>6s} {'measured':>8s} {'[p10':>6s} {'p90]':>6s} "
        f"{'model':>6s} {'meas-model':>10s}")
    for (s, f, k, _text, groups), kern in zip(rows, ks):
        t = timed[kern.name]
        say(f"{s:12s} {f:6s} {k:2d} {groups:6d} {t.time / groups:8.2f} {t.p10 / groups:6.2f} {t.p90 / groups:6.2f} "
            f"{t.model / groups:6.2f} {(t.time - t.model) / groups:10.2f}")
    return output.finish(args.out)


if __name__ == "__main__":
    run_main(main, "bench/microcode_mix.py")
