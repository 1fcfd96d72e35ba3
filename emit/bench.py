"""Benchmark an emitted transform against real peers, interleaved in one process.

The machine is noisy (throughput swings 30-50 % within seconds), so only
*paired ratios* are reported: in every pair the peers run back to back (the
order rotates from pair to pair) on the same data, and the statistic is the
distribution of per-pair ratios ``ours / peer`` of ticks per byte -- median,
p10, p90 -- plus the ratio of the two minima. Absolute ticks/byte are given
for context only.

Peers (``csrc/bench.c``, built and run by ``timing.py``; OpenSSL found by ``peers.py``):

* OpenSSL's libcrypto ``SHA1_Update``, forced onto one code path by setting
  ``OPENSSL_ia32cap`` before the library loads (one process per path, each
  also running ours, so each ratio is still paired). On this machine (AMD,
  OpenSSL 3.0): ``integer`` (the primary peer), ``ssse3``, ``avx2`` and the
  ``default`` (SHA-NI) path as context. x86-64 only.
* ``gcc -O2`` of our plain C SHA-1 (``csrc/sha1_ref.c``), ``-m32``
  freestanding for i386 candidates.

Ticks are TSC ticks, not core cycles: the TSC runs at a fixed rate whatever
the core clock does; ``tsc_hz`` is measured against CLOCK_MONOTONIC_RAW.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto
from sha1opt.emit.timing import freestanding_i386, hosted_program, run_program, tsc_hz
from sha1opt.emit.toolchain import FREESTANDING_FLAGS, compile_source, csrc, link_static

__all__ = ["SIZES", "PEER_NAMES", "PeerStats", "BenchReport", "bench"]

SIZES = (64, 1024, 16384, 1 << 20)
PEER_NAMES = {0: "ours", 1: "gcc -O2 C"}


@dataclass(frozen=True)
class PeerStats:
    peer: str
    size: int
    ours_ticks_per_byte: float       # median over pairs
    peer_ticks_per_byte: float       # median over pairs
    ratio_median: float              # median over pairs of ours/peer
    ratio_p10: float
    ratio_p90: float
    ratio_of_minima: float           # min(ours) / min(peer)
    pairs: int


@dataclass
class BenchReport:
    arch: Arch
    tsc_hz: float
    pairs: int
    stats: list[PeerStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def ns_per_byte(self, ticks_per_byte: float) -> float:
        return ticks_per_byte / self.tsc_hz * 1e9 if self.tsc_hz else float("nan")

    def to_json(self) -> dict:
        return {
            "arch": self.arch,
            "tsc_hz": round(self.tsc_hz),
            "tsc_note": "TSC ticks at a constant rate, not core cycles",
            "pairs": self.pairs,
            "notes": self.notes,
            "results": [
                {
                    "peer": s.peer, "bytes_per_call": s.size,
                    "ours_ticks_per_byte": round(s.ours_ticks_per_byte, 4),
                    "peer_ticks_per_byte": round(s.peer_ticks_per_byte, 4),
                    "ours_ns_per_byte": round(self.ns_per_byte(s.ours_ticks_per_byte), 4),
                    "peer_ns_per_byte": round(self.ns_per_byte(s.peer_ticks_per_byte), 4),
                    "ratio_median": round(s.ratio_median, 4), "ratio_p10": round(s.ratio_p10, 4),
                    "ratio_p90": round(s.ratio_p90, 4), "ratio_of_minima": round(s.ratio_of_minima, 4),
                    "pairs": s.pairs,
                }
                for s in self.stats
            ],
        }


def _build_x86_64(source: Path, work: Path) -> Path:
    ref = compile_source(csrc("sha1_ref.c"), "x86_64", work / "ref64.o", "compiling the C peer", ("-O2",))
    cand = compile_source(source, "x86_64", work / "cand64.o", "assembling the candidate")
    return hosted_program([ref, cand], work, "bench64")


def _build_i386(source: Path, work: Path) -> Path:
    main, start = freestanding_i386(work)
    ref = compile_source(csrc("sha1_ref.c"), "i386", work / "ref32.o", "compiling sha1_ref.c -m32", FREESTANDING_FLAGS)
    cand = compile_source(source, "i386", work / "cand32.o", "assembling the candidate")
    return link_static([main, ref, start, cand], "i386", work / "bench32", "linking the i386 benchmark")


def _stats(recs: np.ndarray, npeers: int, sizes, pairs: int, peer_names: dict[int, str]) -> list[PeerStats]:
    out = []
    per_size = npeers * pairs
    for s_idx, size in enumerate(sizes):
        block = recs[s_idx * per_size:(s_idx + 1) * per_size]
        tpb = {p: [] for p in range(npeers)}
        for pair in range(pairs):
            rows = block[pair * npeers:(pair + 1) * npeers]
            for peer, t, nbytes in rows:
                tpb[int(peer)].append(t / nbytes)
        ours = np.array(tpb[0])
        for p in range(1, npeers):
            other = np.array(tpb[p])
            r = ours / other
            out.append(PeerStats(peer_names[p], size, float(np.median(ours)), float(np.median(other)),
                                 float(np.median(r)), float(np.percentile(r, 10)), float(np.percentile(r, 90)),
                                 float(ours.min() / other.min()), pairs))
    return out


def bench(source: str | Path, arch: Arch, *, sizes=SIZES, pairs: int = 30, min_bytes: int = 1 << 20,
          openssl_paths=("integer", "ssse3", "avx2", "default")) -> BenchReport:
    """Measure ``source`` (a .S defining sha1_block_data_order) against the peers."""
    source = Path(source)
    if not source.is_file():
        raise Sha1optError(f"{source}: no such file")
    if pairs < 2:
        raise Sha1optError("pairs must be at least 2")
    unknown = [p for p in openssl_paths if p not in OPENSSL_PATHS]
    if unknown:
        raise Sha1optError(f"unknown OpenSSL path {unknown[0]!r} (known: {', '.join(OPENSSL_PATHS)})")
    with tempfile.TemporaryDirectory(prefix="sha1opt-bench-") as work:
        work_dir = Path(work)
        if arch == "x86_64":
            exe = _build_x86_64(source, work_dir)
            lib = libcrypto()
            report = None
            paths = list(openssl_paths) if lib else []
            if not paths:
                t = run_program(exe, sizes, pairs, min_bytes)
                report = BenchReport(arch, t.tsc_hz, pairs, _stats(t.records, t.peers, sizes, pairs, PEER_NAMES))
                report.notes.append("libcrypto not found: OpenSSL peers skipped" if not lib else "no OpenSSL path asked")
            for k, path in enumerate(paths):
                mask = OPENSSL_PATHS[path]
                env = {"OPENSSL_ia32cap": mask} if mask else {}
                t = run_program(exe, sizes, pairs, min_bytes, env, lib)
                names = {1: "gcc -O2 C", 2: f"OpenSSL {path}"}
                st = _stats(t.records, t.peers, sizes, pairs, names)
                if report is None:
                    report = BenchReport(arch, t.tsc_hz, pairs, st)
                else:   # the C peer was measured already in the first process
                    report.stats += [s for s in st if s.peer.startswith("OpenSSL")]
                report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}")
        elif arch == "i386":
            exe = _build_i386(source, work_dir)
            t = run_program(exe, sizes, pairs, min_bytes)
            report = BenchReport(arch, tsc_hz(work_dir), pairs, _stats(t.records, t.peers, sizes, pairs, PEER_NAMES))
            report.notes.append("i386: gcc -m32 -O2 freestanding C peer in the same process; "
                                "no 32-bit OpenSSL on this host")
        else:
            raise Sha1optError(f"unknown arch {arch!r}")
    return report

