"""The table the hybrid benches print: one row per (block, peer, size) of interleaved-pair ratios.

Shared by bench/simd.py (x86-64) and bench/simd_i386.py so that both print the same columns in
the same format; each script keeps its own prose (what is measured, the closing note). Nothing
here measures; the table functions return text. Beside them, what every timing bench does alike:
``host_model`` (its ``--uarch``, refused in one line unless this CPU's), ``Output`` (its printed lines,
prepended to its results file) and ``run_main`` (a refusal or Ctrl-C as one line).

Invariant: a row is ``label`` (already padded by the caller to the width of the header's
``block`` column) followed by the fixed columns of ``HEADER_COLUMNS`` in that order, so
``header(w)`` and ``report_lines(label, w, rep)`` with ``len(label) == w`` line up.

Example: ``header(16)`` is ``"block            peer                bytes  median    p10    p90
min/min ours t/B peer t/B"`` (one line), and for a ``PeerStats`` of OpenSSL ssse3 at 16 KiB
``row("i386 ssse3      ", st)`` is ``"i386 ssse3       OpenSSL ssse3       16384   0.950  0.940
0.960   0.948    1.900    2.000"`` (one line): the ``peer`` column starts at 17 in both.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from sha1opt.emit.bench import BenchRefusal, BenchReport, PeerStats
from sha1opt.emit.host_cpu import host, host_refusal, identify, uarch_name
from sha1opt.semantics.errors import Sha1optError

HEADER_COLUMNS = f"{'peer':16s} {'bytes':>8s} {'median':>7s} {'p10':>6s} {'p90':>6s} " \
                 f"{'min/min':>7s} {'ours t/B':>8s} {'peer t/B':>8s}"


def cpu() -> str:
    """The host CPU as ``emit.host_cpu`` names it -- brand, vendor, family, model, stepping (``AMD EPYC 7B13
    64-Core Processor (AuthenticAMD family 25 model 1, stepping 1)``) -- and its model (``--uarch host``),
    else what ``platform`` says, else "unknown CPU"."""
    c = host()
    if c is None:
        return platform.processor() or "unknown CPU"
    row = identify(c.id)
    return f"{c}, model {row.model} ({row.match})" if row else f"{c}, in no row of corpus/cpus.toml"


def load() -> str:
    """The load average, as printed beside every timed figure: ``load average 1.00 0.50 0.25 (2 CPUs)``."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def banner(script: str) -> str:
    """The first line of a bench's output: script, time (UTC), host CPU, niceness, load."""
    return (f"# {script} on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; host: {cpu()}; "
            f"nice {os.nice(0)}; {load()}")


def openssl_paths(text: str) -> tuple[str, ...]:
    """``--paths integer,ssse3`` as the tuple the bench functions take (empty names dropped)."""
    return tuple(p for p in text.split(",") if p)


def header(width: int) -> str:
    """The column header, with a ``block`` column ``width`` characters wide."""
    return f"{'block':{width}s} {HEADER_COLUMNS}"


def row(label: str, st: PeerStats) -> str:
    """One measured (peer, size): ``label`` then the columns of ``HEADER_COLUMNS``."""
    return (f"{label} {st.peer:16s} {st.size:8d} {st.ratio_median:7.3f} {st.ratio_p10:6.3f} "
            f"{st.ratio_p90:6.3f} {st.ratio_of_minima:7.3f} {st.ours_ticks_per_byte:8.3f} "
            f"{st.peer_ticks_per_byte:8.3f}")


def report_lines(label: str, width: int, rep: BenchReport | BenchRefusal) -> list[str]:
    """One block's lines: its refusal, or a row per (peer, size) then the line under them (what was
    validated first, the TSC rate, the load) indented by ``width``. The report's notes are the
    caller's to print or not."""
    if isinstance(rep, BenchRefusal):
        return [f"{label} refused: {rep.reason}"]
    return [row(label, st) for st in rep.stats] + [
        f"{'':{width}s} validated first: {', '.join(rep.validated)}; TSC {rep.tsc_hz / 1e9:.3f} GHz; {load()}"]


def host_model(ap, name: str) -> str:
    """``--uarch NAME`` of a bench that times on this CPU: the model's name (``host`` resolved), or
    ``ap.error`` (one line, exit 2) for an unknown model or one of another CPU."""
    try:
        name = uarch_name(name)
    except Sha1optError as e:
        ap.error(f"--uarch: {e}")
    why = host_refusal(name, host())
    if why:
        ap.error(f"--uarch {name}: {why}")
    return name


def results_file(text: str) -> str:
    """An ``--out`` argument (argparse ``type``): a file this process can write, checked by opening it for
    appending before the run (``Output.prepend`` writes it only at the end; a file the check creates is
    removed again). Example: ``results_file("/nosuch/x.txt")`` raises argparse's error, one line and exit 2."""
    path = Path(text)
    existed = path.exists()
    try:
        with path.open("a"):
            pass
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {e.strerror or e}") from None
    if not existed:
        path.unlink()
    return text


class Output:
    """A bench's printed lines, its ``banner`` first, kept to be prepended to its results file (``prepend``)."""

    def __init__(self, script: str) -> None:
        self.lines: list[str] = []
        self.say(banner(script))

    def say(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.append(text)

    def finish(self, path: str | None) -> int:
        """The closing line (the load average after the run), the lines prepended to ``path``; exit status 0."""
        self.say(f"# done; {load()}")
        self.prepend(path)
        return 0

    def prepend(self, path: str | None) -> None:
        """The lines, a blank line and the file's old text (none when ``path`` is None)."""
        if path:
            out = Path(path)
            before = out.read_text() if out.exists() else ""
            out.write_text("\n".join(self.lines) + "\n\n" + before)


def run_main(main, script: str) -> None:
    """Exit with ``main()``'s status; a refusal (``Sha1optError``) or Ctrl-C is one line naming ``script``."""
    try:
        sys.exit(main())
    except (Sha1optError, KeyboardInterrupt) as e:
        print(f"{script}: {e or 'interrupted'}", file=sys.stderr)
        sys.exit(1)
