"""The fit's candidate pricing in worker processes (search/cost/fit_pool.py) gives the figures priced here.

Rule: ``Evaluator(items, 2).many`` equals ``Evaluator(items, 1).many`` (the simulator in this process) for
every model and name list, and a model the engine cannot run comes back as None, not an exception."""

import dataclasses

from sha1opt.emit.microbench import kernels
from sha1opt.search.cost.fit_pool import Evaluator
from sha1opt.search.cost.model import load_model


def test_workers_price_as_this_process_does():
    zen3 = load_model("zen3")
    items = {k.name: k.items() for k in kernels(zen3, pairs=False) if k.name in ("lat.rot_imm", "tput.rot_imm", "lat.mov_rr")}
    slow = dataclasses.replace(zen3, classes={**zen3.classes, "rot_imm": dataclasses.replace(
        zen3.classes["rot_imm"], latency=3.0)})
    broken = dataclasses.replace(zen3, classes={})
    models, names = [zen3, slow, broken], [list(items)] * 3
    with Evaluator(items, 1) as here, Evaluator(items, 2) as pool:
        a, b = here.many(models, names), pool.many(models, names)
    assert a == b and a[0] is not None and a[0] != a[1] and a[2] is None
