"""Measured selection (emit/tuning.py, ``export --tune N``): candidates of every family the cap admits, distinct
and validated before any timing, timed against the textbook schedule; a searched block measured slower than its
family's default is never exported (issue 25); the host rule; Ctrl-C keeping the best validated candidate; and a
real validated export."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.support.cpu import needs
from sha1opt.cli import main
from sha1opt.emit.family import Choice
from sha1opt.emit.family_hybrid import HYBRID, shape
from sha1opt.emit.family_scalar import SCALAR, recipe_variants
from sha1opt.emit.family_shani import SHANI, shape as shani_shape
from sha1opt.emit.host_cpu import CpuId, cpu_table, from_cpuinfo, host, host_refusal, model_of
from sha1opt.search.cost.model import load_model
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.errors import CorpusError
from sha1opt.emit.tuning import MARGIN, Entry, Timed, pool, tune_choices
from sha1opt.emit.validate import Validation
from sha1opt.search.space.hybrid import HybridParams, build

EMERALD = CpuId("GenuineIntel", 6, 207)
FORMS = ("rotate-bmi", "rotate-bmi-early-keep", "pin-bmi-early", "rotate-bmi-leanch-early-keep")


def _entries(forms=FORMS):
    """The scalar default (the reference), the hybrid default (``rotate-bmi``) and searched hybrid forms."""
    ref = Entry(Choice(SCALAR, textbook("x86_64"), "x86_64"), True, 4.2)
    blocks = [build(HybridParams(isa="avx512vl", lead=1, every=4, ahead=True, recurrence="rol2", scalar=f))
              for f in forms]
    return [ref] + [Entry(Choice(HYBRID, b, "x86_64"), k == 0, 3.0) for k, b in enumerate(blocks)]


def _name(choice) -> str:
    return "textbook" if choice.family is SCALAR else choice.code.params.scalar


class Recorder:
    """A fake check and a fake timer writing one shared event log; the timer's ratios are per candidate."""

    def __init__(self, ratios: dict[str, float], fail: tuple[str, ...] = (), interrupt_at: int | None = None):
        self.events: list[tuple[str, str]] = []
        self.ratios, self.fail, self.interrupt_at = ratios, fail, interrupt_at
        self.timed = 0

    def check(self, choice, work: Path):
        name = _name(choice)
        self.events.append(("check", name))
        if name in self.fail:
            return "prove failed: (fake)"
        v = Validation()
        v.obj = work / f"{name}.o"
        v.obj.write_text(name)
        return v

    def timer(self, cand: Path, ref: Path, arch: str, pairs: int) -> Timed:
        self.timed += 1
        if self.interrupt_at is not None and self.timed == self.interrupt_at:
            raise KeyboardInterrupt
        name = cand.read_text()
        self.events.append(("time", name))
        return Timed(np.full(pairs, self.ratios.get(name, 1.0)), 4.0)


def _tune(rec, entries=None, **kw):
    kw.setdefault("pairs", 8)
    kw.setdefault("rounds", 2)
    return tune_choices(entries or _entries(), timer=rec.timer, check=rec.check, **kw)


def test_every_candidate_is_validated_before_the_first_timing_run(tmp_path):
    rec = Recorder({"rotate-bmi": 0.8, "pin-bmi-early": 0.7, "rotate-bmi-early-keep": 0.79})
    t = _tune(rec, work=tmp_path)
    kinds = [k for k, _ in rec.events]
    assert kinds[:5] == ["check"] * 5 and "check" not in kinds[5:]
    assert [_name(c.choice) for c in t.candidates] == ["textbook", *FORMS]     # in pool order, the reference first
    assert {f for k, f in rec.events if k == "time"} == {"textbook", *FORMS}  # the reference timed against itself
    assert _name(t.best.choice) == "pin-bmi-early" and t.stop == "done" and t.rounds == 2
    assert t.measured[3].pairs == 8 and t.measured[3].median == pytest.approx(0.7)
    assert t.measured_cpb(3) == pytest.approx(0.7 * 4.0)                      # ratio x the reference's c/B


def test_a_candidate_that_fails_validation_is_dropped_and_never_timed(tmp_path):
    rec = Recorder({"rotate-bmi-early-keep": 0.5}, fail=("rotate-bmi-early-keep",))
    t = _tune(rec, pairs=4, rounds=1, work=tmp_path)
    assert ("time", "rotate-bmi-early-keep") not in rec.events
    assert "rotate-bmi-early-keep" not in [_name(c.choice) for c in t.candidates]
    assert any("dropped" in n and "rotate-bmi-early-keep" in n for n in t.notes)


def test_regression_a_searched_block_measured_slower_than_the_default_schedule_is_exported(tmp_path):
    """Issue 25: the zen1 search's pick, "proved optimal under the model", measured slower than the textbook
    schedule on a Zen 2. A searched candidate slower than (or within MARGIN of) its family's default loses to it
    even when it is the fastest of its family's searched candidates."""
    rec = Recorder({"rotate-bmi": 0.80, "pin-bmi-early": 0.81, "rotate-bmi-early-keep": 0.80 - MARGIN / 2,
                    "rotate-bmi-leanch-early-keep": 0.95})
    t = _tune(rec, work=tmp_path)
    assert _name(t.best.choice) == "rotate-bmi" and t.best.entry.default
    rec = Recorder({"textbook": 1.0})                                   # scalar only: the stored best is slower
    slower = Entry(Choice(SCALAR, recipe_variants("x86_64", "bmi2", load_model("zen3"))[0][1], "x86_64"), False, 3.0)
    rec.check = lambda choice, work: _fake_validation(work, "textbook" if choice.code.name == "textbook" else "slow")
    rec.ratios["slow"] = 1.04
    t = _tune(rec, [_entries()[0], slower], work=tmp_path / "s")
    assert t.winner == 0 and t.measured[1].median == pytest.approx(1.04)


def _fake_validation(work: Path, name: str) -> Validation:
    v = Validation()
    v.obj = work / f"{name}.o"
    v.obj.write_text(name)
    return v


def test_a_searched_block_margin_below_its_default_wins(tmp_path):
    rec = Recorder({"rotate-bmi": 0.80, "pin-bmi-early": 0.80 - 2 * MARGIN})
    t = _tune(rec, work=tmp_path)
    assert _name(t.best.choice) == "pin-bmi-early" and "below its family's default" in t.why


def test_ctrl_c_during_timing_keeps_the_best_validated_candidate_so_far(tmp_path):
    # 4 pairs per run: round 0 times all five, round 1 is cut in its third run
    rec = Recorder({"rotate-bmi": 0.9, "pin-bmi-early": 0.80}, interrupt_at=8)
    t = _tune(rec, work=tmp_path)
    assert t.stop == "interrupted" and t.rounds == 1
    assert _name(t.best.choice) == "pin-bmi-early" and t.best.validation.obj.is_file()
    assert "interrupted" in t.why


def test_should_stop_before_any_pair_exports_the_reference(tmp_path):
    rec = Recorder({"pin-bmi-early": 0.5})
    t = _tune(rec, work=tmp_path, should_stop=lambda: len(rec.events) >= 5)
    assert t.stop == "interrupted" and t.winner == 0 and not any(k == "time" for k, _ in rec.events)


def test_a_candidate_with_too_few_pairs_is_not_ranked(tmp_path):
    rec = Recorder({"pin-bmi-early": 0.5}, interrupt_at=4)     # pin's first (2-pair) run is the one cut
    t = _tune(rec, pairs=4, work=tmp_path)
    assert t.measured[3].pairs == 0 and _name(t.best.choice) != "pin-bmi-early"


def test_host_rule_refuses_a_foreign_model_and_an_unknown_cpu():
    assert host_refusal("goldencove", EMERALD) is None
    assert host_refusal("sapphirerapids", EMERALD) is None                  # an alias of the same model
    assert "goldencove's, not zen5's" in host_refusal("zen5", EMERALD)
    assert "zen5's, not goldencove's" in host_refusal("goldencove", CpuId("AuthenticAMD", 26, 68))
    assert "no model's CPU" in host_refusal("zen3", CpuId("AuthenticAMD", 0x20, 1))   # no such family
    assert "could not be read" in host_refusal("goldencove", None)


def test_cpu_table_maps_the_rows_of_corpus_cpus_toml():
    """corpus/cpus.toml: Emerald Rapids (6/207) and Alder Lake (6/151) are goldencove's; Zen 5 (1Ah, models
    0x00-0x2f, 0x40-0x4f, 0x60-0x7f per Linux's amd.c) is zen5's; 1Ah model 0x30 is in no range."""
    assert model_of(EMERALD) == "goldencove" and model_of(CpuId("GenuineIntel", 6, 151)) == "goldencove"
    assert model_of(CpuId("AuthenticAMD", 0x1A, 0x44)) == "zen5" and model_of(CpuId("AuthenticAMD", 0x1A, 0x30)) is None


def test_cpu_table_refuses_unknown_keys_and_models(tmp_path):
    row = 'vendor = "GenuineIntel"\nfamily = 6\nmodels = [[1, 2]]\nname = "n"\nmatch = "exact"\nsource = "x"\n'
    (tmp_path / "a.toml").write_text('[[cpu]]\n' + row + 'model = "goldencove"\nstepping = 3\n')
    (tmp_path / "b.toml").write_text('[[cpu]]\n' + row + 'model = "pentium9"\n')
    with pytest.raises(CorpusError, match="unknown key 'stepping'"):
        cpu_table(tmp_path / "a.toml")
    with pytest.raises(CorpusError, match="not in corpus/uarch"):
        cpu_table(tmp_path / "b.toml")


def test_host_cpu_reads_the_first_processor(tmp_path):
    f = tmp_path / "cpuinfo"
    f.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n\n"
                 "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 68\n")
    assert from_cpuinfo(f.read_text()).id == EMERALD and from_cpuinfo("") is None


def test_export_tune_on_a_foreign_model_is_refused_in_one_line(tmp_path):
    """Timing decides only on the model's own CPU: an AVX-512 model this CPU is not (zen5, or goldencove
    on a Zen 5) is refused in one line before anything runs."""
    cpu = host()
    foreign = "goldencove" if cpu is not None and model_of(cpu.id) == "zen5" else "zen5"
    out = tmp_path / "t.S"
    r = CliRunner().invoke(main, ["export", "--uarch", foreign, "--isa", "avx512", "--tune", "2", "-o", str(out)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "--tune" in r.output
    assert not out.exists()


def test_export_tune_with_dispatch_is_refused_in_one_line(tmp_path):
    args = ["export", "--uarch", "host", "--dispatch", "--tune", "2", "-o", str(tmp_path / "t.S")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "--dispatch" in r.output and len(r.output.strip().splitlines()) == 1


def test_hybrid_ranked_candidates_have_distinct_shapes_and_the_search_best_first(monkeypatch):
    import sha1opt.emit.family_hybrid as fh
    monkeypatch.setattr(fh, "EXPORT_EVALUATIONS", 0)       # the search's seed points only: fast
    choices = HYBRID.ranked("goldencove", "i386", "ssse3", 3)
    shapes = [shape(c.code.params) for c in choices]
    assert len(choices) == 3 and len(set(shapes)) == 3


def test_scalar_ranked_is_the_models_pick_then_one_field_recipe_variants_cheapest_first():
    """The capped best first (``choose``), then recipe variants no two the same code, allowed by the cap:
    under --isa base no variant uses rorx or andn (BMI)."""
    choices = SCALAR.ranked("zen3", "x86_64", "base", 4)
    assert choices[0].code.body == SCALAR.choose("zen3", "x86_64", "base").code.body
    assert len(choices) == 4 and all("scalar recipe" in c.notes[0] for c in choices[1:])
    assert not any(v for c in choices for v in ("rorx", "andn") if v in c.notes[0])
    assert len({SCALAR.path_text(c) for c in choices}) == 4


def test_shani_ranked_is_the_models_point_then_other_classes_and_none_without_sha_ni():
    choices = SHANI.ranked("zen3", "x86_64", "shani", 3)
    assert len(choices) == 3 and len({shani_shape(c.code) for c in choices}) == 3
    assert SHANI.ranked("skylake", "x86_64", "shani", 3) == []          # skylake's model has no SHA-NI


def test_pool_has_each_admitted_familys_default_first_and_the_textbook_as_reference():
    entries = pool("zen3", "x86_64", "base", 2)
    assert entries[0].default and entries[0].choice.family is SCALAR and entries[0].choice.code.name == "textbook"
    assert [e.choice.family for e in entries] == [SCALAR] * len(entries)      # --isa base: the scalar family only
    assert len(entries) == 3 and not any(e.default for e in entries[1:])


def test_tuned_winner_is_a_validated_export(tmp_path):
    # the one real end-to-end run: real proofs and vectors, a real (tiny) timing, the real export
    entries = [Entry(Choice(SCALAR, textbook("x86_64"), "x86_64"), True, 4.2),
               Entry(Choice(SCALAR, recipe_variants("x86_64", "base", load_model("zen3"))[0][1], "x86_64"), False,
                     4.0)]
    t = tune_choices(entries, pairs=4, rounds=2, work=tmp_path / "w")
    assert [c.validation.ok for c in t.candidates] == [True, True] and t.measured[1].pairs == 4
    assert t.reference_cpb > 0
    best = t.best.choice
    res = best.family.export(best, tmp_path / "t.S", uarch="zen3")
    assert res.ok and [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    assert best.code.name in (tmp_path / "t.S").read_text()


@needs("ssse3")                                  # the export validates the SSSE3 block natively
def test_export_tune_first_ctrl_c_stops_the_timing_and_still_writes_the_validated_best(tmp_path, monkeypatch):
    import os
    import signal

    import sha1opt.cli_emit as cli_emit
    from sha1opt.emit.tuning import Candidate, Measurement, Tuning

    block = build(HybridParams(isa="ssse3"))
    seen = {}

    def fake_tune(uarch, arch, level, n, should_stop, **_):
        os.kill(os.getpid(), signal.SIGINT)          # Ctrl-C while "timing"
        seen["stopped"] = should_stop()
        m = Measurement(1.0, 1.0, 1.0, 4)
        entry = Entry(Choice(HYBRID, block, "x86_64"), False, 3.0)
        return Tuning((Candidate(entry, Validation()),), (m,), 4.0, 0, "interrupted", "interrupted", 0)

    monkeypatch.setattr(cli_emit, "do_tune", fake_tune)
    monkeypatch.setattr(cli_emit, "host_refusal", lambda uarch, cpu: None)
    out = tmp_path / "t.S"
    r = CliRunner().invoke(main, ["export", "--uarch", "goldencove", "--isa", "ssse3", "--tune", "2", "-o", str(out)])
    assert seen["stopped"] and r.exit_code == 0, r.output
    assert "exporting candidate 0" in r.output and out.is_file() and block.params.key() in out.read_text()


def test_regression_tune_without_isa_took_avx2_on_a_sha_ni_cpu_without_avx512():
    """``--tune`` without --isa takes the highest level whose family's own features the CPU has: the ``shani``
    level's cap allows AVX-512, so "every feature of the cap" skipped SHA-NI on a Zen 3 (it took avx2)."""
    from sha1opt.emit.host_cpu import HostCpu
    from sha1opt.emit.tuning import host_level
    zen3 = frozenset({"sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "bmi1", "bmi2", "sha"})
    cpu = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "AMD EPYC", zen3)
    assert host_level(cpu) == "shani"
    assert host_level(HostCpu(CpuId("AuthenticAMD", 23, 49), 0, "", zen3 - {"sha"})) == "avx2"
    assert host_level(HostCpu(CpuId("GenuineIntel", 6, 15), 0, "", frozenset({"sse", "sse2", "ssse3"}))) == "ssse3"
    assert host_level(HostCpu(CpuId("GenuineIntel", 6, 1), 0, "", frozenset())) == "base"


def test_measured_candidates_are_kept_per_cpu_and_checked_when_read(tmp_path):
    """Issue 25: "Measurements are stored per CPU id and feed stage 2": every timed candidate is a row of the
    results database's measurements table (emit/measurements.py), read back per CPU; a hand-edited row
    (a ratio outside its own p10/p90) refuses the file in one StoreError line."""
    import sqlite3

    from sha1opt.emit.host_cpu import HostCpu
    from sha1opt.emit.measurements import cpu_key, measured, record
    from sha1opt.emit.tuning import measured_rows
    from sha1opt.search.store import Store, StoreError
    rec = Recorder({"pin-bmi-early": 0.7})
    t = _tune(rec, work=tmp_path / "w")
    cpu = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "AMD EPYC", frozenset())
    db = tmp_path / "r.sqlite"
    assert record(measured_rows(t, cpu, "zen3"), db) == 5
    rows = measured(cpu_key(cpu), db)
    assert len(rows) == 5 and rows[0].ratio_median == pytest.approx(1.0) and rows[0].family == "scalar"
    assert {r.reference for r in rows} == {rows[0].digest}                  # all paired against the textbook
    assert [r for r in rows if r.ratio_median == pytest.approx(0.7)][0].measured_cpb == pytest.approx(2.8)
    assert measured("genuineintel-6-207-2", db) == []
    Store(db, readonly=True).close()                                        # still a valid results database
    con = sqlite3.connect(db)
    con.execute("UPDATE measurements SET ratio_median = 9.0 WHERE family = 'scalar'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="impossible measurements row"):
        measured(path=db)


def test_proved_optimal_under_the_model_is_shown_with_the_models_measured_error(tmp_path, monkeypatch):
    """Issue 25, item 4: "'Proved optimal under the model' is shown with the model's measured error beside it":
    the MAPE of predicted vs measured c/B over the codes ``export --tune`` measured on this CPU (the latest row
    per code), or that it was not measured."""
    from sha1opt.emit.host_cpu import HostCpu
    from sha1opt.emit.measurements import Measured, cpu_key, digest, model_error, record
    from sha1opt.views import report
    cpu = HostCpu(CpuId("AuthenticAMD", 23, 49), 0, "AMD EPYC 7B12", frozenset())
    db = tmp_path / "r.sqlite"
    monkeypatch.setenv("SHA1OPT_DB", str(db))
    monkeypatch.setattr(report, "host", lambda: cpu)
    assert "error is not measured on this CPU" in report.model_error_text("zen1")

    def row(code, predicted, measured, created):
        return Measured(cpu_key(cpu), cpu.brand, "zen1", "x86_64", "scalar", code, digest(code), digest("t"),
                        predicted, 1.0, 0.9, 1.1, measured, 40, 16384, created)
    record([row("a", 4.5, 9.0, 1.0), row("a", 4.5, 5.0, 2.0), row("b", 5.0, 5.0, 3.0)], db)
    err = model_error("zen1", cpu_key(cpu), db)
    assert err.codes == 2 and err.mape == pytest.approx((0.5 / 5.0 + 0.0) / 2)      # code a's latest row: 4.5 vs 5.0
    assert "MAPE 5.0 % over 2 codes" in report.model_error_text("zen1")
    assert "not measured" in report.model_error_text("zen3")
