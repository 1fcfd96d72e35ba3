"""The microarchitecture model files (corpus/uarch/*.toml) and their loader."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from sha1opt.search.cost import model as uarch
from sha1opt.search.cost.model import (BMI1_CLASSES, BMI2_CLASSES, CLASSES, UarchError, derived_rthroughput,
                                  load_model, model_names)
from sha1opt.semantics.errors import CorpusError, Sha1optError
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.views import uarch_notes

EXPECTED = ["atom", "core2", "k10", "k7", "k8", "nehalem", "p4", "p4-prescott", "p6", "pentium", "skylake",
            "zen1", "zen2", "zen3", "zen4", "zen5"]
BMI = ("skylake", "zen1", "zen2", "zen3", "zen4", "zen5")
ALL = sorted(EXPECTED + ["goldencove"])     # every model file; goldencove's rows: tests/search/test_uarch_goldencove.py


def test_every_model_loads():
    assert model_names() == ALL
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
    assert widths == {"atom": 2, "core2": 4, "k10": 3, "k7": 3, "k8": 3, "nehalem": 4, "p4": 3, "p4-prescott": 3,
                      "p6": 3, "pentium": 2, "skylake": 4, "zen1": 4, "zen2": 4, "zen3": 6, "zen4": 6, "zen5": 8}
    for n in ("core2", "k7", "k8", "k10", "nehalem", "p4", "p6", "skylake", "zen1", "zen2", "zen3", "zen4",
              "zen5"):
        assert load_model(n).window > 0


def test_bmi_only_where_the_cpu_has_it():
    for n in EXPECTED:
        m = load_model(n)
        has = n in BMI
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


def test_uarch_notes_word_each_rule_from_the_data():
    """The view (not the model) words the rules; each line follows the model's data, names included."""
    pentium, atom, p4 = load_model("pentium"), load_model("atom"), load_model("p4")
    assert "AGI stall: +1 clk when a base/index register comes from a recent instruction" in uarch_notes.notable(pentium)
    assert any(line.startswith("lea stall: +3 clk") for line in uarch_notes.notable(atom))
    assert "replay: a load from a store of a >= 4-clk result costs +12 clk" in uarch_notes.notable(p4)
    assert "move elimination: mov_rr, vec_mov cost no latency or port" in uarch_notes.notable(load_model("zen3"))
    assert "register-read stall: at most 3 retired registers read per clock" in uarch_notes.notable(load_model("core2"))
    assert "move elimination: mov_rr cost no latency or port" not in uarch_notes.notable(load_model("core2"))
    assert any(line.startswith("rot_imm: 4 clk") for line in uarch_notes.notable(p4))
    renamed = dataclasses.replace(atom, rules=dataclasses.replace(
        atom.rules, address_stall=dataclasses.replace(atom.rules.address_stall, name="AGU stall", cycles=2)))
    assert any(line.startswith("AGU stall: +2 clk") for line in uarch_notes.notable(renamed))
    assert uarch_notes.header(p4) == "p4 (alias p4-northwood): out-of-order, issue 3/clk, window 126, no BMI, vector mmx+sse+sse2"


def test_arch_and_gcc_mtune_are_data():
    """Each model names its default architecture and GCC's -mtune for it (formerly driver.IN_ORDER_I386 / MTUNE)."""
    arch = {n: load_model(n).arch for n in EXPECTED}
    assert arch == {"atom": "i386", "core2": "x86_64", "k10": "x86_64", "k7": "i386", "k8": "x86_64",
                    "nehalem": "x86_64", "p4": "i386", "p4-prescott": "i386", "p6": "i386",
                    "pentium": "i386", "skylake": "x86_64", "zen1": "x86_64", "zen2": "x86_64", "zen3": "x86_64",
                    "zen4": "x86_64", "zen5": "x86_64"}
    tune = {n: load_model(n).gcc_mtune for n in EXPECTED}
    assert tune == {"atom": "bonnell", "core2": "core2", "k10": "amdfam10", "k7": "athlon-xp", "k8": "k8",
                    "nehalem": "nehalem", "p4": "pentium4", "p4-prescott": "prescott", "p6": "pentium3",
                    "pentium": "pentium", "skylake": "skylake", "zen1": "znver1", "zen2": "znver2", "zen3": "znver3",
                    "zen4": "znver3", "zen5": "znver3"}


def test_isa_level_of_each_model():
    """``Model.isa`` is the highest features.ISA_LEVELS level the CPU has; ``has_isa`` includes the lower levels."""
    assert {n: load_model(n).isa for n in EXPECTED} == {n: ("bmi2" if n in BMI else "base")
                                                        for n in EXPECTED}
    zen3, core2 = load_model("zen3"), load_model("core2")
    assert [zen3.has_isa(x) for x in ISA_LEVELS] == [True, True, True]
    assert [core2.has_isa(x) for x in ISA_LEVELS] == [True, False, False]
    bmi1_only = dataclasses.replace(zen3, has_bmi2=False)
    assert bmi1_only.isa == "bmi1" and [bmi1_only.has_isa(x) for x in ISA_LEVELS] == [True, True, False]
    with pytest.raises(UarchError, match="unknown ISA level 'avx2'"):
        zen3.has_isa("avx2")


def test_vector_isa_of_each_model():
    """``vector_isa`` lists the CPU's SIMD/crypto extensions: SSSE3 from Core 2 and Atom on, never on K10
    (Phenom has SSE4a but no SSSE3), AVX2 on Skylake/Zen, AVX-512VL on zen4 and zen5 (goldencove: its own test
    file), SHA-NI on the Zen models."""
    has = lambda ext: sorted(n for n in EXPECTED if load_model(n).has_vector(ext))
    assert has("ssse3") == ["atom", "core2", "nehalem", "skylake", "zen1", "zen2", "zen3", "zen4", "zen5"]
    assert has("avx2") == ["skylake", "zen1", "zen2", "zen3", "zen4", "zen5"]
    assert has("avx512vl") == ["zen4", "zen5"] and has("sha") == ["zen1", "zen2", "zen3", "zen4", "zen5"]
    assert has("sse2") == sorted(set(EXPECTED) - {"k7", "p6", "pentium"})
    with pytest.raises(UarchError, match="unknown vector extension"):
        load_model("zen5").has_vector("avx10")


def test_zen3_is_literature_and_zen5_carries_the_host_calibration():
    """Issue 10: zen3's rows are Zen 3 literature values again; what was calibrated here lives in zen5."""
    z3, z5 = load_model("zen3"), load_model("zen5")
    assert not any("calibrated on this host" in c.source for c in z3.classes.values())
    assert "calibrated" not in z3.rules.store_forward_source
    assert (z3.classes["lea_complex"].latency, z3.rules.store_forward_latency) == (2, 7)
    assert "calibrated on a Zen 5 host" in z5.classes["lea_complex"].source
    assert "calibrated on a Zen 5 host" in z5.rules.store_forward_source
    assert sum(u.name.startswith("alu") for u in z5.units) == 6
    assert sum(u.name.startswith("agu") for u in z5.units) == 4
    assert z5.issue_width == 8 and "8 macro-ops" in z5.description


def test_zen1_has_two_agus_and_one_store_pipe():
    z1 = load_model("zen1")
    assert [u.name for u in z1.units if u.name.startswith(("agu", "sd"))] == ["agu0", "agu1", "sd0"]
    assert z1.classes["store"].rthroughput == 1 and z1.classes["load"].rthroughput == 0.5


def test_register_read_rule_only_where_the_cpu_has_the_stall():
    """Agner: P6 (2 per clock), Core 2 and Nehalem (3); removed from Sandy Bridge on."""
    reads = {n: load_model(n).rules.register_reads for n in EXPECTED}
    assert {n: r.per_clock for n, r in reads.items() if r} == {"core2": 3, "nehalem": 3, "p6": 2}


def test_port_binding_rule_on_the_intel_out_of_order_models():
    assert sorted(n for n in EXPECTED if load_model(n).rules.port_binding) == ["core2", "nehalem", "skylake"]


def test_replay_cause_name_is_data():
    assert load_model("p4").rules.replay.name == "P4 replay"
    assert load_model("p4-prescott").rules.replay.name == "P4 replay"     # inherited rule


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
    ('arch = "x86_64"', 'arch = "amd64"', "arch must be one of i386, x86_64"),
    ('gcc_mtune = "znver3"\n', '', "missing key 'gcc_mtune'"),
    ('has_bmi1 = true', 'has_bmi1 = false\nhas_bmi3 = true', "unknown key 'has_bmi3'"),
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
    _edit(corpus / "zen3.toml", "has_bmi1 = true\nhas_bmi2 = true", "has_bmi1 = false\nhas_bmi2 = false")
    with pytest.raises(CorpusError, match="lacks that extension"):
        load_model("zen3")


def test_loader_refuses_a_load_class_without_its_load_uop(corpus):
    _edit(corpus / "skylake.toml", 'ports = ["load:p2|p3", "p0|p1|p5|p6"]\nsource = "uops.info SKL: ADD (R32, M32)',
          'ports = ["p2|p3", "p0|p1|p5|p6"]\nsource = "uops.info SKL: ADD (R32, M32)')
    with pytest.raises(CorpusError, match="exactly one 'load:' uop"):
        load_model("skylake")


def test_loader_refuses_vector_store_forwarding_on_an_in_order_model(corpus):
    """rules.vector_store_forwarding is read by the out-of-order engine only: on an in-order model it would
    be silently ignored, so the loader refuses it."""
    _edit(corpus / "atom.toml", "[rules.store_forwarding]\n",
          '[rules.vector_store_forwarding]\nlatency = 3\nsource = "x"\n\n[rules.store_forwarding]\n')
    with pytest.raises(CorpusError, match="vector_store_forwarding applies to out-of-order models only"):
        load_model("atom")


def test_loader_refuses_memory_renaming_on_an_in_order_model_and_a_non_boolean_immediate(corpus):
    """rules.memory_renaming is read by the out-of-order engine only (refused in-order, as the other
    forwarding rules); rules.rmw_forwarding.immediate must be true or false (a 1 is refused, not read as
    true)."""
    _edit(corpus / "atom.toml", "[rules.store_forwarding]\n",
          '[rules.memory_renaming]\nlatency = 0\nsource = "x"\n\n[rules.store_forwarding]\n')
    with pytest.raises(CorpusError, match="memory_renaming applies to out-of-order models only"):
        load_model("atom")
    _edit(corpus / "zen4.toml", "immediate = true", "immediate = 1")
    with pytest.raises(CorpusError, match="rmw_forwarding.immediate must be true or false"):
        load_model("zen4")


def test_loader_refuses_bmi2_without_bmi1(corpus):
    _edit(corpus / "zen3.toml", "has_bmi1 = true", "has_bmi1 = false")
    text = (corpus / "zen3.toml").read_text()
    start, end = text.index("[classes.andn]"), text.index("[classes.rorx]")
    (corpus / "zen3.toml").write_text(text[:start] + text[end:])
    with pytest.raises(CorpusError, match="has_bmi2 needs has_bmi1"):
        load_model("zen3")


def test_loader_refuses_a_replay_rule_without_a_name(corpus):
    _edit(corpus / "p4.toml", 'name = "P4 replay"\n', "")
    with pytest.raises(CorpusError, match="rules.replay: missing key 'name'"):
        load_model("p4")


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
    assert [row["name"] for row in rows] == ALL
    assert rows[ALL.index("zen3")]["bmi2"] is True
    atom = load_model("atom")
    assert rows[ALL.index("atom")]["rules"] == uarch_notes.notable(atom)
    plain = CliRunner().invoke(uarchs, []).output.splitlines()
    start = plain.index(uarch_notes.header(atom))
    assert plain[start:start + len(uarch_notes.lines(atom))] == uarch_notes.lines(atom)


def test_loader_requires_vector_rows_where_the_cpu_has_sse2(corpus):
    text = (corpus / "skylake.toml").read_text()
    start, end = text.index("[classes.vec_alu]"), text.index("[classes.vec_alu_rm]")
    (corpus / "skylake.toml").write_text(text[:start] + text[end:])
    with pytest.raises(CorpusError, match="missing instruction class 'vec_alu'"):
        load_model("skylake")


def test_loader_refuses_sha_rows_without_sha(corpus):
    _edit(corpus / "zen3.toml", '"avx2", "sha"]', '"avx2"]')
    with pytest.raises(CorpusError, match="classes.sha1"):
        load_model("zen3")


def test_loader_refuses_a_scheduler_on_an_in_order_model_or_below_four_entries(corpus):
    """rules.scheduler (the reservation station's size) is an out-of-order rule with at least 4 entries."""
    rule = '\n[rules.scheduler]\nname = "scheduler full"\nentries = 16\nsource = "s"\n'
    (corpus / "atom.toml").write_text((corpus / "atom.toml").read_text() + rule)
    with pytest.raises(CorpusError, match="rules.scheduler applies to out-of-order models only"):
        load_model("atom")
    _edit(corpus / "core2.toml", "entries = 32\n", "entries = 2\n")
    with pytest.raises(CorpusError, match="rules.scheduler.entries: must be >= 4"):
        load_model("core2")


def test_loader_refuses_move_elimination_without_a_slot(corpus):
    """rules.move_elimination.slots (the renamer's room, uiCA) is at least one move."""
    _edit(corpus / "skylake.toml", "slots = 4\n", "slots = 0\n")
    with pytest.raises(CorpusError, match="rules.move_elimination.slots: must be >= 1"):
        load_model("skylake")
