"""``--uarch host``, the default model of this machine, and ``sha1opt uarchs --host`` (issue 22, item 3).

The CPU is injected (``host_cpu._read`` replaced, the per-process cache cleared), so each rule is
checked for CPUs this machine is not: an Emerald Rapids (goldencove, exact), a CPU in no row of
``corpus/cpus.toml``, and the real host wherever the suite runs.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit import host_cpu
from sha1opt.emit.host_cpu import CpuId, HostCpu
from sha1opt.job import FALLBACK_MODEL, host_step

EMERALD = HostCpu(CpuId("GenuineIntel", 6, 207), 2, "INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.10GHz",
                  frozenset({"sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "avx512vl", "bmi1", "bmi2", "sha"}))
UNKNOWN = HostCpu(CpuId("GenuineIotel", 99, 1), 0, "", frozenset({"sse", "sse2"}))


@pytest.fixture
def cpu(monkeypatch):
    """Make ``host()`` return the CPU given to the returned setter (and forget it afterwards); the suite's
    own ``SHA1OPT_CPU_LACKS`` is set aside (a test that wants one sets it)."""
    monkeypatch.delenv(host_cpu.LACKS_ENV, raising=False)

    def use(c):
        monkeypatch.setattr(host_cpu, "_read", lambda: c)
        host_cpu._host.cache_clear()
    yield use
    host_cpu._host.cache_clear()


def test_uarch_host_is_the_model_of_the_cpus_row(cpu):
    """``uarch_name("host")``, ``"native"`` and None are the model ``corpus/cpus.toml`` maps the CPU to."""
    cpu(EMERALD)
    assert {host_cpu.uarch_name(n) for n in ("host", "native", "HOST", None)} == {"goldencove"}
    assert host_cpu.uarch_name("sapphirerapids") == "goldencove"       # an alias stays an alias


def test_uarch_host_on_a_cpu_in_no_row_is_one_line_exit_2(cpu):
    cpu(UNKNOWN)
    r = CliRunner().invoke(main, ["show", "--uarch", "host", "--rounds", "40-44"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "GenuineIotel family 99 model 1" in r.output and "no row of corpus/cpus.toml" in r.output


def test_show_without_uarch_uses_this_cpus_model_and_says_so(cpu):
    cpu(EMERALD)
    r = CliRunner().invoke(main, ["show", "--rounds", "40-44"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("goldencove (x86_64) rounds 40-44")
    assert "--uarch host = goldencove" in r.stderr and "family 6 model 207" in r.stderr


def test_search_refuses_uarch_with_all_uarchs():
    r = CliRunner().invoke(main, ["search", "--uarch", "p4", "--all-uarchs"])
    assert r.exit_code == 2 and "at most one of --uarch U and --all-uarchs" in r.output


def test_uarchs_host_names_the_cpu_its_model_and_what_it_runs(cpu):
    """The CPU line carries vendor, family, model and brand; the levels follow the features, not the model."""
    cpu(EMERALD)
    r = CliRunner().invoke(main, ["uarchs", "--host"])
    assert r.exit_code == 0, r.output
    assert "PLATINUM 8581C" in r.output and "GenuineIntel family 6 (0x6) model 207 (0xcf)" in r.output
    assert "model:    goldencove (exact)" in r.output
    assert "--isa:    base bmi2 ssse3 avx avx2 avx512 shani" in r.output


def test_uarchs_host_json_with_a_feature_removed(cpu, monkeypatch):
    """SHA1OPT_CPU_LACKS=avx takes avx, avx2 and avx512vl away, and with them the levels that need them."""
    monkeypatch.setenv(host_cpu.LACKS_ENV, "avx")
    cpu(EMERALD)
    r = CliRunner().invoke(main, ["uarchs", "--host", "--json"])
    info = json.loads(r.output)
    assert info["uarch"] == "goldencove" and info["match"] == "exact"
    assert info["removed_by_env"] == ["avx", "avx2", "avx512vl"]
    assert info["isa_levels"] == ["base", "bmi2", "ssse3"]


def test_uarchs_host_on_this_machine_reads_cpuid():
    """Wherever the suite runs: the real CPU is read from cpuid and printed with its numbers."""
    cpu = host_cpu.host()
    if cpu is None:
        pytest.skip("this machine's CPU identification cannot be read")
    r = CliRunner().invoke(main, ["uarchs", "--host"])
    assert r.exit_code == 0, r.output
    assert f"{cpu.id.vendor} family {cpu.id.family} (0x{cpu.id.family:x}) model {cpu.id.model}" in r.output


def test_demo_takes_this_cpus_model_and_a_fallback_for_an_unknown_cpu(cpu):
    cpu(EMERALD)
    step, model = host_step()
    assert model == "goldencove" and step.ok and "family 6 model 207" in step.detail
    cpu(UNKNOWN)
    step, model = host_step()
    assert model == FALLBACK_MODEL and "no row of corpus/cpus.toml" in step.detail
