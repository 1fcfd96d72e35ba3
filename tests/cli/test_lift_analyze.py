"""``analyze``: predicted cost per model of the loop the machine code runs, and the whole-function proof."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sha1opt.emit.host_cpu import HostError, uarch_name

from sha1opt.analyze import PathCost, analyze_file, cost_items
from sha1opt.cli_analyze import analyze
from sha1opt.views.report import path_table
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


def test_truncated_loop_is_never_priced(function_files, tmp_path):
    """Issue 24, the bug: on a function whose lift stopped inside the loop, `analyze` priced the instructions
    it had lifted as the loop (809 of ~1,027: 2.09 c/B on zen5 for code costing 2.75), with no warning.
    Here the textbook export with an untracked value in round 40 (a pointer added as data, into a register
    nothing reads: the function is still right, the lift stops there): it once priced the 574 instructions
    before that point as 1.27 c/B. Now no figure, in the table or in --json, and the reason is named."""
    text = function_files["x86_64"].read_text()
    cut = tmp_path / "cut.S"
    cut.write_text(text.replace("/* round 40 */", "mov %rsi, %r9\n\tadd %r9d, %r10d\n\t/* round 40 */", 1))
    r = CliRunner().invoke(analyze, [str(cut), "--uarch", "zen5"])
    assert r.exit_code == 3, r.output                              # not proved (unknown), not refused
    header, columns, row = r.output.splitlines()[:3]
    assert "not priced: loop at 0x" in header and "is not lifted whole" in header and "`addl %r9d, %r10d`" in header
    assert row.split()[:3] == ["zen5", "-", "-"] and "not lifted whole" in row
    assert "instructions per block" not in r.output and "paths x models" not in r.output
    r = CliRunner().invoke(analyze, [str(cut), "--uarch", "zen5", "--json"])
    data = json.loads(r.stdout)
    (res,) = data["results"]
    assert res["cycles"] is None and res["cycles_per_byte"] is None and "addl %r9d, %r10d" in res["unlifted"]
    (path,) = data["paths"]
    assert path["cycles_per_byte"] is None and "a path of the iteration stops" in path["unlifted"]


def test_path_table_gives_a_path_not_lifted_whole_no_figure_and_says_why():
    """Issue 24: in the paths x models table a loop not lifted whole shows '-' on every model (not 'n/a', which
    is a model that cannot run the code), and a line under the table names why."""
    costs = [PathCost("loop at 0x10 (a)", "proved", "zen5", 2.5), PathCost("loop at 0x10 (a)", "proved", "p4", None,
                                                                        "no SHA-NI"),
             *(PathCost("loop at 0x90 (b)", "unknown", u, None, unlifted="a path of the iteration stops: cmovb")
               for u in ("zen5", "p4"))]
    head, a, b, why = path_table(costs)
    assert a.split()[-2:] == ["2.50", "n/a"] and b.split()[-2:] == ["-", "-"]
    assert why == "loop at 0x90 (b): not priced, not lifted whole: a path of the iteration stops: cmovb"


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
    r = CliRunner().invoke(analyze, [str(function_files["x86_64"]), "--uarch", "zen3", "--all-uarchs"])
    assert r.exit_code == 2 and "not both" in r.output


def test_cli_analyze_without_uarch_predicts_for_this_cpus_model(function_files):
    """Issue 22: analyze with no --uarch uses this machine's model (`--uarch host`), not a refusal."""
    try:
        mine = uarch_name("host")
    except HostError as e:
        pytest.skip(str(e))
    r = CliRunner().invoke(analyze, [str(function_files["x86_64"]), "--json"])
    assert r.exit_code == 0, r.output
    assert [row["uarch"] for row in json.loads(r.stdout)["results"]] == [mine]


LIBCRYPTO = "/usr/lib/x86_64-linux-gnu/libcrypto.a"


@pytest.mark.skipif(not __import__("os").path.exists(LIBCRYPTO), reason="libssl-dev not installed")
def test_analyze_prints_paths_by_models_for_openssls_dispatching_function(openssl_x86_64_analysis):
    """Issue 10: `sha1opt analyze` on libcrypto.a prints a table of paths x models in c/B; each dispatch
    path's loop is costed (vector rows too: vzeroupper is a vector item, not a scalar instruction)."""
    # `analyze LIBCRYPTO --member libcrypto-lib-sha1-x86_64.o --uarch skylake --uarch zen1`, run once for the
    # session (tests/conftest.py; tests/semantics/lift/test_lift_openssl.py checks the proof it made)
    res = openssl_x86_64_analysis.cli
    lines = res.output.splitlines()
    head = next(i for i, ln in enumerate(lines) if "paths x models" in ln)
    rows = lines[head + 1: head + 6]
    names = ["sha1_block_data_order)", "_shaext_shortcut", "_avx2_shortcut", "_avx_shortcut", "_ssse3_shortcut"]
    assert all(any(n in r for r in rows) for n in names), rows
    ssse3 = next(r for r in rows if "_ssse3_shortcut" in r).split()
    integer = next(r for r in rows if "sha1_block_data_order)" in r).split()
    assert float(ssse3[-2]) < float(integer[-2])           # skylake: SSSE3 faster than integer, as published
    shaext = next(r for r in rows if "_shaext_shortcut" in r).split()
    assert shaext[-2] == "n/a" and float(shaext[-1]) < 2.5   # skylake has no SHA-NI; zen1 does


def test_the_main_table_names_the_path_it_prices(openssl_x86_64_analysis):
    """A function with several paths: the header names the one the main table prices (the paths table's first
    row), and the figures agree (a one-block function's main table priced an arbitrary path, unnamed)."""
    lines = openssl_x86_64_analysis.cli.output.splitlines()
    assert lines[0].endswith("priced below: loop at 0xb0 (sha1_block_data_order)"), lines[0]
    skylake = next(ln for ln in lines if ln.split()[:1] == ["skylake"]).split()
    first_row = lines[next(i for i, ln in enumerate(lines) if "paths x models" in ln) + 1].split()
    assert first_row[-2] == skylake[2]
