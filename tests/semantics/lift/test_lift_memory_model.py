"""The path machine's memory (``semantics/lift/memory.py``) on single accesses: a block inside the state's
context, and a spill slot rewritten wider.

Rules: under ``state@0x40 + words@0`` (``block_in_context`` = -0x40) an access wholly inside the 64 bytes
before the state words is the data region's (``state-0x38`` is block word 2), one straddling the block's
edge is refused, a write past the state words is a violation. A stack slot written again with a wider
value (clang's libLLVM-15 ``SHA1::hashBlock`` reuses ``-0x40(%rsp)`` for a 32-bit then a 64-bit value)
takes the new value: the slots wholly inside it are dropped, one only partly inside is refused.
"""

from __future__ import annotations

import pytest
import z3

from sha1opt.semantics.lift.executor import PathMachine
from sha1opt.semantics.lift.paths import State
from sha1opt.semantics.lift.values import Int, Ptr, Refused, Violation


def _machine(block_in_context: int | None = None) -> PathMachine:
    return PathMachine(None, None, None, lambda region, off: f"{region}[{off}]", State(("", 0)), bits=64,
                       data_writable=True, block_in_context=block_in_context)


def _at(region: str, off: int) -> Ptr:
    return Ptr(region, z3.BitVecVal(off, 64))


def _int(v: int) -> Int:
    return Int(z3.BitVecVal(v, 64))


def test_the_block_in_the_context_is_the_data_region():
    pm = _machine(-0x40)
    assert pm.load(_at("state", -0x38), 4, None) == "data[8]"            # block word 2
    assert pm.load(_at("state", 0x10), 4, None) == "state[16]"           # state word 4
    pm.store(_at("state", -0x4), "w15", 4, None)                         # clobbered: block word 15 written
    assert pm.s.mem[("data", "", 60)] == ("w15", 4)


@pytest.mark.parametrize("off, size", [(-0x44, 8), (-0x4, 8), (-0x42, 4)])
def test_an_access_straddling_the_blocks_edge_is_refused(off, size):
    with pytest.raises(Refused, match="straddles the edge of the block"):
        _machine(-0x40).load(_at("state", off), size, None)


def test_a_write_past_the_state_words_is_a_violation():
    with pytest.raises(Violation, match=r"writes outside the 5 state words \(state\+20\)"):
        _machine(-0x40).store(_at("state", 0x14), "x", 4, None)


def test_a_spill_slot_written_wider_takes_the_new_value():
    pm = _machine()
    pm.store(_at("stack", -0x40), _int(1), 4, None)
    pm.store(_at("stack", -0x3c), _int(2), 4, None)
    pm.store(_at("stack", -0x40), _int(3), 8, None)
    assert z3.simplify(pm.load(_at("stack", -0x40), 8, None).v).as_long() == 3
    with pytest.raises(Refused, match="partially overlap"):
        pm.load(_at("stack", -0x3c), 4, None)               # (half of the wider value: not modelled)


def test_a_wider_write_over_part_of_another_slot_is_refused():
    pm = _machine()
    pm.store(_at("stack", -0x40), _int(1), 4, None)
    pm.store(_at("stack", -0x3c), _int(2), 8, None)
    with pytest.raises(Refused, match="partially overlap"):
        pm.store(_at("stack", -0x40), _int(3), 8, None)
