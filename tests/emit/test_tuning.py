"""Native tuning (emit/tuning.py, ``export --tune N``): candidates distinct and validated before any
timing, the host rule, Ctrl-C keeping the best validated candidate, and a real validated export."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.support.cpu import needs
from sha1opt.cli import main
from sha1opt.emit.hybrid_export import export_hybrid
from sha1opt.emit.host_cpu import CpuId, cpu_table, from_cpuinfo, host, host_refusal, model_of
from sha1opt.semantics.errors import CorpusError
from sha1opt.emit.tuning import ranked_blocks, shape, tune_blocks
from sha1opt.emit.validate import Validation
from sha1opt.search.space.hybrid import HybridParams, build

EMERALD = CpuId("GenuineIntel", 6, 207)
FORMS = ("rotate-bmi", "rotate-bmi-early-keep", "pin-bmi-early", "rotate-bmi-leanch-early-keep")


def _blocks(forms=FORMS):
    return [build(HybridParams(isa="avx512vl", lead=1, every=4, ahead=True, recurrence="rol2", scalar=f))
            for f in forms]


class Recorder:
    """A fake check and a fake timer writing one shared event log; the timer's ratios are per candidate."""

    def __init__(self, ratios: dict[str, float], fail: tuple[str, ...] = (), interrupt_at: int | None = None):
        self.events: list[tuple[str, str]] = []
        self.ratios, self.fail, self.interrupt_at = ratios, fail, interrupt_at
        self.timed = 0

    def check(self, block, work: Path):
        form = block.params.scalar
        self.events.append(("check", form))
        if form in self.fail:
            return "prove failed: (fake)"
        v = Validation()
        v.obj = work / f"{form}.o"
        v.obj.write_text(form)
        return v

    def timer(self, cand: Path, ref: Path, arch: str, pairs: int) -> np.ndarray:
        self.timed += 1
        if self.interrupt_at is not None and self.timed == self.interrupt_at:
            raise KeyboardInterrupt
        form = cand.read_text()
        self.events.append(("time", form))
        return np.full(pairs, self.ratios.get(form, 1.0))


def test_every_candidate_is_validated_before_the_first_timing_run(tmp_path):
    rec = Recorder({"pin-bmi-early": 0.93, "rotate-bmi-early-keep": 0.97})
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=8, rounds=2, work=tmp_path, timer=rec.timer, check=rec.check)
    kinds = [k for k, _ in rec.events]
    assert kinds[:3] == ["check"] * 3 and "check" not in kinds[3:]
    assert [c.block.params.scalar for c in t.candidates] == list(FORMS[:3])    # the first n, in rank order
    assert {f for k, f in rec.events if k == "time"} == set(FORMS[:3])       # the first choice timed against itself
    assert t.best.block.params.scalar == "pin-bmi-early" and t.stop == "done" and t.rounds == 2
    assert t.measured[2].pairs == 8 and t.measured[2].median == pytest.approx(0.93)


def test_a_candidate_that_fails_validation_is_dropped_and_never_timed(tmp_path):
    rec = Recorder({"rotate-bmi-early-keep": 0.5}, fail=("rotate-bmi-early-keep",))
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=4, rounds=1, work=tmp_path, timer=rec.timer, check=rec.check)
    assert ("time", "rotate-bmi-early-keep") not in rec.events
    assert [c.block.params.scalar for c in t.candidates] == ["rotate-bmi", "pin-bmi-early",
                                                             "rotate-bmi-leanch-early-keep"]
    assert any("dropped" in n and "rotate-bmi-early-keep" in n for n in t.notes)


def test_no_candidate_faster_keeps_the_models_first_choice(tmp_path):
    rec = Recorder({"rotate-bmi-early-keep": 1.02, "pin-bmi-early": 1.01})
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=4, rounds=2, work=tmp_path, timer=rec.timer, check=rec.check)
    assert t.winner == 0 and "stays" in t.why


def test_ctrl_c_during_timing_keeps_the_best_validated_candidate_so_far(tmp_path):
    # 4 pairs per run: round 0 times all three, round 1 times one and is cut in pin-bmi-early's run
    rec = Recorder({"rotate-bmi-early-keep": 0.95, "pin-bmi-early": 0.90}, interrupt_at=5)
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=8, rounds=2, work=tmp_path, timer=rec.timer, check=rec.check)
    assert t.stop == "interrupted" and t.rounds == 1
    assert t.best.block.params.scalar == "pin-bmi-early" and t.best.validation.obj.is_file()
    assert "interrupted" in t.why


def test_should_stop_before_any_pair_exports_the_first_choice(tmp_path):
    rec = Recorder({"pin-bmi-early": 0.5})
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=8, rounds=2, work=tmp_path, timer=rec.timer, check=rec.check,
                    should_stop=lambda: len(rec.events) >= 3)
    assert t.stop == "interrupted" and t.winner == 0 and not any(k == "time" for k, _ in rec.events)


def test_a_candidate_with_too_few_pairs_is_not_ranked(tmp_path):
    rec = Recorder({"pin-bmi-early": 0.5}, interrupt_at=3)     # pin's first (2-pair) run is the one cut
    t = tune_blocks(_blocks(), 3, "goldencove", pairs=4, rounds=2, work=tmp_path, timer=rec.timer, check=rec.check)
    assert t.measured[2].pairs == 0 and t.winner != 2


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


@pytest.mark.parametrize("extra", [["--isa", "bmi2"], ["--isa", "shani"], [], ["--isa", "avx512", "--dispatch"]])
def test_export_tune_needs_a_hybrid_level_and_no_dispatch(tmp_path, extra):
    args = ["export", "--uarch", "goldencove", *extra, "--tune", "2", "-o", str(tmp_path / "t.S")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "hybrid --isa level" in r.output


def test_ranked_candidates_have_distinct_shapes_and_the_search_best_first():
    blocks = ranked_blocks("goldencove", "i386", "ssse3", 3, evaluations=0)
    shapes = [shape(b.params) for b in blocks]
    assert len(blocks) == 3 and len(set(shapes)) == 3


@needs("ssse3")                                  # native validation and timing of SSSE3 blocks
def test_tuned_winner_is_a_validated_export(tmp_path):
    # the one real end-to-end run: real proofs and vectors, a real (tiny) timing, the real export
    blocks = [build(HybridParams(isa="ssse3")), build(HybridParams(isa="ssse3", lead=1, every=3))]
    t = tune_blocks(blocks, 2, "goldencove", pairs=4, rounds=2, work=tmp_path / "w")
    assert [c.validation.ok for c in t.candidates] == [True, True] and t.measured[1].pairs == 4
    res = export_hybrid(t.best.block, tmp_path / "t.S", uarch="goldencove")
    assert res.ok and [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    assert t.best.block.params.key() in (tmp_path / "t.S").read_text()


@needs("ssse3")                                  # the export validates the SSSE3 block natively
def test_export_tune_first_ctrl_c_stops_the_timing_and_still_writes_the_validated_best(tmp_path, monkeypatch):
    import os
    import signal

    import sha1opt.cli_emit as cli_emit
    from sha1opt.emit.tuning import Candidate, Measurement, Tuning

    block = build(HybridParams(isa="ssse3"))
    seen = {}

    def fake_tune(uarch, arch, level, n, should_stop):
        os.kill(os.getpid(), signal.SIGINT)          # Ctrl-C while "timing"
        seen["stopped"] = should_stop()
        m = Measurement(1.0, 1.0, 1.0, 4)
        return Tuning((Candidate(block, 3.0, Validation()),), (m,), 0, "interrupted", "interrupted", 0)

    monkeypatch.setattr(cli_emit, "do_tune", fake_tune)
    monkeypatch.setattr(cli_emit, "host_refusal", lambda uarch, cpu: None)
    out = tmp_path / "t.S"
    r = CliRunner().invoke(main, ["export", "--uarch", "goldencove", "--isa", "ssse3", "--tune", "2", "-o", str(out)])
    assert seen["stopped"] and r.exit_code == 0, r.output
    assert "exporting candidate 0" in r.output and out.is_file() and block.params.key() in out.read_text()
