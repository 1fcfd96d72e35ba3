"""A function proof's results are data: path kind, label, loop head, cut count and refusal category are fields.

One test per rule. The functions are the project's textbook x86-64 export, and
that export with one line added (an unmodelled instruction in the loop, an
indirect jump before it); nothing here reads a fact out of a name or a detail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sha1opt.emit.assembly import function_text
from sha1opt.emit.objfile import load_object
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.function import PATH_KINDS, Contract, FunctionProof, PathReport, prove_function
from sha1opt.semantics.lift.values import CATEGORIES
from sha1opt.semantics.sha1 import range_spec

LIFT = Path(__file__).resolve().parents[3] / "semantics" / "lift"


@pytest.fixture(scope="module")
def export_text() -> str:
    return function_text(textbook("x86_64"))


def _prove(tmp_path, text: str) -> FunctionProof:
    f = tmp_path / "f.S"
    f.write_text(text)
    uo = load_object(f, tmp_path)
    return prove_function(uo.obj, "sha1_block_data_order", Contract("sysv", 0))


def _report(kind, label="sym", head=None) -> PathReport:
    return PathReport(kind, label, head, "", "proved", "", 0, 0.0)


def test_the_name_is_made_from_kind_head_and_label():
    assert _report("loop", "_ssse3_shortcut", 0x13E0).name == "loop at 0x13e0 (_ssse3_shortcut)"
    assert _report("loop not entered").name == "entry -> ret, loop not entered"
    assert _report("no loop").name == "entry -> ret, no loop"
    assert _report("one block").name == "entry -> ret, one block"
    assert _report("stopped", "_avx_shortcut").name == "_avx_shortcut"        # a stopped path: its label
    assert len({_report(k, "f", 1).name for k in PATH_KINDS}) == len(PATH_KINDS)


def test_every_refusal_is_raised_with_one_of_the_categories():
    """Each ``Refused(d, why, category)`` in the executor names a category (a ``Violation`` is "contract")."""
    sites = 0
    for path in LIFT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refused":
                sites += 1
                assert len(node.args) == 3 and isinstance(node.args[2], ast.Constant), (path.name, node.lineno)
                assert node.args[2].value in CATEGORIES, (path.name, node.lineno, node.args[2].value)
    assert sites >= 50


def test_the_textbook_export_reports_its_paths_as_data(tmp_path, export_text):
    proof = _prove(tmp_path, export_text)
    skip, loop = proof.paths
    assert (skip.kind, skip.label, skip.head, skip.category) == ("loop not entered", "sha1_block_data_order", None,
                                                                 None)
    assert (loop.kind, loop.label, loop.category) == ("loop", "sha1_block_data_order", None)
    assert loop.head == proof.loop_paths()[0].head and loop.name == f"loop at 0x{loop.head:x} (sha1_block_data_order)"


def test_cuts_count_the_cut_points_the_proof_checked(tmp_path, export_text):
    """The loop's paths share the iteration up to the branch: compress(H, block) is checked once on it, one cut
    per definition of the 80-round spec; the nblocks = 0 exit checks no compression."""
    skip, loop = _prove(tmp_path, export_text).paths
    assert loop.outcome == "proved" and loop.cuts == len(range_spec(Builder(), 0, 79).definitions) == 160
    assert skip.cuts == 0


def test_a_stopped_path_carries_its_category_and_is_shown_by_its_label(tmp_path, export_text):
    text = export_text.replace("\tjz .Lsha1_done\n", "\tjz .Lsha1_done\n\tjmp *%rax\n", 1)
    stopped = [p for p in _prove(tmp_path, text).paths if p.outcome == "refused"]
    assert [(p.kind, p.category, p.name) for p in stopped] == [("stopped", "control flow", "sha1_block_data_order")]
    assert "indirect jump" in stopped[0].detail


def test_a_loop_whose_iteration_is_refused_carries_the_refusal_category(tmp_path, export_text):
    text = export_text.replace("\tbswap %r8d\n", "\tadc %ecx, %r8d\n\tbswap %r8d\n", 1)
    loop = next(p for p in _prove(tmp_path, text).paths if p.kind == "loop")
    assert (loop.outcome, loop.category, loop.cuts) == ("refused", "instruction", 0)
