"""``sha1opt calibrate``'s second stage (emit/calibrate.py, emit/training_loops.py, emit/loop_check.py), synthetic.

Rules (issue 25, item 2): whole SHA-1 loops timed on the host are fitted after the microbenchmarks (which
constrain them), as ``fit.Observation``s of the same simulator (a loop's items are what ``search.measure.block_loop`` prices);
a parameter the kernels leave free (here the store-forwarding latency: no kernel selected touches it) is set by
the loops; the gate judges the final model on those same loops (no second timing); the record keeps every
loop's measurement beside the kernels', and the change cites the loop it came from. No native code runs: the
kernels' timer and the loops' timing are replaced by the simulator of a "true" model (zen3 with store
forwarding 3 clocks, not 7), for a made-up Zen 3 CPU (any host).
"""

import dataclasses

import numpy as np
import pytest

import sha1opt.emit.calibrate as calibrate_module
from sha1opt.emit.calibrate import _merged, calibrate, stage2_parameters
from sha1opt.emit.host_cpu import CpuId, HostCpu
from sha1opt.emit.loop_check import judge
from sha1opt.emit.training_loops import PREFIX, TimedLoop, observations, scalar_codes
from sha1opt.search.cost.fit import Fit, Observation, predict
from sha1opt.search.cost.model import load_model

ZEN3_CPU = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "made-up Zen 3", frozenset({"sse2", "ssse3", "bmi1", "bmi2"}))
ONLY = ("lat.rot_imm", "tput.rot_imm")


def _truth():
    zen3 = load_model("zen3")
    return zen3, dataclasses.replace(zen3, rules=dataclasses.replace(zen3.rules, store_forward_latency=3.0))


def _kernel_timer(model):
    def timer(bodies, iterations, rounds, time_limit=None):
        from sha1opt.emit.microbench import Kernel
        obs = [Observation(n, Kernel(n, b, frozenset(), frozenset(), "").items(), 1.0) for n, b in bodies.items()]
        p = predict(model, obs)
        return {n: p[n] * np.linspace(0.99, 1.01, rounds) for n in bodies}
    return timer


def _timed(model, n=0):
    """The textbook (and ``n`` recipe variants) as training loops 'measured' as ``model`` prices them, +-2 %."""
    out = []
    for e in scalar_codes(load_model("zen3"), n):
        fam = e.choice.family
        loop = TimedLoop(f"{PREFIX}{e.key}", fam.name, tuple(fam.loop_items(e.choice)), "d" * 64, 0.0, 0.0, 0.0, 10)
        c = loop.predicted(model)
        out.append(dataclasses.replace(loop, measured=c, p10=c * 0.98, p90=c * 1.02))
    return out


@pytest.fixture(scope="module")
def stage2_run(tmp_path_factory):
    zen3, truth = _truth()
    mp = pytest.MonkeyPatch()
    mp.setattr(calibrate_module, "loop_samples", _kernel_timer(truth))
    mp.setattr(calibrate_module, "train_loops", lambda model, cpu, **kw: (_timed(truth), ("dropped nothing",)))
    real = calibrate_module.stage2_parameters     # stage 2's parameters: the one the loops decide (a fast test)
    mp.setattr(calibrate_module, "stage2_parameters",
               lambda m, loops: [p for p in real(m, loops) if p.name == "rules.store_forwarding.latency"])
    try:
        yield calibrate(budget=120, only=ONLY, passes=1, rounds=5, out_dir=tmp_path_factory.mktemp("cal"),
                        cpu=ZEN3_CPU)
    finally:
        mp.undo()


def test_stage_2_sets_from_whole_loops_what_the_kernels_leave_free(stage2_run):
    run = stage2_run
    assert run.stage1.changes == ()                          # the rotate kernels are zen3's own
    assert [(c.row, c.field, c.new) for c in run.calibration.changes] == [("rules.store_forwarding", "latency", 3.0)]
    assert run.calibration.changes[0].measurements == (run.loops[0].name,)
    assert run.loop_check.passed and run.loop_check.calibrated_mape < 0.005 < run.loop_check.base_mape
    assert run.path is not None and run.notes == ("dropped nothing",)


def test_the_record_keeps_the_loops_beside_the_kernels(stage2_run):
    meas = stage2_run.calibration.measurements
    assert set(meas) == {*ONLY, stage2_run.loops[0].name}
    loop = meas[stage2_run.loops[0].name]
    assert loop.median == pytest.approx(stage2_run.loops[0].measured * 64) and loop.samples == 10
    assert loop.literature > loop.median * 1.05 and loop.calibrated == pytest.approx(loop.median, rel=1e-3)


def test_loops_become_observations_per_iteration_with_their_band():
    zen3, _ = _truth()
    (loop,) = _timed(zen3)
    (o,) = observations([loop])
    assert (o.cycles, o.p10, o.p90) == (loop.measured * 64, loop.p10 * 64, loop.p90 * 64) and o.classes is None
    assert predict(zen3, [o])[o.name] == pytest.approx(o.cycles)


def test_the_gate_prices_loops_from_their_items_under_each_model():
    """A model issuing half as wide is further from loops zen3 explains: it fails; zen3 against itself passes."""
    zen3, _ = _truth()
    timed = _timed(zen3)
    narrow = dataclasses.replace(zen3, issue_width=3)
    assert not judge(timed, zen3, narrow).passed and judge(timed, zen3, zen3).passed


def test_stage_2_tries_the_rules_first_then_latencies_then_units():
    zen3, _ = _truth()
    order = [p.field if p.row.startswith("classes.") else p.row.partition(".")[0]
             for p in stage2_parameters(zen3, _timed(zen3))]
    assert order[0] == "rules" and "latency" in order and "ports" in order
    assert order == sorted(order, key=lambda f: {"rules": 0, "latency": 1}.get(f, 2))


def test_a_row_stage_2_puts_back_is_no_change():
    zen3, truth = _truth()
    obs = [Observation("x", (), 1.0)]
    first = Fit(truth, (("rules.store_forwarding.latency", 7.0, 3.0, ("k",)),), {}, {}, 1.0, 0.5, True)
    back = Fit(zen3, (("rules.store_forwarding.latency", 3.0, 7.0, ("l",)),), {}, {}, 0.5, 0.4, True)
    assert _merged(zen3, first, back, obs).changes == ()
    again = Fit(truth, (("classes.rot_imm.latency", 1.0, 2.0, ("l",)),), {}, {}, 0.5, 0.4, True)
    assert [c[0] for c in _merged(zen3, first, again, obs).changes] == ["rules.store_forwarding.latency",
                                                                         "classes.rot_imm.latency"]


def test_every_family_trains_at_the_highest_of_its_levels_the_cpu_runs():
    """Scalar, hybrid and SHA-NI each at its own top level (a SHA-NI CPU still trains the hybrid at avx2);
    a CPU with SSSE3 only trains the scalar base code and the SSSE3 hybrid, no SHA-NI."""
    from sha1opt.emit.training_loops import family_levels
    full = dataclasses.replace(ZEN3_CPU, features=frozenset({"sse2", "ssse3", "avx", "avx2", "bmi1", "bmi2", "sha"}))
    assert family_levels(full) == ["bmi2", "avx2", "shani"]
    old = dataclasses.replace(ZEN3_CPU, features=frozenset({"sse2", "ssse3"}))
    assert family_levels(old) == ["base", "ssse3"]


def test_a_deadline_drops_pairs_never_a_training_loop(monkeypatch):
    """Past the deadline from the start, every code is still validated and timed once (the first round);
    no second round runs."""
    import types

    import sha1opt.emit.training_loops as training
    from sha1opt.emit.tuning import Timed
    monkeypatch.setattr(training, "check_choice", lambda choice, work: types.SimpleNamespace(obj=work / "x.o"))
    calls = []

    def timer(cand, ref, arch, n):
        calls.append(cand)
        return Timed(np.ones(n), 4.0)
    codes = scalar_codes(load_model("zen3"), 2)
    timed, notes = training.time_loops(codes, pairs=6, rounds=3, timer=timer, late=lambda: True)
    assert len(timed) == len(codes) == len(calls) and all(x.pairs == 2 and x.measured == 4.0 for x in timed)
