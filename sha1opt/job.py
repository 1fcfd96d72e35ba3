"""The main job (``sha1opt demo``, the README's first command) as a list of steps.

Each step does real work and returns a ``Step`` value; the CLI formats them:
identify this CPU (``emit.host_cpu``: cpuid, ``corpus/cpus.toml``) and take
its model, prove the rewrite corpus and a worked f3 rewrite, prove the
textbook 80-round block for both architectures, search that model for a few
seconds per standard round range (results kept in the results store every
command reads by default, ``search.store.default_path()``: ``$SHA1OPT_DB`` or
``~/.cache/sha1opt/results.sqlite``, resumed on the next run, so ``show`` and
``export`` see what the demo found), export its best x86-64 transform and the textbook
i386 one (assembled, lifted from machine code, proved, run against the
vectors) into ``outdir`` -- the x86-64 one only if this machine measures it
faster than the textbook schedule (``measured_best``), else the textbook --, and bench the x86-64 file against gcc -O2 C,
OpenSSL's integer path and OpenSSL's default path on this CPU (what
``SHA1_Update`` runs here: SHA-NI where the CPU has it). A CPU in no row of
``cpus.toml`` gets ``FALLBACK_MODEL``, and the first step says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from sha1opt.emit.bench import BenchRefusal, bench
from sha1opt.emit.export import export
from sha1opt.emit.family import Choice, cycles
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.tuning import Entry, tune_choices
from sha1opt.emit.host_cpu import host, identify
from sha1opt.emit.peers import gcc_reference, openssl_default
from sha1opt.search.cost import load_model
from sha1opt.search.blocks import STANDARD_RANGES, best_block
from sha1opt.search.driver import search_ranges
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.frame import Schedule
from sha1opt.search.store import default_path
from sha1opt.semantics import identities
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.block import prove_block
from sha1opt.semantics.prove import Proved, prove_exprs


@dataclass(frozen=True)
class Step:
    title: str
    ok: bool
    detail: str
    seconds: float


FALLBACK_MODEL = "skylake"     # for a CPU cpus.toml does not know: the most deployed x86-64 core (Skylake..Comet Lake)


def host_step() -> tuple[Step, str]:
    """The step naming this CPU and the model the demo searches for it."""
    t = time.perf_counter()
    cpu = host()
    row = identify(cpu.id) if cpu is not None else None
    if row is None:
        return Step("identify this CPU", True, f"{cpu or 'unreadable CPU'}: in no row of corpus/cpus.toml; "
                    f"using the {FALLBACK_MODEL} model", time.perf_counter() - t), FALLBACK_MODEL
    return Step("identify this CPU", True, f"{cpu}: {row.name}; model {row.model}, {row.how}",
                time.perf_counter() - t), row.model


def measured_best(uarch: str, searched: Schedule, pairs: int = 20, timer=None) -> tuple[Schedule, str]:
    """The schedule the demo exports, judged by this machine (``emit.tuning.tune_choices``: both validated,
    then timed in interleaved pairs against the textbook schedule): the searched block only when it
    measures ``MARGIN`` faster than the textbook, else the textbook -- a block the model likes but this CPU
    runs slower is not exported. With no searched improvement (the textbook itself), nothing is timed
    and the detail is empty; when this machine cannot time them, the searched block, said so."""
    model = load_model(uarch)
    base = textbook("x86_64")
    if searched.body == base.body:
        return searched, ""
    entries = [Entry(Choice(SCALAR, s, "x86_64"), s is base, cycles(Choice(SCALAR, s, "x86_64"), model) / 64)
               for s in (base, searched)]
    try:
        t = tune_choices(entries, pairs=pairs, rounds=2, timer=timer)
    except Sha1optError as e:
        return searched, f"not measured here ({e}): exporting the searched block as the model ranks it"
    m = t.measured[1]
    won = t.best.choice.code
    return won, (f"searched {entries[1].predicted:.2f} c/B predicted on {uarch} vs textbook "
                 f"{entries[0].predicted:.2f}; measured here: {m.median:.3f} [p10 {m.p10:.3f}, p90 {m.p90:.3f}] "
                 f"x the textbook ({m.pairs} pairs, noise {t.measured[0].p10:.3f}..{t.measured[0].p90:.3f}); "
                 f"exporting the {'searched block' if won is searched else 'textbook schedule'}")


def steps(outdir: Path = Path("out"), bench_pairs: int = 15, uarch: str | None = None,
          search_seconds: float = 8.0, db: str | Path | None = None) -> Iterator[Step]:
    """The demo's steps; ``uarch`` None: this CPU's model (``host_step``); ``db`` None: the default results
    store (``search.store.default_path``), the one ``search``, ``show`` and ``export`` use without ``--db``.
    ``outdir`` takes the exported files only."""
    if uarch is None:
        step, uarch = host_step()
        yield step
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
        res = prove_block(sched.body, sched.inputs, sched.outputs, sched.pointers)
        detail = (f"{len(sched.body)} instructions, {res.cuts} cuts, {res.solver_calls} solver calls: "
                  f"{type(res.outcome).__name__.lower()}")
        if res.failure:
            detail += f" at {res.failure.describe()}"
        yield Step(f"prove the textbook {arch} block = SHA-1 compression", res.ok, detail,
                   time.perf_counter() - t)

    outdir.mkdir(parents=True, exist_ok=True)
    db = Path(db) if db else default_path()
    arch = load_model(uarch).arch
    t = time.perf_counter()
    reports = search_ranges([(uarch, arch, first, last) for first, last in STANDARD_RANGES],
                            time_limit=search_seconds, workers=1, seed=0, db=db, resume=True,
                            reference=gcc_reference)
    each = (time.perf_counter() - t) / len(reports)      # one cluster for the four ranges
    for rep in reports:
        yield Step(f"search {uarch} rounds {rep.first}-{rep.last} ({search_seconds:.0f} s)", rep.proved,
                   f"{rep.cycles:.0f} cycles vs default {rep.textbook_cycles:.0f}"
                   + (f", gcc {rep.gcc_cycles:.0f}" if rep.gcc_cycles else "") + f"; {rep.proof.split(':')[0]}; "
                   f"{rep.stored}", each)

    t = time.perf_counter()
    best, detail = measured_best(uarch, best_block(uarch, "x86_64", db)[0])
    if detail:
        yield Step("measure the searched block against the textbook schedule on this CPU", True, detail,
                   time.perf_counter() - t)
    files = {}
    for arch, sched, label in (("x86_64", best, f"sha1-{uarch}-x86_64.S"),
                               ("i386", textbook("i386"), "sha1-textbook-i386.S")):
        t = time.perf_counter()
        path = outdir / label
        res = export(sched, path, uarch=uarch if arch == "x86_64" else None,
                     command=f"sha1opt export --arch {arch} -o {path}"
                     + (f" --uarch {uarch} --isa bmi2" + (" --tune 1" if detail else "") if arch == "x86_64" else ""))
        fail = res.validation.failure
        detail = (f"wrote {path}: " + "; ".join(f"{c.name} ok" for c in res.validation.checks)
                  if res.ok else f"refused at {fail.name}: {fail.detail}")
        files[arch] = path if res.ok else None
        yield Step(f"export {label}", res.ok, detail, time.perf_counter() - t)

    if files.get("x86_64"):
        t = time.perf_counter()
        rep = bench(files["x86_64"], "x86_64", sizes=(16384,), pairs=bench_pairs, openssl_paths=("integer", "default"))
        cpu = host()
        default = openssl_default(cpu.features, cpu.id.vendor) if cpu else "unknown"
        title = (f"bench {files['x86_64'].name} at 16 KiB/call on {cpu.id if cpu else 'this CPU'}, {bench_pairs} "
                 f"interleaved pairs (ours/peer, < 1 is faster; OpenSSL default = its {default} path here)")
        if isinstance(rep, BenchRefusal):     # bench validates first and times nothing it refuses
            yield Step(title, False, f"refused: {rep.reason}", time.perf_counter() - t)
            return
        parts = [f"{s.peer}: median ratio {s.ratio_median:.3f} [p10 {s.ratio_p10:.3f}, p90 {s.ratio_p90:.3f}]"
                 for s in rep.stats]
        yield Step(title, True, "; ".join(parts), time.perf_counter() - t)
