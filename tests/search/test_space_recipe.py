"""Recipes (search/space/recipe.py): which W words are stored into the ring.

Proved here: with W kept in a register for W_{t+3} (``wsrc=inplace``), W_72..79
are never stored (no later W reads them from the ring) while W_71 is, and the
code is still SHA-1 (block prover); with W read from memory (``wsrc=mem``) W_72..76
are stored. The regression: OpenSSL's x86-64 integer code skips those five
stores and ours did not, one of the instructions it was ahead by on K8.
"""

from dataclasses import replace

from sha1opt.search.driver import prove_in_block
from sha1opt.search.space.candidate import Candidate, realize
from sha1opt.search.space.recipe import TEXTBOOK, range_ops
from sha1opt.semantics.x86 import Mem


def _stored_words(first, last, recipe, arch):
    out = set()
    for op in range_ops(first, last, recipe, arch):
        dst = op.ins.operands[-1]
        if op.chain == "W" and op.ins.mnemonic == "mov" and isinstance(dst, Mem) and dst.base.name == "esp":
            out.add(op.round)
    return out


def test_inplace_stores_no_w_that_no_later_w_reads_from_the_ring():
    stored = _stored_words(60, 79, replace(TEXTBOOK, wsrc="inplace"), "x86_64")
    assert 71 in stored and not stored & set(range(72, 80))


def test_inplace_without_the_ring_stores_is_still_sha1():
    code = realize(Candidate(60, 79, "x86_64", replace(TEXTBOOK, wsrc="inplace"))).code
    assert prove_in_block(code, 60, 79, "x86_64")[0]


def test_w_read_from_memory_keeps_the_stores_w_t_plus_3_reads():
    stored = _stored_words(60, 79, TEXTBOOK, "x86_64")
    assert set(range(60, 77)) <= stored and not stored & {77, 78, 79}
