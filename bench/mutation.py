"""Mutation testing of the checkers with cosmic-ray: which broken checkers would the tests let through?

The checkers are the code that decides "proved" or "validated":
semantics/prove.py, semantics/composition.py, semantics/block.py,
emit/validate.py and emit/export.py. Each mutant (one operator, comparison,
boolean, constant or loop changed in one place) is run against the tests that
exercise that file; a mutant the tests still pass on ("survived") marks a place
where the checker could be wrong with the suite green.

Usage:
    .venv/bin/python bench/mutation.py [--budget 1500] [--per-file 40] [--seed 13]
                                       [--out bench/results/mutation.txt]

How it runs (nothing in the work tree is touched): the project is mirrored
into a temporary folder laid out as the installed package (``sha1opt/``,
``sha1opt/semantics/`` ...), tests run there with ``PYTHONPATH`` pointing at
it (ahead of the editable install) and ``PYTHONDONTWRITEBYTECODE=1`` (so a
restored file is never shadowed by a stale mutated .pyc). For each group of
files, ``cosmic-ray init`` lists every mutant; the operators kept are
``KEPT`` below (one meaningful replacement per operator, not all 11; a
``|`` inside a type annotation is left alone: that mutant is equivalent); a
seeded sample of ``--per-file`` mutants per file is run by ``cosmic-ray
exec`` (tests with ``-x``, so a killed mutant stops at its first failing
test), within ``--budget`` seconds overall, shared between the groups by
their number of files; whatever the budget leaves unrun is counted and
said. The kill rate counts timeouts and crashes as
killed (cosmic-ray's rule) and excludes mutants that were not run.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
COSMIC_RAY = str(Path(sys.executable).parent / "cosmic-ray")

# Which tests exercise which checker (run in this order; the fast, sharp ones first). Test files are
# named, not pathed: they are found anywhere under tests/ (flat, or mirroring the source tree).
GROUPS = {
    "semantics": {
        "files": ["sha1opt/semantics/prove.py", "sha1opt/semantics/composition.py", "sha1opt/semantics/block.py"],
        "tests": ["test_prove.py", "test_sha1.py", "test_corpus.py", "test_safety_nets.py"],
    },
    "emit": {
        "files": ["sha1opt/emit/validate.py", "sha1opt/emit/export.py"],
        "tests": ["test_safety_nets.py", "test_emit.py", "-k", "not bench"],
    },
}


def resolve_tests(work: Path, names: list[str]) -> list[str]:
    """``test_x.py`` -> its path under ``work/tests`` (pytest options pass through)."""
    out = []
    for n in names:
        if n.endswith(".py"):
            found = sorted((work / "tests").rglob(n))
            if not found:
                raise SystemExit(f"{n}: not found under tests/")
            out.append(str(found[0].relative_to(work)))
        else:
            out.append(n)
    return out

# One sensible replacement per operator: the mutants a real slip would make.
KEPT = re.compile("|".join([
    r"core/ReplaceComparisonOperator_(Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Lt_GtE|Gt_LtE"
    r"|Is_IsNot|IsNot_Is)$",
    r"core/ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Add|Div_Mul|FloorDiv_Mul|Mod_FloorDiv|BitAnd_BitOr"
    r"|BitOr_BitAnd|BitXor_BitOr|LShift_RShift|RShift_LShift)$",
    r"core/ReplaceUnaryOperator_(USub_UAdd|Invert_UAdd|Delete_Not)$",
    r"core/(AddNot|ReplaceAndWithOr|ReplaceOrWithAnd|ReplaceTrueWithFalse|ReplaceFalseWithTrue|NumberReplacer"
    r"|ZeroIterationForLoop|ReplaceBreakWithContinue|ReplaceContinueWithBreak|ExceptionReplacer)$",
]))

LAYOUT = {"sha1opt": "sha1opt", "semantics": "sha1opt/semantics", "search": "sha1opt/search",
          "emit": "sha1opt/emit", "corpus": "sha1opt/corpus"}


def annotation_lines(path: Path) -> set[int]:
    """Lines inside type annotations: ``int | None`` -> ``int & None`` there is an equivalent mutant
    (annotations are never evaluated under ``from __future__ import annotations``)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        notes = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            notes.append(node.returns)
        if isinstance(node, ast.arg) and node.annotation is not None:
            notes.append(node.annotation)
        if isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        for n in notes:
            lines.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
    return lines


def in_annotation(mutation, work: Path, cache: dict) -> bool:
    f = str(mutation.module_path)
    if f not in cache:
        cache[f] = annotation_lines(work / f)
    return mutation.operator_name.startswith("core/ReplaceBinaryOperator_BitOr") and mutation.start_pos[0] in cache[f]


def mirror(dest: Path) -> None:
    """Copy the project into ``dest`` as the installed package layout, plus tests/ and pyproject.toml."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for src, to in LAYOUT.items():
        shutil.copytree(ROOT / src, dest / to, ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(ROOT / "tests", dest / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def env_for(dest: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(dest), PYTHONDONTWRITEBYTECODE="1")
    return env


def test_command(tests: list[str]) -> list[str]:
    return [PY, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]


def write_config(path: Path, files: list[str], tests: list[str], timeout: float) -> None:
    cmd = " ".join(f"'{a}'" if " " in a else a for a in test_command(tests))
    mods = ", ".join(f'"{f}"' for f in files)
    path.write_text(f"""[cosmic-ray]
module-path = [{mods}]
timeout = {timeout}
excluded-modules = []
test-command = "{cmd}"

[cosmic-ray.distributor]
name = "local"
""")


def run_group(name: str, spec: dict, work: Path, per_file: int, seed: int, deadline: float, log) -> list:
    env = env_for(work)
    tests = resolve_tests(work, spec["tests"])
    t0 = time.monotonic()
    base = subprocess.run(test_command(tests), cwd=work, env=env, capture_output=True, text=True)
    base_s = time.monotonic() - t0
    if base.returncode != 0:
        raise SystemExit(f"{name}: the unmutated tests fail:\n{base.stdout[-3000:]}")
    cfg = work / f"{name}.toml"
    db = work / f"{name}.sqlite"
    write_config(cfg, spec["files"], tests, timeout=max(60.0, 6 * base_s))
    subprocess.run([COSMIC_RAY, "init", str(cfg), str(db)], cwd=work, env=env, check=True,
                   capture_output=True)
    rng = random.Random(seed)
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        items = sorted(wdb.work_items, key=lambda w: w.job_id)
        total = len(items)
        notes: dict = {}
        kept = [w for w in items if KEPT.match(w.mutations[0].operator_name)
                and not in_annotation(w.mutations[0], work, notes)]
        chosen = []
        for f in spec["files"]:
            mine = [w for w in kept if str(w.mutations[0].module_path) == f]
            mine.sort(key=lambda w: (w.mutations[0].start_pos, w.mutations[0].operator_name, w.mutations[0].occurrence))
            chosen += rng.sample(mine, min(per_file, len(mine)))
        ids = {w.job_id for w in chosen}
        skip = [w.job_id for w in items if w.job_id not in ids]
        wdb.set_multiple_results(skip, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output="not sampled"))
    log(f"{name}: {total} mutants from cosmic-ray, {len(kept)} with the kept operators outside annotations, "
        f"{len(chosen)} sampled; "
        f"unmutated tests {base_s:.1f} s")
    left = deadline - time.monotonic()
    if left > 0:
        proc = subprocess.Popen([COSMIC_RAY, "exec", str(cfg), str(db)], cwd=work, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    rows = []
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        done = {w.job_id: r for w, r in wdb.completed_work_items}
        for w in chosen:
            rows.append((w, done.get(w.job_id)))
    return rows


def describe(work_item, result, work: Path) -> str:
    m = work_item.mutations[0]
    line = m.start_pos[0]
    rel = str(m.module_path).removeprefix("sha1opt/")
    before = after = ""
    if result is not None and result.diff:
        minus = [ln[1:].strip() for ln in result.diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
        plus = [ln[1:].strip() for ln in result.diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
        before, after = " / ".join(minus), " / ".join(plus)
    op = m.operator_name.removeprefix("core/")
    return f"{rel}:{line}  {op}\n      - {before}\n      + {after}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=1500.0, help="seconds for all mutant runs")
    ap.add_argument("--per-file", type=int, default=40, help="mutants sampled per checker file")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "mutation.txt")
    args = ap.parse_args()
    t_start = time.monotonic()
    deadline = t_start + args.budget
    lines: list[str] = []

    def log(s: str) -> None:
        print(s, flush=True)
        lines.append(s)

    with tempfile.TemporaryDirectory(prefix="sha1opt-mutation-") as d:
        work = Path(d)
        mirror(work)
        all_rows = []
        for k, (name, spec) in enumerate(GROUPS.items()):
            # Each group gets its share of what is left (by file count), so every checker is sampled.
            left_files = sum(len(g["files"]) for g in list(GROUPS.values())[k:])
            share = (deadline - time.monotonic()) * len(spec["files"]) / left_files
            all_rows += run_group(name, spec, work, args.per_file, args.seed, time.monotonic() + share, log)
        ran = [(w, r) for w, r in all_rows if r is not None and r.worker_outcome != WorkerOutcome.SKIPPED]
        unrun = len(all_rows) - len(ran)
        survived = [(w, r) for w, r in ran if r.test_outcome == TestOutcome.SURVIVED]
        incompetent = [(w, r) for w, r in ran if r.test_outcome == TestOutcome.INCOMPETENT]
        judged = len(ran) - len(incompetent)
        killed = judged - len(survived)
        log("")
        log(f"per file (run / killed / survived):")
        for f in [f for g in GROUPS.values() for f in g["files"]]:
            mine = [(w, r) for w, r in ran if str(w.mutations[0].module_path) == f]
            s = sum(1 for _, r in mine if r.test_outcome == TestOutcome.SURVIVED)
            inc = sum(1 for _, r in mine if r.test_outcome == TestOutcome.INCOMPETENT)
            log(f"  {f.removeprefix('sha1opt/'):28s} {len(mine):4d} / {len(mine) - s - inc:4d} / {s:4d}")
        rate = f"{100.0 * killed / judged:.1f} %" if judged else "n/a"
        log(f"kill rate: {killed} of {judged} mutants killed = {rate} "
            f"({len(incompetent)} incompetent (test command did not start) not counted; {unrun} sampled but not run "
            f"within the {args.budget:.0f} s budget)")
        log(f"wall time: {time.monotonic() - t_start:.0f} s")
        log("")
        log(f"surviving mutants ({len(survived)}):")
        for w, r in sorted(survived, key=lambda x: (str(x[0].mutations[0].module_path), x[0].mutations[0].start_pos)):
            log("  " + describe(w, r, work))
    header = [
        "# bench/mutation.py: cosmic-ray over the checkers (semantics/prove.py, composition.py, block.py,",
        "# emit/validate.py, export.py); a seeded sample, not every mutant (see the counts below).",
        f"# command: .venv/bin/python bench/mutation.py --budget {args.budget:.0f} --per-file {args.per_file} "
        f"--seed {args.seed}",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
