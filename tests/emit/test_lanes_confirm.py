"""OpenSSL's multi-buffer SHA-1 (``sha1_multi_block``) run natively, lane by lane (``emit.lanes_confirm``).

The function comes from Debian's libcrypto.a (libssl-dev, installed by setup/system-packages.sh): the member is
extracted at test time, never kept in the project; mutants are one-instruction patches of it made here
(``tests.support.mutants``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sha1opt.emit.confirm import Finding
from sha1opt.emit.lanes_confirm import (ANSWER, PATHS, Record, lanes_finding, link, paths_here, problem, wants,
                                        within_contract)
from sha1opt.emit.native_check import native_finding
from sha1opt.emit.objfile import load_object
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.emit.toolchain import NATIVE_LIMITS, run_child
from tests.support.archives import member_file
from tests.support.cpu import needs
from tests.support.mutants import instruction_mutant

LIB = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-sha1-mb-x86_64.o"
FUNCTION = "sha1_multi_block"


@pytest.fixture(scope="module")
def member(tmp_path_factory) -> Path:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("mb"))


def _finding(obj: Path, work: Path, **kw):
    return lanes_finding(load_object(obj, work), FUNCTION, work, **kw)


@needs("ssse3")
def test_openssl_multi_block_agrees_with_sha1_on_every_path_run_here(member, tmp_path):
    """Every dispatch path this CPU runs (SSSE3, AVX, AVX2 with num=2, SHA-NI), num = 1 and 2: each lane's five
    words are SHA-1's chained compression, or the caller's where the lane is not hashed; nothing else written."""
    assert paths_here(), "ssse3 runs here, so the SSSE3 path does"
    assert _finding(member, tmp_path) is None


@needs("ssse3")
def test_a_lane_given_another_lanes_count_is_a_finding_naming_that_lane(member, tmp_path):
    """Mutant: the SSSE3 code reads lane 2's count from lane 1's descriptor (``mov 0x28(%rsi)`` -> ``0x18``).
    The finding names the path, num, lane 2 and the word."""
    bad = instruction_mutant(member, FUNCTION, "movl", "0x28(%rsi), %ecx", lambda b: b[:2] + b"\x18",
                             tmp_path / "bad.o")
    found = _finding(bad, tmp_path)
    assert isinstance(found, Finding), found
    assert found.problem.startswith(f"{PATHS[0].label()}, num=1, lane 2 (blocks "), found.problem
    assert ": word A: the machine gives 0x" in found.problem and found.problem in found.describe()


@needs("sha", "ssse3")
def test_the_pinned_capability_word_selects_the_path_run(member, tmp_path):
    """Mutant of the SHA-NI body only (``pand %xmm12, %xmm8``, the mask keeping the pair's second lane, -> ``por``):
    found under the paths run here (by the SHA-NI word, naming it), found with the SHA-NI word pinned (``symbols``,
    as a proof's witness gives it), not found with the SSSE3 word pinned -- that code is not the mutant's."""
    bad = instruction_mutant(member, "sha1_multi_block_shaext", "pand", "%xmm12, %xmm8",
                             lambda b: b[:3] + b"\xeb" + b[4:], tmp_path / "bad.o")
    found = _finding(bad, tmp_path)
    assert isinstance(found, Finding) and found.problem.startswith(PATHS[3].label()), found
    assert "lane 1 (blocks" in found.problem
    pinned = _finding(bad, tmp_path, symbols={"OPENSSL_ia32cap_P": PATHS[3].cap()})
    assert isinstance(pinned, Finding) and pinned.problem.startswith("the given capability word"), pinned
    assert _finding(bad, tmp_path, symbols={"OPENSSL_ia32cap_P": PATHS[0].cap()}) is None


def test_the_contract_keeps_active_lane_pairs_first():
    """Rule (``within_contract``): the pairs of lanes holding an active lane come first; num = 2 needs lane 0 or 1
    active; lanes beyond 4 * num do not count."""
    assert within_contract((1, 0, 0, 2, -1, 0, 3, 3), 1)
    assert within_contract((0, 0, 0, 0, 5, 5, 5, 5), 1)
    assert not within_contract((0, 0, 1, 1, 0, 0, 0, 0), 1)
    assert within_contract((0, 1, 0, 0, 0, 0, 0, 0), 2)
    assert not within_contract((0, 0, 0, 0, 0, 0, 0, 0), 2)
    assert not within_contract((1, 1, 0, -1, 1, 0, 0, 0), 2)


@needs("sha", "ssse3")
def test_outside_the_contract_openssl_stops_at_an_inactive_group(member, tmp_path):
    """Why the contract excludes an inactive pair before an active one: OpenSSL's SHA-NI code ends the call at
    lanes 0-1 inactive (lanes 2-3 not hashed), its SSSE3 code at lanes 0-3 inactive with num = 2."""
    exe = link(load_object(member, tmp_path), FUNCTION, tmp_path)
    rng = random.Random(5)
    for path, num, blocks, lane in ((PATHS[3], 1, (0, 0, 1, 1, 0, 0, 0, 0), 2),
                                    (PATHS[0], 2, (0, 0, 0, 0, 1, 1, 1, 1), 4)):
        rec = Record(num, tuple(rng.getrandbits(32) for _ in range(40)), blocks,
                     tuple(rng.randbytes(192) for _ in range(8)), tuple(rng.getrandbits(32) for _ in range(16)))
        assert not within_contract(blocks, num)
        proc = run_child([str(exe)], "the lanes check", NATIVE_LIMITS, input=rec.encode(path.cap()))
        assert proc.returncode == 0 and len(proc.stdout) == ANSWER
        found = problem(rec, wants([rec])[0], proc.stdout)
        assert found is not None and found[0] == lane, found


@needs("ssse3")
def test_regression_a_failed_multi_buffer_proof_crashed_the_native_check_with_a_traceback(member, tmp_path):
    """``analyze`` confirmed a failed proof with the block function's harness, whose adapter knows no ``lanes``
    role (a KeyError traceback); ``native_check.native_finding`` picks the check by the contract: a lane
    mutant is a lane's finding, the function as shipped none."""
    itf = parse_interface("(lanes, messages, groups)")
    assert native_finding(load_object(member, tmp_path), FUNCTION, 0, tmp_path, itf) is None
    bad = instruction_mutant(member, FUNCTION, "movl", "0x28(%rsi), %ecx", lambda b: b[:2] + b"\x18",
                             tmp_path / "bad.o")
    found = native_finding(load_object(bad, tmp_path), FUNCTION, 0, tmp_path, itf)
    assert isinstance(found, Finding) and ", lane 2 (blocks " in found.problem, found
