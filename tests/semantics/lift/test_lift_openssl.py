"""OpenSSL's SHA-1 from Debian's libcrypto.a, path by path, under OpenSSL's contract (nblocks >= 1).

``sha1_block_data_order`` dispatches on ``OPENSSL_ia32cap_P`` (a symbolic
input: an undefined symbol read through a relocation). Every dispatch path
is found with its condition and proved on its own: the integer path, and
the vector paths with xmm/ymm state (SSSE3 and AVX with block k+1's W and
W+K precomputed in the loop-head template, SHA-NI with the chaining value in
vector lanes and a cmov on the data pointer, AVX2 with two blocks per
iteration and an odd-count tail, ``multiblock``), so both functions are
claimed whole. nblocks = 0 enters the loop (reads a
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


def _by_label(paths):
    return {p.label: p for p in paths}


def test_x86_64_every_dispatch_path_proves_avx2_with_its_two_block_invariant(openssl_x86_64_analysis):
    # prove_object(libcrypto.a, member=...) as `analyze` called it, once for the session (tests/conftest.py)
    res = openssl_x86_64_analysis.proof
    paths = res.proof.paths
    # integer, SHA-NI, AVX2 (its prologue's cmov arrivals, n = 1 and n >= 2, are one path), AVX, SSSE3
    assert len(paths) == 5
    got = _by_label(paths)
    for label in ("sha1_block_data_order", "_ssse3_shortcut", "_avx_shortcut", "_shaext_shortcut", "_avx2_shortcut"):
        assert got[label].outcome == "proved", (label, got[label].detail)
    assert got["sha1_block_data_order"].condition == "bit 9 of OPENSSL_ia32cap_P+4 is 0"
    # every condition in words (semantics/lift/condition.py), none in z3's syntax
    assert not [p.condition for p in paths if any(raw in p.condition for raw in ("And(", "Not(", "Or(", "Extract("))]
    assert "(bit 3 of OPENSSL_ia32cap_P+8 is 0 or bit 5 of OPENSSL_ia32cap_P+8 is 0 or bit 8" in got["_ssse3_shortcut"].condition
    avx2 = got["_avx2_shortcut"]
    assert "2-block invariant" in avx2.detail and "1 left: 1 compression" in avx2.detail
    assert avx2.block_bytes == 128 and "n ==" not in avx2.condition and "Extract(57" not in avx2.condition
    assert res.outcome == "proved" and res.proved
    assert res.contract.min_blocks == 1
    # the finding is measured on the object itself: called with 0 blocks it reads past the buffer
    assert any("nblocks = 0 enters the loop" in f and "SIGSEGV" in f for f in res.findings)


def test_i386_pic_every_dispatch_path_proves():
    res = _prove("i386")
    got = _by_label(res.proof.paths)
    # the integer loop is reached without SSE and with SSE but no SSSE3: two paths
    assert [(p.kind, p.head) for p in res.proof.paths].count(("loop", 0x80)) == 2
    assert {"_sha1_block_data_order_ssse3", "_sha1_block_data_order_avx", "_sha1_block_data_order_shaext"} <= set(got)
    assert all(p.outcome == "proved" for p in res.proof.paths), [(p.name, p.detail) for p in res.proof.paths]
    assert res.contract.min_blocks == 1 and res.proved
