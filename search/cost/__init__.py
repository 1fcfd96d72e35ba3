"""The cost model: microarchitecture models (data) and the cycle simulator that interprets them.

What lives here:

* ``model``: the ``Model`` dataclasses and the loader of ``corpus/uarch/*.toml``
  (``load_model``, ``model_names``, ``canonical_name``, ``UarchError``,
  ``derived_rthroughput``);
* ``classes``: the instruction class an item is priced as (``classify``);
* ``items``: decoded machine code (``semantics.lift``) as the simulator's items (``cost_items``);
* ``decode``: per-instruction facts the engines need;
* ``inorder`` / ``ooo``: the in-order and out-of-order engines, in stages (``allocation``: the
  out-of-order allocation stage's scheduler entries, port choice and move-elimination room;
  ``execute``: its execute stage, renaming, forwarding and the units);
* ``attribution``: utilisation, bottleneck and critical-chain causes;
* ``simulator``: ``Simulation`` / ``Slot`` results, the per-model
  ``Simulator`` (owns its decode cache) and ``simulate``;
* ``floor``: the resource floor of a loop body (front-end slots, unit busy time per iteration);
* ``uncertainty``: how far a model's parameters may move (``corpus/uncertainty.toml``, by each row's
  source), the seeded ensemble of perturbed models, a candidate's ``Spread`` and ``robust_pick``;
* ``content_key``: ``fingerprint``, a content key for a model's predictions (model data +
  engine source).

Imports: this package may import ``sha1opt.semantics`` only -- never
``sha1opt.emit``, the CLI/views (``sha1opt``), or other parts of
``sha1opt.search``.

Example: ``simulate(textbook("x86_64").body, load_model("zen3"), loop=True).cycles``.
"""

from sha1opt.search.cost.classes import classify
from sha1opt.search.cost.content_key import fingerprint
from sha1opt.search.cost.model import Model, UarchError, canonical_name, derived_rthroughput, load_model, model_names
from sha1opt.search.cost.simulator import Simulation, Simulator, Slot, decode, simulate

__all__ = ["Model", "Simulation", "Simulator", "Slot", "UarchError", "canonical_name", "classify", "decode",
           "derived_rthroughput", "fingerprint", "load_model", "model_names", "simulate"]
