"""The out-of-order and in-order engines give bit-identical outputs to the engine before the speed work.

Rule (issue 27): making the simulator faster must not change one number it gives -- every issue and
complete tick, unit, attribution node, and every ``Simulation``'s cycles, bottleneck, breakdown and
timeline, with ``record`` and ``loop`` on and off, with and without the resume memo.
``tests/support/engine_digest.py`` hashes all of them over a fixed, seeded set of sequences (the
search's own moves, realized); ``QUICK`` is that digest of the reduced set as the engine of commit
27949d2 computed it. To re-derive it: check out 27949d2 in a worktree, copy
``tests/support/engine_digest.py`` and ``bench/sim_digest.py`` in, and run ``python bench/sim_digest.py
--quick`` there (the package imported from that tree). It
changes when the sequences do (the search space or a model's data change), never for an engine
optimisation. The full set (every model, whole blocks, hybrid loops) is ``bench/sim_digest.py``.
"""

from __future__ import annotations

from tests.support.engine_digest import digest

QUICK = "f0a31ea1d72c20be955a2a1a3002321de402d10b13ad48629dfe7614f89e4f49"


def test_engine_outputs_unchanged_by_speed_work():
    assert digest(quick=True) == QUICK
