"""C library calls by contract on an init path: getenv's NULL and non-NULL results, each a path to the tail call.

Rule (issue 24; ``lift.calls.KNOWN``): a function whose contract is known by name is run by it, not its code --
``getenv``/``secure_getenv`` return NULL (one path) or a pointer to a string of their own (the other; ISO C11
7.22.4.6), ``strlen``/``strcmp``/``memcmp``/``strchr`` only read and return an unknown integer (or pointer),
``fwrite`` writes only its stream, ``_nettle_cpuid`` stores four unknown words -- and nothing else is assumed.
An init function that reloads the function pointer it was reached through, calls the resolver (whose stores into
the object's own function pointers are of code addresses, ``calls.store_pointer``) and jumps through the new
value then proves on each path by the target's own proof; a path that reads the environment string's contents
stops there, naming it. The code is nettle's fat-build ``nettle_sha1_compress`` from Debian's ``libnettle.a``
(nettle-dev, installed by setup/system-packages.sh), read at test time.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface

LIB = Path("/usr/lib/x86_64-linux-gnu/libnettle.a")
INIT = "nettle_sha1_compress_init"
TARGETS = {"_nettle_sha1_compress_sha_ni", "_nettle_sha1_compress_x86_64"}


def test_nettle_fat_init_paths_reach_the_implementations_through_getenv():
    if not LIB.exists():
        pytest.skip(f"{LIB} missing: nettle-dev (setup/system-packages.sh installs it as root)")
    raw = subprocess.run(["ar", "p", str(LIB), "fat-x86_64.o"], capture_output=True, check=True, timeout=60).stdout
    proof = prove_function(ObjectFile.parse(raw), "nettle_sha1_compress", parse_interface("one-block").contract("sysv"))
    init = [p for p in proof.paths if p.pointers[0] == ("nettle_sha1_compress_vec", INIT)]
    assert not any("no contract" in p.detail for p in proof.paths), [p.detail for p in proof.paths]
    # getenv NULL and not NULL: both kinds of path reach the tail call, to each implementation, arguments intact
    tails = [p for p in init if p.outside is not None]
    assert {p.outside for p in tails} == TARGETS
    for null in (True, False):
        said = "not (getenv() at"
        assert any((said in p.condition) != null for p in tails), [p.condition for p in tails]
    # the rest stop where the environment's string is read or printed: refusals naming it, never a violation
    rest = [p for p in init if p.outside is None]
    assert all(p.outcome in ("refused", "unknown") and p.category in ("address", "untracked value") for p in rest), \
        [(p.outcome, p.detail) for p in rest]
