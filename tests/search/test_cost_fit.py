"""The fit of a model's free parameters to measured loops (search/cost/fit.py).

Main correctness rule (issue 25): measurements produced by the simulator from a model with known perturbations are
fitted back, from the unperturbed model, to exactly those perturbations -- a latency and a unit set here; and
measurements the literature model already explains change nothing (a change needs evidence beyond noise).
"""

import dataclasses

from sha1opt.emit.microbench import kernels
from sha1opt.search.cost.fit import Observation, fit, parameters, port_candidates, predict
from sha1opt.search.cost.model import Uop, load_model

KEEP = {"rot_imm", "bswap"}


def _observations(truth, base):
    ks = [k for k in kernels(base) if k.classes <= KEEP]
    obs = [Observation(k.name, k.items(), 1.0, classes=k.classes) for k in ks]
    p = predict(truth, obs)
    return [dataclasses.replace(o, cycles=p[o.name]) for o in obs]


def test_fit_recovers_a_perturbed_latency_and_unit_set():
    base = load_model("zen3")
    truth = dataclasses.replace(base, classes={
        **base.classes,
        "rot_imm": dataclasses.replace(base.classes["rot_imm"], latency=2.0),
        "bswap": dataclasses.replace(base.classes["bswap"], ports=(Uop("", ("alu1", "alu2")),))})
    f = fit(base, _observations(truth, base))
    got = {name: new for name, _, new, _ in f.changes}
    assert got == {"classes.rot_imm.latency": 2.0, "classes.bswap.ports": ("alu1", "alu2")}
    assert f.objective_after < 1e-9 < f.objective_before


def test_fit_changes_nothing_the_literature_explains():
    base = load_model("zen3")
    f = fit(base, _observations(base, base))
    assert f.changes == () and f.model == base


def test_parameters_cover_the_observed_classes_and_rules():
    """Every class seen gets latency, ports (when it has a choice) and compute uops; the issue width. A class's
    front-end slots are a decode fact, never fitted (fit_params)."""
    base = load_model("zen3")
    names = {p.name for p in parameters(base, _observations(base, base))}
    assert {"issue_width.value", "classes.rot_imm.latency", "classes.rot_imm.ports",
            "classes.bswap.compute_uops"} <= names
    assert not any(n.endswith(".uops") for n in names)


def test_port_candidates_stay_in_the_pool():
    """zen3's rot_imm may move among ALU sets, never to a vector pipe or an AGU."""
    cands = port_candidates(load_model("zen3"), "rot_imm")
    assert cands[0] == ("alu1", "alu2") and ("alu0", "alu1", "alu2", "alu3") in cands
    assert all(u.startswith("alu") for c in cands for u in c)
