"""The limits sha1opt enforces on what it reads and on every child process it starts.

One place for every bound (docs/security.md and the README cite these names):

====================  ==========  =====================================================
``SOURCE_BYTES``      4 MiB       an AT&T ``.s``/``.S`` file read by ``prove --asm``,
                                  ``analyze`` or ``bench``; larger, or not a regular
                                  file (``/dev/zero``, a FIFO), is refused unread
``SOURCE_LINES``      20,000      lines of such a file (a whole unrolled SHA-1
                                  function is ~1,300; OpenSSL's perlasm output
                                  ~5,500): a 4 MiB file of 280,000 ``add`` lines
                                  would otherwise take 26 s and 1.5 GB to prove
``MESSAGE_CHARS``     200         an error message quoting user text (a source line, a
                                  tool's first error line) is cut there, ending in "..."
``OBJECT_BYTES``      64 MiB      an object, archive or shared object given to ``prove
                                  --object`` / ``analyze`` (Debian's libcrypto.a is ~9 MiB)
``TOOL_SECONDS``      120 s       wall time of one ``as``/``gcc``/``ld``/``objdump`` run
``TOOL_CPU_SECONDS``  60 s        its CPU time (RLIMIT_CPU)
``TOOL_MEMORY``       1 GiB       its address space (RLIMIT_AS)
``TOOL_OUTPUT``       64 MiB      any file it writes (RLIMIT_FSIZE): ``.rept 1e8`` or a
                                  ``.fill`` of 8 GB stop here, with that reason shown
``NATIVE_SECONDS``    120 s       wall time of the vector harness (validated code)
``BENCH_SECONDS``     600 s       wall time of one timing process (``bench``, the
                                  calibration); ``bench --time-limit`` lowers it
``NATIVE_CPU_SECONDS`` 300 s      CPU time of a native run (at least its wall time)
``NATIVE_MEMORY``     1 GiB       its address space
``NATIVE_OUTPUT``     0           files a native run may write: none (stdout is a pipe)
====================  ==========  =====================================================

Every child runs in its own process group, which is killed (SIGKILL) on a
time limit, on SIGINT/SIGTERM to sha1opt and when the child returns, so no
process outlives the call. ``clip(text)`` is how messages are cut::

    >>> clip("x" * 500)[-5:], len(clip("x" * 500))
    ('xx...', 200)
"""

from __future__ import annotations

MiB = 1 << 20

SOURCE_BYTES = 4 * MiB
SOURCE_LINES = 20_000
OBJECT_BYTES = 64 * MiB
MESSAGE_CHARS = 200

TOOL_SECONDS = 120.0
TOOL_CPU_SECONDS = 60
TOOL_MEMORY = 1024 * MiB
TOOL_OUTPUT = 64 * MiB

NATIVE_SECONDS = 120.0
BENCH_SECONDS = 600.0
NATIVE_CPU_SECONDS = 300
NATIVE_MEMORY = 1024 * MiB
NATIVE_OUTPUT = 0


def clip(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` on one line of at most ``limit`` characters: newlines become spaces, the cut ends in "..."."""
    one = " ".join(text.split("\n"))
    return one if len(one) <= limit else one[: limit - 3] + "..."


def size_text(n: int) -> str:
    """``64 MiB`` for 64 * 2**20, ``4096 bytes`` below a MiB."""
    return f"{n // MiB} MiB" if n >= MiB and n % MiB == 0 else f"{n} bytes"
