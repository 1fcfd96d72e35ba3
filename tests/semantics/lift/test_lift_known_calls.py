"""C library calls by contract on an init path: getenv's NULL and non-NULL results, each a path to the tail call.

Rule (issue 24; ``lift.calls.KNOWN``): a function whose contract is known by name is run by it, not its code --
``getenv``/``secure_getenv`` return NULL (one path) or a pointer to a string of their own (the other; ISO C11
7.22.4.6), ``strlen``/``strcmp``/``memcmp``/``strchr`` only read and return an unknown integer (or pointer),
``fwrite`` writes only its stream, ``_nettle_cpuid`` stores four unknown words -- and nothing else is assumed.
An init function that reloads the function pointer it was reached through, calls the resolver (whose stores into
the object's own function pointers are of code addresses, ``calls.store_pointer``) and jumps through the new
value then proves on each path by the target's own proof; the environment string's bytes at constant offsets are
unknowns a branch forks on (``lift.memory``), and a path that walks to its next token (strchr's result, a pointer
into the string) stops there, naming it. The code is nettle's fat-build ``nettle_sha1_compress`` from Debian's ``libnettle.a``
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
    # NETTLE_FAT_OVERRIDE's first token is read byte by byte ("aesni" at 0x140: ``secure_getenv@0x59#..[0..4]``)
    # and each outcome reaches an implementation; the paths that reach a second token (strchr found a comma: a
    # walk over the string) stop there, refused by name, never a violation
    assert any("secure_getenv@0x59#" in p.condition for p in tails), [p.condition for p in tails]
    rest = [p for p in init if p.outside is None]
    assert rest and all(p.outcome == "refused" and "subtraction of pointers a known function returned" in p.detail
                        for p in rest), [(p.outcome, p.detail) for p in rest]
