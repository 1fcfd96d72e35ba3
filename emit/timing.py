"""The timing driver: the program ``csrc/bench.c`` built for an arch, run in interleaved pairs, and its statistics.

``bench.c`` calls peer 0 (``sha1_block_data_order``) and the other peers in
interleaved pairs on the same data and reports, per call, TSC ticks and
bytes. Every native timing of the project goes through this module (``bench``,
``hybrid_bench``, ``hybrid_bench_i386``, ``tuning``, ``calibration`` and the
bench scripts are its users):

* building -- ``timing_program(arch, objects, work, name)``: x86-64 hosted
  (libc and ``-ldl``, so OpenSSL's libcrypto can be loaded as a further
  peer), i386 freestanding (``-m32``, its own ``_start``, no library);
  ``objects`` is the link order, which places the functions, so it is the
  caller's. ``c_peer(arch, work)`` is gcc -O2 of ``csrc/sha1_ref.c``, the C
  peer (peer 1, ``sha1_ref_block_data_order``);
* running -- ``PairPlan(sizes, pairs, min_bytes, time_limit).run(exe)``, or
  ``run_program`` with the same figures: one bounded child process, its
  records as a ``Timings`` value: ``tsc_hz``, the number of peers, and one row
  ``(peer, ticks, bytes)`` per call, pair after pair, size after size;
* the core's share -- with ``probes`` every pair ends with two probes, a chain of
  dependent adds and as many adds in four chains; ``Timings.shared()`` names the
  pairs during which another hardware thread took part of the core (a vCPU is a
  hardware thread; a tenant's sibling thread slows throughput-bound code, not a chain);
* statistics -- ``Timings.per_pair()`` (per size: peer -> ticks/byte of each
  pair), ``Timings.stats(names)`` (``PeerStats``: median, p10 and p90 of the
  per-pair ratios ours / peer, the ratio of the minima), ``Timings.ratios()``
  (peer 0 / peer 1 per pair), and the core clock: ``Timings.clock_samples(peer)``
  (core cycles per tick of each pair from the add-chain peer,
  ``clock.clock_library``), ``clock_around`` (the add chain in its own process
  just before and after a run, for programs that load no library) and
  ``core_clock`` (their median, p10, p90 as a ``CoreClock``);
* ``tsc_hz()`` -- ticks per second of the TSC, measured against
  CLOCK_MONOTONIC_RAW by a hosted helper (``csrc/calibrate.S`` as peer 0).

Invariants: only paired ratios are statistics (the machine's throughput swings
30-50 % within seconds; ``emit.bench`` explains); every percentile is
``numpy.percentile`` with linear interpolation, the median ``numpy.median``
(``band``); a program that exits non-zero or prints something that is not a
timing report raises ``ToolchainError``; only validated code is linked into a
timing program (the callers validate first).

Example: ``PairPlan((16384,), 30).run(exe)`` on a two-peer program gives 60
rows, rows 2k and 2k+1 being pair k (the order inside a pair rotates), and
``.ratios()`` the 30 ratios peer 0 / peer 1 of ticks per byte.
"""

from __future__ import annotations

import os
import signal
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence, TypeVar

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.clock import CHAIN, ratio_of_record, tick_samples
from sha1opt.emit.toolchain import (
    FREESTANDING_FLAGS, NATIVE_LIMITS, ToolchainError, compile_source, csrc, link_static, run, run_child, tool_env,
    which,
)

__all__ = ["PairPlan", "Timings", "PeerStats", "CoreClock", "band", "core_clock", "clock_around", "c_peer",
           "shared_quotients", "kept_quotients",
           "timing_program", "hosted_program", "freestanding_i386", "run_program", "tsc_hz"]

T = TypeVar("T")
PROBES = 0x100          # the flag in bench.c's nsizes word: run the core-share probes after every pair
SHARED_SLACK = 0.05     # a pair whose four-chain probe ran this much slower (against its chain) than the core alone


def band(values) -> tuple[float, float, float]:
    """(median, p10, p90) of ``values``: the one way every timing figure is summarised."""
    v = np.asarray(values, dtype=np.float64)
    return float(np.median(v)), float(np.percentile(v, 10)), float(np.percentile(v, 90))


@dataclass(frozen=True)
class PeerStats:
    """Ours against one peer at one call size: per-pair ratios ours / peer of ticks per byte."""

    peer: str
    size: int
    ours_ticks_per_byte: float       # median over pairs
    peer_ticks_per_byte: float       # median over pairs
    ratio_median: float              # median over pairs of ours/peer
    ratio_p10: float
    ratio_p90: float
    ratio_of_minima: float           # min(ours) / min(peer)
    pairs: int                       # the pairs the statistics take (core-shared pairs left out: ``left_out``)
    ours_cycles_per_byte: float = float("nan")     # estimated core cycles/byte (``Timings.stats``)
    peer_cycles_per_byte: float = float("nan")
    left_out: int = 0                # pairs during which another hardware thread shared the core (probes run)

    @property
    def spread(self) -> float:
        """The p10..p90 band of the ratio as a share of its median (``bench.WIDE_SPREAD`` and above: a busy machine)."""
        return (self.ratio_p90 - self.ratio_p10) / self.ratio_median if self.ratio_median > 0 else float("inf")


@dataclass(frozen=True)
class CoreClock:
    """Core cycles per TSC tick measured beside the timed runs: median, p10, p90 over ``samples``, and how."""
    median: float
    p10: float
    p90: float
    samples: int
    method: str


def core_clock(samples, method: str) -> CoreClock:
    """The ``band`` of core-cycles-per-tick samples, with how they were taken."""
    median, p10, p90 = band(samples)
    return CoreClock(median, p10, p90, len(samples), method)


@dataclass(frozen=True)
class Timings:
    """The records of one run of a timing program, and the statistics over them.

    ``records`` holds rows ``(peer index, ticks, bytes)``, uint64 from the
    program (any numeric array in tests): for each size in ``sizes``,
    ``pairs`` pairs of ``peers`` rows written back to back.
    """

    tsc_hz: float          # TSC ticks per second, as the program measured it (0 in the freestanding build)
    peers: int
    records: np.ndarray
    sizes: tuple[int, ...] = ()
    pairs: int = 0
    probes: bool = False    # the last two peers are the core-share probes (chain, then four chains)

    def per_pair(self) -> list[dict[int, np.ndarray]]:
        """Per size: peer index -> ticks/byte of each pair, in pair order."""
        out = []
        per_size = self.peers * self.pairs
        for s_idx in range(len(self.sizes)):
            block = self.records[s_idx * per_size:(s_idx + 1) * per_size]
            tpb: dict[int, list[float]] = {p: [] for p in range(self.peers)}
            for pair in range(self.pairs):
                for peer, t, nbytes in block[pair * self.peers:(pair + 1) * self.peers]:
                    tpb[int(peer)].append(t / nbytes)
            out.append({p: np.array(v) for p, v in tpb.items()})
        return out

    def ratios(self, size_index: int = 0, peer: int = 0, against: int = 1) -> np.ndarray:
        """Per pair, ``peer``'s ticks/byte over ``against``'s at ``sizes[size_index]``."""
        tpb = self.per_pair()[size_index]
        return tpb[peer] / tpb[against]

    def probe_quotients(self, size_index: int = 0) -> np.ndarray:
        """Per pair, the four-chain probe's ticks over the one-chain probe's (same adds; ``probes`` run)."""
        if not self.probes:
            raise Sha1optError("the core-share probes were not run (run_program(..., probes=True))")
        tpb = self.per_pair()[size_index]
        return tpb[self.peers - 1] / tpb[self.peers - 2]

    def shared(self, size_index: int = 0, reference: float | None = None, slack: float = SHARED_SLACK) -> np.ndarray:
        """Per pair, whether another hardware thread shared the core (``shared_quotients`` of the probes)."""
        return shared_quotients(self.probe_quotients(size_index), reference, slack)

    def kept(self, size_index: int = 0, reference: float | None = None) -> np.ndarray:
        """Per pair, whether a statistic takes it (``kept_quotients`` of the probes)."""
        return kept_quotients(self.probe_quotients(size_index), reference)

    def clock_samples(self, peer: int) -> np.ndarray:
        """Core cycles per tick of every record of the add-chain peer ``peer`` (``clock.ratio_of_record``)."""
        return np.array([ratio_of_record(float(b), float(t)) for p, t, b in self.records if int(p) == peer])

    def stats(self, peer_names: Mapping[int, str], clock_peer: int | None = None,
              cycles_per_tick: float = float("nan")) -> list[PeerStats]:
        """One ``PeerStats`` per (size, named peer), ours being peer 0.

        Core cycles/byte: from ``clock_peer``'s records of the same pairs when
        given (median over pairs of ticks/byte x that pair's cycles/tick), else
        the median ticks/byte x ``cycles_per_tick``. When the core-share probes ran, a pair during which
        another hardware thread shared the core (``kept``) is left out of every figure here and counted
        (a ``cycles_per_tick`` given is the caller's: ``bench`` takes its clock over every pair).
        """
        out = []
        for k, (size, tpb) in enumerate(zip(self.sizes, self.per_pair())):
            keep = self.kept(k) if self.probes else np.ones(self.pairs, dtype=bool)
            tpb = {p: v[keep] for p, v in tpb.items()}
            cpt = 1.0 / tpb[clock_peer] if clock_peer is not None else None   # one add per byte
            ours = tpb[0]
            core = (lambda x: float(np.median(x * cpt))) if cpt is not None else \
                (lambda x: float(np.median(x)) * cycles_per_tick)
            for p in peer_names:
                other = tpb[p]
                median, p10, p90 = band(ours / other)
                out.append(PeerStats(peer_names[p], size, float(np.median(ours)), float(np.median(other)),
                                     median, p10, p90, float(ours.min() / other.min()), int(keep.sum()),
                                     core(ours), core(other), int((~keep).sum())))
        return out


@dataclass(frozen=True)
class PairPlan:
    """What one timing process runs: ``pairs`` interleaved pairs per call size of ``sizes``, each call
    repeated to ``min_bytes``, the process bounded by ``time_limit`` seconds of wall time."""

    sizes: tuple[int, ...]
    pairs: int
    min_bytes: int = 1 << 20
    time_limit: float = BENCH_SECONDS
    probes: bool = False    # run the core-share probes after every pair (``Timings.shared``)

    def __post_init__(self):
        object.__setattr__(self, "sizes", tuple(self.sizes))
        if self.pairs < 2:
            raise Sha1optError("pairs must be at least 2")
        if not self.time_limit > 0:
            raise Sha1optError("time_limit must be a positive number of seconds")

    def run(self, exe: Path, env: Mapping[str, str] | None = None, lib: str | None = None) -> Timings:
        """``run_program`` of ``exe`` with this plan; ``env`` is added to the environment, ``lib`` is the
        shared object the program loads as its dlopen peer (libcrypto, or the add-chain clock)."""
        return run_program(exe, self.sizes, self.pairs, self.min_bytes, dict(env) if env is not None else None,
                           lib, time_limit=self.time_limit, probes=self.probes)


def shared_quotients(q: np.ndarray, reference: float | None = None, slack: float = SHARED_SLACK) -> np.ndarray:
    """Which core-share probe quotients (four chains' ticks over one chain's, same adds) come from a shared core.

    The chain uses one ALU a clock, so a sibling thread barely slows it; the four chains want every ALU and
    lose what the sibling takes. The probes see the core at their own instant (~10-50 us); sharing in bursts
    shorter than a record (~1.5 ms) shows in a record only in part (on the Zen 4 host, 2026-12-04: 12 % of
    400 pairs shared by the probes, their textbook / gcc ratios 0.941 against 0.928 for the rest).
    ``reference`` is the quotient of the core alone -- by default the 10th percentile of ``q`` (not its least:
    a chain interrupted mid-probe gives a quotient below the core's); one more than ``slack`` above it was
    shared. Example: quotients 0.26 (nine of them) and 0.42 -> the tenth shared.
    """
    ref = float(np.percentile(q, 10)) if reference is None else reference
    return q > ref * (1 + slack)


def kept_quotients(q: np.ndarray, reference: float | None = None) -> np.ndarray:
    """The samples a statistic takes: those of the core alone (not ``shared_quotients``), or every one when
    fewer than 2 would stay (a run shared throughout has no sample of the core alone to compare with)."""
    keep = ~shared_quotients(q, reference)
    return keep if keep.sum() >= 2 else np.ones(len(q), dtype=bool)


def c_peer(arch: Arch, work: Path) -> Path:
    """gcc -O2 of ``csrc/sha1_ref.c`` for ``arch`` (freestanding ``-m32`` for i386): the C peer's object."""
    if arch == "x86_64":
        return compile_source(csrc("sha1_ref.c"), "x86_64", work / "ref64.o", "compiling the C peer", ("-O2",))
    return compile_source(csrc("sha1_ref.c"), "i386", work / "ref32.o", "compiling sha1_ref.c -m32",
                          FREESTANDING_FLAGS)


def timing_program(arch: Arch, objects: Sequence[Path], work: Path, name: str, start_at: int | None = None) -> Path:
    """The timing program ``work/name`` for ``arch`` with ``objects`` (the peers) in this link order.

    x86-64: ``hosted_program``. i386: bench.c freestanding first, then
    ``objects`` with its ``_start`` inserted before ``objects[start_at]``
    (default: before the last object).
    """
    if arch == "x86_64":
        return hosted_program(objects, work, name)
    if arch != "i386":
        raise Sha1optError(f"unknown arch {arch!r}")
    main, start = freestanding_i386(work)
    objs = list(objects)
    at = len(objs) - 1 if start_at is None else start_at
    return link_static([main, *objs[:at], start, *objs[at:]], "i386", work / name,
                       "linking the i386 benchmark")


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
                lib: str | None = None, time_limit: float | None = None, probes: bool = False) -> Timings:
    """Run a timing program: ``pairs`` pairs per size, each call repeated to ``min_bytes``; ``lib`` is libcrypto.

    The program is a bounded child (``toolchain.run_child`` under
    ``NATIVE_LIMITS`` with ``time_limit`` seconds of wall time, by default
    ``limits.BENCH_SECONDS``): past it, or on SIGINT/SIGTERM, its process
    group is killed and ``ToolchainError`` says why. ``probes``: every pair ends with the core-share probes,
    the program's last two peers (``Timings.shared``).
    """
    payload = struct.pack(f"<3I{len(sizes)}I", pairs, min_bytes, len(sizes) | (PROBES if probes else 0), *sizes)
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
    return Timings(float(tsc), int(npeers), recs, tuple(sizes), pairs, probes)


def clock_around(work: Path, timed: Callable[[], T], samples: int = 7) -> tuple[T, np.ndarray]:
    """``timed()``'s result, and core cycles per tick sampled by the add chain in its own x86-64 process
    (``clock.tick_samples``, ``samples`` each) just before and just after it."""
    adds = max(1, 2_000_000 // CHAIN) * CHAIN
    before = adds / tick_samples(adds, samples, work)
    out = timed()
    after = adds / tick_samples(adds, samples, work)
    return out, np.concatenate([before, after])


def tsc_hz(work: Path | None = None) -> float:
    """The TSC rate (ticks per second) from a hosted x86-64 helper (the i386 program has no clock)."""
    if work is None:
        with tempfile.TemporaryDirectory(prefix="sha1opt-tsc-") as d:
            return tsc_hz(Path(d))
    cal = compile_source(csrc("calibrate.S"), "x86_64", work / "calibrate64.o", "assembling the TSC helper")
    return run_program(hosted_program([c_peer("x86_64", work), cal], work, "tsc64"), [], 2, 64).tsc_hz
