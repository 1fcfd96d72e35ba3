"""Names and values on the command line: models, commands, option values (issue 27 regressions, each named after its bug)."""

import pytest

from sha1opt.search.cost.model import UarchError, canonical_name


def test_regression_uarch_P4_refused_for_its_case():
    assert canonical_name("P4") == "p4" and canonical_name("ZEN3") == "zen3"
    assert canonical_name("SapphireRapids") == "goldencove"          # aliases too


def test_regression_uarch_p44_has_no_did_you_mean():
    with pytest.raises(UarchError, match=r"did you mean p4\b"):
        canonical_name("p44")


def test_a_name_far_from_every_model_is_refused_without_a_guess():
    with pytest.raises(UarchError) as e:
        canonical_name("sparc64")
    assert "did you mean" not in str(e.value) and "known: atom" in str(e.value)


def test_regression_serach_has_no_did_you_mean():
    """A mistyped command is one line naming the command it is close to, exit 2."""
    from click.testing import CliRunner

    from sha1opt.cli import main
    r = CliRunner().invoke(main, ["serach"])
    assert r.exit_code == 2 and "did you mean search?" in r.output and len(r.output.strip().splitlines()) == 1


def test_regression_search_p4_arch_x86_64_ended_in_a_raw_cc1_error():
    """p4 is a 32-bit CPU's model: x86-64 code for it is refused in one line before any work."""
    from click.testing import CliRunner

    from sha1opt.cli import main
    r = CliRunner().invoke(main, ["search", "--uarch", "p4", "--arch", "x86_64", "--rounds", "40-44"])
    assert r.exit_code == 2 and "runs only i386 code" in r.output and len(r.output.strip().splitlines()) == 1


def test_regression_time_limit_minus_5_and_0_worded_differently():
    """A negative and a zero time limit are the same error: out of the option's range."""
    from click.testing import CliRunner

    from sha1opt.cli import main
    out = [CliRunner().invoke(main, ["search", "--time-limit", v]).output for v in ("-5", "0")]
    assert all("is not within 1..604800 seconds" in o for o in out)


def test_regression_rounds_40_was_silently_the_range_40_40():
    from click.testing import CliRunner

    from sha1opt.cli import main
    r = CliRunner().invoke(main, ["show", "--uarch", "p4", "--rounds", "40"])
    assert r.exit_code == 2 and "one round is written 40-40" in r.output


def test_regression_p4_rounds_40_printed_negative_bounds_and_proved_optimal():
    """Net of its context a one-round range's bound parts were negative (critical path -14.0, ...) and the
    bound 0 was reported as "gap 0: proved optimal". Parts are never negative; a 0 bound proves nothing."""
    from sha1opt.search.bound import range_bound
    from sha1opt.search.cost.model import load_model
    b = range_bound(load_model("p4"), 40, 40, "i386")
    assert min(b.critical_path, b.issue_width, b.ports) >= 0.0
    if b.cycles == 0:
        assert b.gap(10.0) is None


def test_regression_bench_huge_spread_reported_as_is(monkeypatch, tmp_path):
    """A bench row with median 1.100, p10 0.428, p90 1.929 was printed as a finding: it now carries a warning."""
    from click.testing import CliRunner

    from sha1opt import cli_emit
    from sha1opt.cli import main
    from sha1opt.emit.bench import BenchReport, PeerStats
    rows = [PeerStats("OpenSSL integer", 16384, 2.0, 1.8, 1.100, 0.428, 1.929, 1.0, 30),
            PeerStats("gcc -O2 C", 16384, 2.0, 2.2, 0.91, 0.90, 0.93, 0.9, 30)]
    monkeypatch.setattr(cli_emit, "do_bench", lambda *a, **k: BenchReport("x86_64", 2e9, 30, rows))
    src = tmp_path / "f.S"
    src.write_text("\t.text\n")
    r = CliRunner().invoke(main, ["bench", str(src), "--arch", "x86_64"])
    warnings = [ln for ln in r.output.splitlines() if ln.startswith("warning:")]
    assert r.exit_code == 0 and len(warnings) == 1 and "OpenSSL integer at 16384 B" in warnings[0]
    assert "136 % of the median 1.100" in warnings[0]
