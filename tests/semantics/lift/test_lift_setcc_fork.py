"""``set<cc>`` on a condition the path does not decide forks, as a branch and ``cmov`` do.

Rule (issue 24; ``lift.control.ControlFlow._setcc``, ``lift.paths.explore``): ``set<cc>`` writes 1 to its byte
when the condition holds, else 0 (Intel SDM vol. 2B, SETcc). Exploring, a condition the path condition leaves
open splits the path in two -- the condition recorded on one, its negation on the other, as a conditional branch
records it -- so each path holds a constant 0 or 1, and an index or offset computed from it (``seta %r12b;
add %r12d, %r12d`` indexing a table of implementations on the stack) is a constant address the proof can read.
Before, the byte was the symbolic 0/1 and such a read ended the path "unknown" (nettle's fat
``nettle_sha1_compress``: 4 of its paths). Each fork is then proved or refuted on its own: a wrong
implementation behind one value of the index is a counterexample, never "proved".

The C and its entry assembly are this project's own (``csrc/sha1_setcc_index.c``), compiled at test time with
gcc; nettle's fat build is read from Debian's ``libnettle.a`` (nettle-dev, installed by
setup/system-packages.sh) at test time, skipped when missing.
"""

from __future__ import annotations

import re
from pathlib import Path

from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface
from tests.support.csrc import compile_c

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_setcc_index.c"
CONTRACT = parse_interface("one-block").contract("sysv")
# the strlen result the entry's ``seta`` tests, in a path condition's words
_STRLEN = re.compile(r"strlen\(\) at 0x[0-9a-f]+ \(#\d+\) result")


def _proof(tmp_path_factory, *defines: str):
    return prove_function(compile_c(C_SOURCE, tmp_path_factory.mktemp("setcc"), *defines), "sha1_setcc", CONTRACT)


def _forks(proof):
    """The paths past the ``seta`` (getenv's result not NULL): their outcomes by whether strlen > 4 is assumed."""
    return [p for p in proof.paths if _STRLEN.search(p.condition)]


def test_setcc_index_on_an_undecided_condition_forks_and_each_fork_proves(tmp_path_factory):
    proof = _proof(tmp_path_factory)
    assert proof.proved, [(p.outcome, p.condition, p.detail[:200]) for p in proof.paths]
    forks = _forks(proof)
    # one fork per value of the byte: two paths past the seta, under different conditions on the strlen result
    assert len(forks) == 2 and forks[0].condition != forks[1].condition, [p.condition for p in forks]


def test_setcc_index_with_a_wrong_fork_is_a_counterexample(tmp_path_factory):
    proof = _proof(tmp_path_factory, "K3_TWO=0x8f1bbcddu")
    assert proof.outcome == "counterexample", [(p.outcome, p.detail[:200]) for p in proof.paths]
    outcomes = sorted(p.outcome for p in _forks(proof))
    # the index-0 fork (sha1_one) proves, the index-2 fork (sha1_two, rounds 40-59 wrong) is refuted
    assert outcomes == ["counterexample", "proved"], [(p.outcome, p.condition) for p in _forks(proof)]


def test_nettle_fat_sete_indexed_paths_are_not_unknown(nettle_fat_proof):
    """nettle's fat ``fat_init`` (NETTLE_FAT_VERBOSE set, NETTLE_FAT_OVERRIDE absent) indexes a stack table of
    names by a ``sete`` of a ``memcmp`` result, doubled: with the fork no path stops at that read as unknown (the
    member alone: every implementation is reached by a tail call into another member, refused here by name)."""
    proof = nettle_fat_proof
    stuck = [(p.outcome, p.detail[:200]) for p in proof.paths
             if p.outcome == "unknown" or "unwritten realigned stack slot" in p.detail]
    assert not stuck, stuck
