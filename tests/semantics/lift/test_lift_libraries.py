"""Other libraries' SHA-1 block functions, proved under their catalogued interfaces (``corpus/interfaces.toml``).

Rule (issue 24): the interface a library ships -- the state inside its context (wolfSSL: byte 0x4c;
mbedTLS: byte 8), host-order words (wolfSSL's Transform, Crypto++'s SHA1_HashBlock_CXX), a byte length
and a byte-order constant (Crypto++'s SHA-NI entry), NULL checks on the pointers (wolfSSL) -- is taken
from the catalogue when none is declared, and the whole function is proved under it; where another
capability blocks the proof, the refusal names the blocker. The code is Debian's static libraries,
read at test time (installed by setup/system-packages.sh); each test skips, with the reason, where its
library is missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.confirm import Unavailable, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.semantics.lift.catalogue import load_shapes, lookup

LIB = Path("/usr/lib/x86_64-linux-gnu")
PACKAGE = {"libwolfssl.a": "libwolfssl-dev", "libcryptopp.a": "libcrypto++-dev", "libmbedcrypto.a": "libmbedtls-dev",
           "libnettle.a": "nettle-dev", "libgcrypt.a": "libgcrypt20-dev", "libctf.so.0": "libctf0 (binutils)",
           "libiberty.a": "libiberty-dev", "libpython3.11.a": "libpython3.11-dev"}
SHANI = "_ZN8CryptoPP29SHA1_HashMultipleBlocks_SHANIEPjPKjmNS_9ByteOrderE"
CXX = "_ZN8CryptoPP12_GLOBAL__N_118SHA1_HashBlock_CXXEPjPKj"


def _lib(name: str) -> Path:
    path = LIB / name
    if not path.exists():
        pytest.skip(f"{path} missing: {PACKAGE[name]} (setup/system-packages.sh installs it as root)")
    return path


@pytest.mark.parametrize("lib, member, function, paths", [
    # NULL checks on both pointers, then a jump to the static Transform: one path, the NULL returns infeasible
    ("libwolfssl.a", "src_libwolfssl_la-sha.o", "wc_ShaTransform", ["entry -> ret, one block (via Transform)"]),
    # a local symbol: its row is the member's
    ("libwolfssl.a", "src_libwolfssl_la-sha.o", "Transform", ["entry -> ret, one block"]),
    ("libcryptopp.a", "sha.o", CXX, ["entry -> ret, one block"]),
    # length < 64 returns at once; the loop hashes floor(length/64) blocks, order 1 (big-endian bytes)
    ("libcryptopp.a", "sha_simd.o", SHANI, ["entry -> ret, loop not entered", "loop"]),
    ("libnettle.a", "sha1-compress.o", "_nettle_sha1_compress_x86_64", ["entry -> ret, one block"]),
    ("libgcrypt.a", "sha1-ssse3-amd64.o", "_gcry_sha1_transform_amd64_ssse3", ["entry -> ret, loop not entered", "loop"]),
    # (data, bytes whole, state counter@0x14): the state and the 64-bit byte counter total, add / cmp / adc
    ("libiberty.a", "sha1.o", "sha1_process_block", ["entry -> ret, loop not entered", "loop"]),
    # CPython's static sha1_compress (state@0x8): gcc's 16-bit-lane byte gathering and vectorized W expansion
    ("libpython3.11.a", "sha1module.o", "sha1_compress", ["entry -> ret, one block"]),
])
def test_library_function_proves_under_its_catalogued_interface(lib, member, function, paths):
    res = prove_object(_lib(lib), member=member, function=function, native=False)
    assert res.proved, res.summary()
    assert res.interface_origin.startswith("the interface catalogue"), res.interface_origin
    assert [p.name if p.kind != "loop" else "loop" for p in res.proof.paths] == paths


def test_mbedtls_process_proves_under_its_catalogued_interface():
    """mbedTLS's ``mbedtls_internal_sha1_process(ctx, data)``: the state at ctx+8 (the catalogue), a
    ``mbedtls_platform_zeroize`` of its locals by contract (``lift.calls``) before the canary check."""
    res = prove_object(_lib("libmbedcrypto.a"), member="sha1.c.o", function="mbedtls_internal_sha1_process",
                       native=False)
    assert res.proved, res.summary()
    assert res.interface == "mbedtls_internal_sha1_process(state@0x8, data)", res.interface
    assert res.interface_origin.startswith("the interface catalogue"), res.interface_origin


def test_native_crash_at_a_stubbed_call_is_no_counterexample(tmp_path):
    """Regression: CryptoPP::SHA1::Transform calls DetectX86Features when its GOT flag reads 0, as the harness's
    zeroed data stubs make it; natively that call reaches a data stub and the process dies. That was reported as
    a counterexample confirmed natively; a death in an object calling stubbed external functions says nothing
    about the code (``emit.confirm.stubbed_calls``): no native verdict. (The prover proves the function:
    test_lift_got_flags.py.)"""
    lib = _lib("libcryptopp.a")
    uo = load_object(lib, tmp_path, member="sha.o")
    row = lookup("_ZN8CryptoPP4SHA19TransformEPjPKj", "sha.o")
    found = confirm(uo, "_ZN8CryptoPP4SHA19TransformEPjPKj", 0, tmp_path, interface=row.interface)
    assert isinstance(found, Unavailable), found
    assert "stubs as data" in found.reason and "DetectX86Features" in found.reason, found.reason


def test_libiberty_process_block_in_libctf_proves_under_its_shape_with_the_byte_counter():
    """libiberty's ``sha1_process_block(buffer, len, ctx)`` linked into Debian's stripped libctf.so.0 (``sub_23bb0``,
    found by its constants): under the catalogue's shape row ``(data, bytes whole, state counter@0x14)`` the
    state and the 64-bit byte counter ``total`` (add / cmp / adc) are both proved; with the counter undeclared
    its writes are outside the state and nothing is proved."""
    lib = _lib("libctf.so.0")
    shape = next(s for s in load_shapes() if s.counter_offset is not None)
    res = prove_object(lib, function="sub_23bb0", interface=shape, native=False)
    assert res.proved, res.summary()
    assert "length < 2^32" in res.summary()
    bare = prove_object(lib, function="sub_23bb0", interface=replace(shape, counter_offset=None), native=False)
    assert not bare.proved, bare.summary()
