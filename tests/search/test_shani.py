"""The SHA-NI block generator and search: proofs, refutations, table rows, legality, the search's report."""

from __future__ import annotations

import pytest

from sha1opt.semantics.att import parse_text
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.prove import Counterexample
from sha1opt.semantics.vector import VECTOR_ROWS
from sha1opt.semantics.x86 import SEMANTICS
from sha1opt.search.cost import load_model
from sha1opt.search.engines.shani import best_shani
from sha1opt.search.space.shani import ShaniParams, default_params, legal, parts, prove_code, prove_shani, unit_text


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_generated_block_proves(arch):
    res = prove_shani(default_params(arch), arch)
    assert res.ok, res.failure and res.failure.describe()


def test_a_moved_schedule_point_still_proves():
    p = ShaniParams(msg1_lead=2, xor_lead=1, msg2_lead=1, sched_after=True, load_lead=0)
    assert legal(p, "x86_64")
    assert prove_shani(p, "x86_64").ok


def _mutant(text: str, edit) -> list:
    lines = text.splitlines()
    edit(lines)
    return parse_text("\n".join(lines), "x86_64")


def test_a_wrong_sha1rnds4_immediate_is_refuted():
    def edit(lines):
        k = next(i for i, line in enumerate(lines) if line.startswith("sha1rnds4 $1,"))
        lines[k] = lines[k].replace("$1,", "$0,")
    res = prove_code(_mutant(unit_text(default_params("x86_64"), "x86_64"), edit), "x86_64")
    assert not res.ok and isinstance(res.outcome, Counterexample)


def test_a_dropped_sha1nexte_is_refuted():
    def edit(lines):
        del lines[[i for i, line in enumerate(lines) if line.startswith("sha1nexte")][3]]
    res = prove_code(_mutant(unit_text(default_params("x86_64"), "x86_64"), edit), "x86_64")
    assert not res.ok and isinstance(res.outcome, Counterexample)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_every_instruction_is_a_row_of_the_table(arch):
    code = parse_text(unit_text(default_params(arch), arch), arch)
    assert all(ins.mnemonic in SEMANTICS for ins in code)
    used = {ins.mnemonic for ins in code}
    assert {"sha1rnds4", "sha1nexte", "sha1msg1", "sha1msg2"} <= used
    assert all(VECTOR_ROWS[m].isa == "sha" for m in used if m.startswith("sha1"))


def test_i386_uses_only_xmm0_to_7():
    text = unit_text(default_params("i386"), "i386")
    assert not any(f"%xmm{n}" in text for n in range(8, 16))
    with pytest.raises(Sha1optError):
        parts(ShaniParams(), "i386")     # register saves need xmm8/9


def test_a_schedule_that_overwrites_a_live_register_is_illegal():
    # sha1msg2 of group n in group n's own slot, after its sha1nexte read the unfinished words
    assert not legal(ShaniParams(msg2_lead=0), "x86_64")


def test_best_shani_returns_a_proved_point_with_a_stop_reason():
    r = best_shani(load_model("zen5"), "x86_64", budget=3)
    assert r.proved and r.stop_reason == "budget of 3 evaluations"
    assert r.cycles <= r.default_cycles and r.cycles_per_byte == r.cycles / 64


def test_best_shani_refuses_a_model_without_shani():
    with pytest.raises(Sha1optError, match="no SHA-NI"):
        best_shani(load_model("skylake"), "x86_64", budget=3)
