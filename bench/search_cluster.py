"""Figures for the Dask search and its Ctrl-C handling (issues 11 "Beyond one machine" and 13 item 1).

  sigint    SIGINT to `sha1opt search --uarch p4 --rounds 40-59 --time-limit 30` (its own process
            group, Ctrl-C to the whole group) at 1 s, 5 s and 15 s: time from SIGINT to exit, exit
            code, the stored cycles, and whether any process of the group was left
  p4        `sha1opt search --uarch p4 --rounds 40-59 --workers 2 --time-limit 60`: wall time,
            cycles, evaluations (``--baseline EXE`` runs the same command with another sha1opt,
            e.g. today's main, for the Dask overhead)
  resume    a search on a `dask scheduler` + two `dask worker` processes interrupted at 12 s,
            then `--resume` on the same cluster: the second run starts from the stored result
  tests     the slow checks: pytest -m slow tests/cli/test_interrupt.py tests/search/test_portfolio.py

Usage: python bench/search_cluster.py [sigint] [p4] [resume] [tests] [--baseline EXE]
Output goes to stdout; bench/results/search_cluster.txt holds a run's output.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SHA1OPT = str(BIN / "sha1opt")


def group_members(pgid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(st[2]) == pgid and st[0] != "Z":
                out.append(int(d))
    return out


def interrupted_run(args: list[str], at: float) -> tuple[int, float, str, list[int]]:
    """Run sha1opt ARGS in its own group, SIGINT the group at ``at`` s; (exit, s to exit, stdout, left)."""
    p = subprocess.Popen([SHA1OPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        time.sleep(at)
        t0 = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        took = time.monotonic() - t0
        end = time.monotonic() + 5
        while group_members(p.pid) and time.monotonic() < end:
            time.sleep(0.05)
        return p.returncode, took, out, group_members(p.pid)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def stored_cycles(db: Path, first: int, last: int) -> float | None:
    rows = sqlite3.connect(db).execute("SELECT cycles FROM results WHERE uarch='p4' AND first=? AND last=?",
                                       (first, last)).fetchall()
    return rows[0][0] if rows else None


def run_sigint() -> None:
    print("## sigint: SIGINT to the group of `sha1opt search --uarch p4 --rounds 40-59 --time-limit 30`")
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    for at in (1.0, 5.0, 15.0):
        with tempfile.TemporaryDirectory() as d:
            db = Path(d) / "r.sqlite"
            rc, took, out, left = interrupted_run(["search", "--uarch", "p4", "--rounds", "40-59", "--time-limit",
                                                   "30", "--db", str(db)], at)
            line = next((x for x in out.splitlines() if x.strip().startswith("search ")), "(no report)")
            print(f"SIGINT at {at:4.1f} s: exit {rc} after {took:.2f} s; stored {stored_cycles(db, 40, 59)} cycles;"
                  f" processes left: {len(left)};{line.strip()[6:]}")


def run_p4(baseline: str | None) -> None:
    cmd = ["search", "--uarch", "p4", "--rounds", "40-59", "--workers", "2", "--time-limit", "60", "--json"]
    for name, exe in [("this tree (Dask)", SHA1OPT)] + ([("baseline " + baseline, baseline)] if baseline else []):
        with tempfile.TemporaryDirectory() as d:
            print(f"\n## p4: {name}: sha1opt {' '.join(cmd[:-1])}")
            print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
            t0 = time.monotonic()
            proc = subprocess.run([exe, *cmd, "--db", str(Path(d) / "r.sqlite")], capture_output=True, text=True)
            wall = time.monotonic() - t0
            try:
                r = json.loads(proc.stdout)
            except json.JSONDecodeError:
                print(proc.stdout, proc.stderr)
                continue
            print(f"wall {wall:.1f} s, exit {proc.returncode}: {r['cycles']:.1f} cycles (default "
                  f"{r['textbook_cycles']:.1f}), {r['evaluations']} evaluations, proved {r['proved']}, "
                  f"{r.get('cluster', 'in-process / multiprocessing')}, stopped: {r['stop_reason']}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_resume() -> None:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    print(f"\n## resume: interrupted on a Dask cluster ({address}, 2 workers), then --resume there")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    try:
        for i in range(2):
            procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--host",
                                           "127.0.0.1", "--no-dashboard"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        with tempfile.TemporaryDirectory() as d:
            db = Path(d) / "r.sqlite"
            args = ["search", "--uarch", "p4", "--rounds", "40-59", "--time-limit", "40", "--cluster", address,
                    "--db", str(db)]
            rc, took, out, left = interrupted_run(args, 12.0)
            print(f"interrupted at 12 s: exit {rc} after {took:.2f} s, stored {stored_cycles(db, 40, 59)} cycles, "
                  f"processes of the search left: {len(left)}")
            proc = subprocess.run([SHA1OPT, *args[:6], "10", *args[7:], "--resume"], capture_output=True, text=True)
            notes = [x.strip() for x in proc.stdout.splitlines() if "note" in x or x.strip().startswith("result")]
            print(f"--resume: exit {proc.returncode}; stored {stored_cycles(db, 40, 59)} cycles; " + "; ".join(notes))
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def run_tests() -> None:
    print("\n## tests: pytest -m slow tests/cli/test_interrupt.py tests/search/test_portfolio.py")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-m", "slow", "tests/cli/test_interrupt.py",
                           "tests/search/test_portfolio.py"], cwd=ROOT, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        line = line.lstrip(".FEs")
        if line.startswith(("SIGINT at", "cluster search")) or " passed" in line or " failed" in line:
            print(line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("parts", nargs="*", default=["sigint", "p4", "resume", "tests"])
    ap.add_argument("--baseline", help="another sha1opt executable to run the p4 command with")
    a = ap.parse_args()
    print(f"# bench/search_cluster.py -- {time.strftime('%Y-%m-%d')} on this host ({os.cpu_count()} cores)")
    for part in a.parts:
        {"sigint": run_sigint, "p4": lambda: run_p4(a.baseline), "resume": run_resume, "tests": run_tests}[part]()


if __name__ == "__main__":
    main()
