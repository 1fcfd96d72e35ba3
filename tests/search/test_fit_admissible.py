"""The fit's admissibility rule (search/cost/fit.py): no row the measurements refute, no unit set without a witness.

Rules (issue 25, the first calibration on a Zen 3 invented hardware to explain its kernels):
1. refutation -- a change that prices a measurement slower than the machine ran it (above its p90) is not made,
   however much it lowers the sum of squared errors of the others (a resource count or a latency is a lower
   bound on time);
2. witness -- a unit set or uop count moves only for a kernel that is bound by units under the current model
   and by the class's units under the new value: a kernel bound by its dependency chain (or the front end, or
   loop control) moves no unit set;
3. a computing class never gets latency 0; a class's front-end slots are never fitted.
The measured figures below are the inputs of that run (AMD EPYC, AuthenticAMD family 25 model 1,
2026-12-03, core cycles per iteration: median, p10, p90), not expected outputs.
"""

import dataclasses
from functools import cache

from sha1opt.emit.microbench import kernels
from sha1opt.search.cost.fit import Observation, fit, objective, parameters, predict, refuted
from sha1opt.search.cost.fit_params import parameters as all_parameters
from sha1opt.search.cost.model import Uop, load_model

ZEN3_ADD_KERNELS = {     # kernel -> (median, p10, p90) measured on the Zen 3, 2026-12-03 (/tmp/calib_run1)
    "tput.add_rr": (23.91, 19.36, 25.23), "mix.add_rr+logic_rr": (22.96, 16.00, 23.41),
    "mix.add_rr+not": (23.18, 16.67, 23.87), "mix.add_rr+bswap": (22.96, 17.60, 23.43),
    "mix.add_rr+andn": (23.03, 17.01, 23.50), "mix.add_rr+compare": (23.10, 16.27, 23.55),
    "mix.add_rr+counter": (23.06, 16.41, 23.48), "mix.add_rr+lea_simple": (23.08, 16.91, 23.54),
    "mix.add_rr+rot1": (23.03, 17.30, 23.47), "mix.add_rr+nop": (15.95, 13.51, 16.22),
}


@cache
def _kernels():
    return {k.name: k for k in kernels(load_model("zen3"))}


def _zen3_observations(figures):
    base = load_model("zen3")
    ks = _kernels()
    return base, [Observation(n, ks[n].items(), m, lo, hi, ks[n].classes) for n, (m, lo, hi) in figures.items()]


def _with_ports(model, cls, units):
    row = model.classes[cls]
    return dataclasses.replace(model, classes={**model.classes, cls: dataclasses.replace(
        row, ports=tuple(Uop(u.role, units) if not u.role else u for u in row.ports))})


def test_regression_the_fit_put_add_rr_on_one_alu():
    """The sum of squares prefers add_rr on one ALU (the pair kernels ran at about 23 clocks, as 24 adds on one
    unit would) -- but tput.add_rr ran 48 adds in 24 clocks, which one ALU cannot: that row is refuted and the
    fit never makes it."""
    base, obs = _zen3_observations(ZEN3_ADD_KERNELS)
    one = _with_ports(base, "add_rr", ("alu1",))
    assert objective(one, obs) < objective(base, obs)            # what the first fit followed
    assert refuted(predict(one, obs), predict(base, obs), obs) == "tput.add_rr"
    f = fit(base, obs, params=[p for p in parameters(base, obs) if p.name == "classes.add_rr.ports"])
    assert len(f.model.classes["add_rr"].ports[0].units) >= 2


def test_a_kernel_bound_by_its_dependency_chain_moves_no_unit_set():
    """lat.rot_imm measured at twice zen3's chain: four compute uops on rot_imm's two units would price it exactly
    (so the objective alone would take them), but the chain binds the kernel, not the units: no witness."""
    base = load_model("zen3")
    k = _kernels()["lat.rot_imm"]
    slow = 2 * predict(base, [Observation(k.name, k.items(), 1.0)])[k.name]
    obs = [Observation(k.name, k.items(), slow, slow * 0.99, slow * 1.01, k.classes)]
    four = dataclasses.replace(base, classes={**base.classes, "rot_imm": dataclasses.replace(
        base.classes["rot_imm"], ports=(base.classes["rot_imm"].ports[0],) * 4)})
    assert objective(four, obs) < 0.01 * objective(base, obs)
    structural = [p for p in parameters(base, obs) if p.structural and p.row == "classes.rot_imm"]
    assert {p.field for p in structural} == {"ports", "compute_uops", "busy"}
    assert fit(base, obs, params=structural).changes == ()


def test_refuted_names_only_a_prediction_above_the_measured_band_that_got_worse():
    """Above p90 (x 1.02) and slower than before: refuted; above it but faster than before, or within it: not."""
    o = Observation("k", (), 10.0, 9.0, 11.0)
    assert refuted({"k": 11.5}, {"k": 10.0}, [o]) == "k"
    assert refuted({"k": 11.1}, {"k": 10.0}, [o]) is None        # within noise of p90
    assert refuted({"k": 12.0}, {"k": 13.0}, [o]) is None        # already refuted, now less so


def test_a_computing_class_never_gets_latency_0_and_front_end_slots_are_not_free():
    base = load_model("zen3")
    params = {p.name: p for p in all_parameters(base, [frozenset({"alu_mr", "store", "add_rr"})])}
    assert min(params["classes.alu_mr.latency"].candidates) == 1
    assert min(params["classes.add_rr.latency"].candidates) == 1
    assert min(params["classes.store.latency"].candidates) == 0     # no compute uop: forwarding sets its time
    assert not any(n.endswith(".uops") for n in params)


def test_the_loop_control_alone_moves_no_row():
    """The bare loop (``loop.overhead``, 2.61 clocks per iteration on the Zen 3 against zen3's 1.0) is evidence
    for no class: a dev run moved the branch's compute uops 1 -> 3 for it."""
    base, obs = _zen3_observations({"loop.overhead": (2.61, 2.39, 3.45)})
    assert obs[0].classes == frozenset()
    assert fit(base, obs).changes == ()


def test_a_constraint_explained_within_noise_stays_there():
    """Rule 3 (the second stage): a loop pulls the store-forwarding latency from 7 towards 0, but a kernel the
    current model explains within its band, and would leave it, keeps 7; without the constraint the loop wins."""
    from sha1opt.search.cost.fit import holds
    base = load_model("zen3")
    k = _kernels()["rule.store_forwarding"]
    now = predict(base, [Observation(k.name, k.items(), 1.0)])[k.name]
    kernel = Observation(k.name, k.items(), now, now * 0.98, now * 1.02, k.classes)
    zero = dataclasses.replace(base, rules=dataclasses.replace(base.rules, store_forward_latency=0.0))
    loop = Observation("loop", k.items(), predict(zero, [kernel])[k.name] * 1.0, 0.0, 0.0, None)
    params = [p for p in parameters(base, [loop]) if p.name == "rules.store_forwarding.latency"]
    assert fit(base, [loop], params=params).changes[0][2] == 0
    assert fit(base, [loop], params=params, constraints=[kernel]).changes == ()
    assert holds({k.name: now * 1.5}, {k.name: now}, [kernel]) == k.name
    assert holds({k.name: now * 1.01}, {k.name: now}, [kernel]) is None
