"""The main job (``sha1opt demo``, the README's first command) as a list of steps.

Each step does real work and returns a ``Step`` value; the CLI formats them:
prove the rewrite corpus and a worked f3 rewrite, prove the textbook
80-round block for both architectures, export both (assembled, lifted from
machine code, proved, run against the vectors) into ``outdir``, and bench
the x86-64 file against OpenSSL's integer path and gcc -O2 C.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..search.schedule import textbook
from ..semantics import identities
from ..semantics.composition import check_program
from ..semantics.ir import Builder
from ..semantics.prove import Proved, Prover, prove_exprs
from ..semantics.sha1 import range_spec


@dataclass(frozen=True)
class Step:
    title: str
    ok: bool
    detail: str
    seconds: float


def steps(outdir: Path = Path("out"), bench_pairs: int = 15) -> Iterator[Step]:
    t = time.perf_counter()
    results = identities.check(identities.load())
    good = sum(r.ok for r in results)
    yield Step("prove the rewrite corpus", good == len(results),
               f"{good}/{len(results)} identities as expected", time.perf_counter() - t)

    t = time.perf_counter()
    lhs, rhs = "(b&c)|(d&(b|c))", "(b&c)+(d&(b^c))"
    out = prove_exprs(lhs, rhs)
    yield Step(f"prove {lhs} == {rhs}", isinstance(out, Proved), type(out).__name__.lower(),
               time.perf_counter() - t)

    for arch in ("x86_64", "i386"):
        t = time.perf_counter()
        sched = textbook(arch)
        res = check_program(sched.body, range_spec(Builder()), sched.inputs, sched.outputs,
                            Prover(), pointers=sched.pointers)
        detail = (f"{len(sched.body)} instructions, {res.cuts} cuts, {res.solver_calls} solver calls: "
                  f"{type(res.outcome).__name__.lower()}")
        if res.failure:
            detail += f" at {res.failure.describe()}"
        yield Step(f"prove the textbook {arch} block = SHA-1 compression", res.ok, detail,
                   time.perf_counter() - t)

    outdir.mkdir(parents=True, exist_ok=True)
    files = {}
    for arch in ("x86_64", "i386"):
        t = time.perf_counter()
        from .export import export

        path = outdir / f"sha1-textbook-{arch}.S"
        res = export(textbook(arch), path, command=f"sha1opt export --arch {arch} -o {path}")
        fail = res.validation.failure
        detail = (f"wrote {path}: " + "; ".join(f"{c.name} ok" for c in res.validation.checks)
                  if res.ok else f"refused at {fail.name}: {fail.detail}")
        files[arch] = path if res.ok else None
        yield Step(f"export the textbook {arch} transform", res.ok, detail, time.perf_counter() - t)

    if files.get("x86_64"):
        from .bench import bench

        t = time.perf_counter()
        rep = bench(files["x86_64"], "x86_64", sizes=(16384,), pairs=bench_pairs, openssl_paths=("integer",))
        parts = [f"{s.peer}: median ratio {s.ratio_median:.3f} [p10 {s.ratio_p10:.3f}, p90 {s.ratio_p90:.3f}]"
                 for s in rep.stats]
        yield Step(f"bench {files['x86_64'].name} at 16 KiB/call, {bench_pairs} pairs (ours/peer, < 1 is faster)",
                   True, "; ".join(parts), time.perf_counter() - t)
