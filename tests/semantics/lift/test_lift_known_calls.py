"""C library calls by contract on an init path: getenv's NULL and non-NULL results, each a path to the tail call.

Rule (issue 24; ``lift.calls.KNOWN``): a function whose contract is known by name is run by it, not its code --
``getenv``/``secure_getenv`` return NULL (one path) or a pointer to a string of their own (the other; ISO C11
7.22.4.6), ``strlen``/``strcmp``/``memcmp``/``strchr`` only read and return an unknown integer (or pointer),
``fwrite`` writes only its stream, ``_nettle_cpuid`` stores four unknown words -- and nothing else is assumed.
An init function that reloads the function pointer it was reached through, calls the resolver (whose stores into
the object's own function pointers are of code addresses, ``calls.store_pointer``) and jumps through the new
value then proves on each path by the target's own proof; the environment string's bytes at constant offsets are
unknowns a branch forks on (``lift.memory``), and the loop that walks the override's tokens (strchr's result, a
pointer into the string at an unknown offset) goes on from its summary (``lift.summary``): every path reaches an
implementation, the fat entry's every path its target's own proof. The code is nettle's fat-build ``nettle_sha1_compress`` from Debian's ``libnettle.a``
(nettle-dev, installed by setup/system-packages.sh), proved once per session (``nettle_fat_proof``, tests/conftest.py).
"""

from __future__ import annotations


INIT = "nettle_sha1_compress_init"
TARGETS = {"_nettle_sha1_compress_sha_ni", "_nettle_sha1_compress_x86_64"}


def test_nettle_fat_init_paths_reach_the_implementations_through_getenv(nettle_fat_proof):
    proof = nettle_fat_proof
    init = [p for p in proof.paths if p.pointers[0] == ("nettle_sha1_compress_vec", INIT)]
    assert not any("no contract" in p.detail for p in proof.paths), [p.detail for p in proof.paths]
    # getenv NULL and not NULL: both kinds of path reach the tail call, to each implementation, arguments intact
    tails = [p for p in init if p.outside is not None]
    assert {p.outside for p in tails} == TARGETS
    for null in (True, False):
        said = "not (getenv() at"
        assert any((said in p.condition) != null for p in tails), [p.condition for p in tails]
    # NETTLE_FAT_OVERRIDE's tokens are walked by the loop at 0xcd (strchr, the token's length, its bytes: the
    # summary's unknowns ``loop@0xcd#..``); after it the flags it set choose, each choice a path to an implementation
    assert any("loop@0xcd#" in p.condition for p in tails), [p.condition for p in tails]


def test_nettle_fat_entry_every_path_is_its_targets_own_proof(nettle_fat_proof):
    """The bug: the 4 paths where strchr found a comma in NETTLE_FAT_OVERRIDE were refused (``sub %r15,%rax``:
    strchr's result minus the string; then the next token read at a computed offset). Now every path of the fat
    entry -- the init paths through the override loop's summary and the pointer's other values -- jumps to one
    implementation with the caller's arguments intact: the target's own proof (``prove --object`` proves it)."""
    paths = nettle_fat_proof.paths
    assert all(p.outside in TARGETS and p.callee is not None for p in paths), \
        [(p.outcome, p.detail[:160]) for p in paths if p.outside not in TARGETS or p.callee is None]
