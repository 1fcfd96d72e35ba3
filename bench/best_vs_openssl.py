"""Issue 14, last-but-one "done means" item: for every model, sha1opt's best path vs OpenSSL's best path
for that CPU, both priced by the same model (predicted cycles/byte, steady state).

  ours     what ``sha1opt export --uarch U`` (no ``--isa``) writes: ``emit.dispatch_plan.best_path(U, arch,
           db)`` -- the scalar best block, the hybrid search at the model's highest vector level below
           SHA-NI (on i386 the i386 hybrid block, ``search.space.hybrid_i386``) and the SHA-NI search, ranked by
           predicted c/B. The searches run with export's own fixed budgets and seeds
           (``emit.family_hybrid.EXPORT_EVALUATIONS`` hybrid evaluations, seed 0;
           ``SHANI_EVALUATIONS`` SHA-NI evaluations, ``best_shani``'s seed 1), so the figure is the one
           ``export`` prints.
  OpenSSL  every loop path of Debian's ``libcrypto.a`` (``OPENSSL``: the x86-64 member
           ``libcrypto-lib-sha1-x86_64.o``, the i386 member ``libcrypto-lib-sha1-586.o``), lifted and
           priced by ``sha1opt.analyze.path_costs`` (``sha1opt analyze``'s paths x models table); the
           path's required features (``isa_set`` of its traced iteration) must all be in the model's ISA
           (``vector_isa``, ``has_bmi*``); the cheapest such path is OpenSSL's best for that CPU.

Per (model, arch) the table gives both, the ratio ours/OpenSSL and, where OpenSSL wins, a reason
derived from the data: both paths' families and the bottleneck the simulator reports for each
.

Usage: python bench/best_vs_openssl.py [--models a,b] [--arches i386,x86_64] [--db PATH]
       [--figures docs/figures.md] [--out bench/results/best_vs_openssl.txt]

``--figures`` replaces the section between ``TABLE_BEGIN`` and ``TABLE_END`` in that file (never typed by
hand, as ``search_acceptance.py table --figures``). Ends with the wall time and the load average.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import figures_file
from figures_file import markers
from search_acceptance import OPENSSL, arches, load

from sha1opt.analyze import path_costs, prove_object
from sha1opt.emit.dispatch_plan import Candidate, best_path
from sha1opt.emit.family_hybrid import EXPORT_EVALUATIONS
from sha1opt.emit.family_shani import SHANI_EVALUATIONS
from sha1opt.search.cost import Simulator
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import VECTOR_ISA, Model, load_model, model_names
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.measure import block_loop_items
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.search.engines.shani import loop_items
from sha1opt.semantics.datafiles import atomic_write
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.semantics.x86 import SEMANTICS, isa_set

TABLE_BEGIN, TABLE_END = markers("best_vs_openssl.py")


@dataclass(frozen=True)
class OpensslPath:
    """One loop path of OpenSSL's function: its family (the symbol its loop head is in), the features it
    needs, and its traced iteration (what ``path_costs`` prices). E.g. ``_ssse3_shortcut``, {"ssse3"}."""

    name: str            # path_costs' label, e.g. "loop at 0x13e0 (_ssse3_shortcut)"
    family: str          # "_ssse3_shortcut"; the integer path's label has no symbol: "integer"
    features: frozenset[str]
    trace: tuple
    block_bytes: int


@dataclass(frozen=True)
class Row:
    uarch: str
    arch: str
    ours: float
    ours_path: str       # e.g. "hybrid (avx512 ...)"
    ours_bottleneck: str
    openssl: float | None
    openssl_path: str    # family, or why none
    openssl_bottleneck: str
    reason: str = ""     # filled where OpenSSL wins
    ours_blocks: int = 1  # blocks per loop iteration of ours (``Family.blocks``: 2 for a two-block dialect)

    @property
    def ratio(self) -> float | None:
        return self.ours / self.openssl if self.openssl else None


def family(label: str) -> str:
    """A loop path's ``label`` (``PathReport.label``: the symbol its loop head is in) as a family:
    ``"_ssse3_shortcut"`` stays; the function itself (OpenSSL's integer path loops in
    ``sha1_block_data_order``) -> ``"integer"``."""
    return "integer" if label in ("", "sha1_block_data_order") else label


def runs_on(model: Model, features) -> bool:
    """Whether every feature of ``features`` (``isa_set`` spelling: "bmi2", "ssse3", "sse4.1", "sha") is in
    the model's ISA. Example: core2 runs {"ssse3"} but not {"avx"}; pentium runs only the empty set."""
    for f in features:
        if f in ISA_LEVELS:
            if not model.has_isa(f):
                return False
        elif f.replace(".", "_") not in VECTOR_ISA or not model.has_vector(f.replace(".", "_")):
            return False
    return True


def openssl_paths(arch: str) -> tuple[list[OpensslPath], object]:
    """The loop paths of OpenSSL's object for ``arch`` (one per loop, the longest traced iteration, as
    ``path_costs`` picks), and the proof (``path_costs``' input). The features come from the instructions
    the semantics table knows (loop control such as ``cmp`` / ``jne`` is not in it and needs nothing)."""
    lib, member = OPENSSL[arch]
    proof = prove_object(lib, member=member, function="sha1_block_data_order", arch=arch)
    return [OpensslPath(p.name, family(p.label), isa_set([d.ins for d in p.trace if d.ins.mnemonic in SEMANTICS]),
                        p.trace, p.block_bytes)
            for p in proof.proof.loop_paths()], proof


def openssl_best(paths: list[OpensslPath], costs, model: Model) -> tuple[OpensslPath | None, float | None, str]:
    """The cheapest path the model's CPU runs under ``costs`` (``path_costs`` rows), and its bottleneck."""
    by_name = {c.path: c.cycles_per_byte for c in costs if c.uarch == model.name and c.cycles_per_byte is not None}
    ok = [p for p in paths if p.name in by_name and runs_on(model, p.features)]
    if not ok:
        return None, None, "-"
    p = min(ok, key=lambda q: by_name[q.name])
    sim = simulate(cost_items(p.trace), model, loop=True, bytes_per_iteration=p.block_bytes)
    return p, by_name[p.name], bound_text(sim)


def bound_text(sim) -> str:
    """The simulator's bottleneck and its front-end slots (fused uops) per 64 bytes hashed, e.g.
    "front end, 1175 fused uops/64 B" (k10's x86-64 scalar best)."""
    per_64 = sim.uops * 64 * sim.cycles_per_byte / sim.cycles if sim.cycles else 0.0
    return f"{sim.bottleneck}, {per_64:.0f} fused uops/64 B"


def our_bottleneck(c: Candidate, model: Model, arch: str) -> str:
    """``bound_text`` of the candidate, simulated as ``dispatch_plan`` prices it."""
    if c.kind == "scalar":        # its block loop as exported: the loop body and its loop control (not the a..e loads)
        return bound_text(simulate(block_loop_items(c.choice.code), model, loop=True))
    if c.kind == "hybrid":
        return bound_text(block_cost(c.choice.code, model))
    return bound_text(Simulator(model).simulate(loop_items(c.choice.code, arch), loop=True))


HYBRID_NOTE = re.compile(r"--isa (\w+): hybrid (\S+): ([\d.]+) c/B predicted")


def hybrid_tried(notes: list[str]) -> tuple[str, float] | None:
    """The hybrid search's best from ``best_path``'s notes (``family_hybrid`` writes "--isa avx512: hybrid
    hybrid:isa=avx512,...: 2.71 c/B predicted on ..."): (its dialect, c/B); None when no hybrid ran."""
    m = next((HYBRID_NOTE.search(n) for n in notes if HYBRID_NOTE.search(n)), None)
    if m is None:
        return None
    isa = re.search(r"isa=(\w+)", m.group(2))
    return (isa.group(1) if isa else m.group(1)), float(m.group(3))


def why_openssl_wins(row: Row, path: OpensslPath, arch: str, tried: tuple[str, float] | None) -> str:
    """One line from the data: the gap, both families and bottlenecks, OpenSSL's blocks per loop iteration
    (its AVX2 path does two) and what our hybrid search reached when export kept scalar code."""
    parts = [f"OpenSSL {100 * (1 - row.openssl / row.ours):.1f}% fewer c/B",
             f"its {path.family} ({'+'.join(sorted(path.features)) or 'base'}) bound by {row.openssl_bottleneck}; "
             f"ours ({row.ours_path}) by {row.ours_bottleneck}"]
    if path.block_bytes > 64:
        parts.append(f"its loop hashes {path.block_bytes // 64} blocks per iteration (ours: {row.ours_blocks})")
    if tried is not None and not row.ours_path.startswith("hybrid"):
        parts.append(f"our hybrid search's best ({tried[0]}, {EXPORT_EVALUATIONS} evaluations) predicts "
                     f"{tried[1]:.2f} c/B, so export keeps {row.ours_path}")
    return "; ".join(parts)


def short(c: Candidate) -> str:
    """The path family of our candidate: "scalar" (+ the features it needs), "hybrid avx512", "SHA-NI"."""
    if c.kind == "hybrid":
        return f"hybrid {c.choice.code.params.isa}" if isinstance(c.choice.code, HybridBlock) else "hybrid"
    if c.kind == "shani":
        return "SHA-NI"
    return "scalar" + (f" ({'+'.join(sorted(c.code.features))})" if c.code.features else "")


def table_lines(rows: list[Row]) -> list[str]:
    """The markdown table: one line per (model, arch), ratio and the reason where OpenSSL wins."""
    lines = ["| model | arch | ours (path) | ours c/B | OpenSSL best path | OpenSSL c/B | ours/OpenSSL "
             "| where OpenSSL wins: why |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        osl = f"{r.openssl:.2f}" if r.openssl is not None else "-"
        ratio = f"{r.ratio:.3f}" if r.ratio is not None else "-"
        lines.append(f"| {r.uarch} | {r.arch} | {r.ours_path} | {r.ours:.2f} | {r.openssl_path} | {osl} | {ratio} | "
                     f"{r.reason.replace('|', '/')} |")
    return lines


def summary(rows: list[Row]) -> str:
    wins = [r for r in rows if r.ratio is not None and r.ratio > 1 + 1e-9]
    return (f"ours <= OpenSSL's best under the same model on {len(rows) - len(wins)} of {len(rows)} (model, arch) "
            f"pairs" + ("" if not wins else "; OpenSSL wins on " + ", ".join(
                f"{r.uarch}/{r.arch} ({r.ratio:.3f})" for r in wins)) + ".")


def replace_section(text: str, body: list[str]) -> str | None:
    """``text`` with this script's section replaced by ``body`` (``figures_file.replace_section``)."""
    return figures_file.replace_section(text, "best_vs_openssl.py", body)


def compute(keys: list[tuple[str, str]], db: str | None, log) -> list[Row]:
    rows: list[Row] = []
    cache: dict[str, tuple[list[OpensslPath], list]] = {}
    for arch in sorted({a for _, a in keys}):
        t = time.monotonic()
        paths, proof = openssl_paths(arch)
        cache[arch] = (paths, path_costs(proof, sorted({u for u, a in keys if a == arch})))
        needs = ", ".join(f"{p.family} needs {sorted(p.features)}" for p in paths)
        log(f"# OpenSSL {arch}: {len(paths)} loop paths ({needs}); "
            f"{proof.summary()}; {time.monotonic() - t:.0f} s")
    for u, arch in keys:
        t = time.monotonic()
        model = load_model(u)
        cand, notes = best_path(u, arch, db)
        ours_b = our_bottleneck(cand, model, arch)
        paths, costs = cache[arch]
        p, cpb, osl_b = openssl_best(paths, costs, model)
        row = Row(u, arch, cand.cycles_per_byte, short(cand), ours_b, cpb,
                  p.family if p else "none the CPU runs", osl_b, ours_blocks=cand.choice.family.blocks(cand.choice))
        if p is not None and row.ratio > 1 + 1e-9:
            row = Row(**{**row.__dict__, "reason": why_openssl_wins(row, p, arch, hybrid_tried(notes))})
        rows.append(row)
        log(f"# {u} {arch}: ours {cand.describe()} [{ours_b}]; OpenSSL "
            f"{f'{p.family} {cpb:.2f} c/B [{osl_b}]' if p else 'none'}; {time.monotonic() - t:.0f} s; load {load()}")
        for n in notes:
            log(f"#     {n}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="", help="comma list (default: every model of `sha1opt uarchs`)")
    ap.add_argument("--arches", default="i386,x86_64")
    ap.add_argument("--db", default=None, help="results store (default: export's)")
    ap.add_argument("--figures", "--readme", dest="readme", default=None,
                    help="also write the table into this file (docs/figures.md) between its markers")
    ap.add_argument("--out", default="bench/results/best_vs_openssl.txt")
    args = ap.parse_args()
    want = [a for a in args.arches.split(",") if a]
    keys = [(u, a) for u in ([m for m in args.models.split(",") if m] or model_names())
            for a in arches(load_model(u)) if a in want]
    out: list[str] = []

    def log(line: str) -> None:
        out.append(line)
        print(line, flush=True)

    t0 = time.monotonic()
    log(f"# best_vs_openssl: {len(keys)} (model, arch) pairs; load average {load()}")
    log(f"# search budget (export's, fixed): hybrid {EXPORT_EVALUATIONS} evaluations seed 0, SHA-NI "
        f"{SHANI_EVALUATIONS} evaluations seed 1, scalar: the stored best (db {args.db or 'default'})")
    rows = compute(keys, args.db, log)
    lines = table_lines(rows)
    log("")
    for line in lines + ["", summary(rows)]:
        log(line)
    log(f"\n# wall time {time.monotonic() - t0:.0f} s; load average {load()}")
    atomic_write(Path(args.out), "\n".join(out) + "\n")
    if args.readme:
        print(figures_file.write_section(args.readme, "best_vs_openssl.py", lines + ["", summary(rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
