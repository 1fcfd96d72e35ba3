"""Synthesis: the shortest x86 sequences for a SHA-1 fragment, proved minimal and proved correct.

Read in this order (each module one concept; its docstring argues the part
of the soundness proof that its code carries):

* ``targets``    -- what is asked: ``Target`` / ``TARGETS``, ``Setting``, the
                    instruction vocabulary and ``space_for`` (the search space);
* ``lanes``      -- the abstraction the search runs on: ``Lane``, ``Layout``,
                    ``PackedDomain`` (narrow lanes exact for T-functions);
* ``layers``     -- the states kept per depth, behind one ``LayerStore``
                    interface (packed words or hashed rows, same layers);
* ``explore``    -- ``Space``, the breadth-first enumerator with its pruning
                    rules, ``explore`` and ``minimal_paths`` ("no abstract
                    goal" proves "no sequence");
* ``canonical``  -- canonical forms: least dependence-preserving order over
                    every renaming of the temporaries, zero idioms;
* ``cegis``      -- ``synthesize``: screen, prove with Z3, refute into new
                    lanes, restart; the ``Solution`` / ``Result`` values;
* ``discovered`` -- the discovered corpus (``corpus/discovered.toml``):
                    ``Discovered`` rows, ``load_discovered`` / ``save_discovered``.

Imports: ``sha1opt.semantics`` (the one x86 semantics table, the prover, the
term IR) and ``sha1opt.search.cost`` (per-uarch cycles of a found sequence),
nothing else of the project -- never ``sha1opt.emit`` or the ``sha1opt``
CLI package. Text for humans lives in ``sha1opt.views.synth``.

Example::

    from sha1opt.search.synth import synthesize
    r = synthesize("f1", temps=1, destroy=True, max_len=6)
    r.status, r.length          # ("found", 3): no sequence of length <= 2 exists
"""

from sha1opt.search.synth.canonical import canonical_form
from sha1opt.search.synth.cegis import (
    Result,
    Solution,
    critical_path,
    initial_lanes,
    prove_sequence,
    synthesize,
    uarch_costs,
)
from sha1opt.search.synth.discovered import (Discovered, discovered_path, discovered_rows, load_discovered, save_discovered,
                                            user_discovered_path)
from sha1opt.search.synth.explore import Exploration, GoalPaths, Space, explore, minimal_paths
from sha1opt.search.synth.lanes import Lane, Layout, PackedDomain
from sha1opt.search.synth.layers import LayerStore
from sha1opt.search.synth.targets import ISAS, TARGETS, Setting, Target, Vocabulary, space_for, vocabulary_of

__all__ = [
    "ISAS", "TARGETS", "Discovered", "Exploration", "GoalPaths", "Lane", "LayerStore", "Layout", "PackedDomain",
    "Result", "Setting", "Solution", "Space", "Target", "Vocabulary", "canonical_form", "critical_path",
    "discovered_path", "user_discovered_path", "discovered_rows", "explore", "initial_lanes", "load_discovered", "minimal_paths",
    "prove_sequence", "save_discovered", "space_for", "synthesize", "uarch_costs", "vocabulary_of",
]
