"""OpenSSL's multi-buffer ``sha1_multi_block``: its contract (``lanes``), its loops (``streams``) and their proof.

The function comes from Debian's libcrypto.a (libssl-dev, installed by setup/system-packages.sh); the member is
extracted at test time, never kept in the project. Mutants are byte patches of that member made here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import z3

from sha1opt.semantics.domain import NumpyDomain, Z3Domain
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift import lanes
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.decode import decode_function, line_table
from sha1opt.semantics.lift.elf import ObjectError, ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.lift.paths import State
from sha1opt.semantics.lift.values import Choice, Int, Ptr, Refused, Violation, chosen
from sha1opt.semantics.lift.vectors import CountLanes
from sha1opt.emit.confirm import Finding
from sha1opt.emit.lanes_confirm import lanes_finding
from sha1opt.emit.objfile import load_object
from tests.support.archives import member_file
from tests.support.mutants import patched_function
from tests.support.cpu import not_run_here

LIB = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-sha1-mb-x86_64.o"
MULTI = "(lanes, messages, groups)"


@pytest.fixture(scope="module")
def member_path(tmp_path_factory) -> Path:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("multibuffer"))


@pytest.fixture(scope="module")
def member(member_path) -> bytes:
    return member_path.read_bytes()


def test_a_multi_buffer_interface_is_the_three_roles_in_order():
    """Rule (``lanes.check_roles``): ``(lanes, messages, groups)``, those three in that order; the contract says
    the precondition on the counts and covers both group counts."""
    contract = parse_interface(MULTI).contract("sysv")
    assert contract.multi_buffer and contract.covers() == "1 and 2 groups, every block count"
    assert "the messages with blocks come first by pairs" in contract.describe()
    with pytest.raises(ParseError, match="those three in that order"):
        parse_interface("(messages, lanes, groups)")
    with pytest.raises(ParseError, match="those three in that order"):
        parse_interface("(lanes, messages, nblocks)")


class _Machine:
    bits = 64
    messages = 8

    @staticmethod
    def initial_mem(region, off):
        return f"{region}[{off}]"


class _PathMachine:
    """What ``CountLanes`` asks of the path executor: its width, path condition, state and entry values."""
    bits = 64

    def __init__(self, cond: list) -> None:
        self.domain = Z3Domain()
        self.s = State((".text", 0), cond=list(cond))

    def implies(self, goal) -> bool:
        s = z3.Solver()
        s.add(*self.s.cond, z3.Not(goal))
        return s.check() == z3.unsat

    def initial_reg(self, name: str):
        return self.domain.var(f"%{name}")


class _At:
    address = 0x7520


def _count(c) -> Int:
    return Int(z3.ZeroExt(32, c))


def test_the_regions_give_descriptors_words_and_blocks_and_refuse_the_rest():
    """Rule (``lanes.load``/``store``): descriptor j's pointer is message j's block, its int the count; the
    context's words are read and written as 32-bit words; a message is read only inside its current block; the
    descriptors and the messages are never written."""
    m = _Machine()
    assert lanes.load(m, ("messages", "", 16), 8, None) == Ptr("msg1", z3.BitVecVal(0, 64))
    count = lanes.load(m, ("messages", "", 24), 4, None)
    assert isinstance(count, Int) and z3.eq(z3.simplify(z3.Extract(31, 0, count.v)), lanes.blocks(1))
    assert lanes.load(m, ("lanes", "", lanes.word_at(4, 7)), 4, None) == "lanes[156]"
    assert lanes.load(m, ("msg2", "", 60), 4, None) == "msg2[60]"
    for key, size in ((("msg2", "", 64), 4), (("lanes", "", 160), 4), (("messages", "", 4), 4),
                      (("messages", "", 16 * 8), 8)):
        with pytest.raises(Refused):
            lanes.load(m, key, size, None)
    lanes.store(("lanes", "", 0), 4, None)
    for key in (("messages", "", 8), ("msg0", "", 0), ("lanes", "", 160)):
        with pytest.raises(Violation):
            lanes.store(key, 4, None)


@pytest.mark.parametrize("groups,counts,allowed", [
    (1, (1, 0, 0, 0), True), (1, (0, 0, 0, 0), True), (1, (0, 0, 1, 1), False),
    (2, (1, 1, 1, 1, 0, 2, 0, 0), True), (2, (0, 0, 0, 0, 1, 1, 1, 1), False), (2, (0,) * 8, False)])
def test_the_precondition_puts_the_messages_with_blocks_first_by_pairs(groups, counts, allowed):
    """Rule (``lanes.axioms``, found natively by ``lanes_confirm``): OpenSSL's SSE/AVX code ends the call at a
    group of 4 messages without blocks and its SHA-NI code at such a pair; its AVX2 code (2 groups) never tests
    the largest count for 0."""
    s = z3.Solver()
    s.add(*lanes.axioms(groups), *[lanes.blocks(j) == c for j, c in enumerate(counts)])
    assert (s.check() == z3.sat) == allowed


def test_gts_is_the_signed_comparison_in_every_domain():
    """Rule (``ir``: ``gts``, ``pcmpgtd``'s lane): 0xffffffff where x > y as signed 32-bit integers, else 0;
    numpy and z3 agree."""
    pairs = [(1, 0), (0, 1), (0x80000000, 1), (1, 0xFFFFFFFF), (0x7FFFFFFF, 0x80000000), (5, 5)]
    want = [0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0]
    npd = NumpyDomain(len(pairs))
    got = npd.apply("gts", np.array([x for x, _ in pairs], dtype=np.uint32), np.array([y for _, y in pairs],
                                                                                      dtype=np.uint32))
    assert [int(v) for v in got] == want
    zd = Z3Domain()
    assert [z3.simplify(zd.apply("gts", zd.const(x), zd.const(y))).as_long() for x, y in pairs] == want


def test_the_block_loops_are_the_innermost_and_each_is_left_once(member):
    """Rule (``Cfg.innermost_heads``/``loop_exits``): the SSE body's block loop (inside the loop over groups) is
    its head; the loop over groups is not; the block loop is left at one place."""
    obj = ObjectFile.parse(member)
    fn = decode_function(obj, obj.sized(obj.find_function("sha1_multi_block")), line_table(obj))
    g = Cfg.build(fn)
    (head,) = g.innermost_heads()
    assert head not in g.loop_heads() or len(g.loop_heads()) == 1
    assert len(g.loop_exits(head)) == 1


@pytest.mark.parametrize("body,messages,groups", [
    ("sha1_multi_block", 4, (1, 2)), ("_avx_shortcut", 4, (1, 2)), ("_shaext_shortcut", 2, (1, 2)),
    ("_avx2_shortcut", 8, (2,))], ids=["sse", "avx", "shaext", "avx2"])
def test_each_multi_buffer_body_proves_every_message(member, body, messages, groups):
    """The SSE, AVX and SHA-NI bodies' block loops prove for 1 and 2 groups, the AVX2 body (8 messages an
    iteration, taken for 2 groups) for 2: every message's words are the chained compression of its blocks, for
    every count; the paths where no message has blocks leave every lane unchanged. Each count's cases ride on
    one path (masks and pointer choices): an iteration is 2 paths, back and out."""
    proof = prove_function(ObjectFile.parse(member), "sha1_multi_block", parse_interface(MULTI).contract("sysv"),
                           paths=frozenset({body}))
    loops = [p for p in proof.paths if p.kind == "loop" and p.label.startswith(body + ",")]
    assert sorted(p.label for p in loops) == [f"{body}, {g} group{'s' if g > 1 else ''}" for g in groups]
    for p in loops:
        assert p.outcome == "proved" and p.detail.startswith(f"{messages} messages a group"), (p.name, p.detail)
        assert "2 paths" in p.detail
    idle = [p for p in proof.paths if p.kind == "loop not entered"]
    assert idle and all(p.outcome == "proved" for p in idle)


def test_an_undecided_count_comparison_is_a_mask_and_the_counts_stay_exact():
    """Rule (``vectors.CountLanes``): ``gts`` of a count and 0 that the path does not decide is a data unknown
    recorded with its condition (``State.masks``), not a fork; adding it to the count is the count less one
    exactly where the count is positive; a decided lane is the constant."""
    c0, c1 = z3.BitVec("count0", 32), z3.BitVec("count1", 32)
    m = _PathMachine([c0 > 0])
    lanes_ = CountLanes(Z3Domain(), m, _At())
    zero = m.domain.const(0)
    assert z3.simplify(lanes_.apply("gts", _count(c0), zero)).as_long() == 0xFFFFFFFF
    mask = lanes_.apply("gts", _count(c1), zero)
    ((name, (value, cond)),) = m.s.masks.items()
    assert name == "count mask@7520.1" and value is mask
    left = lanes_.apply("add", _count(c1), mask)
    s = z3.Solver()
    s.add(z3.Or(cond != (c1 > 0), z3.Extract(31, 0, left.v) != z3.If(c1 > 0, c1 - 1, c1)))
    assert s.check() == z3.unsat


def test_a_choice_of_pointers_is_taken_apart_only_where_the_condition_is_decided():
    """Rule (``values.Choice``/``chosen``): a ``cmov`` of two pointers under the multi-buffer contract is a choice;
    it is an arm only where the condition is decided, nested choices arm by arm."""
    c = z3.BitVec("count0", 32)
    table, nxt = Ptr("sec:.text", z3.BitVecVal(0x7620, 64)), Ptr("msg0", z3.BitVecVal(64, 64))
    v = Choice("pointer [selected by a cmov]", 1 >= c, table, nxt)

    def decides(facts):
        def decide(k):
            s = z3.Solver()
            s.add(*facts, z3.Not(k))
            if s.check() == z3.unsat:
                return True
            s = z3.Solver()
            s.add(*facts, k)
            return False if s.check() == z3.unsat else None
        return decide
    assert chosen(v, decides([c >= 2])) is nxt and chosen(v, decides([c <= 0])) is table
    assert chosen(v, decides([c >= 0])) is None
    outer = Choice("pointer [selected by a cmov]", c > 5, nxt, v)
    assert chosen(outer, decides([c == 1])) is table
    # (regression, found by review: choices compared by their shared name, so any two were "equal")
    assert outer != v and v == v and len({v, outer}) == 2


@pytest.mark.parametrize("name,at,old,new,differs", [
    ("state masked with por", 0x29FF, "66440fdbd1", "66440febd1", True),
    ("parked a block early", 0x29C9, "b901000000", "b902000000", True),
    ("parked a block late", 0x29D5, "4c0f4dc5", "4c0f4fc5", False),
], ids=["por", "early", "late"])
def test_a_wrong_multi_buffer_loop_is_not_proved_and_the_machine_refutes_it(member, tmp_path, name, at, old, new,
                                                                          differs):
    """Mutants of the SSE body (one byte each): not proved. Run natively, a lane differs from SHA-1 -- except
    where the pointer is parked a block late (``cmovge`` -> ``cmovg``): the lane reads the 64 bytes after its
    message, a read past the buffer, and masks them away, so the values agree; the prover refuses it ("the
    pointer is not its next block with blocks left")."""
    data = patched_function(member, "sha1_multi_block", at, old, new)
    proof = prove_function(ObjectFile.parse(data), "sha1_multi_block", parse_interface(MULTI).contract("sysv"),
                           paths=frozenset({"sha1_multi_block"}))
    sse = [p for p in proof.paths if p.kind == "loop" and p.label.startswith("sha1_multi_block,")]
    assert len(sse) == 2 and all(p.outcome == "unknown" for p in sse), [(p.name, p.detail) for p in sse]
    if not_run_here("ssse3") is not None:
        return
    path = tmp_path / "mutant.o"
    path.write_bytes(data)
    got = lanes_finding(load_object(path, tmp_path), "sha1_multi_block", tmp_path,
                        symbols={"OPENSSL_ia32cap_P": bytes(16)})
    assert isinstance(got, Finding) == differs


@pytest.mark.parametrize("function,at,old,new,path,need", [
    ("sha1_multi_block_avx2", 0x22C8, "c5fddbc6", "c5fdebc6", "_avx2_shortcut", "avx2"),
    ("sha1_multi_block_avx2", 0x2270, "b901000000", "b902000000", "_avx2_shortcut", "avx2"),
    ("sha1_multi_block_shaext", 0x585, "66450fdbc4", "66450febc4", "_shaext_shortcut", "sha"),
], ids=["avx2-state-masked-with-vpor", "avx2-parked-a-block-early", "shaext-second-message-masked-with-por"])
def test_a_wrong_lane_is_not_proved_by_another_lanes_proof(member, tmp_path, function, at, old, new, path, need):
    """Mutants of the AVX2 body (one byte each: every lane wrong) and of the SHA-NI body's second message only
    (``pand`` -> ``por`` on its state): not proved -- message 1's words are not message 0's with the two
    swapped (``Streams._swapped``), so its own ``check_program`` runs and fails. Run natively where the CPU has
    the path, a lane differs from SHA-1."""
    data = patched_function(member, function, at, old, new)
    proof = prove_function(ObjectFile.parse(data), "sha1_multi_block", parse_interface(MULTI).contract("sysv"),
                           paths=frozenset({path}))
    ours = [p for p in proof.paths if p.kind == "loop" and p.label.startswith(path + ",")]
    assert ours and all(p.outcome == "unknown" for p in ours), [(p.name, p.detail) for p in ours]
    if not_run_here(need) is not None:
        return
    mutant = tmp_path / "mutant.o"
    mutant.write_bytes(data)
    assert isinstance(lanes_finding(load_object(mutant, tmp_path), "sha1_multi_block", tmp_path), Finding)


@pytest.mark.parametrize("function,at,old,new,path", [
    ("sha1_multi_block_avx2", 0x230A, "c5fe7fa780000000", "c5fe7faf80000000", "_avx2_shortcut"),
    ("sha1_multi_block", 0x2A40, "f3440f7f17", "f3400f7f07", "sha1_multi_block"),
], ids=["avx2-counts-over-e", "sse-counts-over-a"])
def test_regression_a_count_stored_over_a_state_word_crashed_the_proof(member, function, at, old, new, path):
    """Found by review: a mutant storing the counts (``vmovdqu %ymm5``/``movdqu %xmm0``) over a state word gave
    ``check_program`` an integer as an output word, a TypeError traceback. Such a word is not data: the loop is
    "unknown", with the word named."""
    data = patched_function(member, function, at, old, new)
    proof = prove_function(ObjectFile.parse(data), "sha1_multi_block", parse_interface(MULTI).contract("sysv"),
                           paths=frozenset({path}))
    ours = [p for p in proof.paths if p.kind == "loop" and p.label.startswith(path + ",")]
    assert ours and all(p.outcome == "unknown" for p in ours), [(p.name, p.detail) for p in ours]
    assert any("is not data after an iteration" in p.detail for p in ours), [p.detail for p in ours]


@pytest.mark.parametrize("function,at,old,new,path,groups", [
    ("sha1_multi_block", 0x2A90, "ffca", "31d2", "sha1_multi_block", "2 groups"),
    ("sha1_multi_block_avx", 0xD8, "eb06660f1f440000", "c57a7f57100f1f00", "_avx_shortcut", "1 group"),
    ("sha1_multi_block_avx", 0xD8, "eb06660f1f440000", "3b4e480f1f440000", "_avx_shortcut", "1 group"),
], ids=["second-group-skipped", "other-lanes-written", "descriptor-past-the-array"])
def test_regression_a_message_left_unhashed_or_a_lane_written_outside_the_group_was_proved(member, function, at, old,
                                                                                          new, path, groups):
    """Found by review: a ret after the loops checked only that unfinished lanes were unchanged (a 2-group call
    that skips the second group proved), a context word outside the group written before the head was dropped
    from the invariant, and a descriptor past the 4*groups given was read. Each mutant is not proved now."""
    data = patched_function(member, function, at, old, new)
    proof = prove_function(ObjectFile.parse(data), "sha1_multi_block", parse_interface(MULTI).contract("sysv"),
                           paths=frozenset({path}))
    ours = [p for p in proof.paths if p.kind in ("loop", "stopped") and p.label == f"{path}, {groups}"]
    assert ours and all(p.outcome != "proved" for p in ours), [(p.name, p.detail) for p in ours]


def test_a_path_is_selected_by_its_symbol_or_its_full_label_and_an_unknown_label_is_refused(member):
    """Rule (``function._prove_messages``): ``paths`` names a loop by the symbol holding it (every group count) or
    by its full label (``sha1_multi_block, 2 groups``: one group count, as the mutant bench names a mutant's
    path -- selecting by it had checked no loop); a label no path has is an ``ObjectError``."""
    obj = ObjectFile.parse(member)
    contract = parse_interface(MULTI).contract("sysv")
    proof = prove_function(obj, "sha1_multi_block", contract, paths=frozenset({"sha1_multi_block, 1 group"}))
    loops = {p.label: p.outcome for p in proof.paths if p.kind == "loop"}
    assert loops.pop("sha1_multi_block, 1 group") == "proved" and set(loops.values()) == {"not checked"}
    with pytest.raises(ObjectError, match="no path of sha1_multi_block is labelled nope"):
        prove_function(obj, "sha1_multi_block", contract, paths=frozenset({"nope"}))

