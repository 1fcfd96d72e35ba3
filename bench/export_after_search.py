"""How long ``export --uarch U --isa L`` takes after ``search --uarch U --isa L`` stored its result.

The search stores its proved hybrid block (and, at ``--isa shani`` on a model with SHA-NI, its SHA-NI
point) in the results store; the export reads the row and searches nothing, so it should take no more
than the proof and validation of the file (the target: at most 15 s). This script runs both commands
as a user would (the console script, a fresh temporary database), times the export only, and prints
the host CPU beside the figure. Run it alone on an idle machine:

    .venv/bin/python bench/export_after_search.py --uarch zen1 --isa avx
    .venv/bin/python bench/export_after_search.py --uarch zen3 --isa shani --evaluations 300

``--evaluations`` / ``--time-limit`` are the search's budget (small budgets check that it works).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sha1opt.emit.host_cpu import host

SHA1OPT = Path(sys.executable).with_name("sha1opt")
TIME_LIMIT = 1800.0          # seconds per command (a search and an export each take minutes at most)


def run(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run([str(SHA1OPT), *args], capture_output=True, text=True, timeout=TIME_LIMIT)
    return time.perf_counter() - t0, done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uarch", default="zen1")
    ap.add_argument("--isa", default="avx")
    ap.add_argument("--evaluations", type=int, default=300)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    cpu = host()
    print(f"# host: {cpu.id if cpu else 'unknown CPU'} ({cpu.brand if cpu else ''})")
    with tempfile.TemporaryDirectory(prefix="sha1opt-export-after-search-") as work:
        db, out = Path(work) / "results.sqlite", Path(work) / "f.S"
        searched, s = run(["search", "--uarch", args.uarch, "--isa", args.isa, "--rounds", "0-79", "--workers", "1",
                           "--evaluations", str(args.evaluations), "--time-limit", str(args.time_limit),
                           "--db", str(db)])
        if s.returncode != 0:
            print(f"search failed (exit {s.returncode}):\n{s.stdout}{s.stderr}")
            return 1
        exported, e = run(["export", "--uarch", args.uarch, "--isa", args.isa, "--db", str(db), "-o", str(out)])
        if e.returncode != 0:
            print(f"export failed (exit {e.returncode}):\n{e.stdout}{e.stderr}")
            return 1
        stored = [line for line in e.stdout.splitlines() if "stored result" in line]
        print(f"# search --uarch {args.uarch} --isa {args.isa}: {searched:.1f} s")
        print(f"export --uarch {args.uarch} --isa {args.isa} after search: {exported:.1f} s "
              f"(target <= 15 s) on {cpu.id if cpu else 'unknown CPU'}"
              f"; {'read the stored row' if stored else 'NO stored row read: searched again'}")
    return 0 if stored else 1


if __name__ == "__main__":
    sys.exit(main())
