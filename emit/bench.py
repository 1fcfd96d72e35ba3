"""Benchmark an emitted transform against real peers, interleaved in one process.

The machine is noisy (throughput swings 30-50 % within seconds), so only
*paired ratios* are reported: in every pair the peers run back to back (the
order rotates from pair to pair) on the same data, and the statistic is the
distribution of per-pair ratios ``ours / peer`` of ticks per byte -- median,
p10, p90 -- plus the ratio of the two minima. Absolute ticks/byte are given
for context only.

Peers (``csrc/bench.c``):

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

import ctypes.util
import os
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.harness import csrc
from sha1opt.emit.toolchain import ToolchainError, run, which

SIZES = (64, 1024, 16384, 1 << 20)
# OPENSSL_ia32cap masks (OpenSSL 3.0 on this AMD host): which path each forces.
OPENSSL_PATHS: dict[str, str | None] = {
    "integer": "~0x20000000000",                       # no SSSE3/AVX/SHA: the integer code
    "ssse3": "~0x1000000000000000:~0x20000120",        # SSSE3, no AVX, no SHA extensions
    "avx2": ":~0x20000000",                            # everything but SHA extensions
    "default": None,                                   # SHA-NI on this machine
}
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


def guess_arch(text: str) -> Arch:
    """x86_64 when the code names any 64-bit register, else i386."""
    import re

    return "x86_64" if re.search(r"%r(?:[abcd]x|[sd]i|[sb]p|\d+)\b", text) else "i386"


def libcrypto() -> str | None:
    return ctypes.util.find_library("crypto")


def _build_x86_64(source: Path, work: Path) -> Path:
    exe = work / "bench64"
    gcc = which("gcc")
    run([gcc, "-O2", "-c", "-o", str(work / "ref64.o"), str(csrc("sha1_ref.c"))], "compiling the C peer")
    run([gcc, "-c", "-o", str(work / "cand64.o"), str(source)], "assembling the candidate")
    run([gcc, "-O2", "-o", str(exe), str(csrc("bench.c")), str(work / "ref64.o"), str(work / "cand64.o"), "-ldl"],
        "building the benchmark")
    return exe


def _build_i386(source: Path, work: Path) -> Path:
    gcc = which("gcc")
    flags = ["-m32", "-O2", "-ffreestanding", "-nostdlib", "-fno-pie", "-fno-stack-protector", "-fno-builtin",
             "-fcf-protection=none", "-fno-asynchronous-unwind-tables"]
    objs = []
    for name, src, extra in (("bench32.o", csrc("bench.c"), ["-DSHA1OPT_FREESTANDING"]),
                             ("ref32.o", csrc("sha1_ref.c"), [])):
        run([gcc, *flags, *extra, "-c", "-o", str(work / name), str(src)], f"compiling {src.name} -m32")
        objs.append(str(work / name))
    run([gcc, "-m32", "-c", "-o", str(work / "start32.o"), str(csrc("start_i386.S"))], "assembling _start")
    run([gcc, "-m32", "-c", "-o", str(work / "cand32.o"), str(source)], "assembling the candidate")
    exe = work / "bench32"
    run([which("ld"), "-m", "elf_i386", "-static", "-e", "_start", "-o", str(exe), *objs,
         str(work / "start32.o"), str(work / "cand32.o")], "linking the i386 benchmark")
    return exe


def _run(exe: Path, sizes, pairs: int, min_bytes: int, env: dict[str, str] | None, lib: str | None):
    payload = struct.pack(f"<3I{len(sizes)}I", pairs, min_bytes, len(sizes), *sizes)
    args = [str(exe)] + ([lib] if lib else [])
    proc = subprocess.run(args, input=payload, capture_output=True, timeout=1800,
                          env={**os.environ, **(env or {})}, check=False)
    if proc.returncode != 0:
        raise ToolchainError(f"benchmark exited with status {proc.returncode}")
    tsc, npeers = struct.unpack_from("<2Q", proc.stdout)
    recs = np.frombuffer(proc.stdout[16:], dtype="<u8").reshape(-1, 3)
    return float(tsc), int(npeers), recs


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
    with tempfile.TemporaryDirectory(prefix="sha1opt-bench-") as work:
        work_dir = Path(work)
        if arch == "x86_64":
            exe = _build_x86_64(source, work_dir)
            lib = libcrypto()
            report = None
            paths = list(openssl_paths) if lib else []
            if not paths:
                tsc, npeers, recs = _run(exe, sizes, pairs, min_bytes, None, None)
                report = BenchReport(arch, tsc, pairs, _stats(recs, npeers, sizes, pairs, PEER_NAMES))
                report.notes.append("libcrypto not found: OpenSSL peers skipped" if not lib else "no OpenSSL path asked")
            for k, path in enumerate(paths):
                mask = OPENSSL_PATHS[path]
                env = {"OPENSSL_ia32cap": mask} if mask else {}
                tsc, npeers, recs = _run(exe, sizes, pairs, min_bytes, env, lib)
                names = {1: "gcc -O2 C", 2: f"OpenSSL {path}"}
                st = _stats(recs, npeers, sizes, pairs, names)
                if report is None:
                    report = BenchReport(arch, tsc, pairs, st)
                else:   # the C peer was measured already in the first process
                    report.stats += [s for s in st if s.peer.startswith("OpenSSL")]
                report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap={mask or '(unset)'}, {lib}")
        elif arch == "i386":
            exe = _build_i386(source, work_dir)
            _, npeers, recs = _run(exe, sizes, pairs, min_bytes, None, None)
            report = BenchReport(arch, _tsc_hz(work_dir), pairs, _stats(recs, npeers, sizes, pairs, PEER_NAMES))
            report.notes.append("i386: gcc -m32 -O2 freestanding C peer in the same process; "
                                "no 32-bit OpenSSL on this host")
        else:
            raise Sha1optError(f"unknown arch {arch!r}")
    return report


def _tsc_hz(work: Path) -> float:
    """TSC rate from a hosted x86-64 helper (the i386 program has no clock)."""
    exe = _build_x86_64(csrc("calibrate.S"), work)
    tsc, _, _ = _run(exe, [], 2, 64, None, None)
    return tsc
