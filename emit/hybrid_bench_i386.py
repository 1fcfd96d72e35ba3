"""Paired-ratio timing of an i386 hybrid block against OpenSSL's 32-bit paths (libcrypto.a) and gcc -O2 -m32 C.

The i386 timing program is ``csrc/bench.c`` built freestanding (``timing.freestanding_i386``: no
libc, so no dlopen of a 32-bit libcrypto.so): peer 0 is our validated function, peer 1 whatever
defines ``sha1_ref_block_data_order``. For OpenSSL that is the member ``libcrypto-lib-sha1-586.o``
of Debian's ``libssl-dev:i386`` ``libcrypto.a`` with its ``sha1_block_data_order`` renamed
(``objcopy --redefine-sym``), linked with a ``.data`` definition of the capability vector it reads,
``OPENSSL_ia32cap_P`` (a common symbol in the member), holding the words that force one path.
sha1-586's dispatch (its machine code, as ``sha1opt prove --object`` lists its path conditions):
word 1 bit 9 (SSSE3) and word 0 bit 24 (FXSR) clear -> the integer code; else word 2 bit 29 (SHA)
-> SHA-NI; else word 1 bit 28 (AVX) and word 0 bit 30 (the "Intel CPU" bit) -> AVX; else SSSE3.
The words are cpuid's (word 0 leaf 1 edx, word 1 leaf 1 ecx, word 2 leaf 7 ebx), so each path is a
row of ``OPENSSL_I386_PATHS``: the x86 features it needs, placed by ``host_cpu.CPUID_BITS`` (the one
table of cpuid bits), FXSR with any of them, and the "Intel CPU" bit where asked (``OpensslPath.words``;
``CAP_WORDS`` by path name). Every program is a separate process (one OpenSSL path each), pairs
interleaved in it as in ``emit.bench``; ratios ours / peer of TSC ticks per byte, median and
p10 / p90 over the pairs (the timing driver ``emit.timing``: ``timing_program``, ``PairPlan``,
``Timings.stats``).

The block is validated first as export does (``hybrid_export.validate_hybrid``: assembled, lifted,
the whole function proved from its machine code, native vectors); only that object is linked.
What fails is a ``BenchRefusal`` and nothing runs. Example:
``bench_hybrid_i386(block, sizes=(16384,), pairs=10)`` gives one ``PeerStats`` per (size, peer):
gcc -O2 -m32 C, OpenSSL integer, ssse3 and avx.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import BENCH_SECONDS
from sha1opt.search.space.hybrid import HybridBlock
from sha1opt.emit.bench import SIZES, BenchRefusal, BenchReport, c_program, refusal
from sha1opt.emit.host_cpu import CPUID_BITS
from sha1opt.emit.hybrid_export import function_text, validate_hybrid
from sha1opt.emit.objfile import load_object
from sha1opt.emit.timing import PairPlan, timing_program, tsc_hz
from sha1opt.emit.toolchain import assemble, run, which

LIBCRYPTO_I386 = Path("/usr/lib/i386-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-sha1-586.o"
# OPENSSL_ia32cap_P's words as cpuid's: (leaf, register) -> word; and its bits that are no x86 feature of ours
CAP_WORD_OF: dict[tuple[int, str], int] = {(1, "edx"): 0, (1, "ecx"): 1, (7, "ebx"): 2}
FXSR_BIT = 24                      # word 0 (cpuid 1 edx): sha1-586 takes no SIMD path without FXSR
INTEL_BIT = 30                     # word 0: OpenSSL's "Intel CPU" bit (its AVX path needs it)


@dataclass(frozen=True)
class OpensslPath:
    """One path of sha1-586's dispatch: OpenSSL's name for it, the x86 features whose capability bits take it."""

    name: str
    features: frozenset[str]           # ``host_cpu.CPUID_BITS`` names; none: the integer code
    intel: bool = False                # also the "Intel CPU" bit

    @property
    def words(self) -> tuple[int, int, int, int]:
        """``OPENSSL_ia32cap_P`` words 0..3 that force this path (module docstring)."""
        words = [0, 0, 0, 0]
        for f in self.features:
            leaf, reg, bit = CPUID_BITS[f]
            words[CAP_WORD_OF[leaf, reg]] |= 1 << bit
        words[0] |= (1 << FXSR_BIT if self.features else 0) | (1 << INTEL_BIT if self.intel else 0)
        return tuple(words)


OPENSSL_I386_PATHS = (
    OpensslPath("integer", frozenset()),
    OpensslPath("ssse3", frozenset({"ssse3"})),
    OpensslPath("avx", frozenset({"ssse3", "avx"}), intel=True),
    OpensslPath("shaext", frozenset({"ssse3", "sha"})),
)
CAP_WORDS: dict[str, tuple[int, int, int, int]] = {p.name: p.words for p in OPENSSL_I386_PATHS}
PEER = "sha1_ref_block_data_order"


def cap_text(words: tuple[int, int, int, int]) -> str:
    """A ``.data`` definition of ``OPENSSL_ia32cap_P`` holding ``words``."""
    return ("\t.data\n\t.globl OPENSSL_ia32cap_P\n\t.p2align 4\nOPENSSL_ia32cap_P:\n"
            + "".join(f"\t.long {w:#x}\n" for w in words) + '\t.section .note.GNU-stack,"",@progbits\n')


def openssl_peer(work: Path, lib: Path = LIBCRYPTO_I386) -> Path:
    """sha1-586's object with its entry renamed to the timing program's peer 1 (``PEER``)."""
    member = load_object(lib, work, member=MEMBER)
    out = work / "openssl_sha1_586_peer.o"
    run([which("objcopy"), f"--redefine-sym=sha1_block_data_order={PEER}", str(member.path), str(out)],
        "renaming OpenSSL's sha1_block_data_order")
    return out


def openssl_program(candidate: Path, peer: Path, path: str, work: Path) -> Path:
    """The i386 timing program: ``candidate`` as peer 0, OpenSSL's renamed sha1-586 (``openssl_peer``) as
    peer 1, forced onto ``path`` by a capability vector of ``CAP_WORDS[path]`` linked beside it."""
    cap = assemble(cap_text(CAP_WORDS[path]), "i386", work, f"cap_{path}")
    return timing_program("i386", [peer, cap, candidate], work, f"bench32_openssl_{path}")


def bench_hybrid_i386(block: HybridBlock, *, sizes=SIZES, pairs: int = 30, min_bytes: int = 1 << 20,
                      openssl_paths=("integer", "ssse3", "avx"), with_c: bool = True,
                      time_limit: float = BENCH_SECONDS, lib: Path = LIBCRYPTO_I386) -> BenchReport | BenchRefusal:
    """Validate ``block``'s i386 function, then time it against gcc -O2 -m32 C and each OpenSSL path asked."""
    if block.params.arch != "i386":
        raise Sha1optError("bench_hybrid_i386 times i386 blocks (HybridParams(arch='i386'))")
    plan = PairPlan(sizes, pairs, min_bytes, time_limit, probes=True)
    unknown = [p for p in openssl_paths if p not in CAP_WORDS]
    if unknown:
        raise Sha1optError(f"unknown OpenSSL i386 path {unknown[0]!r} (known: {', '.join(CAP_WORDS)})")
    with tempfile.TemporaryDirectory(prefix="sha1opt-hybrid-bench-i386-") as work:
        work_dir = Path(work)
        v = validate_hybrid(function_text(block), block, work_dir)
        refused = refusal(v)
        if refused:
            return refused
        report = BenchReport("i386", tsc_hz(work_dir), pairs)
        report.validated = tuple(c.name for c in v.checks)
        if with_c:
            t = plan.run(c_program("i386", v.obj, work_dir))
            report.stats += t.stats({1: "gcc -O2 -m32 C"})
        if openssl_paths and not lib.is_file():
            report.notes.append(f"{lib} not found (libssl-dev:i386): OpenSSL peers skipped")
            return report
        peer = openssl_peer(work_dir, lib) if openssl_paths else None
        for path in openssl_paths:
            t = plan.run(openssl_program(v.obj, peer, path, work_dir))
            report.stats += t.stats({1: f"OpenSSL {path}"})
            report.notes.append(f"OpenSSL {path}: OPENSSL_ia32cap_P = {', '.join(f'{w:#x}' for w in CAP_WORDS[path])} "
                                f"({lib}({MEMBER}))")
    return report
