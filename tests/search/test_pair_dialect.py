"""The two-block ymm dialects (``search.space.hybrid_pair``): rows of the dialect table, each block's rounds
reading its own half of the W+K area, the next pair's groups stored only after block 2 read its own, and the
loop priced per 64 bytes.

Rules (from ``hybrid_pair``'s docstring and ``measure.hybrid_loop_cost``): block 1's rounds read the low
halves (``pair_slot(t, 0)``), block 2's the high halves, each of its 80 words once; the loop of two blocks
is priced whole and halved, so a pair's fused uops per 64 B fall against the one-block row with the same
scalar rounds and interleaving (its vector schedule serves two blocks: OpenSSL's AVX2 path, 764 fused
uops per 64 B on skylake, against our one-block 900, ``bench/results/best_vs_openssl.txt``).
"""

from __future__ import annotations

import pytest

from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import dialects_for, point
from sha1opt.search.measure import block_loop, hybrid_loop_cost, hybrid_loop_items
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_pair import SPLIT, pair_slot, retarget
from sha1opt.search.space.hybrid_regs import SP, wk_slot
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Mem, Reg

FORM = "pin-bmi-early-majn"


@pytest.fixture(scope="module")
def pair():
    return build(HybridParams(isa="avx2x2", lead=3, every=2, scalar=FORM))


@pytest.mark.parametrize("changes,why", [({"ahead": True}, "only with the hybrid_forms rounds"),
                                         ({"arch": "i386"}, "built for x86_64")])
def test_a_two_block_row_is_x86_64_only_and_reads_ahead_with_the_forms_rounds(changes, why):
    with pytest.raises(Sha1optError, match=why):
        HybridParams(isa="avx2x2", **changes)
    assert point(HybridParams(isa="avx"), isa="avx2x2", **changes) is None       # the search skips the point
    assert point(HybridParams(isa="avx", scalar=FORM), isa="avx2x2", ahead=True, recurrence="rol2") is not None


def test_the_search_offers_the_row_where_the_cpu_has_avx2():
    assert "avx2x2" in dialects_for(load_model("skylake"), "avx2")
    assert "avx2x2" not in dialects_for(load_model("skylake"), "avx") + dialects_for(load_model("skylake"), None,
                                                                                    "i386")


def _reads(code) -> list[int]:
    return [i.operands[0].disp for i in code
            if i.mnemonic == "add" and isinstance(i.operands[0], Mem) and i.operands[0].base == SP]


def test_each_blocks_rounds_read_their_own_half_once(pair):
    assert sorted(_reads(pair.body)) == sorted(pair_slot(t, 0).disp for t in range(80))
    assert sorted(_reads(pair.main)) == sorted(pair_slot(t, 1).disp for t in range(80))
    assert not any("%ymm" in str(o) or isinstance(o, Reg) and o.width == 256 for i in pair.main for o in i.operands)


def test_an_early_addition_reads_the_round_it_feeds():
    # round 16's op adds W_17 + K (ring slot 17 mod 16 = 1): block 2's word 17, not word 1
    add = Instr("add", (wk_slot(17), Reg("edx")))
    assert retarget([add], [16], 1)[0].operands[0] == pair_slot(17, 1)


def test_read_ahead_stores_the_next_pairs_groups_after_block_2_read_their_slots():
    block = build(HybridParams(isa="avx2x2", ahead=True, recurrence="rol2", scalar=FORM))
    main = list(block.main)
    reads = {g: max(p for p, i in enumerate(main) if i.mnemonic == "add" and isinstance(i.operands[0], Mem)
                    and i.operands[0].base == SP and i.operands[0].disp // 32 == g) for g in range(SPLIT)}
    stores = {i.operands[-1].disp // 32: p for p, i in enumerate(main) if i.mnemonic == "vmovdqu"
              and isinstance(i.operands[-1], Mem)}
    assert sorted(stores) == list(range(SPLIT)) and all(stores[g] > reads[g] for g in range(SPLIT))
    assert any("(%r13)" in str(i) for i in main) and not any("%rsi)" in str(i) for i in block.body + block.main)


def test_the_loop_is_priced_per_64_bytes_and_its_uops_fall(pair):
    sky = load_model("skylake")
    whole = block_loop(hybrid_loop_items(pair), sky)
    per = hybrid_loop_cost(pair, sky)
    assert per.cycles == pytest.approx(whole.cycles / 2) and per.cycles_per_byte == pytest.approx(whole.cycles / 128)
    one = hybrid_loop_cost(build(HybridParams(isa="avx", lead=3, every=2, scalar=FORM)), sky)
    assert per.uops < one.uops - 50, (per.uops, one.uops)


def test_the_one_pass_pair_loads_both_blocks_in_its_loop(pair):
    """Regression (the pair's one-pass body once lost its loads when read-ahead came: its rounds read W+K
    nothing in the iteration stored, and it priced cheaper than it is)."""
    inserts = [i for i in pair.body if i.mnemonic == "vinserti128" and isinstance(i.operands[1], Mem)]
    stores = {i.operands[-1].disp // 32 for i in pair.body if i.mnemonic == "vmovdqu" and isinstance(i.operands[-1], Mem)}
    assert len(inserts) == 4 and stores == set(range(20))
