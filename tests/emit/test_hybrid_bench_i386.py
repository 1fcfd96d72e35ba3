"""The i386 hybrid timing against OpenSSL's 32-bit paths (``emit.hybrid_bench_i386``)."""

import pytest

from tests.support.cpu import needs
from sha1opt.emit.hybrid_bench_i386 import CAP_WORDS, LIBCRYPTO_I386, bench_hybrid_i386, cap_text
from sha1opt.emit.toolchain import assemble
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.elf import ObjectFile


def test_the_capability_vector_is_16_bytes_of_the_words(tmp_path):
    obj = ObjectFile.parse(assemble(cap_text(CAP_WORDS["avx"]), "i386", tmp_path, "cap").read_bytes())
    assert obj.sections[".data"][:16] == b"".join(w.to_bytes(4, "little") for w in CAP_WORDS["avx"])


def test_an_x86_64_block_or_an_unknown_path_is_refused():
    with pytest.raises(Sha1optError):
        bench_hybrid_i386(build(HybridParams()))
    with pytest.raises(Sha1optError):
        bench_hybrid_i386(build_i386(HybridParams(arch="i386")), openssl_paths=("avx2",))


@needs("ssse3")
@pytest.mark.skipif(not LIBCRYPTO_I386.is_file(), reason="needs libssl-dev:i386")
def test_one_short_run_gives_a_ratio_per_peer():
    rep = bench_hybrid_i386(build_i386(HybridParams(isa="ssse3", arch="i386")), sizes=(64,), pairs=2,
                            min_bytes=64, openssl_paths=("integer", "ssse3"))
    assert [s.peer for s in rep.stats] == ["gcc -O2 -m32 C", "OpenSSL integer", "OpenSSL ssse3"]
    assert all(s.ratio_median > 0 for s in rep.stats) and "prove" in rep.validated
