"""Predicted cycles before and after the cost model took vector operand effects from the semantics table.

The cost model once read which operands a vector instruction reads and writes from a table of its own
(``classes.VECTOR_TABLE``); it now asks the semantics rows (``semantics/vector.py``), keeping in
``search/cost/classes.py`` only each mnemonic's cost class. This prints, per model and arch, the block-loop
measure (``search.measure``; model predictions, no timing) of

* ``scalar`` -- the default (textbook) scalar block (no vector rows: a control, unchanged by design);
* ``hybrid:D`` -- the default hybrid block of every dialect ``D`` the model's CPU has
  (``HybridParams(isa=D, arch=...)``);
* ``shani:F`` -- the default SHA-NI point with every ``msg2_form`` ``F`` the model's CPU runs
  (``default_params(arch)``, ``msg2_form=F``)

as ``old`` (read from ``bench/results/vector_table_change.before.json``, written by ``--save`` on the code
before the change) and ``new`` (this code).

Run: ``.venv/bin/python bench/vector_table_change.py`` (about a minute);
``--save FILE`` writes this code's figures to FILE instead.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.search.cost import Simulator
from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.engines.shani import block_cycles, has_shani
from sha1opt.search.measure import block_loop_cycles, hybrid_loop_cost
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_dialects import dialects
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.shani import MSG2_FORMS, default_params, isa_rows_used

BEFORE = Path(__file__).resolve().parent / "results" / "vector_table_change.before.json"


def figures() -> dict[str, float]:
    """``"model arch point"`` -> predicted cycles per block (module docstring)."""
    out: dict[str, float] = {}
    for name in model_names():
        model = load_model(name)
        for arch in model.arches:
            out[f"{name} {arch} scalar"] = block_loop_cycles(textbook(arch), model)
            for d in dialects():
                if not model.has_vector(d.feature):
                    continue
                params = HybridParams(isa=d.name, arch=arch)
                try:
                    block = build_i386(params) if arch == "i386" else build(params)
                except Sha1optError:
                    continue
                if block is not None:
                    out[f"{name} {arch} hybrid:{d.name}"] = hybrid_loop_cost(block, model).cycles
            if not has_shani(model):
                continue
            sim = Simulator(model)
            for form in MSG2_FORMS:
                p = replace(default_params(arch), msg2_form=form)
                try:
                    used = set(isa_rows_used(p, arch).values())
                except Sha1optError:
                    continue
                if all(model.has_vector(f.replace(".", "_")) for f in used):
                    out[f"{name} {arch} shani:{form}"] = block_cycles(p, arch, sim)
    return out


def main(argv: list[str]) -> None:
    if argv[:1] == ["--save"]:
        Path(argv[1]).write_text(json.dumps(figures(), indent=1) + "\n")
        return
    old = json.loads(BEFORE.read_text())
    new = figures()
    print(f"{'model':11s} {'arch':6s} {'point':16s} {'old':>8s} {'new':>8s} {'change':>8s}")
    changed = 0
    for key in sorted(set(old) | set(new), key=lambda k: (list(new).index(k) if k in new else len(new), k)):
        name, arch, point = key.split()
        o, n = old.get(key), new.get(key)
        if o is None or n is None:
            print(f"{name:11s} {arch:6s} {point:16s} {o if o is not None else '-':>8} "
                  f"{n if n is not None else '-':>8}   (only {'old' if n is None else 'new'})")
            changed += 1
            continue
        mark = f"{100 * (n - o) / o:+7.2f}%" if abs(n - o) > 1e-9 else "       ="
        changed += abs(n - o) > 1e-9
        print(f"{name:11s} {arch:6s} {point:16s} {o:8.2f} {n:8.2f} {mark}")
    print(f"{changed} of {len(set(old) | set(new))} figures changed")


if __name__ == "__main__":
    main(sys.argv[1:])
