"""Which path OpenSSL 3.0's x86-64 ``sha1_block_data_order`` takes by itself (``peers.openssl_default``).

Source: OpenSSL 3.0 crypto/sha/asm/sha1-x86_64.pl, the capability tests at the top of
``sha1_block_data_order``: SSSE3 first (else the integer loop), then SHA, then AVX2+BMI1+BMI2, then
AVX together with the "Intel CPU" bit, else SSSE3. The demo names the result beside its bench line.
"""

from sha1opt.emit.peers import openssl_default

ZEN3 = {"sse", "sse2", "ssse3", "sse4.1", "avx", "avx2", "bmi1", "bmi2", "sha"}


def test_without_ssse3_the_integer_loop_even_with_sha():
    assert openssl_default({"sse", "sse2", "sha"}, "AuthenticAMD") == "integer"


def test_sha_extensions_win_over_avx2():
    assert openssl_default(ZEN3, "AuthenticAMD") == "SHA-NI"


def test_avx2_needs_bmi1_and_bmi2():
    assert openssl_default(ZEN3 - {"sha"}, "GenuineIntel") == "AVX2"
    assert openssl_default(ZEN3 - {"sha", "bmi2"}, "GenuineIntel") == "AVX"


def test_avx_path_only_on_intel_cpus():
    """The AVX path needs ia32cap's "Intel CPU" bit: an AMD CPU with AVX but no AVX2 runs SSSE3."""
    sandy = {"sse", "sse2", "ssse3", "sse4.1", "avx"}
    assert openssl_default(sandy, "GenuineIntel") == "AVX"
    assert openssl_default(sandy, "AuthenticAMD") == "SSSE3"
