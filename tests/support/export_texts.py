"""Every family's exported text for fixed inputs, keyed by a name: the byte-identity check of the family registry.

``export_texts()`` builds, without a model search and without running anything:

* scalar: ``assembly.function_text`` of the textbook schedule, each arch and flavor;
* hybrid: ``hybrid_export.function_text`` (each flavor) and ``dispatch_text.hybrid_path_text`` of a grid of
  ``HybridParams`` (every dialect x arch x recurrence x read-ahead x scalar form x lead/every; ``placement
  "slots"`` on two models' unit classes);
* SHA-NI: ``shani_function_text`` of the default point and each ``msg2_form`` that builds, each arch;
* dispatch: ``dispatch_function_text`` of the model-less plan (``plan_dispatch(None, arch)``), each arch.

``tests/emit/data/export_texts.json`` holds the sha256 of each text as ``main`` wrote it before the family
registry; ``tests/emit/test_export_identity.py`` compares. ``python -m tests.support.export_texts`` rewrites it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from sha1opt.emit.assembly import function_text as scalar_text
from sha1opt.emit.dispatch_plan import plan_dispatch
from sha1opt.emit.dispatch_text import dispatch_function_text, hybrid_path_text
from sha1opt.emit.hybrid_export import function_text as hybrid_text
from sha1opt.emit.shani_frame import shani_function_text
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import slots_of
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.shani import MSG2_FORMS, default_params
from sha1opt.semantics.errors import Sha1optError

DATA = Path(__file__).resolve().parents[1] / "emit" / "data" / "export_texts.json"
DIALECTS = ("ssse3", "avx", "avx512vl")


def _hybrid_points():
    for isa in DIALECTS:
        for rec in ("rol1", "rol2"):
            yield HybridParams(isa=isa, arch="i386", recurrence=rec)
            yield HybridParams(isa=isa, arch="i386", recurrence=rec, lead=1, every=2)
            for ahead in (False, True):
                for scalar in ("recipe", "rotate", "rotate-bmi", "bmi"):
                    for lead, every in ((2, 3), (3, 1)):
                        try:
                            yield HybridParams(isa=isa, recurrence=rec, ahead=ahead, scalar=scalar, lead=lead,
                                               every=every)
                        except Sha1optError:
                            pass


def export_texts() -> dict[str, str]:
    out: dict[str, str] = {}
    for arch in ("x86_64", "i386"):
        for flavor in ("elf", "macho"):
            out[f"scalar/{arch}/{flavor}"] = scalar_text(textbook(arch), flavor)
    for p in _hybrid_points():
        block = build_i386(p) if p.arch == "i386" else build(p)
        if block is None:
            continue
        for flavor in ("elf", "macho"):
            out[f"hybrid/{p.key()}/{p.scalar}/{flavor}"] = hybrid_text(block, flavor)
        out[f"hybrid-path/{p.key()}/{p.scalar}"] = hybrid_path_text(block)
    for uarch in ("zen3", "goldencove"):
        model = load_model(uarch)
        for isa in DIALECTS:
            for arch in ("x86_64", "i386"):
                p = HybridParams(isa=isa, arch=arch, placement="slots")
                block = (build_i386 if arch == "i386" else build)(p, slots_of(model))
                if block is not None:
                    out[f"hybrid-slots/{uarch}/{p.key()}"] = hybrid_text(block)
    for arch in ("x86_64", "i386"):
        base = default_params(arch)
        for form in MSG2_FORMS:
            try:
                params = replace(base, msg2_form=form)
                out[f"shani/{arch}/{form}"] = shani_function_text(arch, params)
            except Sha1optError:
                pass
        plan = plan_dispatch(None, arch)
        out[f"dispatch/{arch}"] = dispatch_function_text(arch, plan.codes(), ["header line"])
    return out


def digests() -> dict[str, str]:
    return {k: hashlib.sha256(v.encode()).hexdigest() for k, v in sorted(export_texts().items())}


if __name__ == "__main__":
    d = digests()
    DATA.write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    print(f"{len(d)} texts -> {DATA}")
