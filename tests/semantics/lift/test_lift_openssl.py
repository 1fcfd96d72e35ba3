"""OpenSSL's SHA-1 from Debian's libcrypto.a, path by path, under OpenSSL's contract (nblocks >= 1).

``sha1_block_data_order`` dispatches on ``OPENSSL_ia32cap_P`` (a symbolic
input: an undefined symbol read through a relocation). Every dispatch path
is found with its condition; the integer path is proved; the vector paths
are refused by name until the vector rows of the semantics table exist, so
the function as a whole is not claimed. nblocks = 0 enters the loop (reads a
block past the buffer, measured natively with OPENSSL_ia32cap_P = 0): a finding,
and the contract becomes nblocks >= 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.analyze import prove_object

LIBS = {"x86_64": (Path("/usr/lib/x86_64-linux-gnu/libcrypto.a"), "libcrypto-lib-sha1-x86_64.o"),
        "i386": (Path("/usr/lib/i386-linux-gnu/libcrypto.a"), "libcrypto-lib-sha1-586.o")}


def _prove(arch: str):
    lib, member = LIBS[arch]
    if not lib.exists():
        pytest.skip(f"{lib} missing: libssl-dev{':i386' if arch == 'i386' else ''} "
                    "(setup/system-packages.sh installs it as root)")
    return prove_object(lib, member=member)


def test_x86_64_dispatch_paths_and_integer_path():
    res = _prove("x86_64")
    paths = res.proof.paths
    assert len(paths) == 5                                     # integer, SHA-NI, AVX2, AVX, SSSE3
    (integer,) = [p for p in paths if p.outcome == "proved"]
    assert integer.name.startswith("loop") and integer.condition == "bit 9 of OPENSSL_ia32cap_P+4 is 0"
    assert all(p.outcome == "refused" and "unsupported instruction" in p.detail for p in paths if p is not integer)
    assert res.outcome == "refused" and not res.proved          # the whole function is not claimed
    assert res.contract.min_blocks == 1
    # the finding is measured on the object itself: called with 0 blocks it reads past the buffer
    assert any("nblocks = 0 enters the loop" in f and "SIGSEGV" in f for f in res.findings)


def test_i386_pic_dispatch_and_integer_path():
    res = _prove("i386")
    proved = [p for p in res.proof.paths if p.outcome == "proved"]
    # the integer loop is reached without SSE and with SSE but no SSSE3: two paths, both proved
    assert len(proved) == 2 and all(p.name.startswith("loop") for p in proved)
    assert res.contract.min_blocks == 1 and not res.proved
