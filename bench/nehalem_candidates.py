"""Westmere's integer-path gap (issue 10): what each candidate Nehalem behaviour would do to the figures.

``bench/cost_fidelity.py`` prices OpenSSL's x86-64 integer loop on the ``nehalem`` model at 5.98
c/B against OpenSSL's published 6.73 for Westmere (-11.1 %), while ``core2`` is 6.08 against 6.55
(-7.2 %). This script prints, for each behaviour the literature was searched for (docs/uarch-notes.md,
"Westmere's integer gap"), the figures a model with that behaviour gives -- built in memory with
``dataclasses.replace`` from the loaded ``nehalem`` / ``core2`` models; nothing is written to the
corpus and no row of any model is changed by this script. A variant here is an experiment, not a
model: a row is adopted only with a source for its value (none of the variants below has one that
applies to Nehalem; the docs say which and why).

Sections:

1. the loop's facts the candidates depend on: per class, its count, latency and ports on both
   models (a write-back conflict needs two latencies on one port); the most loads and stores in any
   window of 96 / 128 consecutive instructions (the load / store buffers: Nehalem 48 / 32, Core 2
   32 / 20); how far back each W-ring reload's store is (store forwarding can only bind a reload
   that runs soon after its store);
2. the variants: integer and SSSE3 c/B on nehalem (and core2 where the behaviour is not
   Nehalem-specific), the i386 check loop, and the 14-figure MAE / max of cost_fidelity.py's table
   with the variant in place.

Usage: python bench/nehalem_candidates.py  (output: bench/results/nehalem_candidates.txt)
"""

from __future__ import annotations

import dataclasses as dc
import sys
from collections import Counter
from pathlib import Path

from sha1opt.search.cost.classes import class_of
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import Model, Uop, load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.semantics.x86 import Mem

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cost_fidelity  # noqa: E402  (the OpenSSL loop extraction and the published figures)

LOADS = {"load", "logic_rm", "add_rm", "pop", "alu_mr", "shift_mr"}
STORES = {"store", "push", "alu_mr", "shift_mr"}


def with_class(m: Model, name: str, **kw) -> Model:
    return dc.replace(m, classes={**m.classes, name: dc.replace(m.classes[name], **kw)})


def with_rules(m: Model, **kw) -> Model:
    return dc.replace(m, rules=dc.replace(m.rules, **kw))


def variants() -> list[tuple[str, str, Model]]:
    """(label, model name it replaces, the variant model)."""
    n, c = load_model("nehalem"), load_model("core2")
    rot1_two = (n.classes["rot1"].ports + (Uop("", ("p0", "p5")),))
    out = [("nehalem as committed", "nehalem", n), ("core2 as committed", "core2", c)]
    out += [(f"nehalem store_forwarding {f}", "nehalem", with_rules(n, store_forward_latency=f)) for f in (4, 6, 8)]
    out += [("core2 load latency 4 (Nehalem's L1)", "core2", with_class(c, "load", latency=4)),
            ("nehalem load latency 5", "nehalem", with_class(n, "load", latency=5)),
            ("nehalem rot1 2 uops (SNB+ short form)", "nehalem", with_class(n, "rot1", uops=2, ports=rot1_two)),
            ("nehalem rot_imm latency 2", "nehalem", with_class(n, "rot_imm", latency=2)),
            ("nehalem lea_complex latency 3 (SNB+)", "nehalem", with_class(n, "lea_complex", latency=3)),
            ("nehalem retire_width 3", "nehalem", dc.replace(n, retire_width=3)),
            ("nehalem window 96 (Core 2's ROB)", "nehalem", dc.replace(n, window=96)),
            ("nehalem scheduler 32 (Core 2's RS)", "nehalem",
             with_rules(n, scheduler=dc.replace(n.rules.scheduler, entries=32))),
            ("nehalem dispatch_delay 6", "nehalem",
             with_rules(n, dispatch_delay=dc.replace(n.rules.dispatch_delay, cycles=6)))]
    return out


def _store_points(trace, disp) -> list[int]:
    return [i for i, d in enumerate(trace + trace) if d.mnemonic == "mov" and isinstance(d.ins.operands[1], Mem)
            and d.ins.operands[1].base.name == "esp" and d.ins.operands[1].disp == disp]


def main() -> int:
    traces = cost_fidelity.openssl_loops()
    loops = {p: cost_items(t) for p, t in traces.items()}
    i386 = cost_items(cost_fidelity.loop_trace(cost_fidelity.member_object(cost_fidelity.LIBCRYPTO_32,
                                                                           cost_fidelity.MEMBER_32),
                                               cost_fidelity.SYMBOL["integer"]))
    n, c = load_model("nehalem"), load_model("core2")
    print("# Westmere's integer gap: candidate behaviours on OpenSSL's x86-64 loops (libcrypto-lib-sha1-x86_64.o)")
    print("# variants are built in memory from the committed models; nothing here is fitted or adopted")
    print()
    print("## 1. the integer loop: classes (count, latency / ports on nehalem | core2)")
    census = Counter(class_of(it) for it in loops["integer"])
    for k, v in census.most_common():
        a, b = n.classes[k], c.classes[k]
        print(f"  {k:<12} {v:4}  {a.latency:g} {' '.join(map(str, a.ports)):<22} | {b.latency:g} "
              f"{' '.join(map(str, b.ports))}")
    cl = [class_of(it) for it in loops["integer"]]
    ring = cl * 2
    for win in (96, 128):
        ml = max(sum(x in LOADS for x in ring[i:i + win]) for i in range(len(cl)))
        ms = max(sum(x in STORES for x in ring[i:i + win]) for i in range(len(cl)))
        print(f"  any {win} consecutive instructions: at most {ml} loads, {ms} stores")
    trace = traces["integer"]
    dist = []
    for i, d in enumerate(trace):
        src = d.ins.operands[0]
        if isinstance(src, Mem) and src.base is not None and src.base.name == "esp":
            points = [k for k in _store_points(trace, src.disp) if k < i + len(trace)]
            if points:
                dist.append(i + len(trace) - max(points))
    print(f"  W-ring reloads: {len(dist)}; their store is {min(dist)} to {max(dist)} instructions back "
          f"(median {sorted(dist)[len(dist) // 2]}; a round is about {len(trace) / 80:.1f} instructions)")
    print()
    print("## 2. variants (c/B; MAE / max over cost_fidelity.py's 14 published figures with the variant in place)")
    print(f"  {'variant':<40} {'integer':>8} {'ssse3':>6} {'i386':>6}   MAE    max")
    for label, replaces, m in variants():
        pred = {p: simulate(loops[p], m, loop=True, bytes_per_iteration=64).cycles_per_byte
                for p in ("integer", "ssse3")}
        p32 = simulate(i386, m, loop=True, bytes_per_iteration=64).cycles_per_byte
        errs = []
        for cpu, (mname, pub) in cost_fidelity.PUBLISHED.items():
            model = m if mname == replaces else load_model(mname)
            for path, fig in pub.items():
                got = pred[path] if mname == replaces and path in pred else simulate(
                    loops[path], model, loop=True, bytes_per_iteration=cost_fidelity.BYTES[path]).cycles_per_byte
                errs.append(abs(got - fig) / fig)
        print(f"  {label:<40} {pred['integer']:8.2f} {pred['ssse3']:6.2f} {p32:6.2f}   "
              f"{100 * sum(errs) / len(errs):4.1f} % {100 * max(errs):5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
