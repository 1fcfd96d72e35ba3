"""The timing program ``csrc/bench.c``: building it around its peers, running it, and the TSC rate.

``bench.c`` calls peer 0 (``sha1_block_data_order``) and the other peers in
interleaved pairs on the same data and reports, per call, TSC ticks and
bytes. This module is the one place that builds and runs it:

* ``hosted_program(objects, work, name)`` -- x86-64, with libc and ``-ldl``
  (so OpenSSL's libcrypto can be loaded as a further peer);
* ``freestanding_i386(work)`` -- bench.c compiled ``-m32`` freestanding and
  its ``_start``, to be linked (``toolchain.link_static``) with the peers in
  the caller's order (the order places the functions, so it is the caller's);
* ``run_program(exe, sizes, pairs, min_bytes)`` -- the records as a
  ``Timings`` value: ``tsc_hz``, the number of peers, and one row
  ``(peer, ticks, bytes)`` per call, pair after pair;
* ``tsc_hz()`` -- ticks per second of the TSC, measured against
  CLOCK_MONOTONIC_RAW by a hosted helper (``csrc/calibrate.S`` as peer 0).

Example: ``run_program(exe, [16384], 30, 1 << 20)`` on a two-peer program
gives 60 rows, rows 2k and 2k+1 being pair k (the order inside a pair
rotates). A program that exits non-zero raises ``ToolchainError``.
"""

from __future__ import annotations

import os
import signal
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.emit.toolchain import (
    FREESTANDING_FLAGS, NATIVE_LIMITS, ToolchainError, compile_source, csrc, run, run_child, tool_env, which,
)


@dataclass(frozen=True)
class Timings:
    tsc_hz: float          # TSC ticks per second, as the program measured it (0 in the freestanding build)
    peers: int
    records: np.ndarray    # rows of (peer index, ticks, bytes), uint64


def hosted_program(objects: Sequence[Path], work: Path, name: str) -> Path:
    """``gcc -O2 -o work/name bench.c <objects> -ldl``: the x86-64 timing program with these peers."""
    exe = work / name
    run([which("gcc"), "-O2", "-o", str(exe), str(csrc("bench.c")), *map(str, objects), "-ldl"],
        "building the benchmark", env=tool_env(work))
    return exe


def freestanding_i386(work: Path) -> tuple[Path, Path]:
    """bench.c compiled -m32 freestanding, and its ``_start``: (main object, start object)."""
    main = compile_source(csrc("bench.c"), "i386", work / "bench32.o", "compiling bench.c -m32",
                          (*FREESTANDING_FLAGS, "-DSHA1OPT_FREESTANDING"))
    start = compile_source(csrc("start_i386.S"), "i386", work / "start32.o", "assembling _start")
    return main, start


def run_program(exe: Path, sizes: Sequence[int], pairs: int, min_bytes: int, env: dict[str, str] | None = None,
                lib: str | None = None, time_limit: float | None = None) -> Timings:
    """Run a timing program: ``pairs`` pairs per size, each call repeated to ``min_bytes``; ``lib`` is libcrypto.

    The program is a bounded child (``toolchain.run_child`` under
    ``NATIVE_LIMITS`` with ``time_limit`` seconds of wall time, by default
    ``limits.BENCH_SECONDS``): past
    it, or on SIGINT/SIGTERM, its process group is killed and
    ``ToolchainError`` says why. Only validated code may be linked into it
    (``bench`` validates first).
    """
    payload = struct.pack(f"<3I{len(sizes)}I", pairs, min_bytes, len(sizes), *sizes)
    args = [str(exe)] + ([lib] if lib else [])
    proc = run_child(args, "benchmark", NATIVE_LIMITS.with_seconds(time_limit or BENCH_SECONDS), input=payload,
                     env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        why = (f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        raise ToolchainError(f"benchmark {why}")
    if len(proc.stdout) < 16 or (len(proc.stdout) - 16) % 24:
        raise ToolchainError(f"benchmark: {len(proc.stdout)} bytes of output is not a timing report")
    tsc, npeers = struct.unpack_from("<2Q", proc.stdout)
    recs = np.frombuffer(proc.stdout[16:], dtype="<u8").reshape(-1, 3)
    return Timings(float(tsc), int(npeers), recs)


def tsc_hz(work: Path | None = None) -> float:
    """The TSC rate (ticks per second) from a hosted x86-64 helper (the i386 program has no clock)."""
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-tsc-") as d:
            return tsc_hz(Path(d))
    ref = compile_source(csrc("sha1_ref.c"), "x86_64", work / "ref64.o", "compiling the C peer", ("-O2",))
    cal = compile_source(csrc("calibrate.S"), "x86_64", work / "calibrate64.o", "assembling the TSC helper")
    return run_program(hosted_program([ref, cal], work, "tsc64"), [], 2, 64).tsc_hz
