"""The microarchitecture model files (corpus/uarch/*.toml) and their loader."""

from __future__ import annotations

import shutil

import pytest

from sha1opt.search.cost import model as uarch
from sha1opt.search.cost.model import (BMI1_CLASSES, BMI2_CLASSES, CLASSES, UarchError, derived_rthroughput,
                                  load_model, model_names)
from sha1opt.semantics.errors import CorpusError, Sha1optError

EXPECTED = ["atom", "core2", "nehalem", "p4", "p4-prescott", "pentium", "skylake", "zen3"]


def test_the_eight_models_load():
    assert model_names() == EXPECTED
    for name in EXPECTED:
        m = load_model(name)
        assert m.name == name
        assert set(CLASSES) <= set(m.classes)


def test_alias_p4_northwood_is_p4():
    assert load_model("p4-northwood") is load_model("p4")


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(UarchError) as e:
        load_model("k6-2")
    assert isinstance(e.value, Sha1optError)
    for name in EXPECTED + ["p4-northwood"]:
        assert name in str(e.value)


def test_engines_and_widths():
    # BRIEF section 3: in-order dual issue for P5 and Atom; OoO widths.
    assert load_model("pentium").in_order and load_model("atom").in_order
    widths = {n: load_model(n).issue_width for n in EXPECTED}
    assert widths == {"atom": 2, "core2": 4, "nehalem": 4, "p4": 3, "p4-prescott": 3, "pentium": 2,
                      "skylake": 4, "zen3": 6}
    for n in ("core2", "nehalem", "p4", "skylake", "zen3"):
        assert load_model(n).window > 0


def test_bmi_only_where_the_cpu_has_it():
    for n in EXPECTED:
        m = load_model(n)
        has = n in ("skylake", "zen3")
        assert (m.has_bmi1, m.has_bmi2) == (has, has)
        assert all((c in m.classes) == has for c in BMI1_CLASSES + BMI2_CLASSES)


def test_prescott_inherits_northwood_but_rotates_in_one_clock():
    nw, pr = load_model("p4"), load_model("p4-prescott")
    assert nw.classes["rot_imm"].latency == 4 and pr.classes["rot_imm"].latency == 1
    assert pr.classes["store"] == nw.classes["store"]          # inherited row
    assert pr.units == nw.units and pr.rules == nw.rules
    assert pr.aliases == () and nw.aliases == ("p4-northwood",)  # aliases are not inherited


def test_port_map_matches_the_documented_throughput():
    """Each row's rthroughput equals what its uops/units imply (lock-step Pentium rows excepted)."""
    for n in EXPECTED:
        m = load_model(n)
        if m.rules.pairing and m.rules.pairing.lockstep:
            continue
        for c in m.classes.values():
            assert derived_rthroughput(c, m) == pytest.approx(c.rthroughput, abs=1e-5), (n, c.name)


def test_every_row_has_a_source():
    for n in EXPECTED:
        m = load_model(n)
        assert m.source and m.rules.store_forward_source
        assert all(c.source for c in m.classes.values())
        assert all(u.source for u in m.units)


def test_notable_rules_are_derived_from_the_data():
    assert any("AGI stall" in line for line in load_model("pentium").notable())
    assert any("lea stall" in line for line in load_model("atom").notable())
    assert any("replay" in line for line in load_model("p4").notable())
    assert any("move elimination" in line for line in load_model("zen3").notable())
    assert any("rot_imm: 4 clk" in line for line in load_model("p4").notable())


# --- the loader refuses bad data ---------------------------------------------

@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A private copy of corpus/uarch to break; the loader cache is cleared around it."""
    src = uarch.uarch_dir()
    for p in src.glob("*.toml"):
        shutil.copy(p, tmp_path / p.name)
    monkeypatch.setattr(uarch, "uarch_dir", lambda: tmp_path)
    uarch._load.cache_clear()
    yield tmp_path
    uarch._load.cache_clear()


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_copy_loads_unchanged(corpus):
    assert load_model("zen3").issue_width == 6


@pytest.mark.parametrize("old,new,message", [
    ('issue_width = 6\n', 'issue_width = 6\nwidth = 6\n', "unknown key 'width'"),
    ('[classes.bswap]\nuops = 1\n', '[classes.bswap]\nuops = 1\nports_note = "x"\n', "unknown key 'ports_note'"),
    ('[classes.bswap]\nuops = 1\nlatency = 1\nrthroughput = 0.25\n',
     '[classes.bswapx]\nuops = 1\nlatency = 1\nrthroughput = 0.25\n', "unknown instruction class"),
    ('ports = ["alu1|alu2"]\nsource = "uops.info ZEN3: ROL (R32, I8)',
     'ports = ["alu1|alu9"]\nsource = "uops.info ZEN3: ROL (R32, I8)', "unknown unit 'alu9'"),
    ('[rules.store_forwarding]\n', '[rules.warp]\nsource = "x"\n[rules.store_forwarding]\n', "unknown rule"),
    ('ports = ["load:agu0|agu1|agu2"]\nsource = "AMD SOG family 19h, 2.11: L1',
     'ports = ["fetch:agu0|agu1|agu2"]\nsource = "AMD SOG family 19h, 2.11: L1', "unknown uop role"),
    ('latency = 2\nrthroughput = 0.5\nports = ["alu0|alu1|alu2|alu3", "alu0|alu1|alu2|alu3"]\nsource = "conservative',
     'latency = 2.3\nrthroughput = 0.5\nports = ["alu0|alu1|alu2|alu3", "alu0|alu1|alu2|alu3"]\nsource = "conservative',
     "half a clock"),
    ('engine = "out-of-order"', 'engine = "dataflow"', "engine must be"),
])
def test_loader_refuses(corpus, old, new, message):
    _edit(corpus / "zen3.toml", old, new)
    with pytest.raises(CorpusError) as e:
        load_model("zen3")
    assert message in str(e.value) and "zen3.toml" in str(e.value)


def test_loader_refuses_a_missing_class(corpus):
    text = (corpus / "zen3.toml").read_text()
    start = text.index("[classes.bswap]")
    end = text.index("[classes.andn]")
    (corpus / "zen3.toml").write_text(text[:start] + text[end:])
    with pytest.raises(CorpusError, match="missing instruction class 'bswap'"):
        load_model("zen3")


def test_loader_refuses_a_row_without_source(corpus):
    _edit(corpus / "atom.toml", 'source = "LLVM 14 llvm-mca -mcpu=atom: bswapl latency 1, rthroughput 1, port 0"\n', "")
    with pytest.raises(CorpusError, match="missing key 'source'"):
        load_model("atom")


def test_loader_refuses_bmi_rows_without_the_extension(corpus):
    _edit(corpus / "zen3.toml", "has_bmi1 = true", "has_bmi1 = false")
    with pytest.raises(CorpusError, match="lacks that extension"):
        load_model("zen3")


def test_loader_refuses_a_load_class_without_its_load_uop(corpus):
    _edit(corpus / "skylake.toml", 'ports = ["load:p2|p3", "p0|p1|p5|p6"]\nsource = "uops.info SKL: ADD (R32, M32)',
          'ports = ["p2|p3", "p0|p1|p5|p6"]\nsource = "uops.info SKL: ADD (R32, M32)')
    with pytest.raises(CorpusError, match="exactly one 'load:' uop"):
        load_model("skylake")


def test_inheritance_from_an_unknown_model_is_refused(corpus):
    _edit(corpus / "nehalem.toml", 'inherits = "core2"', 'inherits = "core3"')
    with pytest.raises(CorpusError, match="inherits unknown model 'core3'"):
        load_model("nehalem")


def test_cli_uarchs_lists_every_model():
    from click.testing import CliRunner

    from sha1opt.cli_analyze import uarchs

    r = CliRunner().invoke(uarchs, [])
    assert r.exit_code == 0
    for name in EXPECTED:
        assert f"\n{name}" in "\n" + r.output
    assert "p4 (alias p4-northwood)" in r.output and "issue 6/clk" in r.output
    import json
    rows = json.loads(CliRunner().invoke(uarchs, ["--json"]).output)
    assert [row["name"] for row in rows] == EXPECTED
    assert rows[EXPECTED.index("zen3")]["bmi2"] is True
