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


# -- which OpenSSL paths bench times, and under which name (issue 27: "default" was never named,
#    "--openssl shani" was refused; issue 22: a forced path on a CPU without it ran another path)

from sha1opt.emit.host_cpu import CpuId, HostCpu  # noqa: E402
from sha1opt.emit.peers import openssl_path_note  # noqa: E402

ZEN2_NO_SHA = HostCpu(CpuId("AuthenticAMD", 23, 49), 0, "", frozenset(ZEN3 - {"sha"}))
SANDY = HostCpu(CpuId("GenuineIntel", 6, 0x2A), 7, "", frozenset({"sse", "sse2", "ssse3", "sse4.1", "avx"}))


def test_a_forced_path_the_cpu_lacks_is_not_timed_under_its_name():
    """OPENSSL_ia32cap only clears bits: avx2 on a Sandy Bridge would run OpenSSL's AVX path as "avx2"."""
    timed, note = openssl_path_note("avx2", SANDY)
    assert not timed and "this CPU lacks avx2, bmi1, bmi2" in note
    assert openssl_path_note("avx2", ZEN2_NO_SHA) == (True, "")


def test_regression_openssl_shani_refused():
    """`--openssl shani` is a path: timed where the CPU has SHA-NI, not timed (with the reason) elsewhere."""
    zen3 = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "", frozenset(ZEN3))
    assert openssl_path_note("shani", zen3) == (True, "")
    assert openssl_path_note("shani", ZEN2_NO_SHA) == (False, "OpenSSL shani: not timed: this CPU lacks sha, so "
                                                              "OpenSSL would run another path")


def test_regression_openssl_default_path_never_named():
    """The default path is named from the CPU's real features: SHA1OPT_CPU_LACKS does not reach OpenSSL."""
    zen3_injected = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "", frozenset(ZEN3 - {"sha"}), removed=frozenset({"sha"}))
    assert openssl_path_note("default", zen3_injected) == (True, "OpenSSL default: its SHA-NI path on this CPU")
    assert openssl_path_note("default", SANDY)[1].endswith("its AVX path on this CPU")


def test_regression_openssl_avx_on_amd_timed_the_ssse3_code():
    """The hold-out's "OpenSSL avx" row on an AMD CPU was timed with the AVX2/SHA bits masked off -- and
    OpenSSL, lacking the "Intel CPU" bit no mask can set, ran its SSSE3 loop, which the row then compared
    with the AVX loop's prediction (+77 % on the Zen 3 hold-out, +45 % on the Zen 2 table of issue 25).
    The avx entry now sets the whole capability vector: the bits OpenSSL's dispatch tests for its AVX path
    (SSSE3, AVX, the Intel bit) and none of the AVX2/BMI/SHA ones; on a CPU that is not Intel's the note says
    the path was forced where OpenSSL would not take it."""
    from sha1opt.emit.peers import AVX_PATH_VECTOR, OPENSSL_PATHS
    words, high = OPENSSL_PATHS["avx"].split(":")
    assert not words.startswith("~") and int(high, 16) == 0
    vec = int(words, 16)
    assert (vec & 0xFFFFFFFF, vec >> 32) == AVX_PATH_VECTOR
    assert vec & (1 << 30) and vec >> 32 & (1 << 9) and vec >> 32 & (1 << 28)
    zen3 = HostCpu(CpuId("AuthenticAMD", 25, 1), 1, "", frozenset(ZEN3))
    timed, note = openssl_path_note("avx", zen3)
    assert timed and "only on Intel CPUs" in note
    assert openssl_path_note("avx", SANDY) == (True, "")
    no_avx = HostCpu(CpuId("GenuineIntel", 6, 0x17), 7, "", frozenset({"sse", "sse2", "ssse3"}))
    assert not openssl_path_note("avx", no_avx)[0]
