"""Whole-function proofs from machine code: OpenSSL's paths, the project's exports, the C matrix.

Usage: .venv/bin/python bench/lift.py  (writes bench/results/lift.txt)

For each object: every path (name, condition, outcome, instructions,
seconds, each path timed on its own), how many proved and the slowest, and
the total wall time of ``prove_object`` (which proves OpenSSL's objects
twice: under nblocks >= 0, then, after the finding, under nblocks >= 1). The C matrix is gcc
and clang x sha1_ref.c / sha1_rolled.c x -O2/-O3 x -m32/-m64 x
PIE/-fPIC/-fno-pie (24 builds).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.emit.toolchain import csrc
from sha1opt.search.space.candidate import textbook

OUT = Path(__file__).resolve().parent / "results" / "lift.txt"
FLAGS = (["-O2", "-m64"], ["-O3", "-m64", "-fPIC"], ["-O2", "-m64", "-fno-pie"],
         ["-O2", "-m32"], ["-O3", "-m32", "-fPIC"], ["-O2", "-m32", "-fno-pie"])


def run(path, lines: list[str], label: str, **kw) -> None:
    t0 = time.perf_counter()
    try:
        res = prove_object(path, **kw)
    except LiftRefusal as e:
        lines.append(f"{label}: refused ({time.perf_counter() - t0:.2f} s): {e}")
        return
    lines.append(f"{label}: {res.outcome} ({time.perf_counter() - t0:.2f} s); contract nblocks >= "
                 f"{res.contract.min_blocks}")
    for p in res.proof.paths:
        lines.append(f"    {p.name} [{p.condition}]: {p.outcome}, {p.instructions} instructions, {p.seconds:.2f} s"
                     + ("" if p.outcome == "proved" else f" -- {p.detail}"))
    paths = res.proof.paths
    if paths:
        slow = max(paths, key=lambda p: p.seconds)
        lines.append(f"    paths: {sum(p.outcome == 'proved' for p in paths)} of {len(paths)} proved; slowest "
                     f"{slow.seconds:.2f} s ({slow.name}; goal <= 10 s per path)")
    for f in res.findings:
        lines.append(f"    finding: {f}")


def main() -> None:
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    lines: list[str] = [f"# host load average {' '.join(load)} (2 cores shared: times are noisy); "
                        "per path: outcome, instructions, seconds"]
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        for arch in ("x86_64", "i386"):
            p = work / f"export_{arch}.S"
            p.write_text(function_text(textbook(arch)))
            run(p, lines, f"sha1opt export (textbook, {arch})")
        for lib, member in ((Path("/usr/lib/x86_64-linux-gnu/libcrypto.a"), "libcrypto-lib-sha1-x86_64.o"),
                            (Path("/usr/lib/i386-linux-gnu/libcrypto.a"), "libcrypto-lib-sha1-586.o")):
            if lib.exists():
                run(lib, lines, f"OpenSSL {lib}({member})", member=member)
            else:
                lines.append(f"OpenSSL {lib}: missing (libssl-dev)")
        for cc in ("gcc", "clang"):
            if shutil.which(cc) is None:
                lines.append(f"{cc}: not installed")
                continue
            for src in ("sha1_ref", "sha1_rolled"):
                for flags in FLAGS:
                    obj = work / f"{cc}_{src}.o"
                    subprocess.run([cc, *flags, "-c", "-o", str(obj), str(csrc(f"{src}.c"))], check=True)
                    run(obj, lines, f"{cc} {' '.join(flags)} {src}.c", function=f"{src}_block_data_order")
    text = "\n".join(lines) + "\n"
    OUT.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
