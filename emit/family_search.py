"""What ``search --isa LEVEL`` searches beside the scalar round ranges: the whole-block SIMD families.

``search_families(uarch, arch, level, ...)`` searches, proves and stores
(``search.family_rows``: only proved results, kept when better than the
key's row) what ``export --isa LEVEL`` would otherwise search for:

* a level with vector dialects: the hybrid block on ``arch``
  (``driver.search_hybrid_block`` on x86-64, ``hybrid_choice.search_i386_block``
  on i386), ranked against the capped scalar best;
* a level allowing SHA-NI on a model that has it: the SHA-NI point
  (``family_rows.search_shani``).

Example: ``search_families("zen3", "x86_64", "shani", evaluations=300)`` gives a
``HybridReport`` (cap ``shani``) and a ``ShaniReport``, both stored; ``export
--uarch zen3 --isa shani`` then reads the SHA-NI row and searches nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from sha1opt.semantics.x86 import Arch
from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import HybridReport, search_hybrid_block
from sha1opt.search.engines.shani import ShaniReport, has_shani
from sha1opt.search.family_rows import search_shani
from sha1opt.search.progress import ProgressFn, ignore
from sha1opt.search.space.hybrid_caps import allows, vector_dialects
from sha1opt.emit.hybrid_choice import SHANI_EVALUATIONS, search_i386_block


def search_families(uarch: str, arch: Arch, level: str, *, evaluations: int, seed: int = 0,
                    time_limit: float = 60.0, should_stop: Callable[[], bool] = lambda: False,
                    db: str | Path | None = None, progress: ProgressFn = ignore
                    ) -> list[HybridReport | ShaniReport]:
    """The module docstring's searches for ``uarch`` on ``arch`` under ``level``, each stored when proved."""
    out: list[HybridReport | ShaniReport] = []
    if vector_dialects(level) and not should_stop():
        if arch == "i386":
            out.append(search_i386_block(uarch, level, db, evaluations, seed))
        else:
            out.append(search_hybrid_block(uarch, cap=level, evaluations=evaluations, seed=seed,
                                           time_limit=time_limit, should_stop=should_stop, db=db, progress=progress))
    model = load_model(uarch)
    if allows(level, "sha") and has_shani(model) and not should_stop():
        out.append(search_shani(model, arch, max(evaluations, SHANI_EVALUATIONS), db))
    return out
