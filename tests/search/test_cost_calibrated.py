"""Calibrated models (search/cost/calibrated.py, model.py's corpus/uarch/calibrated/): the file written by
``sha1opt calibrate`` loads as a model (its rows replace the base's whole), its record reads back as written,
and the loader refuses unknown keys in the record as in every corpus row (issue 25)."""

import shutil

import pytest

import sha1opt.search.cost.model as uarch
from sha1opt.search.cost.calibrated import Calibration, Change, Measured, calibrated_text, check_calibration, cpu_key
from sha1opt.search.cost.model import calibrated_names, load_model, model_names
from sha1opt.semantics.datafiles import load_toml
from sha1opt.semantics.errors import CorpusError


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A private copy of corpus/uarch with an empty calibrated/ folder; the loader cache cleared around it."""
    for p in uarch.uarch_dir().glob("*.toml"):
        shutil.copy(p, tmp_path / p.name)
    (tmp_path / "calibrated").mkdir()
    monkeypatch.setattr(uarch, "uarch_dir", lambda: tmp_path)
    uarch._load.cache_clear()
    yield tmp_path
    uarch._load.cache_clear()


def _cal(changes=()):
    return Calibration("AuthenticAMD", 25, 1, 1, "AMD EPYC 7B13", "2026-12-03T20:00:00Z", "zen3", 12.5,
                       tuple(changes), {"lat.rot_imm": Measured(96.2, 95.9, 97.0, 21, 48.0, 96.0)})


def _write(corpus, cal, rows):
    path = corpus / "calibrated" / f"{cal.key}.toml"
    path.write_text(calibrated_text(cal, rows, "zen3 calibrated (test)"))
    return path


def test_round_trip_loads_as_a_model_with_the_changed_rows(corpus):
    zen3 = load_model("zen3")
    row = zen3.classes["rot_imm"]
    rows = {"classes.rot_imm": {"uops": 1, "latency": 2.0, "rthroughput": 0.5, "ports": ["alu1|alu2"],
                                "source": "calibrated (test)"},
            "rules.store_forwarding": {"latency": 0.0, "source": "calibrated (test)"}, "issue_width": 5}
    cal = _cal([Change("classes.rot_imm", "latency", 1.0, 2.0, ("lat.rot_imm",)),
                Change("rules.vector_store_forwarding", "latency", None, 7.0, ("lat.rot_imm",))])
    path = _write(corpus, cal, rows)
    assert cal.key == cpu_key("AuthenticAMD", 25, 1, 1) == "authenticamd-25-1-1"
    assert calibrated_names() == [cal.key] and cal.key not in model_names()
    m = load_model(cal.key)
    assert m.classes["rot_imm"].latency == 2.0 and m.classes["rot_imm"].ports == row.ports
    assert m.rules.store_forward_latency == 0.0 and m.issue_width == 5
    assert m.classes["bswap"] == zen3.classes["bswap"]          # rows not written are the base's
    back = check_calibration(load_toml(path)["calibration"], path.name)
    assert back.changes[0] == cal.changes[0] and back.changes[1].old == "absent"
    assert back.measurements == cal.measurements and back.cpu_name == "AMD EPYC 7B13"


@pytest.mark.parametrize("old,new,message", [
    ('seconds = 12.5\n', 'seconds = 12.5\nnoise = 1\n', "unknown key 'noise'"),
    ('samples = 21\n', 'samples = 21\nspread = 1\n', "unknown key 'spread'"),
    ('field = "latency"\n', 'field = "latency"\nwhy = "x"\n', "unknown key 'why'"),
    ('"lat.rot_imm",\n]', '"lat.nothing",\n]', "not among the measurements"),
    ('family = 25\n', '', "missing key 'family'"),
])
def test_loader_refuses_a_bad_record(corpus, old, new, message):
    cal = _cal([Change("classes.rot_imm", "latency", 1.0, 2.0, ("lat.rot_imm",))])
    path = _write(corpus, cal, {"classes.rot_imm": {"uops": 1, "latency": 2.0, "rthroughput": 0.5,
                                                     "ports": ["alu1|alu2"], "source": "test"}})
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(CorpusError, match=message):
        load_model(cal.key)
