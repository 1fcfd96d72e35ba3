"""The peers sha1opt measures itself against: gcc's code for our plain C SHA-1, and OpenSSL.

* ``reference_assembly(arch, flags)`` -- ``gcc -O2 <flags> -m32|-m64
  -fno-asynchronous-unwind-tables -fno-pie -S`` of ``csrc/sha1_ref.c``
  (function ``sha1_ref_block_data_order``), as AT&T text.
* ``gcc_reference_loop(arch, mtune)`` -- the block loop of that listing
  tuned for one CPU, as items for the cost model, with a description:
  ``gcc_reference_loop("i386", "pentium4")`` gives the items from the loop
  head label to the backward branch inclusive (loop control included, as
  ``listing.items[loop.head:loop.branch + 1]``) and
  ``"gcc -O2 -mtune=pentium4 -m32"``. The search takes this as an argument
  (search never runs tools); this module is where the listing is made.
* ``libcrypto()`` and ``OPENSSL_PATHS`` -- OpenSSL's libcrypto for the
  benchmark, and the ``OPENSSL_ia32cap`` masks that force each of its
  SHA-1 code paths (OpenSSL 3.0's ``OPENSSL_ia32cap`` bits); ``openssl_default(cpu)``
  names the path its ``sha1_block_data_order`` takes by itself on a CPU.

Errors: gcc failing, or a listing ``semantics.listing`` cannot read, raises
``ToolchainError`` (a ``Sha1optError``) with gcc's or the parser's message.
"""

from __future__ import annotations

import ctypes.util
from typing import Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.toolchain import ToolchainError, arch_flag, c_assembly, csrc
from sha1opt.search.objective import Reference

REFERENCE_C = "sha1_ref.c"
REFERENCE_SYMBOL = "sha1_ref_block_data_order"   # the function csrc/sha1_ref.c defines

# OpenSSL takes its AVX path only where its ia32cap vector has the "Intel CPU" bit (word 0 bit 30, which
# OPENSSL_ia32_cpuid sets from cpuid's vendor string): a mask only clears bits, so on any other vendor a
# mask that leaves AVX runs the SSSE3 code. The "avx" entry therefore sets the whole vector: word 0 = FXSR
# (bit 24) | "Intel CPU" (bit 30), word 1 = SSSE3 (bit 9) | AVX (bit 28), words 2-3 = 0 (no AVX2, BMI, SHA):
# the bits sha1_block_data_order tests, so it runs the AVX loop on any CPU with AVX (as the i386 bench's
# OPENSSL_ia32cap_P = 0x41000000, 0x10000200, 0, 0).
AVX_PATH_VECTOR = ((1 << 24) | (1 << 30), (1 << 9) | (1 << 28))
# The vendor a path is OpenSSL's own choice on -- cpuid's string, and as the notes name it (elsewhere the path
# runs only when forced, as above).
OPENSSL_VENDOR: dict[str, tuple[str, str]] = {"avx": ("GenuineIntel", "Intel")}

# OPENSSL_ia32cap masks (OpenSSL 3.0): which path each forces.
OPENSSL_PATHS: dict[str, str | None] = {
    "integer": "~0x20000000000",                       # no SSSE3/AVX/SHA: the integer code
    "ssse3": "~0x1000000000000000:~0x20000120",        # SSSE3, no AVX, no SHA extensions
    "avx": f"{AVX_PATH_VECTOR[1] << 32 | AVX_PATH_VECTOR[0]:#x}:0",   # a whole vector, not a mask
    "avx2": ":~0x20000000",                            # everything but SHA extensions
    "shani": None,                                     # SHA-NI: what OpenSSL takes unmasked where the CPU has it
    "default": None,                                   # what the CPU selects (openssl_default)
}
# What a forced path needs of the CPU. A mask only clears capability bits: on a CPU without these
# features OpenSSL silently runs another path, so a path is timed under its name only where they run.
OPENSSL_NEEDS: dict[str, frozenset[str]] = {
    "integer": frozenset(), "ssse3": frozenset({"ssse3"}), "avx": frozenset({"ssse3", "avx"}),
    "avx2": frozenset({"avx2", "bmi1", "bmi2"}), "shani": frozenset({"ssse3", "sha"}), "default": frozenset(),
}


def openssl_path_note(path: str, cpu) -> tuple[bool, str]:
    """(timed?, the note for the report) of OpenSSL path ``path`` on ``cpu`` (a ``host_cpu.HostCpu`` or None):
    a forced path whose features the CPU lacks is not timed (OpenSSL would run another under its name);
    ``default`` is named by ``openssl_default`` on the CPU's real features (``SHA1OPT_CPU_LACKS`` does not
    reach OpenSSL's own dispatch). Example: ``("avx2", a Zen 3)`` -> ``(True, "")``."""
    missing = lacking(OPENSSL_NEEDS[path], cpu)
    if missing:
        return False, f"OpenSSL {path}: not timed: {lacks_text(missing)}, so OpenSSL would run another path"
    vendor, named = OPENSSL_VENDOR.get(path, (None, ""))
    if vendor is not None and cpu is not None and cpu.id.vendor != vendor:
        return True, (f"OpenSSL {path}: forced: OpenSSL itself takes that path only on {named} CPUs, not on this "
                      f"{cpu.id.vendor} one")
    if path == "default" and cpu is not None:
        real = cpu.features | cpu.removed
        return True, f"OpenSSL default: its {openssl_default(real, cpu.id.vendor)} path on this CPU"
    return True, ""


def openssl_default(features, vendor: str) -> str:
    """The x86-64 path OpenSSL 3.0's ``sha1_block_data_order`` takes on a CPU with ``features``
    (``host_cpu`` names) from ``vendor``: no SSSE3 -> integer; SHA -> SHA-NI; AVX2+BMI1+BMI2 -> AVX2;
    AVX on an Intel CPU (ia32cap's "Intel CPU" bit) -> AVX; else SSSE3 (crypto/sha/asm/sha1-x86_64.pl,
    the dispatch at the top of ``sha1_block_data_order``). Example: a Zen 3 (SHA-NI) -> ``"SHA-NI"``."""
    f = set(features)
    if "ssse3" not in f:
        return "integer"
    if "sha" in f:
        return "SHA-NI"
    if {"avx2", "bmi1", "bmi2"} <= f:
        return "AVX2"
    return "AVX" if "avx" in f and vendor == OPENSSL_VENDOR["avx"][0] else "SSSE3"


def reference_assembly(arch: Arch, flags: Sequence[str] = ()) -> str:
    """gcc -O2 (plus ``flags``) assembly of ``csrc/sha1_ref.c`` for ``arch``, as text."""
    return c_assembly(csrc(REFERENCE_C), arch, flags)


def gcc_reference_loop(arch: Arch, mtune: str) -> tuple[list, str]:
    """(items of the block loop of gcc -O2 -mtune=<mtune> of sha1_ref.c, "gcc -O2 -mtune=<mtune> -m32|-m64")."""
    text = reference_assembly(arch, (f"-mtune={mtune}",))
    description = f"gcc -O2 -mtune={mtune} {arch_flag(arch)}"
    try:
        listing = parse_listing(text, arch, "gcc-sha1_ref.s")
        loop = listing.loop()
    except Sha1optError as e:
        raise ToolchainError(f"{description}: its code could not be read: {e}") from None
    return list(listing.items[loop.head:loop.branch + 1]), description


def gcc_reference(model, arch: Arch) -> Reference:
    """gcc -O2 -mtune=<the model's CPU> of our C SHA-1 as the search's peer for ``model``.

    When gcc cannot build or its listing cannot be read, the Reference has no
    items and its name says why (the search then reports the peer as n/a with
    that reason instead of failing).
    """
    try:
        items, name = gcc_reference_loop(arch, model.gcc_mtune)
    except Sha1optError as e:
        return Reference(f"gcc -O2 -mtune={model.gcc_mtune}: {e}", ())
    return Reference(name, tuple(items))


def libcrypto() -> str | None:
    """The path ctypes finds for OpenSSL's libcrypto, or None when it is not installed."""
    return ctypes.util.find_library("crypto")
