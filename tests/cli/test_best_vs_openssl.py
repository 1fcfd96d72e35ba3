"""bench/best_vs_openssl.py's formatting and figures section replacement (docs/figures.md), on made-up rows (no search runs).

Proves: the README section is replaced between its markers and nothing else changes; a file without
the markers is refused (None) rather than appended to; each table line carries the ratio and, only
where OpenSSL wins, the reason; the summary names the pairs OpenSSL wins; the path family and the
model-ISA filter read their inputs as documented; docs/figures.md holds the markers the script writes to.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from sha1opt.search.cost.model import load_model

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bvo():
    sys.path.insert(0, str(ROOT / "bench"))     # the script imports its sibling search_acceptance.py
    try:
        yield importlib.import_module("best_vs_openssl")
    finally:
        sys.path.remove(str(ROOT / "bench"))


def _rows(bvo):
    return [bvo.Row("zen5", "x86_64", 1.90, "SHA-NI", "critical path", 2.00, "_shaext_shortcut", "port fp0"),
            bvo.Row("core2", "i386", 6.28, "scalar", "scheduler full", 5.77, "_sha1_block_data_order_ssse3",
                    "port p5", reason="OpenSSL 8.1% fewer c/B; a|b"),
            bvo.Row("pentium", "i386", 13.7, "scalar", "ports u/v", None, "none the CPU runs", "-")]


def test_replace_section_changes_only_between_markers(bvo):
    text = f"head\n{bvo.TABLE_BEGIN}\nold line\n{bvo.TABLE_END}\ntail\n"
    new = f"head\n{bvo.TABLE_BEGIN}\n| a |\n\nsum.\n{bvo.TABLE_END}\ntail\n"
    assert bvo.replace_section(text, ["| a |", "", "sum."]) == new


def test_replace_section_refuses_text_without_both_markers(bvo):
    assert bvo.replace_section("no markers here\n", ["x"]) is None
    assert bvo.replace_section(f"{bvo.TABLE_END}\nthen {bvo.TABLE_BEGIN}\n", ["x"]) is None


def test_table_lines_give_ratio_and_reason_only_where_openssl_wins(bvo):
    head, rule, zen5, core2, pentium = bvo.table_lines(_rows(bvo))
    assert head.count("|") == rule.count("|") == zen5.count("|")
    assert zen5 == "| zen5 | x86_64 | SHA-NI | 1.90 | _shaext_shortcut | 2.00 | 0.950 |  |"
    assert core2.endswith("| 1.088 | OpenSSL 8.1% fewer c/B; a/b |")      # a '|' in a reason cannot split the row
    assert pentium.endswith("| none the CPU runs | - | - |  |")


def test_summary_names_the_pairs_openssl_wins(bvo):
    line = bvo.summary(_rows(bvo))
    assert line.startswith("ours <= OpenSSL's best under the same model on 2 of 3 (model, arch) pairs")
    assert "OpenSSL wins on core2/i386 (1.088)" in line and "zen5" not in line.split("wins on")[1]


def test_family_is_the_loop_label_and_integer_for_the_function_itself(bvo):
    assert bvo.family("_ssse3_shortcut") == "_ssse3_shortcut"
    assert bvo.family("sha1_block_data_order") == "integer"


def test_runs_on_checks_every_feature_against_the_model(bvo):
    core2, pentium = load_model("core2"), load_model("pentium")
    assert bvo.runs_on(core2, {"ssse3"}) and not bvo.runs_on(core2, {"avx"})
    assert not bvo.runs_on(core2, {"ssse3", "sha"}) and not bvo.runs_on(core2, {"bmi2"})
    assert bvo.runs_on(pentium, set()) and not bvo.runs_on(pentium, {"ssse3"})


def test_hybrid_tried_reads_the_export_note(bvo):
    note = ("--isa ssse3: hybrid hybrid:isa=ssse3,lead=3,every=2,ahead;f2=bd: 6.13 c/B predicted on core2 vs "
            "scalar best 6.08 (...)")
    assert bvo.hybrid_tried(["rounds 0-19: default schedule", note]) == ("ssse3", 6.13)
    assert bvo.hybrid_tried(["--isa shani: SHA-NI ..."]) is None


def test_figures_doc_holds_the_section_markers_once(bvo):
    text = (ROOT / "docs" / "figures.md").read_text()
    assert text.count(bvo.TABLE_BEGIN) == 1 and text.count(bvo.TABLE_END) == 1
    assert text.index(bvo.TABLE_BEGIN) < text.index(bvo.TABLE_END)


def test_why_openssl_wins_names_the_gap_and_the_data_behind_it(bvo):
    path = bvo.OpensslPath("loop at 0x1 (_avx2_shortcut)", "_avx2_shortcut", frozenset({"avx2", "bmi2"}), (), 128)
    row = bvo.Row("skylake", "x86_64", 3.66, "scalar", "front end, 250 fused uops/64 B", 3.41, "_avx2_shortcut",
                  "front end, 230 fused uops/64 B")
    why = bvo.why_openssl_wins(row, path, "x86_64", ("avx", 3.70))
    assert why.startswith("OpenSSL 6.8% fewer c/B; its _avx2_shortcut (avx2+bmi2) bound by front end, "
                          "230 fused uops/64 B")
    assert "2 blocks per iteration" in why and "predicts 3.70 c/B, so export keeps scalar" in why
    assert "i386" not in why
    ssse3 = bvo.OpensslPath("loop at 0x1 (_ssse3)", "_ssse3", frozenset({"ssse3"}), (), 64)
    assert "i386" not in bvo.why_openssl_wins(row, ssse3, "i386", None)     # the hybrid has an i386 form now


def test_regression_the_sha_ni_bottleneck_crashed_on_its_cmov_loop_control(bvo):
    """The pipelined SHA-NI form's loop control has ``cmovne`` (no semantics row: the lifter forks on it);
    our_bottleneck parsed the loop text and raised "unsupported instruction 'cmovne'"."""
    from sha1opt.emit.dispatch_plan import Candidate
    from sha1opt.emit.dispatch_text import PathCode
    from sha1opt.emit.family import Choice
    from sha1opt.emit.family_shani import SHANI
    from sha1opt.search.space.shani import default_params

    params = replace(default_params("x86_64"), preload=1)
    cand = Candidate(PathCode("shani", frozenset({"sha"}), ""), Choice(SHANI, params, "x86_64"), "test", 1.6)
    assert "fused uops/64 B" in bvo.our_bottleneck(cand, load_model("goldencove"), "x86_64")
