"""Synthesized sequences in the space: proved rows of the discovered corpus are recipe options, with their proof."""

from dataclasses import replace

import pytest

from sha1opt.search.driver import prove_in_block
from sha1opt.search.space import recipe
from sha1opt.search.space.candidate import Candidate, realize
from sha1opt.search.space.recipe import NAMED_OPTIONS, OPTIONS, SYNTHESIZED, TEXTBOOK, Recipe, option_isa
from sha1opt.search.space.synthesized import option_of, synthesized_options
from sha1opt.search.synth.discovered import discovered_path, load_discovered

# Not minimal (four instructions where three do), which is why no shipped row has it: f2 with two temporaries.
NEW_ROW = '''
[[sequence]]
name = "f2/t2/base/keep/99"
target = "f2"
temps = 2
isa = "base"
destroy = false
length = 4
code = "mov %ebx, %esi; mov %ecx, %edi; xor %edi, %esi; xor %edx, %esi"
minimal = true
proved_by = "z3"
date = "2026-12-01"
tool_version = "0.1.0"
source = "sha1opt synth"
'''


def _with_new_row(tmp_path):
    path = tmp_path / "discovered.toml"
    path.write_text(discovered_path().read_text() + NEW_ROW)
    return synthesized_options(load_discovered(path))


def test_a_new_discovered_row_is_an_option(tmp_path):
    assert "f2/t2/base/keep/99" not in OPTIONS["f2"]
    opts = _with_new_row(tmp_path)
    assert "f2/t2/base/keep/99" in opts["f2"]
    opt = opts["f2"]["f2/t2/base/keep/99"]
    assert opt.output == "esi" and opt.temps == ("esi", "edi") and not opt.into_e


def test_a_candidate_using_a_new_row_proves_in_a_block(tmp_path, monkeypatch):
    opts = _with_new_row(tmp_path)
    name = "f2/t2/base/keep/99"
    monkeypatch.setitem(recipe.SYNTHESIZED, "f2", opts["f2"])
    monkeypatch.setitem(recipe.OPTIONS, "f2", NAMED_OPTIONS["f2"] + tuple(opts["f2"]))
    monkeypatch.setitem(recipe.JUSTIFIED_BY, ("f2", name), name)
    r = Recipe.parse(f"f2={name}")
    assert recipe.option_isa("f2", name) == "base" and name in recipe.options_for("f2", "base")
    real = realize(Candidate(20, 39, "i386", r))
    assert real is not None
    assert sum(1 for op in real.ops if op.chain == "f") == 20 * 5      # four instructions + the add into e
    proved, why = prove_in_block(real.code, 20, 39, "i386")
    assert proved, why


def test_every_synthesized_option_rests_on_its_row():
    names = {r.name for r in load_discovered()}
    for field, opts in SYNTHESIZED.items():
        for name in opts:
            assert recipe.JUSTIFIED_BY[(field, name)] == name and name in names


def test_rows_that_are_not_a_rounds_f_are_not_options():
    for row in load_discovered():
        opt = option_of(row)
        if row.destroy or row.target.endswith("-round") or row.target == "w-word":
            assert opt is None, row.name
        else:
            assert opt is not None and opt.field == row.target[:2], row.name


def test_identical_code_is_one_option():
    seen = set()
    for field, opts in SYNTHESIZED.items():
        for name in opts:
            t = {"f1": 17, "f2": 30, "f3": 50}[field]
            real = realize(Candidate(t, t, "x86_64", replace(TEXTBOOK, **{field: name})))
            code = tuple(str(op.ins) for op in real.ops if op.chain == "f")
            assert (field, code) not in seen, name
            seen.add((field, code))


@pytest.mark.parametrize("field,first,last,arch,isa", [
    ("f1", 0, 19, "i386", "base"), ("f2", 20, 39, "i386", "base"), ("f3", 40, 59, "i386", "base"),
    ("f1", 0, 19, "x86_64", "bmi1"), ("f3", 40, 59, "x86_64", "bmi1")])
def test_shipped_synthesized_options_prove_in_a_block(field, first, last, arch, isa):
    # one option per field and ISA (all 86 field x arch pairs prove; that run takes minutes here)
    name = next(n for n in SYNTHESIZED[field] if option_isa(field, n) == isa)
    real = realize(Candidate(first, last, arch, replace(TEXTBOOK, **{field: name})))
    proved, why = prove_in_block(real.code, first, last, arch)
    assert proved, why
