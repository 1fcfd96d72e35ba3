"""The core clock against the TSC, measured in the same process: core cycles per TSC tick.

This VM has no cycle counters (``perf stat`` cannot count cycles), and the TSC
runs at a fixed rate unrelated to the core clock. A chain of dependent
``add $1, %eax`` instructions runs at exactly one add per core cycle on every
x86 core since the P6 (latency 1, and each add waits for the previous one),
so timing such a chain with ``rdtsc`` gives the ratio:

    core cycles per tick = adds executed / TSC ticks elapsed

The program (an assembly chain of ``CHAIN`` adds per loop iteration -- the
loop counter runs beside the chain, off its critical path -- and a small C
driver reading ``rdtsc`` around each sample) is built with gcc through
``emit.toolchain`` and run as a child process, like ``emit.timing`` builds and
runs ``csrc/bench.c``. Each sample runs ``adds`` adds; the answer is the
median of the per-sample ratios with their 10th and 90th percentiles.

Example: on the AMD family 1Ah host (TSC 2.596 GHz) issue 10 measured about
1.6 core cycles per tick (0.62 ticks per add), so a block that takes 300
ticks took about 480 core cycles; on the Intel Xeon (family 6 model 207) the
same VM later ran on, under load, ``core_cycles_per_tick()`` gave medians of
1.2-1.3. A preempted sample only looks slower, so under load prefer p90.

Invariant: every value returned is positive and ``p10 <= median <= p90``; a
build or run failure is a ``ToolchainError`` (a ``Sha1optError``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from sha1opt.emit.toolchain import ToolchainError, compile_source, compile_text, host_is_x86_64, run, which

CHAIN = 200            # dependent adds per loop iteration

_CHAIN_ASM = """\t.text
\t.globl sha1opt_add_chain
\t.type sha1opt_add_chain, @function
# uint64_t sha1opt_add_chain(uint64_t iterations): CHAIN dependent adds per iteration
sha1opt_add_chain:
\txorl %eax, %eax
1:
""" + "\taddl $1, %eax\n" * CHAIN + """\tdecq %rdi
\tjnz 1b
\tret
\t.size sha1opt_add_chain, .-sha1opt_add_chain
\t.section .note.GNU-stack,"",@progbits
"""

_DRIVER_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
uint64_t sha1opt_add_chain(uint64_t iterations);
int main(int argc, char **argv) {
    uint64_t iters = strtoull(argv[1], 0, 10);
    int samples = atoi(argv[2]);
    volatile uint64_t sink = sha1opt_add_chain(iters);   /* warm-up: let the clock ramp */
    for (int s = 0; s < samples; s++) {
        unsigned aux;
        _mm_lfence();
        uint64_t t0 = __rdtscp(&aux);
        sink += sha1opt_add_chain(iters);
        uint64_t t1 = __rdtscp(&aux);
        _mm_lfence();
        printf("%llu\n", (unsigned long long)(t1 - t0));
    }
    return sink == 42 ? 3 : 0;
}
"""


def build(work: Path) -> Path:
    """The measuring program in ``work`` (x86-64, hosted): the add chain and its rdtsc driver."""
    if not host_is_x86_64():
        raise ToolchainError("the core-clock estimate needs an x86-64 host")
    chain = compile_text(_CHAIN_ASM, "x86_64", work, "add_chain")
    src = work / "clock_driver.c"
    src.write_text(_DRIVER_C)
    drv = compile_source(src, "x86_64", work / "clock_driver.o", "compiling the clock driver", ("-O2",))
    exe = work / "clock"
    run([which("gcc"), "-O2", "-o", str(exe), str(drv), str(chain)], "linking the clock program")
    return exe


def tick_samples(adds: int = 4_000_000, samples: int = 31, work: Path | None = None) -> np.ndarray:
    """TSC ticks of each of ``samples`` runs of ``adds`` dependent adds (rounded to whole iterations)."""
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-clock-") as d:
            return tick_samples(adds, samples, Path(d))
    iters = max(1, adds // CHAIN)
    proc = run([str(build(work)), str(iters), str(samples)], "measuring the core clock", timeout=300)
    ticks = np.array([int(x) for x in proc.stdout.split()], dtype=np.float64)
    if len(ticks) != samples or (ticks <= 0).any():
        raise ToolchainError(f"the clock program printed {len(ticks)} samples, wanted {samples} positive ones")
    return ticks


def core_cycles_per_tick(adds: int = 4_000_000, samples: int = 31,
                         work: Path | None = None) -> tuple[float, float, float]:
    """(median, p10, p90) of core cycles per TSC tick over ``samples`` samples of ``adds`` dependent adds.

    One add is one core cycle, so a sample's ratio is its add count over its
    ticks. Example: about ``(1.6, 1.5, 1.7)`` here.
    """
    if adds < CHAIN or samples < 1:
        raise ValueError(f"need at least {CHAIN} adds and one sample")
    executed = max(1, adds // CHAIN) * CHAIN
    ratio = executed / tick_samples(adds, samples, work)
    return (float(np.median(ratio)), float(np.percentile(ratio, 10)), float(np.percentile(ratio, 90)))
