"""The lazy-bmi rounds (search/space/hybrid_seven.py): Ch and Maj in seven registers without copies, parity lazy.

What is proved: the i386 block with them proves, with and without read-ahead and with either recurrence; the
rounds have the shape the module docstring states (8 instructions a Ch round, none a ``mov``; 11 a Maj round;
each W+K slot read once, by its round; 701 in all); the handovers to the lazy parity rounds need no moves; a
handover without its prepared parity term is refused by the block proof (the check can fail); and the form
is offered only where BMI2 is and only on i386.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Mem, Reg
from sha1opt.search.space.frame import state_regs
from sha1opt.search.space.hybrid import HybridParams
from sha1opt.search.space.hybrid_forms import FORMS, LAZY_TEMPS
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.hybrid_regs import SP, wk_slot
from sha1opt.search.space.hybrid_seven import bmi_lazy_rounds, seven_round

TEMPS = LAZY_TEMPS["i386"]


@pytest.mark.parametrize("ahead,recurrence", [(True, "rol1"), (False, "rol1"), (True, "rol2")])
def test_the_i386_block_with_lazy_bmi_rounds_proves(ahead, recurrence):
    p = HybridParams(isa="avx512vl", lead=3, every=3, arch="i386", scalar="lazy-bmi", ahead=ahead,
                     recurrence=recurrence)
    assert prove_hybrid(build_i386(p)).ok


def test_the_rounds_have_the_stated_shape():
    rr = bmi_lazy_rounds(TEMPS)
    assert len(rr.code) == 701 and rr.final == tuple(r.name for r in state_regs(80))
    per = {t: [ins for ins, r in zip(rr.code, rr.rounds) if r == t] for t in range(80)}
    assert all(len(per[t]) == 8 and not any(i.mnemonic == "mov" for i in per[t]) for t in range(19))
    assert all(len(per[t]) == 11 and sum(i.mnemonic == "mov" for i in per[t]) == 2 for t in range(40, 59))
    reads = [(ins.operands[0].disp, t) for ins, t in zip(rr.code, rr.rounds)
             if ins.mnemonic == "add" and isinstance(ins.operands[0], Mem) and ins.operands[0].base == SP]
    assert [t for _, t in reads] == list(range(80)) and all(d == wk_slot(t).disp for d, t in reads)


def test_the_handovers_need_no_moves():
    """Round 19 and round 59 end with the prepared parity term (an ``xor`` into a temporary), not moves; the
    lazy parity rounds after them read the registers the lazy rounds always use."""
    rr = bmi_lazy_rounds(TEMPS)
    for t in (19, 59):
        last = [ins for ins, r in zip(rr.code, rr.rounds) if r == t][-1]
        assert last.mnemonic == "xor" and last.operands[1] == Reg(TEMPS[0])
    assert sum(ins.mnemonic == "mov" for ins in rr.code) == 40 + 40    # the Maj rounds' 2, the parity rounds' 1


def test_a_handover_without_its_prepared_term_does_not_prove():
    block = build_i386(HybridParams(isa="avx", arch="i386", scalar="lazy-bmi"))
    rr = bmi_lazy_rounds(TEMPS)
    at = max(i for i, t in enumerate(rr.rounds) if t == 19)          # round 19's handover ``xor``
    nth = rr.code[:at].count(rr.code[at])                             # the same instruction earlier in the rounds
    body = list(block.body)
    k = [i for i, ins in enumerate(body) if ins == rr.code[at]][nth]  # the merge keeps the rounds' order
    del body[k]
    assert not prove_hybrid(replace(block, body=tuple(body))).ok


def test_a_parity_round_is_not_written_in_seven_registers():
    with pytest.raises(Sha1optError, match="parity round"):
        seven_round(20, ("eax", "ebx", "ecx", "edx", "ebp", "esi", "edi"))


def test_lazy_bmi_is_i386_and_bmi_only():
    assert FORMS["lazy-bmi"].arches == ("i386",) and FORMS["lazy-bmi"].bmi
    with pytest.raises(Sha1optError, match="built for i386 only"):
        HybridParams(isa="avx", scalar="lazy-bmi")
