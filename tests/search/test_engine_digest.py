"""The out-of-order and in-order engines give bit-identical outputs to the engine before the speed work.

Rule (issue 27): making the simulator faster must not change one number it gives -- every issue and
complete tick, unit, attribution node, and every ``Simulation``'s cycles, bottleneck, breakdown and
timeline, with ``record`` and ``loop`` on and off, with and without the resume memo.
``tests/support/engine_digest.py`` hashes all of them over a fixed, seeded set of sequences (the
search's own moves, realized); ``QUICK`` is that digest of the reduced set as the engine of commit
27949d2 computed it, on the sequences of today's search space (the loop-control rows and ``rol5=inplace``
came later and change the sequences, not the engine). To re-derive it: a worktree of the current commit with
``search/cost/{ooo,allocation,attribution,simulator}.py`` checked out from 27949d2, installed in its own venv,
then ``python bench/sim_digest.py --quick`` there. It
changes when the sequences do (the search space or a model's data change), never for an engine
optimisation. The full set (every model, whole blocks, hybrid loops) is ``bench/sim_digest.py``.
"""

from __future__ import annotations

from tests.support.engine_digest import digest

QUICK = "373f6166ead2ce70945084e503556a0b16098ef26e600ada468e53f73ee20e23"


def test_engine_outputs_unchanged_by_speed_work():
    assert digest(quick=True) == QUICK
