"""``analyze``: predicted cost per model of the loop the machine code runs, and the whole-function proof."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sha1opt.analyze import analyze_file, cost_items
from sha1opt.cli_analyze import analyze
from sha1opt.emit.assembly import function_text
from sha1opt.search.cost.model import UarchError, model_names
from sha1opt.search.space.candidate import textbook


@pytest.fixture(scope="module")
def function_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("analyze")
    out = {}
    for arch in ("x86_64", "i386"):
        p = d / f"textbook_{arch}.S"
        p.write_text(function_text(textbook(arch)))
        out[arch] = p
    return out


def test_analyze_proves_and_costs_the_textbook_function(function_files):
    for arch, path in function_files.items():
        results = analyze_file(path, ["skylake", "p4-northwood", "pentium"])
        assert [a.uarch for a in results] == ["skylake", "p4", "pentium"]
        for a in results:
            assert a.arch == arch and a.loop and a.proved
            assert a.proof.summary().startswith("proved SHA-1 (whole function")
            assert a.cycles >= 160 and a.cycles_per_byte == pytest.approx(a.cycles / 64)
            assert a.bottleneck == a.simulation.bottleneck


def test_cost_items_are_the_loop_iteration(function_files):
    (a,) = analyze_file(function_files["x86_64"], ["zen3"])
    items = cost_items(a.proof.proof.loop_trace)
    # the body (1241 table instructions) plus the loop control: add, dec, jne
    assert str(items[-3]) == "add $0x40, %rsi" and items[-2].mnemonic.startswith("dec")
    assert items[-1].mnemonic == "jne" and items[-1].kind == "branch"


def test_analyze_never_claims_a_broken_function_is_proved(function_files, tmp_path):
    text = function_files["x86_64"].read_text()
    broken = tmp_path / "broken.S"
    broken.write_text(text.replace("rol $5,", "rol $6,", 1))      # round 0's rotate, wrong count
    (a,) = analyze_file(broken, ["zen3"])
    assert not a.proved and a.proof.outcome == "counterexample"
    assert "confirmed natively" in a.proof.summary()
    assert a.cycles is not None                                  # still costed


def test_unknown_model_fails_before_any_work(function_files):
    with pytest.raises(UarchError, match="unknown microarchitecture 'k6'"):
        analyze_file(function_files["x86_64"], ["k6"])


def test_cli_analyze(function_files, tmp_path):
    r = CliRunner().invoke(analyze, [str(function_files["i386"]), "--uarch", "atom", "--uarch", "p4-prescott"])
    assert r.exit_code == 0, r.output
    assert "atom" in r.output and "p4-prescott" in r.output and "SHA-1: proved SHA-1" in r.output
    r = CliRunner().invoke(analyze, [str(function_files["x86_64"]), "--all-uarchs", "--json"])
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert data["proved"] is True and [row["uarch"] for row in data["results"]] == model_names()
    bad = tmp_path / "bad.s"
    bad.write_text("f:\n\troll $5, %eax\n\tfrobnicate %eax\n")
    r = CliRunner().invoke(analyze, [str(bad), "--uarch", "zen3"])
    assert r.exit_code == 2 and r.stderr.strip().count("\n") == 0 and "bad.s:3" in r.stderr
    r = CliRunner().invoke(analyze, [str(bad)])
    assert r.exit_code == 2                                     # neither --uarch nor --all-uarchs
