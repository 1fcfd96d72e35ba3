"""``show --isa``: the whole block of the level's family, read from the store, drawn by unit class.

The command walks the registry (``emit.families.shown_at``): the highest family admitting the level that has a
report for the model draws (SHA-NI at ``shani`` on a model with SHA-NI), on ``--arch``; its first line is the
figure the family's search stored.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.families import FAMILIES, shown_levels
from sha1opt.search.cost import Simulator
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.engines.shani import block_cycles
from sha1opt.search.family_rows import SHANI_FULL, put_hybrid, put_shani
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.shani import ShaniParams, default_params


def _put_shani(db, uarch: str, arch: str, params: ShaniParams) -> float:
    model = load_model(uarch)
    cycles = block_cycles(params, arch, Simulator(model))
    assert put_shani(db, model, arch, SHANI_FULL, params, cycles, evaluations=3, seconds=1.0, seed=1, proved=True)
    return cycles


def _show(db, *args: str):
    return CliRunner().invoke(main, ["show", *args, "--db", str(db)])


def test_the_levels_are_those_of_families_with_whole_block_reports():
    assert shown_levels() == ("ssse3", "avx", "avx2", "avx512", "shani")
    assert [f.reports for f in FAMILIES] == [False, True, True]


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_shani_draws_the_stored_sha_ni_block_on_the_arch_asked(tmp_path, arch):
    db = tmp_path / "r.sqlite"
    params = ShaniParams(msg1_lead=2, sched_after=True) if arch == "x86_64" else default_params("i386")
    cycles = _put_shani(db, "zen3", arch, params)
    r = _show(db, "--uarch", "zen3", "--arch", arch, "--isa", "shani")
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[0]
    assert head.startswith(f"zen3 ({arch}) shani {params.describe()}: {cycles:.1f} cycles/block"), head
    assert "sha1rnds4" in r.output and "vector (xmm)" in r.output


def test_a_hybrid_level_draws_the_stored_hybrid_block(tmp_path):
    db = tmp_path / "r.sqlite"
    model = load_model("zen3")
    block = build(HybridParams(isa="avx", lead=3, every=2))
    cycles = block_cost(block, model).cycles
    assert put_hybrid(db, model, "avx", block, cycles, evaluations=7, seconds=1.0, seed=0, proved=True)
    r = _show(db, "--uarch", "zen3", "--isa", "avx")
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"zen3 (x86_64) hybrid {block.params.key()}: {cycles:.1f} cycles/block"), r.output
