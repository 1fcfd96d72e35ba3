"""Benchmark an emitted transform against real peers, interleaved in one process.

The machine is noisy (throughput swings 30-50 % within seconds), so only
*paired ratios* are reported: in every pair the peers run back to back (the
order rotates from pair to pair) on the same data, and the statistic is the
distribution of per-pair ratios ``ours / peer`` of ticks per byte -- median,
p10, p90 -- plus the ratio of the two minima. Absolute ticks/byte are given
for context only.

Peers (``csrc/bench.c``, built and run by the timing driver ``timing.py``, which also
computes every statistic; OpenSSL found by ``peers.py``):

* OpenSSL's libcrypto ``SHA1_Update``, forced onto one code path by setting
  ``OPENSSL_ia32cap`` before the library loads (one process per path, each
  also running ours, so each ratio is still paired). On this machine (AMD,
  OpenSSL 3.0): ``integer`` (the primary peer), ``ssse3``, ``avx2`` and the
  ``default`` (SHA-NI) path as context. x86-64 only.
* ``gcc -O2`` of our plain C SHA-1 (``csrc/sha1_ref.c``), ``-m32``
  freestanding for i386 candidates.

Nothing is timed before it validates (``validate.validate_source``, the
same checks as export): a bare ``ret``, a ``call system``, clobbered
callee-saved registers or a spin loop come back as a ``BenchRefusal``; so
does code needing a feature this CPU lacks (``host_cpu.lacking`` of the
features its decoded machine code needs: ``BenchRefusal.missing``), which
is never run natively. ``refusal`` and ``c_program`` are the steps the
hybrid benches (``hybrid_bench``, ``hybrid_bench_i386``) share with ``bench``.

Ticks are TSC ticks, not core cycles: the TSC runs at a fixed rate whatever
the core clock does; ``tsc_hz`` is measured against CLOCK_MONOTONIC_RAW.
Core cycles are estimated beside them (``emit.clock``): on x86-64 the first
timing process has a third peer, ``clock.clock_library``'s dependent add
chain, so every pair of ours and the C peer has its own core-cycles-per-tick
sample, and ``core cycles/byte = ticks/byte x that pair's cycles per tick``
(median over pairs); the OpenSSL paths, timed in their own processes, use the
median clock of that first process. The i386 program cannot load a library:
its clock is the add chain run just before and just after it (``timing.clock_around``).
Example: 2.40 ticks/byte at 1.31 core cycles per tick is 3.14 core c/B.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.host_cpu import host, lacking, lacks_text
from sha1opt.emit.clock import clock_library
from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto, openssl_path_note
from sha1opt.emit.timing import (
    CoreClock, PairPlan, PeerStats, c_peer, clock_around, core_clock, timing_program, tsc_hz,
)
from sha1opt.emit.toolchain import Preprocessor
from sha1opt.emit.validate import Validation, validate_source

__all__ = ["SIZES", "PEER_NAMES", "WIDE_SPREAD", "PeerStats", "CoreClock", "BenchReport", "BenchRefusal",
           "refusal", "c_program", "bench"]

SIZES = (64, 1024, 16384, 1 << 20)
PEER_NAMES = {0: "ours", 1: "gcc -O2 C"}
# A ratio whose p10..p90 band is wider than this share of its median says the machine was busy (or the
# size too small to time): its median is printed with a warning, not as a finding.
WIDE_SPREAD = 0.25


@dataclass
class BenchReport:
    arch: Arch
    tsc_hz: float
    pairs: int
    stats: list[PeerStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    validated: tuple[str, ...] = ()   # the checks passed before any timing run ("prove", "vectors"...)
    clock: CoreClock | None = None

    def ns_per_byte(self, ticks_per_byte: float) -> float:
        return ticks_per_byte / self.tsc_hz * 1e9 if self.tsc_hz else float("nan")

    def to_json(self) -> dict:
        return {
            "arch": self.arch,
            "tsc_hz": round(self.tsc_hz),
            "tsc_note": "TSC ticks at a constant rate, not core cycles",
            "pairs": self.pairs,
            "notes": self.notes,
            "validated": list(self.validated),
            "core_clock": None if self.clock is None else {
                "cycles_per_tick_median": round(self.clock.median, 4), "cycles_per_tick_p10": round(self.clock.p10, 4),
                "cycles_per_tick_p90": round(self.clock.p90, 4), "samples": self.clock.samples,
                "method": self.clock.method},
            "results": [
                {
                    "peer": s.peer, "bytes_per_call": s.size,
                    "ours_ticks_per_byte": round(s.ours_ticks_per_byte, 4),
                    "peer_ticks_per_byte": round(s.peer_ticks_per_byte, 4),
                    "ours_ns_per_byte": round(self.ns_per_byte(s.ours_ticks_per_byte), 4),
                    "peer_ns_per_byte": round(self.ns_per_byte(s.peer_ticks_per_byte), 4),
                    "ratio_median": round(s.ratio_median, 4), "ratio_p10": round(s.ratio_p10, 4),
                    "ratio_p90": round(s.ratio_p90, 4), "ratio_of_minima": round(s.ratio_of_minima, 4),
                    "pairs": s.pairs, "left_out": s.left_out, "spread": round(s.spread, 4),
                    "wide_spread": s.spread >= WIDE_SPREAD,
                    "ours_core_cycles_per_byte": round(s.ours_cycles_per_byte, 4),
                    "peer_core_cycles_per_byte": round(s.peer_cycles_per_byte, 4),
                }
                for s in self.stats
            ],
        }


@dataclass(frozen=True)
class BenchRefusal:
    """``source`` did not validate, or validated but needs features this CPU lacks (``missing``,
    ``host_cpu.lacking`` of ``Validation.features``), so none of its timing runs happened."""

    validation: Validation
    missing: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        if self.missing:
            done = ", ".join(f"{c.name} {c.execution.text()}" if c.execution else c.name for c in self.validation.checks)
            return (f"needs {', '.join(self.missing)} ({lacks_text(self.missing)}), so it is never run natively "
                    f"here; it validated: {done}")
        f = self.validation.failure
        return f"{f.name} failed: {f.detail}" if f else "validation failed"


def refusal(v: Validation) -> BenchRefusal | None:
    """Why validated code must not be timed here (it failed a check, or needs features this CPU lacks), or None."""
    if not v.ok:
        return BenchRefusal(v)
    missing = lacking(v.features or ())
    return BenchRefusal(v, missing) if missing else None   # never timed natively without its features


def c_program(arch: Arch, candidate: Path, work: Path) -> Path:
    """The timing program with ``candidate`` as peer 0 and the C peer (``timing.c_peer``) as peer 1."""
    return timing_program(arch, [c_peer(arch, work), candidate], work, "bench64" if arch == "x86_64" else "bench32")


def bench(source: str | Path, arch: Arch, *, sizes=SIZES, pairs: int = 30, min_bytes: int = 1 << 20,
          openssl_paths=("integer", "ssse3", "avx2", "default"),
          time_limit: float = BENCH_SECONDS, cpp: Preprocessor = Preprocessor()) -> BenchReport | BenchRefusal:
    """Validate ``source`` (a .S defining sha1_block_data_order), then measure it against the peers.

    Validation is ``validate.validate_source`` -- assemble, object, lift,
    prove (the whole function), native vectors, the same checks as export -- and what fails
    it is returned as a ``BenchRefusal`` without a timing run. The validated
    object (not a second build of ``source``) is linked into the timing
    program (``timing``); each timing process runs under ``toolchain.NATIVE_LIMITS`` with
    ``time_limit`` seconds of wall time, in its own process group, killed
    with its group past the limit or on SIGINT/SIGTERM (``ToolchainError``),
    and the temporary directory goes with it.
    """
    source = Path(source)
    if not source.is_file():
        raise Sha1optError(f"{source}: no such file")
    plan = PairPlan(sizes, pairs, min_bytes, time_limit, probes=True)
    unknown = [p for p in openssl_paths if p not in OPENSSL_PATHS]
    if unknown:
        raise Sha1optError(f"unknown OpenSSL path {unknown[0]!r} (known: {', '.join(OPENSSL_PATHS)})")
    if arch not in ("x86_64", "i386"):
        raise Sha1optError(f"unknown arch {arch!r}")
    with tempfile.TemporaryDirectory(prefix="sha1opt-bench-") as work:
        work_dir = Path(work)
        v = validate_source(source, arch, work_dir, cpp=cpp)
        refused = refusal(v)
        if refused:
            return refused
        exe = c_program(arch, v.obj, work_dir)
        if arch == "x86_64":
            lib = libcrypto()
            # the first process: ours, the C peer and the clock peer, interleaved in every pair
            t = plan.run(exe, None, str(clock_library(work_dir)))
            clock = core_clock(t.clock_samples(2), "dependent-add chain as a third peer, interleaved in "
                                                   "every pair of ours and the C peer")
            report = BenchReport(arch, t.tsc_hz, pairs, t.stats({1: "gcc -O2 C"}, clock_peer=2), clock=clock)
            paths = list(openssl_paths) if lib else []
            if not paths:
                report.notes.append("libcrypto not found: OpenSSL peers skipped" if not lib else "no OpenSSL path asked")
            cpu = host()
            for path in list(paths):
                timed, note = openssl_path_note(path, cpu)
                if note:
                    report.notes.append(note)
                if not timed:
                    paths.remove(path)
                    continue
                mask = OPENSSL_PATHS[path]
                t = plan.run(exe, {"OPENSSL_ia32cap": mask} if mask else {}, lib)
                report.stats += t.stats({2: f"OpenSSL {path}"}, cycles_per_tick=clock.median)
                report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}")
            if paths:
                report.notes.append("core c/B of the OpenSSL peers (own processes): their ticks/byte x the median "
                                    "clock of the first process")
            order = {name: k for k, name in enumerate(["gcc -O2 C"] + [f"OpenSSL {p}" for p in paths])}
            report.stats.sort(key=lambda st: (sizes.index(st.size), order[st.peer]))
        else:
            t, samples = clock_around(work_dir, lambda: plan.run(exe))
            clock = core_clock(samples, "dependent-add chain in a separate x86-64 "
                                        "process, just before and just after the timed run")
            report = BenchReport(arch, tsc_hz(work_dir), pairs, t.stats({1: "gcc -O2 C"}, cycles_per_tick=clock.median),
                                 clock=clock)
            report.notes.append("i386: gcc -m32 -O2 freestanding C peer in the same process; "
                                "no 32-bit OpenSSL peer (the i386 timing program is freestanding, linked with no libcrypto)")
        shared = [st for st in report.stats if st.left_out]
        if shared:
            report.notes.append("pairs left out: another hardware thread shared the core during them (the core-share "
                                "probes): " + ", ".join(f"{st.left_out} of {st.left_out + st.pairs} vs {st.peer} at "
                                                        f"{st.size} B" for st in shared))
        report.validated = tuple(c.name for c in v.checks)
    return report
