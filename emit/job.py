"""The main job (``sha1opt demo``, the README's first command) as a list of steps.

Each step does real work and returns a ``Step`` value; the CLI formats them.
Today: prove the rewrite corpus, one worked f3 rewrite, and the textbook
80-round block for both architectures compositionally. Later issues append
search, export and bench steps here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
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


def steps() -> Iterator[Step]:
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
