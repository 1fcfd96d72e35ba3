"""The out-of-order engine against an earlier version of itself, in one process, interleaved.

Loads ``search/cost/ooo.py``, ``allocation.py`` and ``execute.py`` (where it exists) as they were at a commit
(``git show``; default 27949d2, before the speed work of issue 27) beside the current ones, and times both on
the same decoded sequences, alternating old and new run by run, so a shared, loaded machine slows both alike.
Per model and workload it prints the median CPU seconds (``time.process_time``) of each and their ratio (old /
new), after checking both give the same trace.

Workloads (the searches' own, ``tests/support/engine_digest.py``'s sequences):
  loop    a seeded walk of the scalar search's moves over the whole block, each candidate's block
          loop (``loop_window``'s 9 iterations), one after the other with a resume memo (a search);
  range   the same walk over rounds 20-39 between their context rounds, straight-line, with a memo;
  small   the same over rounds 40-44 (the tests' ranges);
  hybrid  the default hybrid block loop of each vector dialect the model runs;
  record  two of the loops with ``record=True`` (the attribution nodes: a report's details).

Usage: python bench/engine_ab.py [--commit 27949d2] [--models zen3,core2,skylake] [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sha1opt.search.cost import Simulator, load_model  # noqa: E402
from sha1opt.search.cost import ooo as new_ooo  # noqa: E402
from sha1opt.search.cost.simulator import loop_window  # noqa: E402
from sha1opt.search.measure import block_loop_items  # noqa: E402
from sha1opt.search.objective import range_context  # noqa: E402
from sha1opt.search.space.candidate import block_schedule  # noqa: E402
from tests.support.engine_digest import hybrid_items, walk  # noqa: E402


def old_engine(commit: str) -> types.ModuleType:
    """``ooo.py`` (with its ``allocation.py``, and its ``execute.py`` where the commit has one) at ``commit``, as
    modules of their own (``old_ooo``, ``old_allocation``, ``old_execute``), written to a temporary folder and
    imported from there."""
    def source(name: str) -> str | None:
        got = subprocess.run(["git", "show", f"{commit}:search/cost/{name}.py"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
        return got.stdout if got.returncode == 0 else None

    def local(text: str) -> str:
        for name in ("allocation", "execute"):
            text = text.replace(f"from sha1opt.search.cost.{name} import", f"from old_{name} import")
        return text
    folder = Path(tempfile.mkdtemp(prefix="sha1opt-old-engine-"))
    for name in ("allocation", "execute", "ooo"):
        text = source(name)
        if text is None and name != "execute":
            raise SystemExit(f"search/cost/{name}.py is not in commit {commit}")
        if text is not None:
            (folder / f"old_{name}.py").write_text(local(text))
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("old_ooo")
    finally:
        sys.path.remove(str(folder))


def distinct(codes: list[list]) -> list[list]:
    out: list[list] = []
    for c in codes:
        if all(c != x for x in out):
            out.append(c)
    return out


def workloads(model) -> dict[str, list[tuple[list[tuple], int | None]]]:
    """name -> the decoded sequences the engine runs for it, in order, each with the resume horizon
    ``Simulator.simulate`` gives it (a loop's body length + 1; None: straight-line)."""
    sim = Simulator(model)
    arch = "x86_64"

    def loop_seq(items: list) -> tuple[list[tuple], int]:
        dec = sim.decode(items)
        warm, span = loop_window(len(dec))
        return dec * (warm + span), len(dec) + 1

    loops = [loop_seq(block_loop_items(block_schedule([c], arch, "ab")))
             for c in distinct(walk(0, 79, arch, model.isa, 1, 10))[:6]]
    before, after = range_context(20, 39, arch)
    ranges = [(sim.decode(before + c + after), None) for c in distinct(walk(20, 39, arch, model.isa, 2, 30))[:20]]
    before, after = range_context(40, 44, arch)
    small = [(sim.decode(before + c + after), None) for c in distinct(walk(40, 44, arch, model.isa, 3, 40))[:20]]
    hybrids = []
    for items in hybrid_items(arch):
        try:
            hybrids.append(loop_seq(items))
        except Exception:                   # a dialect the model has no rows for
            continue
    return {"loop": loops, "range": ranges, "small": small, "hybrid": hybrids, "record": loops[:2]}


def timed(engine: types.ModuleType, model, seqs: list, record: bool) -> tuple[float, list]:
    """Run ``seqs`` in order (with one resume memo unless ``record``): CPU seconds and the outputs."""
    memo = None if record else engine.Resume()
    run = engine.run_out_of_order
    horizons = "horizon" in run.__code__.co_varnames       # the old engine has none
    t0 = time.process_time()
    out = [run(s, model, record, memo, horizon=h) if horizons else run(s, model, record, memo) for s, h in seqs]
    return time.process_time() - t0, [(t.complete, t.nodes) for t in out]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default="27949d2")
    ap.add_argument("--models", default="zen3,core2,skylake,nehalem,p4")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    old = old_engine(args.commit)
    print(f"# ooo engine at {args.commit} (old) against the working tree (new); CPU seconds, median of "
          f"{args.rounds} interleaved rounds")
    ratios = []
    for name in args.models.split(","):
        model = load_model(name)
        for wname, seqs in workloads(model).items():
            if not seqs:
                continue
            times: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(args.rounds):
                order = (("old", old), ("new", new_ooo)) if r % 2 == 0 else (("new", new_ooo), ("old", old))
                results = {}
                for label, eng in order:
                    dt, results[label] = timed(eng, model, seqs, wname == "record")
                    times[label].append(dt)
                assert results["old"] == results["new"], (name, wname)
            o, n = statistics.median(times["old"]), statistics.median(times["new"])
            ratios.append(o / n)
            print(f"  {name:10s} {wname:6s} {len(seqs):3d} seqs  old {o:7.3f}  new {n:7.3f}  x{o / n:.2f}", flush=True)
    print(f"# median ratio {statistics.median(ratios):.2f} (geometric mean "
          f"{statistics.geometric_mean(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
