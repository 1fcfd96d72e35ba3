"""The hybrid family (search/space/hybrid.py, hybrid_proof.py): vector W schedule + scalar rounds, proved per block."""

from dataclasses import replace

import pytest

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.prove import Proved
from sha1opt.semantics.x86 import Imm, Instr, Reg
from sha1opt.search.space.hybrid_dialects import dialect, dialect_names, dialects
from sha1opt.search.space.hybrid import (CONSTANT_REGS, HybridBlock, HybridParams, build, features, group_ops,
                                         read_ahead, refuse_unknown, setup_invariant, wk_slot)
from sha1opt.search.space.hybrid_merge import interleave, release_points
from sha1opt.search.space.hybrid_regs import k_slot
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_rounds import rotating_rounds
from sha1opt.search.space.hybrid_w8 import rol2_group_ops
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.lane_machine import LANE_STRIDE, LaneMachine
from sha1opt.search.space.recipe import Recipe
from sha1opt.semantics.domain import NumpyDomain


@pytest.mark.parametrize("isa", dialect_names())
def test_each_dialect_proves_equal_to_the_80_round_spec(isa):
    arch = dialect(isa).arches[0]
    res = prove_hybrid((build if arch == "x86_64" else build_i386)(HybridParams(isa=isa, arch=arch)))
    assert res.ok and isinstance(res.outcome, Proved), describe_failure(res)


@pytest.mark.parametrize("lead,every", [(1, 1), (3, 7)])
def test_interleaving_extremes_prove(lead, every):
    res = prove_hybrid(build(HybridParams(isa="avx", lead=lead, every=every)))
    assert res.ok, describe_failure(res)


def test_a_scalar_recipe_with_bmi_prove():
    res = prove_hybrid(build(HybridParams(isa="avx512vl", recipe=Recipe(f1="andn", rol5="rorx"))))
    assert res.ok, describe_failure(res)


def _mutate(block: HybridBlock, old: Instr, new: Instr) -> HybridBlock:
    body = list(block.body)
    body[body.index(old)] = new
    return replace(block, body=tuple(body))


def test_a_wrong_palignr_shift_is_refuted():
    block = build(HybridParams(isa="avx"))
    old = group_ops(7, "avx")[0]                       # vpalignr $8, ...
    res = prove_hybrid(_mutate(block, old, Instr(old.mnemonic, (Imm(4),) + old.operands[1:])))
    # group 7 (W28..W31) is the first with these registers; the output is wrong and W28 is never computed
    assert not res.ok and res.missing.startswith("W28 ")


def test_a_missing_lane3_fixup_is_refuted():
    block = build(HybridParams(isa="avx512vl"))
    fix = group_ops(5, "avx512vl")[7]                  # vpxor c, x, x: the second rotate step of W20..W23
    assert fix.mnemonic == "vpxor"
    nop = Instr("vpxor", (Reg("xmm7", 128), Reg("xmm7", 128), Reg("xmm7", 128)))
    res = prove_hybrid(_mutate(block, fix, nop))
    assert not res.ok and res.missing.startswith("W23 ")   # lanes 0-2 (W20..W22) are right, lane 3 is not


@pytest.mark.parametrize("isa,want", [("ssse3", {"ssse3"}), ("avx", {"avx"}), ("avx512vl", {"avx512vl"})])
def test_features_are_read_off_the_instructions(isa, want):
    assert features(build(HybridParams(isa=isa))) == frozenset(want)


def test_vector_op_counts_per_dialect():
    # 4 load groups + 16 recurrence groups (a two-block row's loads take one vinserti128 more: hybrid_pair)
    counts = {isa: build(HybridParams(isa=isa)).vector_ops for isa in dialect_names()
              if "x86_64" in dialect(isa).arches}
    assert counts == {"ssse3k": 4 * 5 + 16 * 21, "ssse3": 4 * 5 + 16 * 21, "avx": 4 * 4 + 16 * 15,
                      "avx512vl": 4 * 4 + 16 * 10, "avx2x2": 4 * 5 + 16 * 15, "avx512vlx2": 4 * 5 + 16 * 10}


def test_a_k_copy_block_that_writes_its_k_table_cannot_hoist_its_setup():
    block = build(HybridParams(isa="ssse3k"))
    assert setup_invariant(block) is None
    bad = replace(block, body=block.body + (Instr("movdqu", (Reg("xmm4", 128), k_slot(2))),))
    assert "writes the K table" in setup_invariant(bad)


def test_the_body_never_writes_the_setup_constants():
    block = build(HybridParams(isa="ssse3"))
    assert setup_invariant(block) is None
    bad = replace(block, body=block.body + (Instr("pxor", (Reg("xmm0", 128), Reg("xmm15", 128))),))
    assert "xmm15" in setup_invariant(bad) and "xmm15" in CONSTANT_REGS


def test_an_instruction_outside_the_table_is_refused_by_name():
    with pytest.raises(Sha1optError, match="vpaddq is not in the semantics table"):
        refuse_unknown([Instr("vpaddq", (Reg("xmm0", 128), Reg("xmm1", 128), Reg("xmm2", 128)))])


@pytest.mark.parametrize("bad", [dict(lead=4), dict(isa="avx2"), dict(every=0), dict(recipe=Recipe(kw="add")),
                                 dict(shifts=((3, 1),)), dict(shifts=((5, 0),)), dict(shifts=((5, 17),)),
                                 dict(shifts=((6, 1), (5, 1))), dict(shifts=((5, 1), (5, 2))), dict(shifts=((5,),)),
                                 dict(shifts=((5, 1, 2),)), dict(shifts=((5, 1.0),))])
def test_params_outside_the_space_are_refused(bad):
    with pytest.raises(Sha1optError):
        HybridParams(**bad)


def test_lane_machine_reports_each_lane_of_a_vector_write():
    seen = []
    m = LaneMachine(NumpyDomain(2), lambda r: NumpyDomain(2).const(7), lambda reg, off: NumpyDomain(2).const(1))
    prog = [Instr("mov", (Imm(5), Reg("eax"))), Instr("movd", (Reg("eax"), Reg("xmm1", 128)))]
    m.run(prog, lambda i, ins, loc, v: seen.append((i, loc)) or v)
    assert seen[0] == (0, ("reg", "eax"))
    assert [s[0] for s in seen[1:]] == [LANE_STRIDE + j for j in range(8)]
    assert seen[1][1] == ("reg", "xmm1.0")


def _one_read_per_round():
    scalar = [Instr("add", (wk_slot(t), Reg("eax"))) for t in range(80)]       # one wk read per round
    groups = {g: [Instr("pxor", (Reg(f"xmm{k}", 128), Reg("xmm0", 128))) for k in (g % 8, 8 + g % 8)]
              for g in range(4, 20)}
    return scalar, groups


@pytest.mark.parametrize("lead,every", [(1, 1), (2, 3), (3, 20)])
def test_interleave_releases_each_group_lead_groups_early_and_never_late(lead, every):
    scalar, groups = _one_read_per_round()
    out = interleave(scalar, list(range(80)), groups, release_points(scalar, list(range(80)), lead, {}), every)
    pos = {id(x): i for i, x in enumerate(out)}
    for g in range(4, 20):
        first, last = pos[id(groups[g][0])], pos[id(groups[g][-1])]
        assert pos[id(scalar[4 * (g - lead)])] < first            # released at round 4(g - lead)
        assert last < pos[id(scalar[4 * g])]                       # done before round 4g reads W_4g + K
        assert pos[id(scalar[4 * g - 13])] < first                 # after the last read of the words it overwrites


@pytest.mark.parametrize("shift", [-16, -3, 2, 16])
def test_a_shifted_group_moves_its_release_but_never_past_its_ring_reads(shift):
    """HybridParams.shifts moves one group's release by that many scalar ops; the ring's two bounds (after the
    last read of the words it overwrites, done before the first read of its own) still hold wherever it lands."""
    scalar, groups = _one_read_per_round()
    rounds = list(range(80))
    release = release_points(scalar, rounds, 2, {9: shift})
    assert release[9] == max(4 * 7 + shift, 4 * 5 + 3 + 1)        # round 28's op moved, not before round 23's read
    assert {g: r for g, r in release.items() if g != 9} == {g: r for g, r in release_points(
        scalar, rounds, 2, {}).items() if g != 9}
    out = interleave(scalar, rounds, groups, release, 1)
    pos = {id(x): i for i, x in enumerate(out)}
    assert pos[id(scalar[min(release[9], 35)])] < pos[id(groups[9][0])]   # (past round 36's read: flushed there)
    assert pos[id(groups[9][-1])] < pos[id(scalar[36])] and pos[id(scalar[23])] < pos[id(groups[9][0])]
    if shift == 2:                                 # group 8 is done by op 25: group 9 starts right after op 30
        assert pos[id(groups[9][0])] == pos[id(scalar[30])] + 1


def test_a_release_shifted_past_the_rounds_is_clamped_to_the_last_op():
    scalar, _ = _one_read_per_round()
    assert release_points(scalar, list(range(80)), 1, {19: 16})[19] == 79          # round 72's op + 16, past 79
    assert release_points(scalar, list(range(80)), 3, {4: -16})[4] == 4            # before op 0: the ring bound


@pytest.mark.parametrize("isa,arch", [("ssse3", "x86_64"), ("avx512vl", "x86_64"), ("ssse3k", "i386")])
def test_a_block_with_shifted_groups_proves(isa, arch):
    """The shifts change only where a group's ops sit among the rounds; the block still proves (x86-64 and i386)."""
    p = HybridParams(isa=isa, ahead=True, recurrence="rol2", lead=2, every=2, shifts=((5, -4), (12, 6), (19, -16)),
                     arch=arch, scalar="lazy-chain" if arch == "i386" else "recipe")
    make = build if arch == "x86_64" else build_i386
    block = make(p)
    assert block.body != make(replace(p, shifts=())).body
    res = prove_hybrid(block)
    assert res.ok, describe_failure(res)
    assert "shift=5:-4/12:+6/19:-16" in p.key()


# (two-block rows: no read-ahead)
@pytest.mark.parametrize("isa", [d.name for d in dialects() if d.blocks == 1 and "x86_64" in d.arches])
def test_the_read_ahead_blocks_last_path_proves(isa):
    block = build(HybridParams(isa=isa, ahead=True))
    res = prove_hybrid(block)
    assert res.ok, describe_failure(res)
    assert any("64(%rsi)" in str(i) for i in block.main) and not any("(%rsi)" in str(i) for i in block.tail)


def test_read_ahead_stores_a_group_only_after_its_slots_last_read():
    rest = [Instr("add", (wk_slot(t), Reg("eax"))) for t in range(64, 80)]
    nxt = [(j, Instr("vmovdqu", (Reg("xmm4", 128), wk_slot(4 * j)))) for j in range(4)]
    out = read_ahead(rest, nxt, 1)
    for j in range(4):
        assert out.index(nxt[j][1]) > out.index(rest[4 * j + 3])     # after round 64+4j+3 read slot 4j+3


@pytest.mark.parametrize("scalar", ["rotate", "rotate-bmi", "rotate-bmi-lean", "rotate-bmi-mix"])
def test_the_rotating_rounds_prove(scalar):
    res = prove_hybrid(build(HybridParams(isa="avx", scalar=scalar)))
    assert res.ok, describe_failure(res)


def test_rotating_rounds_use_fewer_instructions_and_end_two_roles_on():
    bmi, base, lean = rotating_rounds(True), rotating_rounds(False), rotating_rounds(True, lean="all")
    assert len(bmi.code) == 700 and len(base.code) == 900 and len(lean.code) == 640
    assert bmi.final == ("edx", "ebp", "ebx", "r8d", "ecx")


@pytest.mark.parametrize("isa,scalar", [("avx512vl", "rotate-bmi"), ("ssse3", "recipe"), ("avx", "recipe")])
def test_the_rol2_recurrence_proves(isa, scalar):
    res = prove_hybrid(build(HybridParams(isa=isa, ahead=True, recurrence="rol2", scalar=scalar)))
    assert res.ok, describe_failure(res)


def test_a_rol2_group_with_a_wrong_source_is_refuted():
    block = build(HybridParams(isa="avx512vl", ahead=True, recurrence="rol2"))
    old = rol2_group_ops(12, "avx512vl")[1]                      # vpternlogd $0x96, G8, G5, G4
    new = Instr(old.mnemonic, (old.operands[0], Reg("xmm6", 128)) + old.operands[2:])   # G6 for G8
    body = list(block.body)
    body[max(i for i, x in enumerate(body) if x == old)] = new
    assert not prove_hybrid(replace(block, body=tuple(body))).ok


def test_rol2_needs_read_ahead():
    with pytest.raises(Sha1optError, match="read-ahead"):
        HybridParams(recurrence="rol2")
