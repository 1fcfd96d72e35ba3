"""The slow checks: every test marked ``@pytest.mark.slow``, which ``make test`` leaves out.

``make test`` runs ``pytest -m "not slow"`` so the suite stays well under 15 minutes on 2 shared cores;
the checks of more than ~20 s each (real Ctrl-C of a search, the Dask portfolio / resume runs, every
scalar-round form proved in the export family, ...) run here instead, as one pytest process:

    python -m pytest -q -m slow -p no:cacheprovider     (from the repository root, with a time limit)

It prints the command, the load, pytest's summary line (passed / failed / skipped / deselected counts),
the wall time and the slow tests collected (``-m slow --collect-only``) per file, then exits with
pytest's exit code (0: all slow checks passed). bench/results/slow_checks.txt holds a run's output.

Usage: python bench/slow_checks.py [--time-limit SECONDS] [--durations N]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "slow"]


def collected() -> collections.Counter:
    """Number of slow-marked tests per file (``pytest -m slow --collect-only -q``)."""
    proc = subprocess.run([*PYTEST, "-q", "--collect-only"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    return collections.Counter(line.split("::")[0] for line in proc.stdout.splitlines() if "::" in line)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds before the run is killed")
    ap.add_argument("--durations", type=int, default=15, help="slowest tests to list (pytest --durations)")
    a = ap.parse_args()
    print(f"# bench/slow_checks.py -- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
          f"on this host ({os.cpu_count()} cores)")
    per_file = collected()
    print(f"slow tests collected: {sum(per_file.values())}")
    for path, n in sorted(per_file.items()):
        print(f"  {n:4d}  {path}")
    cmd = [*PYTEST, "-q", f"--durations={a.durations}"]
    print(f"command: python {' '.join(cmd[1:])}  (time limit {a.time_limit:.0f} s)")
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=a.time_limit)
    except subprocess.TimeoutExpired:
        print(f"timed out after {a.time_limit:.0f} s")
        return 1
    wall = time.monotonic() - t0
    lines = proc.stdout.splitlines()
    start = next((i for i, ln in enumerate(lines) if "slowest" in ln), len(lines))
    for line in lines[start:]:
        if line.strip() and not line.startswith("=") and not re.search(r"\d+ (passed|failed)", line):
            print(line)
    summary = [ln for ln in lines if re.search(r"\d+ (passed|failed|errors?|skipped|deselected)", ln)]
    print(f"summary: {summary[-1].strip('= ') if summary else '(none)'}")
    if proc.returncode != 0:
        print("\n".join(lines[-60:]))
        print(proc.stderr[-2000:])
    print(f"wall {wall:.1f} s, exit {proc.returncode}; load average after: {os.getloadavg()[0]:.1f}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
