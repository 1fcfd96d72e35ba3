"""The string getenv returns is read: its bytes are unknowns, a branch on them forks, each path proved on its own.

Rule (issue 24; ``lift.memory.MemoryModel._returned_string``, ``lift.calls.KNOWN``): getenv's non-NULL result
points to a read-only string (ISO C11 7.22.4.6) whose byte at a constant offset from the pointer is an integer
the proof does not know (``getenv@0x193#1[0]``), the same at every read on the path, never message data. A
``cmpl $0x74736166, (%rax)`` on it ("fast") splits the path as any integer condition does: one path where the
four bytes are "fast", one where they are not, and each goes on to the implementation it chooses. Before, a read
of the string ended the path refused (nettle's fat ``nettle_sha1_compress``: 16 of its 118 paths).

The C is this project's own (``csrc/sha1_getenv_bytes.c``: a static function pointer first holding an init
function that stores one of two SHA-1 implementations by the environment string's first 4 bytes), compiled at
test time with gcc, once per variant (module scope).
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface
from tests.support.csrc import compile_c

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_getenv_bytes.c"
CONTRACT = parse_interface("one-block").contract("sysv")
FAST = " == 102 and "          # byte 0 of the string is 'f': the path where the 4 bytes are "fast"


def _proof(tmp_path_factory, *defines: str):
    return prove_function(compile_c(C_SOURCE, tmp_path_factory.mktemp("getenv"), *defines), "sha1_getenv", CONTRACT)


def _string_paths(proof):
    """The init paths where getenv's result is not NULL: {path condition: outcome}."""
    return {p.condition: p.outcome for p in proof.paths if "not (getenv() at" in p.condition}


def test_getenv_string_bytes_fork_and_every_path_proves(tmp_path_factory):
    proof = _proof(tmp_path_factory)
    assert proof.proved, [(p.outcome, p.condition, p.detail[:200]) for p in proof.paths]
    forks = _string_paths(proof)
    # both outcomes of the compare explored: the bytes "fast" on one path, not "fast" on the other
    assert len(forks) == 2 and sum(FAST in c for c in forks) == 1, list(forks)
    assert all("getenv@0x" in c and "#1[3]" in c for c in forks), list(forks)


def test_getenv_string_bytes_choosing_a_wrong_implementation_is_a_counterexample(tmp_path_factory):
    proof = _proof(tmp_path_factory, "K3_TWO=0x8f1bbcddu")
    assert proof.outcome == "counterexample", [(p.outcome, p.detail[:200]) for p in proof.paths]
    forks = _string_paths(proof)
    # only the path where the string begins "fast" (sha1_two, rounds 40-59 wrong) is refuted
    assert {FAST in c: o for c, o in forks.items()} == {True: "counterexample", False: "proved"}, forks
