"""``sha1opt calibrate``'s run (emit/calibrate.py) on this machine, tiny: a few kernels, few samples.

Rule (issue 25): only checked kernels run; every kernel gets samples each clocked beside its own add-chain sample;
the fit and the file follow; the file's record reads back. Skipped where native running is impossible (not an
x86-64 host, a CPU with no row in corpus/cpus.toml). Nothing is written into the corpus (``out_dir``)."""

import pytest

from sha1opt.emit.calibrate import calibrate, host_base
from sha1opt.emit.host_cpu import HostError, host
from sha1opt.emit.toolchain import host_is_x86_64
from sha1opt.search.cost.calibrated import check_calibration
from sha1opt.semantics.datafiles import load_toml


def _host_or_skip():
    if not host_is_x86_64() or host() is None:
        pytest.skip("native kernels need an x86-64 host whose CPU can be read")
    try:
        return host_base()
    except HostError as e:
        pytest.skip(str(e))


def test_tiny_native_calibration_writes_a_record(tmp_path):
    cpu, base = _host_or_skip()
    only = ("lat.rot_imm", "tput.add_rr", "loop.overhead")
    run = calibrate(budget=60, only=only, passes=1, rounds=3, out_dir=tmp_path)
    assert run.base == base and not run.interrupted
    assert set(run.samples) == {"lat.rot_imm", "tput.add_rr", "loop.overhead"}
    assert all(len(x) == 3 and (x > 0).all() for x in run.samples.values())
    back = check_calibration(load_toml(run.path)["calibration"], run.path.name)
    assert back.key == run.path.stem and back.base == base and set(back.measurements) == set(run.samples)
