"""What the benches that time kernels do alike (bench/microcode_mix.py, bench/loop_kernels.py).

Their kernels are timed the way ``sha1opt calibrate`` times its own: every kernel checked first
(``microbench.validate_all``: registers and the private buffer only, the machine code the intended
instructions) -- nothing is run unless every kernel passes -- then ``calibrate.measure_kernels`` (core cycles
per iteration from the add-chain clock, shared rounds left out by ``calibrate.SHARE_PROBES``, timed in the same
batches), and each kernel's time is ``calibrate.kernel_time`` (its median, at most ``MIN_SPREAD`` above its
p10). Example: ``arguments(ap)`` gives a bench ``--uarch`` (this CPU's model by default, refused in one line
for another CPU's), ``--passes`` (1-20) and ``--out``; ``measured(ks, model, 3)`` is per kernel its
``Timed(time, p10, p90, model)`` in core clocks per iteration, or the one line naming the first kernel refused.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from pair_table import host_model, results_file

from sha1opt.emit.calibrate import SHARE_PROBES, band, kernel_time, measure_kernels
from sha1opt.emit.microbench import Checked, Kernel, kernels, validate_all
from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import simulate


@dataclass(frozen=True)
class Timed:
    """One kernel: its time (``kernel_time``), p10 and p90 measured, and the model's price, clocks per iteration."""
    time: float
    p10: float
    p90: float
    model: float


def arguments(ap: argparse.ArgumentParser) -> argparse.Namespace:
    """Parse a kernel bench's command line (module docstring); ``ap.error`` (one line, exit 2) when bad."""
    ap.add_argument("--uarch", default="host", help="the model that prices the kernels (default: this CPU's)")
    ap.add_argument("--passes", type=int, default=3, help="timing passes over every kernel (calibrate's: 3)")
    ap.add_argument("--out", type=results_file, default=None, help="also prepend the output to this file")
    args = ap.parse_args()
    if not 1 <= args.passes <= 20:
        ap.error("--passes must be 1 to 20")
    args.uarch = host_model(ap, args.uarch)
    return args


def measured(ks: list[Kernel], model: Model, passes: int) -> dict[str, Timed] | str:
    """Every kernel of ``ks`` checked, then timed (module docstring): name -> ``Timed``; or the refusal."""
    probes = [k for k in kernels(model, pairs=False) if k.name in SHARE_PROBES]
    checked = validate_all(ks + probes, model)
    refused = [c for c in checked if not isinstance(c, Checked)]
    if refused:
        return f"a kernel was refused, nothing is timed: {refused[0]}"
    samples = measure_kernels(checked, passes=passes)
    out = {}
    for k in ks:
        m, lo, hi = band(samples[k.name])
        out[k.name] = Timed(kernel_time(m, lo), lo, hi, simulate(k.items(), model, loop=True).cycles)
    return out
