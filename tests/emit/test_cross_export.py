"""Cross-export (issue 22, item 4): export writes code for any ISA level on any host.

The vectors check runs where ``execution.execution_for`` says (emit/execution.py): natively where
this CPU has the features the decoded machine code needs, under a qualified emulator
(corpus/emulators.toml, emit/emulator.py) where it lacks one, else not at all -- recorded as a
value (``Check.execution``) and stated in the output and the file header, never a failure. The
lacks-the-ISA paths run on every host by injection (``SHA1OPT_CPU_LACKS``, a ``HostCpu``, a
replaced emulator lookup); the native path runs where the CPU has the feature.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

import sha1opt.emit.execution as execution_module
from sha1opt.cli import main
from sha1opt.emit.emulator import Emulator, EmulatorRow, emulator_for, emulator_table
from sha1opt.emit.execution import EMULATED, NATIVE, NOT_RUN, Execution, execution_for
from sha1opt.emit.host_cpu import LACKS_ENV, CpuId, HostCpu, host, lacking
from sha1opt.emit.hybrid_export import export_hybrid, function_text
from tests.support.cpu import needs
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.semantics.errors import CorpusError

NOT_RUN_AVX512 = "vectors not run here: this CPU lacks avx512vl"
ZEN3 = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "test Zen 3",
               frozenset({"sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "bmi1", "bmi2", "sha"}))
ROW = EmulatorRow("qemu-x86_64", "x86_64", ("qemu-x86_64", "-cpu", "max"), (7, 2), (7, 2),
                  frozenset({"ssse3", "avx", "bmi2"}), "test row")
FAKE = Emulator("qemu-x86_64", (7, 2, 22), ROW.argv, ROW)

native_host = needs()


def qemu_row_for(arch, features):
    """The installed, qualified emulator for ``features`` (the real table), or None."""
    return emulator_for(arch, features)


def test_code_this_cpu_has_the_features_for_runs_natively():
    """Rule 1: no feature lacking -> NATIVE, whatever emulator exists."""
    assert execution_for({"avx2", "bmi2"}, "x86_64", ZEN3, find=lambda a, f: FAKE) == Execution(NATIVE)


def test_code_needing_a_lacking_feature_runs_under_a_qualified_emulator():
    """Rule 2: a lacking feature and an emulator the table qualifies -> EMULATED, with what is lacking."""
    e = execution_for({"avx512vl"}, "x86_64", ZEN3, find=lambda a, f: FAKE)
    assert (e.mode, e.missing, e.prefix) == (EMULATED, ("avx512vl",), ("qemu-x86_64", "-cpu", "max"))


def test_code_needing_a_lacking_feature_without_an_emulator_is_not_run_and_says_why():
    """Rule 3: no CPU, no emulator -> NOT_RUN with the lacks_text wording, and nothing to run under."""
    e = execution_for({"avx512vl", "bmi2"}, "x86_64", ZEN3, find=lambda a, f: None)
    assert (e.mode, e.missing, e.ran) == (NOT_RUN, ("avx512vl",), False)
    assert e.text().startswith("not run here: this CPU lacks avx512vl")


def test_the_emulator_must_run_every_feature_the_code_needs_not_only_the_lacking_ones():
    """A row covering the lacking feature but not another one the code needs does not qualify."""
    row = EmulatorRow("qemu-x86_64", "x86_64", ("qemu-x86_64",), (7, 2), (7, 2), frozenset({"avx512vl"}), "t")
    assert emulator_for("x86_64", {"avx512vl", "bmi2"}, table=(row,)) is None


def test_a_rows_feature_covers_what_it_includes(monkeypatch):
    """``avx`` in a row covers code needing ``ssse3`` (features.includes); ``ssse3`` does not cover ``avx``."""
    import sha1opt.emit.emulator as emulator_module
    monkeypatch.setattr(emulator_module, "installed_version", lambda program: (7, 2, 0))
    row_ssse3 = EmulatorRow("e", "x86_64", ("e",), (7, 2), (7, 2), frozenset({"ssse3"}), "t")
    assert emulator_for("x86_64", {"ssse3", "sse2"}, table=(ROW,)) is not None
    assert emulator_for("x86_64", {"avx"}, table=(row_ssse3,)) is None


def test_an_installed_emulator_outside_the_rows_version_range_does_not_qualify(monkeypatch):
    """The row holds for the versions it names: qemu 8.0 installed is not qemu 7.2."""
    import sha1opt.emit.emulator as emulator_module
    monkeypatch.setattr(emulator_module, "installed_version", lambda program: (8, 0, 0))
    assert emulator_for("x86_64", {"avx"}, table=(ROW,)) is None
    monkeypatch.setattr(emulator_module, "installed_version", lambda program: (7, 2, 22))
    assert emulator_for("x86_64", {"avx"}, table=(ROW,)).version == (7, 2, 22)
    monkeypatch.setattr(emulator_module, "installed_version", lambda program: None)
    assert emulator_for("x86_64", {"avx"}, table=(ROW,)) is None


def test_the_emulator_table_refuses_unknown_keys_and_unknown_features(tmp_path):
    """Loader rule: unknown keys and features outside features.ISA_INCLUDES are refused; the shipped table loads."""
    assert {r.arch for r in emulator_table()} == {"x86_64", "i386"}
    base = ('[[emulator]]\nname = "q"\narch = "x86_64"\nargv = ["q"]\nversions = ["7.2", "7.2"]\n'
            'features = ["avx"]\nsource = "s"\n')
    bad_key = tmp_path / "a.toml"
    bad_key.write_text(base + 'colour = "red"\n')
    with pytest.raises(CorpusError, match="unknown key 'colour'"):
        emulator_table(bad_key)
    bad_feature = tmp_path / "b.toml"
    bad_feature.write_text(base.replace('["avx"]', '["avx3"]'))
    with pytest.raises(CorpusError, match="features"):
        emulator_table(bad_feature)


def test_the_shipped_table_claims_no_level_qemu_failed_on():
    """bench/results/qemu_levels.txt: avx512vl and SHA-NI code died of SIGILL under qemu 7.2: never claimed."""
    for row in emulator_table():
        assert not {"avx512vl", "sha"} & row.features


@native_host
def test_regression_avx512_export_refused_on_a_cpu_without_avx512(tmp_path, monkeypatch):
    """The bug: on a CPU without AVX-512 the AVX-512 hybrid export ran natively, got SIGILL and wrote
    nothing. Now (lacks avx512vl injected, no emulator) it is written and proved, the vectors check is
    recorded as not run with what the CPU lacks, and output and header say so."""
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    monkeypatch.setattr(execution_module, "emulator_for", lambda arch, features: None)
    out = tmp_path / "h.S"
    res = export_hybrid(build(HybridParams(isa="avx512vl")), out)
    assert res.ok, res.validation.failure
    assert res.validation.proof.proved and "avx512vl" in res.validation.features
    vec = res.validation.checks[-1]
    assert vec.name == "vectors" and vec.ok and vec.execution == Execution(NOT_RUN, ("avx512vl",))
    assert NOT_RUN_AVX512 in out.read_text()


@native_host
def test_cli_export_states_the_vectors_not_run_in_output_and_header(tmp_path, monkeypatch):
    """The CLI's lines and the written header carry the lacks_text statement; exit 0."""
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    monkeypatch.setattr(execution_module, "emulator_for", lambda arch, features: None)
    out = tmp_path / "f.S"
    r = CliRunner().invoke(main, ["export", "--isa", "avx512", "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert NOT_RUN_AVX512 in r.output and "[not run] vectors" in r.output
    assert NOT_RUN_AVX512 in out.read_text() and "vpternlogd" in out.read_text()


@native_host
def test_a_lacking_feature_runs_under_qemu_where_the_table_qualifies_it(tmp_path, monkeypatch):
    """Lacks avx injected: the avx hybrid's vectors run under qemu-x86_64 (the real table and binary)
    and pass; the check says EMULATED and the emulator."""
    monkeypatch.setenv(LACKS_ENV, "avx")
    if qemu_row_for("x86_64", {"avx"}) is None:
        pytest.skip("no qualified qemu-x86_64 installed (apt-get install qemu-user; corpus/emulators.toml)")
    res = export_hybrid(build(HybridParams(isa="avx")), tmp_path / "h.S")
    assert res.ok, res.validation.failure
    vec = res.validation.checks[-1]
    assert vec.execution.mode == EMULATED and vec.execution.missing == ("avx",)
    assert "215 records passed" in vec.detail and "qemu-x86_64 7.2" in vec.detail


@native_host
def test_a_qualified_emulator_must_still_pass_the_vectors(tmp_path, monkeypatch):
    """The table only says trying is meaningful: qemu 7.2 wrongly said to run avx512vl must fail the
    vectors (SIGILL), and nothing is written."""
    if qemu_row_for("x86_64", {"avx"}) is None:
        pytest.skip("no qualified qemu-x86_64 installed (apt-get install qemu-user)")
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    liar = EmulatorRow("qemu-x86_64", "x86_64", ("qemu-x86_64", "-cpu", "max"), (7, 2), (7, 2),
                       frozenset({"avx512vl"}), "wrong on purpose")
    monkeypatch.setattr(execution_module, "emulator_for", lambda arch, features: emulator_for(arch, features, (liar,)))
    out = tmp_path / "h.S"
    res = export_hybrid(build(HybridParams(isa="avx512vl")), out)
    assert not res.ok and res.validation.failure.name == "vectors" and not out.exists()
    assert res.validation.failure.execution.mode == EMULATED and "SIGILL" in res.validation.failure.detail


@native_host
def test_the_avx512_export_runs_natively_where_the_cpu_has_avx512():
    """Has-the-ISA path: on an AVX-512 CPU the vectors run natively (no emulator involved)."""
    if lacking({"avx512vl"}):
        pytest.skip(f"this CPU ({host()}) lacks avx512vl")
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        res = export_hybrid(build(HybridParams(isa="avx512vl")), Path(d) / "h.S")
    assert res.ok, res.validation.failure
    assert res.validation.checks[-1].execution == Execution(NATIVE)


@native_host
def test_bench_refuses_code_this_cpu_lacks_a_feature_for_in_one_line(tmp_path, monkeypatch):
    """bench of a file needing avx512vl on a CPU without it (injected): one line naming the feature,
    exit 2, no timing run and no traceback or SIGILL."""
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    src = tmp_path / "h.S"
    src.write_text(function_text(build(HybridParams(isa="avx512vl"))))
    r = CliRunner().invoke(main, ["bench", str(src), "--pairs", "2"])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "this CPU lacks avx512vl" in lines[0] and "nothing was timed" in lines[0]
    assert r.exception is None or isinstance(r.exception, SystemExit)


@native_host
def test_the_hybrid_bench_refuses_a_block_this_cpu_lacks_a_feature_for(monkeypatch):
    """hybrid_bench asks the predicate after validation: lacks avx512vl injected -> a BenchRefusal
    naming it, before any timing program is built."""
    from sha1opt.emit.hybrid_bench import bench_hybrid
    from sha1opt.emit.bench import BenchRefusal
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    monkeypatch.setattr(execution_module, "emulator_for", lambda arch, features: None)
    rep = bench_hybrid(build(HybridParams(isa="avx512vl")), pairs=2)
    assert isinstance(rep, BenchRefusal) and rep.missing == ("avx512vl",) and "this CPU lacks avx512vl" in rep.reason


@native_host
def test_tuning_never_times_a_candidate_this_cpu_lacks_a_feature_for(tmp_path, monkeypatch):
    """tuning.check_choice (validated candidates are then timed natively) refuses on the predicate."""
    from sha1opt.emit.family import Choice
    from sha1opt.emit.family_hybrid import HYBRID
    from sha1opt.emit.tuning import check_choice
    monkeypatch.setenv(LACKS_ENV, "avx512vl")
    monkeypatch.setattr(execution_module, "emulator_for", lambda arch, features: None)
    choice = Choice(HYBRID, build(HybridParams(isa="avx512vl")), "x86_64")
    assert check_choice(choice, tmp_path) == "not timed: this CPU lacks avx512vl"


@native_host
def test_the_sha_ni_native_check_asks_the_predicate(tmp_path, monkeypatch):
    """shani_frame: with sha lacking (injected) the SHA-NI harness is not run, and says why."""
    from sha1opt.emit.host_cpu import lacking
    from sha1opt.emit.shani_frame import shani_function_text, validate_shani
    from sha1opt.search.space.shani import default_params
    monkeypatch.setenv(LACKS_ENV, "sha")
    assert lacking({"sha"}) == ("sha",)
    params = default_params("x86_64")
    v = validate_shani(shani_function_text("x86_64", params), "x86_64", params, tmp_path)
    assert v.proved and not v.native and "this CPU lacks sha" in v.native_detail


@native_host
def test_an_i386_block_lacking_avx_runs_under_qemu_i386(tmp_path, monkeypatch):
    """The i386 row (qemu-i386 with its reserved-space option, under the harness's memory limit):
    lacks avx injected, the i386 avx hybrid's vectors run and pass under it."""
    from sha1opt.search.space.hybrid_i386 import build_i386
    monkeypatch.setenv(LACKS_ENV, "avx")
    if qemu_row_for("i386", {"avx"}) is None:
        pytest.skip("no qualified qemu-i386 installed (apt-get install qemu-user; corpus/emulators.toml)")
    res = export_hybrid(build_i386(HybridParams(isa="avx", arch="i386")), tmp_path / "h.S")
    assert res.ok, res.validation.failure
    vec = res.validation.checks[-1]
    assert vec.execution.mode == EMULATED and vec.execution.emulator.name == "qemu-i386"
