"""bench/pair_table.py, the table bench/simd.py and bench/simd_i386.py print, on made-up reports (nothing timed).

What is proved: the header and the rows line up for the width a script passes (the rule of the
module docstring), both scripts' rows stay as they were before the table moved out of them
(x86-64: a 22-wide block column; i386: ``i386 LEVEL`` in 16), a refusal is one line with its
reason, and both scripts import the helper (run from bench/, as ``python bench/simd.py`` is).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from sha1opt.emit.bench import BenchRefusal, BenchReport, PeerStats
from sha1opt.emit.validate import Check, Validation

ROOT = Path(__file__).resolve().parents[2]
STAT = PeerStats("OpenSSL ssse3", 16384, 1.9, 2.0, 0.95, 0.94, 0.96, 0.948, 40)


@pytest.fixture
def pt(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))    # the scripts import their sibling pair_table.py
    return importlib.import_module("pair_table")


def test_header_and_rows_line_up(pt):
    for width in (16, 22):
        h, r = pt.header(width), pt.row(" " * width, STAT)
        assert h.index("peer") == r.index("OpenSSL") == width + 1
        assert len(h) == len(r)


def test_the_i386_row_is_as_the_script_printed_it(pt):
    assert pt.row("i386 ssse3      ", STAT) == \
        "i386 ssse3       OpenSSL ssse3       16384   0.950  0.940  0.960   0.948    1.900    2.000"


def test_the_line_under_the_rows_is_indented_by_the_width_not_the_label(pt, monkeypatch):
    # bench/simd.py pads names to 22; a longer name must not push the line under the rows
    monkeypatch.setattr(pt, "load", lambda: "load average 0")
    rep = BenchReport("x86_64", 2.1e9, 40, stats=[STAT], validated=("prove", "vectors"))
    lines = pt.report_lines(f"{'a block name longer than 22':22s}", 22, rep)
    assert len(lines) == 2 and lines[0].startswith("a block name longer than 22 OpenSSL ssse3")
    assert lines[1] == " " * 22 + " validated first: prove, vectors; TSC 2.100 GHz; load average 0"


def test_a_refusal_is_one_line_with_its_reason(pt):
    refusal = BenchRefusal(Validation([Check("prove", False, "W12 differs", 0.1)]))
    assert pt.report_lines(f"{'zen5 export':22s}", 22, refusal) == \
        ["zen5 export            refused: prove failed: W12 differs"]


def test_empty_path_names_are_dropped(pt):
    assert pt.openssl_paths("integer,,ssse3,") == ("integer", "ssse3")
    assert pt.openssl_paths("") == ()


@pytest.mark.parametrize("script", ["simd", "simd_i386"])
def test_both_scripts_import_the_table(pt, script):
    mod = importlib.import_module(script)
    assert mod.report_lines is pt.report_lines and mod.header is pt.header
