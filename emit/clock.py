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

Two more instruments use the same chain:

* ``clock_library(work)`` -- a shared object that ``csrc/bench.c`` loads as
  its dlopen peer (the interface it uses for OpenSSL: ``SHA1_Init`` /
  ``SHA1_Update``), whose ``SHA1_Update(ctx, data, n)`` runs ``n`` dependent
  adds and reads nothing. Timed as a peer, it is interleaved with the other
  peers in every pair of the same timing process, and its "ticks per byte"
  are ticks per add: ``ratio_of_record(bytes, ticks) = bytes / ticks`` core
  cycles per tick for that pair (``emit.bench`` does this).
* ``loop_samples(bodies)`` / ``loop_cycles(bodies)`` -- core cycles per
  iteration of straight-line loop bodies (microbenchmarks), each timed in
  turn with the add chain in one program, so every sample of a body has its
  own clock sample beside it. Only for the project's own bodies: nothing
  here validates them (``emit.microbench.validate`` does, for
  ``emit.calibrate``; the bench scripts run fixed bodies).

Invariant: every value returned is positive and ``p10 <= median <= p90``; a
build or run failure is a ``ToolchainError`` (a ``Sha1optError``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from sha1opt.emit.toolchain import (NATIVE_LIMITS, ToolchainError, compile_source, compile_text, host_is_x86_64, run,
                                   run_child, which)

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


# --- the clock as a peer of csrc/bench.c ---------------------------------------------

LIB_CHAIN = 64         # dependent adds per loop iteration of the library's SHA1_Update (sizes are multiples of 64)

_LIB_ASM = """\t.text
# int SHA1_Init(void *ctx): nothing to set up
\t.globl SHA1_Init
\t.type SHA1_Init, @function
SHA1_Init:
\tmovl $1, %eax
\tret
\t.size SHA1_Init, .-SHA1_Init
# int SHA1_Update(void *ctx, const void *data, size_t n): n dependent adds (n a multiple of 64); data is not read
\t.globl SHA1_Update
\t.type SHA1_Update, @function
SHA1_Update:
\txorl %eax, %eax
\tshrq $6, %rdx
\tjz 2f
1:
""" + "\taddl $1, %eax\n" * LIB_CHAIN + """\tdecq %rdx
\tjnz 1b
2:
\tmovl $1, %eax
\tret
\t.size SHA1_Update, .-SHA1_Update
\t.section .note.GNU-stack,"",@progbits
"""


def clock_library(work: Path) -> Path:
    """``work/libsha1opt_clock.so``: the add chain behind bench.c's dlopen peer interface (see the module docstring).

    Example: run as peer 2 with 1 MiB per record, a record of (1048576 bytes,
    800000 ticks) says 1.31 core cycles per tick during that pair.
    """
    if not host_is_x86_64():
        raise ToolchainError("the core-clock estimate needs an x86-64 host")
    obj = compile_text(_LIB_ASM, "x86_64", work, "clock_lib")
    lib = work / "libsha1opt_clock.so"
    run([which("gcc"), "-shared", "-o", str(lib), str(obj)], "linking the clock library")
    return lib


def ratio_of_record(nbytes: float, ticks: float) -> float:
    """Core cycles per tick of one clock-peer record: one add (one core cycle) per byte."""
    if not nbytes > 0 or not ticks > 0:
        raise ToolchainError(f"a clock record needs positive bytes and ticks, got {nbytes} and {ticks}")
    return nbytes / ticks


# --- microbenchmarks: core cycles per iteration of a loop body --------------------------

# The frame every body runs in (documented for the bench scripts that write bodies):
# %rsp 64-byte aligned with 512 bytes of scratch, 0(%rsp) holding %rsp itself (a pointer chase),
# 64..511 zero; %rbp and %r11 copies of %rsp; %r10 = 0; %ecx = 3; %r15d = 7; %xmm0 = 0.
# The loop counter is %rdi and %r12 holds the caller's stack pointer; a body may use every other register but %rsp.
_BODY_PROLOGUE = """\tpushq %rbx\n\tpushq %rbp\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15
\tmovq %rsp, %r12\n\tsubq $576, %rsp\n\tandq $-64, %rsp\n\tmovq %rsp, %rbx
\tpxor %xmm0, %xmm0\n\tmovl $8, %eax
3:\tmovdqa %xmm0, (%rbx)\n\taddq $16, %rbx\n\tdecl %eax\n\tjnz 3b
\tmovq %rsp, %rbx\n\tmovl $24, %eax
4:\tmovdqa %xmm0, 64(%rbx)\n\taddq $16, %rbx\n\tdecl %eax\n\tjnz 4b
\tmovq %rsp, (%rsp)\n\tmovq %rsp, %rbp\n\tmovq %rsp, %r11\n\txorl %r10d, %r10d\n\txorl %eax, %eax
\tmovl $3, %ecx\n\tmovl $7, %r15d
"""
_BODY_EPILOGUE = """\tdecq %rdi\n\tjnz 1b
\tmovq %r12, %rsp\n\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbp\n\tpopq %rbx\n\tret
"""

_BODIES_DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
typedef void (*body_fn)(uint64_t);
extern body_fn sha1opt_bodies[];
extern int sha1opt_nbodies;
int main(int argc, char **argv) {
    uint64_t iters = strtoull(argv[1], 0, 10);
    int rounds = atoi(argv[2]);
    for (int k = 0; k < sha1opt_nbodies; k++) sha1opt_bodies[k](iters);     /* warm-up */
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < sha1opt_nbodies; k++) {
            unsigned aux;
            _mm_lfence();
            uint64_t t0 = __rdtscp(&aux);
            sha1opt_bodies[k](iters);
            uint64_t t1 = __rdtscp(&aux);
            _mm_lfence();
            printf("%llu\n", (unsigned long long)(t1 - t0));
        }
    return 0;
}
"""


@dataclass(frozen=True)
class LoopTiming:
    """Core cycles per iteration of one body: median over rounds of (body ticks x the round's cycles per tick)."""
    name: str
    cycles: float          # median
    p10: float
    p90: float
    rounds: int


def _bodies_asm(bodies: list[str]) -> str:
    """One function per body (body 0 is the add chain) and the table the driver calls them through."""
    out = ["\t.text"]
    chain = "\n".join(["\taddl $1, %eax"] * CHAIN)
    for k, body in enumerate([chain] + bodies):
        out += [f"\t.type sha1opt_body{k}, @function", f"sha1opt_body{k}:", _BODY_PROLOGUE + "1:", body,
                _BODY_EPILOGUE]
    out += ["\t.data", "\t.globl sha1opt_bodies", "\t.p2align 3", "sha1opt_bodies:"]
    out += [f"\t.quad sha1opt_body{k}" for k in range(len(bodies) + 1)]
    out += ["\t.globl sha1opt_nbodies", "\t.p2align 2", "sha1opt_nbodies:", f"\t.long {len(bodies) + 1}",
            '\t.section .note.GNU-stack,"",@progbits']
    return "\n".join(out) + "\n"


def loop_samples(bodies: Mapping[str, str], iterations: int = 2000, rounds: int = 21, work: Path | None = None,
                 time_limit: float | None = None) -> dict[str, np.ndarray]:
    """Core cycles per iteration of each loop body, one value per round, each clocked beside its own sample.

    Each round times the ``CHAIN``-add chain and then every body once
    (``iterations`` iterations each); a body's sample is its ticks per
    iteration times that round's adds per tick. The program is a bounded
    child (``toolchain.run_child`` under ``NATIVE_LIMITS``, ``time_limit``
    seconds of wall time).
    """
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-loops-") as d:
            return loop_samples(bodies, iterations, rounds, Path(d), time_limit)
    if not host_is_x86_64():
        raise ToolchainError("microbenchmarks need an x86-64 host")
    if iterations < 1 or rounds < 1 or not bodies:
        raise ValueError("need at least one body, one iteration and one round")
    names = list(bodies)
    objs = compile_text(_bodies_asm([bodies[n] for n in names]), "x86_64", work, "bodies")
    src = work / "bodies_driver.c"
    src.write_text(_BODIES_DRIVER)
    drv = compile_source(src, "x86_64", work / "bodies_driver.o", "compiling the microbenchmark driver", ("-O2",))
    exe = work / "bodies"
    run([which("gcc"), "-O2", "-o", str(exe), str(drv), str(objs)], "linking the microbenchmarks")
    proc = run_child([str(exe), str(iterations), str(rounds)], "running the microbenchmarks",
                     NATIVE_LIMITS.with_seconds(time_limit or 600))
    if proc.returncode != 0:
        raise ToolchainError(f"the microbenchmark program exited with status {proc.returncode}")
    ticks = np.array([int(x) for x in proc.stdout.split()], dtype=np.float64)
    n = len(names) + 1
    if len(ticks) != n * rounds or (ticks <= 0).any():
        raise ToolchainError(f"the microbenchmark printed {len(ticks)} samples, wanted {n * rounds} positive ones")
    ticks = ticks.reshape(rounds, n)
    per_tick = iterations * CHAIN / ticks[:, 0]                 # core cycles per tick, each round
    return {name: ticks[:, k] / iterations * per_tick for k, name in enumerate(names, start=1)}


def loop_cycles(bodies: Mapping[str, str], iterations: int = 2000, rounds: int = 21,
                work: Path | None = None) -> dict[str, LoopTiming]:
    """Core cycles per iteration of each loop body (AT&T lines, the frame above): the ``loop_samples``
    of each body as median, p10, p90. Example: ``loop_cycles({"rol": "roll $5, %eax"})["rol"].cycles``
    is about 1.0."""
    out = {}
    for name, c in loop_samples(bodies, iterations, rounds, work).items():
        out[name] = LoopTiming(name, float(np.median(c)), float(np.percentile(c, 10)), float(np.percentile(c, 90)),
                               rounds)
    return out
