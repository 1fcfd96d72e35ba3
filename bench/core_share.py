"""How much of its core's throughput this machine gives a thread: latency kernels against throughput kernels.

Issue 25's hold-out found every model pricing the scalar SHA-1 codes 7-14 % fast on the Zen 4 host, and the
calibration's own kernels showed why it may not be the models: its latency chains measured within 1 % of the
literature (``lat.add_rr`` 48.37 clocks against 48) while its throughput kernels' medians were 9-17 % slow
(``tput.add_rr`` 13.60 against 12.5) with their p10 within 1-2 % of it. A dependent chain uses one ALU a
clock; four independent chains want all four. On a VM whose vCPU is one hardware thread of a core another
tenant's thread shares, the second loses slots whenever the sibling runs, the first almost never does --
and the add-chain clock (itself a chain) does not see it.

This script measures that directly, nothing else running: the integer ALU classes' ``lat.`` and ``tput.``
kernels (``emit.microbench``; the ones the host's literature model prices on plain ALUs), passes of
``--rounds`` interleaved rounds each for ``--seconds`` (``clock.loop_samples``: every sample beside its own
add-chain clock sample), and per kernel the ratio of measured to predicted core cycles (the host's
literature model, ``Simulator``): median [p10, p90]. ``share`` sums it up: the median over the latency
kernels of their median ratios, the same over the throughput kernels, and their quotient -- the core's
throughput this thread got at the median, relative to the latency kernels' clock; ``shared_rounds`` the same
quotient round by round (the kernels of a round ran milliseconds apart), and how many rounds were shared.

Reading it: throughput ratios near the latency ratios (quotient ~1): the thread had its core, and a
throughput-bound SHA-1 loop's median measures the model's core. Throughput medians well above with p10s
near 1: the core is shared part of the time; a code's median c/B then carries that share, and a model of
the core alone cannot reach the hold-out's MAPE goal on medians by any fit of its rows.

Usage (alone on the machine): python bench/core_share.py [--seconds 120] [--rounds 21]
(output: bench/results/core_share.txt)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from sha1opt.emit.calibrate import host_base, runnable
from sha1opt.emit.clock import loop_samples
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import Simulator

# Integer classes every x86-64 model prices on its plain ALUs, with a latency chain and an independent-copies
# kernel each (their latency 1 on every CPU the models cover: the chain is the clock's own kind of code).
CLASSES = ("add_rr", "logic_rr", "not", "lea_simple", "rot_imm", "shift_imm", "bswap", "counter")
ITERATIONS = 400
SHARED = 1.05       # a round whose throughput kernels ran this much slower than its chains: the core was shared


@dataclass(frozen=True)
class Ratio:
    """One kernel's measured / predicted core cycles per iteration: median, p10, p90 over its samples."""

    name: str
    predicted: float
    median: float
    p10: float
    p90: float


def ratios(samples: dict[str, np.ndarray], predicted: dict[str, float]) -> list[Ratio]:
    """Each measured kernel's sample ratios to its prediction, summarised (kernels without samples left out)."""
    out = []
    for name, x in samples.items():
        if name in predicted and len(x):
            r = np.asarray(x, dtype=np.float64) / predicted[name]
            out.append(Ratio(name, predicted[name], float(np.median(r)), float(np.percentile(r, 10)),
                             float(np.percentile(r, 90))))
    return out


def share(rs: list[Ratio]) -> tuple[float, float, float]:
    """(latency kernels' median ratio, throughput kernels' median ratio, their quotient): medians over the
    kernels of each kind of their median ratios. Example: chains at 1.01 and copies at 1.10 give
    (1.01, 1.10, 1.089) -- the copies got 1/1.089 = 92 % of the core the chains' clock counts."""
    lat = [r.median for r in rs if r.name.startswith("lat.")]
    tput = [r.median for r in rs if r.name.startswith("tput.")]
    if not lat or not tput:
        return float("nan"), float("nan"), float("nan")
    a, b = float(np.median(lat)), float(np.median(tput))
    return a, b, b / a


def shared_rounds(samples: dict[str, np.ndarray], predicted: dict[str, float], above: float = SHARED) -> tuple:
    """Per timing round, the median over the throughput kernels of their ratio to prediction, relative to the
    same round's latency kernels (the kernels of one round ran within a few milliseconds of each other):
    (p10, median, p90 of that per-round quotient, the share of rounds above ``above``). Example: rounds at
    1.00, 1.01, 1.20, 1.25 -> half the rounds shared."""
    lat = [np.asarray(x) / predicted[n] for n, x in samples.items() if n.startswith("lat.") and n in predicted]
    tput = [np.asarray(x) / predicted[n] for n, x in samples.items() if n.startswith("tput.") and n in predicted]
    if not lat or not tput:
        return float("nan"), float("nan"), float("nan"), float("nan")
    q = np.median(np.vstack(tput), axis=0) / np.median(np.vstack(lat), axis=0)
    return (float(np.percentile(q, 10)), float(np.median(q)), float(np.percentile(q, 90)), float(np.mean(q > above)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=120.0, help="keep measuring passes this long")
    ap.add_argument("--rounds", type=int, default=21, help="rounds per pass (one program run)")
    args = ap.parse_args()
    cpu, base = host_base()
    model = load_model(base)
    names = tuple(f"{kind}.{c}" for c in CLASSES for kind in ("lat", "tput"))
    checked, skipped = runnable(model, cpu, only=names)
    checked = [c for c in checked if c.kernel.name in names]
    sim = Simulator(model)
    predicted = {c.kernel.name: sim.simulate(c.kernel.items(), loop=True).cycles for c in checked}
    start = time.time()
    samples: dict[str, np.ndarray] = {}
    passes = 0
    while passes == 0 or time.time() - start < args.seconds:
        got = loop_samples({c.kernel.name: c.kernel.body for c in checked}, ITERATIONS, args.rounds, time_limit=300)
        for n, x in got.items():
            samples[n] = np.concatenate([samples[n], x]) if n in samples else x
        passes += 1
        if passes % 20 == 0:
            print(f"{passes} passes, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    wall = time.time() - start
    print(f"# bench/core_share.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(start))}; host: {cpu}; "
          f"model {model.name}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"# {len(checked)} kernels, {passes} passes x {args.rounds} rounds, {ITERATIONS} iterations a "
          f"sample, {wall:.0f} s; ratio = measured / predicted core cycles per iteration (add-chain clock)")
    for n, why in sorted(skipped.items()):
        if n in names:
            print(f"# skipped {n}: {why}")
    print(f"{'kernel':18s} {'predicted':>9s} {'median':>7s} {'p10':>7s} {'p90':>7s}")
    rs = ratios(samples, predicted)
    for r in sorted(rs, key=lambda r: (r.name.split(".", 1)[1], r.name)):
        print(f"{r.name:18s} {r.predicted:9.2f} {r.median:7.3f} {r.p10:7.3f} {r.p90:7.3f}")
    lat, tput, q = share(rs)
    print(f"share: latency kernels {lat:.3f}, throughput kernels {tput:.3f} (median of medians): the independent "
          f"copies ran at 1/{q:.3f} = {100 / q:.0f} % of the throughput the chains' clock counts")
    lo, mid, hi, frac = shared_rounds(samples, predicted)
    print(f"per round (throughput kernels' median ratio / latency kernels'): median {mid:.3f} [p10 {lo:.3f}, p90 "
          f"{hi:.3f}]; {100 * frac:.0f} % of {passes * args.rounds} rounds above {SHARED} (the core shared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
