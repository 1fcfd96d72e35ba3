"""The block-loop measure against the measures it replaced, on the default blocks of every model.

Before ``search/measure.py`` a whole block was priced four ways; this prints, per model and arch, the
default (textbook) scalar block under each, and the default hybrid block (the model's highest dialect,
``HybridParams(isa=...)``; i386: ``arch="i386"``) without and with its loop control:

* ``body`` -- ``simulate(sched.body, loop=True)``: the whole body, the a..e loads before the x86-64 loop
  included, no loop control (the scalar best's figure in the hybrid ranking, the dispatch order);
* ``header`` -- ``body[loop_start:]`` without loop control (the export header's figure);
* ``loop`` -- ``measure.block_loop_cycles``: ``body[loop_start:]`` and ``LOOP_CONTROL`` (the one measure);
* hybrid ``old`` -- ``block.loop_body()`` without loop control; ``new`` -- ``measure.hybrid_loop_cost``.

SHA-NI was priced with its loop control already (``engines.shani.loop_items``): unchanged.
Run: ``.venv/bin/python bench/measure_change.py`` (a few seconds).
"""

from __future__ import annotations

from sha1opt.search.cost.model import load_model, model_names
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.measure import block_loop_cycles, hybrid_loop_cost, block_items
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_dialects import dialects
from sha1opt.search.space.hybrid_i386 import build_i386


def pct(old: float, new: float) -> str:
    return f"{100 * (new - old) / old:+5.1f}%"


def main() -> None:
    print(f"{'model':11s} {'arch':6s} {'body':>8s} {'header':>8s} {'loop':>8s} {'body->loop':>10s} "
          f"{'hdr->loop':>9s} | {'hybrid':8s} {'old':>7s} {'new':>7s} {'change':>7s}")
    for name in model_names():
        model = load_model(name)
        for arch in model.arches:
            sched = textbook(arch)
            body = simulate(list(sched.body), model, loop=True).cycles
            header = simulate(list(sched.body[sched.loop_start:]), model, loop=True).cycles
            loop = block_loop_cycles(sched, model)
            line = (f"{name:11s} {arch:6s} {body:8.2f} {header:8.2f} {loop:8.2f} {pct(body, loop):>10s} "
                    f"{pct(header, loop):>9s} |")
            names = [d.name for d in dialects() if model.has_vector(d.feature)]
            if names:
                params = HybridParams(isa=names[-1], arch=arch)
                block = build_i386(params) if arch == "i386" else build(params)
                old = simulate(block_items(block.loop_body()), model, loop=True).cycles
                new = hybrid_loop_cost(block, model).cycles
                line += f" {names[-1]:8s} {old:7.2f} {new:7.2f} {pct(old, new):>7s}"
            print(line)


if __name__ == "__main__":
    main()
