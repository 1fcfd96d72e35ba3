"""The zen4 model (corpus/uarch/zen4.toml): AMD Zen 4 / Zen 4c (family 19h models 10h-1Fh, 60h-AFh), a literature
model that ``inherits`` zen3, with two measured forwarding rules.

Each test proves one property the file claims, with the source its rows cite: AMD's Zen 4 optimization guide
(pub. 57647) as LLVM's X86ScheduleZnver4.td quotes it, uops.info ZEN4 as RRZE-HPC/OSACA's zen4.yml records it,
and the rule that Zen 4 keeps Zen 3's integer core (so every integer row is zen3's). What separates zen4 from
zen3 for sha1opt is AVX-512VL: the hybrid family's ``avx512`` level (its vprold / vpternlogd dialects) is
zen4's and never zen3's. Only its two forwarding rules were measured (on a Zen 4, by calibrate's kernels).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sha1opt.emit.families import dispatch_levels, tune_families
from sha1opt.emit.family import family_level
from sha1opt.emit.family_hybrid import HYBRID
from sha1opt.emit.family_scalar import SCALAR
from sha1opt.emit.family_shani import SHANI
from sha1opt.search.cost import load_model, simulate
from sha1opt.search.cost.classes import classify
from sha1opt.search.cost.model import BMI1_CLASSES, BMI2_CLASSES, CLASSES, UarchError
from sha1opt.semantics.datafiles import load_toml
from sha1opt.semantics.listing import parse_listing

Z4 = "zen4"
XMMS = tuple(f"xmm{k}" for k in range(8))


def own_rows() -> dict:
    """zen4.toml as written (before the ``inherits`` merge)."""
    return load_toml(load_model(Z4).path)


def vec_loop_cycles(src: str, uarch: str = Z4) -> float:
    """Steady-state clocks per iteration of x86-64 listing text (vector instructions allowed) as a loop body."""
    return simulate(parse_listing(src, "x86_64").items, load_model(uarch), loop=True).cycles


def test_width_window_tuning_and_isa():
    """SOG 57647 (as LLVM X86ScheduleZnver4.td quotes it): 6 macro-ops dispatched per clock (2.9.8), 320 in
    flight (2.10.3; Zen 3: 256). AVX-512F/VL and SHA-NI on top of zen3's extensions; BMI2. GCC 12 has no znver4,
    so the gcc peer is tuned for znver3 (the file says why)."""
    m, z3 = load_model(Z4), load_model("zen3")
    assert (m.engine, m.issue_width, m.retire_width, m.window, m.arch, m.gcc_mtune) == \
        ("out-of-order", 6, 8, 320, "x86_64", "znver3")
    assert z3.window == 256
    assert m.has_vector("avx512f") and m.has_vector("avx512vl") and m.has_vector("sha") and m.has_vector("sse4a")
    assert not z3.has_vector("avx512vl")
    assert set(z3.vector_isa) < set(m.vector_isa) and m.isa == "bmi2"


def test_integer_core_is_zen3s_by_inheritance():
    """Zen 4 keeps Zen 3's integer core (SOG 57647 2.10.2: four ALUs, three AGUs; LLVM: shifts and rotates on
    Zn4ALU12): zen4.toml ``inherits`` zen3 and restates no integer row, so every integer class and unit is
    zen3's -- rot_imm on alu1|alu2, latency 1 -- and every rule but the one measured on a Zen 4:
    ``memory_renaming`` and ``rmw_forwarding`` (test_cost.py::test_memory_renaming_gives_a_plain_reload_the_stored_data_at_rename)."""
    assert own_rows()["inherits"] == "zen3"
    assert not set(own_rows().get("units", {})) and set(own_rows().get("rules", {})) == {"memory_renaming", "rmw_forwarding"}
    assert not set(own_rows()["classes"]) & set(CLASSES + BMI1_CLASSES + BMI2_CLASSES)
    m, z3 = load_model(Z4), load_model("zen3")
    for cls in CLASSES + BMI1_CLASSES + BMI2_CLASSES:
        assert m.classes[cls] == z3.classes[cls], cls
    assert z3.rules.memory_renaming is None and m.rules.memory_renaming.latency == 0
    assert m.rules.rmw_forwarding.latency == 0 and m.rules.rmw_forwarding.immediate
    assert m.units == z3.units and m.rules == replace(z3.rules, memory_renaming=m.rules.memory_renaming,
                                                      rmw_forwarding=m.rules.rmw_forwarding)
    rot = m.classes["rot_imm"]
    assert ([u.units for u in rot.ports], rot.latency, rot.rthroughput) == ([("alu1", "alu2")], 1, 0.5)


def test_vpalignr_takes_two_clocks_where_zen3_takes_one():
    """uops.info ZEN4 (OSACA zen4.yml) and LLVM Zn4WriteALIGNR: VPALIGNR xmm/ymm latency 2 on FP1/FP2; Zen 3
    latency 1 (vec_shuffle). A chain of four vpalignr: 8 clocks on zen4, 4 on zen3; pshufb is unchanged (4)."""
    chain = "vpalignr $8, %xmm1, %xmm0, %xmm0\n" * 4
    assert vec_loop_cycles(chain) == pytest.approx(8.0, abs=0.1)
    assert vec_loop_cycles(chain, "zen3") == pytest.approx(4.0, abs=0.1)
    assert vec_loop_cycles("pshufb %xmm1, %xmm0\n" * 4) == pytest.approx(4.0, abs=0.1)


def test_avx512vl_code_is_priced_on_zen4_and_refused_on_zen3():
    """vprold (vec_shift) and vpternlogd (vec_alu) need AVX-512VL: zen4 prices them, zen3 refuses them by
    name -- the pricing never silently takes code a CPU cannot run."""
    items = parse_listing("vprold $5, %xmm1, %xmm2\nvpternlogd $0x96, %xmm1, %xmm2, %xmm3\n", "x86_64").items
    assert [classify(i, load_model(Z4)) for i in items] == ["vec_shift", "vec_alu"]
    with pytest.raises(UarchError, match="AVX512VL.*zen3"):
        classify(items[0], load_model("zen3"))


def test_the_avx512_levels_are_zen4s_not_zen3s():
    """``family.family_level`` / ``Family.model_has`` read the model's ISA: under ``--isa avx512`` the hybrid
    family is asked at ``avx512`` on zen4 (its vprold/vpternlogd dialects are searched) and at ``avx2`` on
    zen3 (under ``--isa shani`` likewise: ``shani`` with its AVX-512 dialects against ``avx2``); the dispatcher
    makes an avx512 path for zen4 and none for zen3 (both have SHA-NI paths)."""
    z4, z3 = load_model(Z4), load_model("zen3")
    assert HYBRID.model_has(z4, "avx512") and not HYBRID.model_has(z3, "avx512")
    assert family_level(HYBRID, z4, "avx512") == "avx512" and family_level(HYBRID, z3, "avx512") == "avx2"
    assert tune_families(z4, "avx512") == ((SCALAR, "avx512"), (HYBRID, "avx512"))
    assert tune_families(z4, "shani") == ((SCALAR, "shani"), (HYBRID, "shani"), (SHANI, "shani"))
    assert tune_families(z3, "shani") == ((SCALAR, "shani"), (HYBRID, "avx2"), (SHANI, "shani"))
    assert set(dispatch_levels(z4)) - set(dispatch_levels(z3)) == {"avx512"}
    assert "avx512" in dispatch_levels(z4) and "shani" in dispatch_levels(z3)


def test_every_restated_row_says_where_its_zen4_figure_comes_from():
    """House rule: a source per row. The rows zen4.toml restates name a Zen 4 source or say the Zen 3 value is
    carried over; the rows it does not restate are zen3's own (same source)."""
    own = own_rows()["classes"]
    m, z3 = load_model(Z4), load_model("zen3")
    for name, cost in m.classes.items():
        if name in own:
            assert "ZEN4" in cost.source or "Zen 4" in cost.source, name
        else:
            assert cost == z3.classes[name], name
