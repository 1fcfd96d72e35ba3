"""Calibration of a cost model against this machine: paired timings, predictions, error and rank metrics.

A calibration compares *relative* speeds: every variant of the block
function is timed against one reference in the same process
(``paired_ratio``), and each model's prediction is turned into the same
kind of number (predicted cycles of the variant's block loop / predicted
cycles of the reference's). Relative speeds need no core clock (the TSC runs
at a fixed rate whatever the core does, and the ratio cancels it), which is
what makes them comparable with a cycle model on a VM where ``perf`` cannot
count cycles.

* ``paired_ratio(variant, reference, arch)`` -- ``csrc/bench.c`` linked with
  the variant as peer 0 (``sha1_block_data_order``) and the reference,
  renamed, as peer 1 (``sha1_ref_block_data_order``); per pair the two run
  back to back on the same data, first one then the other (the order
  alternates), and the statistic is the distribution of per-pair ratios
  variant/reference of ticks per byte (``emit/bench.py`` explains why only
  paired ratios survive this machine's noise).
* ``loop_items`` / ``loop_text`` -- the block loop of an AT&T function (head
  label to the backward branch, loop control included), as items for
  ``search.cost.simulate`` and as plain AT&T text for ``llvm-mca``.
* ``mca_cycles`` -- llvm-mca's cycles per iteration of that text.
* ``mape``, ``spearman``, ``kendall_tau`` -- the error and rank statistics
  (ties get average ranks; Kendall's tau-b corrects for ties).

Errors: a tool that fails raises ``ToolchainError`` (from ``toolchain.run``);
a statistic asked of sequences it is not defined for raises
``CalibrationError``; a variant whose vectors fail is reported by
``vectors_ok`` as a value. Building and running the timing program, and the
median / p10 / p90 of the ratios, are the timing driver's (``timing.py``); gcc's
reference code is ``peers.py``'s.
"""

from __future__ import annotations

import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.assembly import SYMBOL
from sha1opt.emit.harness import BlockHarness
from sha1opt.emit.peers import REFERENCE_SYMBOL, reference_assembly
from sha1opt.emit.timing import PairPlan, band, timing_program, tsc_hz
from sha1opt.emit.toolchain import ToolchainError, compile_text, run
from sha1opt.emit.validate import run_vectors

__all__ = ["REF_SYMBOL", "LLVM_MCA", "CalibrationError", "PairedRatio", "rename_symbol", "gcc_variant",
           "vectors_ok", "build_pair", "run_pairs", "paired_ratio", "tsc_hz", "loop_items", "loop_text",
           "mca_cycles", "newest_llvm_mca", "mape", "ranks", "spearman", "kendall_tau"]

REF_SYMBOL = REFERENCE_SYMBOL              # peer 1 of csrc/bench.c
LLVM_MCA = "/usr/bin/llvm-mca"             # LLVM 14 on this host (docs/uarch-notes.md)


class CalibrationError(Sha1optError):
    """A statistic asked of sequences it is not defined for (different lengths, too short)."""


def rename_symbol(text: str, old: str, new: str) -> str:
    """``text`` with the symbol ``old`` spelled ``new`` (whole identifiers only)."""
    return re.sub(rf"(?<![\w.$]){re.escape(old)}(?![\w.$])", new, text)


def gcc_variant(arch: Arch, flags: Sequence[str] = ()) -> str:
    """gcc -O2 (plus ``flags``) assembly of ``csrc/sha1_ref.c``, its function renamed to ``sha1_block_data_order``."""
    return rename_symbol(reference_assembly(arch, flags), REF_SYMBOL, SYMBOL)


def vectors_ok(text: str, arch: Arch) -> tuple[bool, str]:
    """Run ``text``'s ``sha1_block_data_order`` on the validation vectors natively (no proof).

    For code that does not follow the frame contract the prover checks
    against (gcc's: its own stack layout, spills, and on x86-64 a state
    update through vector registers); our own schedules go through ``export``.
    """
    with tempfile.TemporaryDirectory(prefix="sha1opt-vec-") as d:
        work = Path(d)
        obj = compile_text(text, arch, work, "variant")
        return run_vectors(BlockHarness(obj, arch, work))


@dataclass(frozen=True)
class PairedRatio:
    ratios: tuple[float, ...]   # per pair: variant / reference ticks per byte
    size: int                   # bytes per call
    variant_tpb: float          # TSC ticks per byte, median over pairs (context only)
    reference_tpb: float

    @property
    def pairs(self) -> int:
        return len(self.ratios)

    @property
    def median(self) -> float:
        return band(self.ratios)[0]

    @property
    def p10(self) -> float:
        return band(self.ratios)[1]

    @property
    def p90(self) -> float:
        return band(self.ratios)[2]

    def __add__(self, other: "PairedRatio") -> "PairedRatio":
        """Pool two runs of the same pair (the tick medians are approximated by the larger run's)."""
        if other.size != self.size:
            raise CalibrationError("cannot pool runs of different call sizes")
        big = self if self.pairs >= other.pairs else other
        return PairedRatio(self.ratios + other.ratios, self.size, big.variant_tpb, big.reference_tpb)


def build_pair(variant: str, reference: str, arch: Arch, work: Path, reference_first: bool = False) -> Path:
    """The bench program with ``variant`` as peer 0 and ``reference`` (renamed) as peer 1.

    ``reference_first`` links the reference's object before the variant's, which moves both
    functions (their alignment within cache lines and fetch blocks changes with it).
    """
    if arch not in ("x86_64", "i386"):
        raise Sha1optError(f"unknown arch {arch!r}")
    var_obj = compile_text(variant, arch, work, "variant")
    ref_obj = compile_text(rename_symbol(reference, SYMBOL, REF_SYMBOL), arch, work, "reference")
    objs = [ref_obj, var_obj] if reference_first else [var_obj, ref_obj]
    # i386: the freestanding build of emit/bench.py, with the reference in place of the C peer, _start first
    return timing_program(arch, objs, work, f"pair_{arch}", start_at=0)


def run_pairs(exe: Path, pairs: int, size: int = 16384, min_bytes: int = 1 << 20) -> PairedRatio:
    """Run a program from ``build_pair``: ``pairs`` pairs of calls of ``size`` bytes (repeated to ``min_bytes``)."""
    t = PairPlan((size,), pairs, min_bytes).run(exe)
    npeers, recs = t.peers, t.records
    if npeers != 2 or len(recs) != 2 * pairs:
        raise ToolchainError(f"paired benchmark reported {npeers} peers and {len(recs)} records, "
                             f"expected 2 and {2 * pairs}")
    if not np.all(recs[0::2, 0] + recs[1::2, 0] == 1):
        raise ToolchainError("paired benchmark records are not in pairs of peer 0 and peer 1")
    tpb = t.per_pair()[0]          # csrc/bench.c rotates the order inside a pair: per_pair sorts by peer
    var, ref = tpb[0], tpb[1]
    return PairedRatio(tuple(float(x) for x in var / ref), size, float(np.median(var)), float(np.median(ref)))


def paired_ratio(variant: str, reference: str, arch: Arch, *, pairs: int = 30, size: int = 16384,
                 min_bytes: int = 1 << 20) -> PairedRatio:
    """Time ``variant`` against ``reference`` (both define ``sha1_block_data_order``) in one process."""
    with tempfile.TemporaryDirectory(prefix="sha1opt-pair-") as d:
        exe = build_pair(variant, reference, arch, Path(d))
        return run_pairs(exe, pairs, size, min_bytes)


# --- the block loop of a function, for the models ------------------------------------

def loop_items(text: str, arch: Arch, name: str = "<variant>") -> list:
    """Items of the block loop, head label to backward branch inclusive (what ``analyze`` prices)."""
    listing = parse_listing(text, arch, name)
    lp = listing.loop()
    return list(listing.items[lp.head:lp.branch + 1])


def loop_text(text: str, arch: Arch, name: str = "<variant>") -> str:
    """The same loop as plain AT&T lines (the source line of every item), for llvm-mca."""
    lines = text.splitlines()
    out = []
    for it in loop_items(text, arch, name):
        src = lines[it.line - 1]
        # One statement per line in our files and in gcc's output; drop labels and comments.
        src = re.sub(r"/\*.*?\*/", "", src).split("#", 1)[0]
        src = re.sub(r"^\s*[\w.$]+:", "", src).strip()
        if ";" in src:
            raise Sha1optError(f"{name}:{it.line}: several statements on one line")
        out.append("\t" + src)
    return "\n".join(out) + "\n"


def newest_llvm_mca() -> str:
    """The newest versioned ``/usr/bin/llvm-mca-N`` installed (Debian ships several side by side), else ``LLVM_MCA``.

    Example: with llvm-14 and llvm-19 installed, ``/usr/bin/llvm-mca-19``.
    """
    found = [(int(m.group(1)), str(p)) for p in Path("/usr/bin").glob("llvm-mca-*")
             if (m := re.fullmatch(r"llvm-mca-(\d+)", p.name))]
    return max(found)[1] if found else LLVM_MCA


def mca_cycles(body: str, arch: Arch, cpu: str = "znver3", iterations: int = 10, tool: str = LLVM_MCA) -> float:
    """llvm-mca's Total Cycles / iterations for ``body`` (plain AT&T instructions); ``tool`` is the llvm-mca binary."""
    triple = "i386-unknown-linux-gnu" if arch == "i386" else "x86_64-unknown-linux-gnu"
    proc = run([tool, f"-mtriple={triple}", f"-mcpu={cpu}", f"-iterations={iterations}",
                "-instruction-info=false", "-resource-pressure=false"], "llvm-mca", timeout=600, input=body)
    m = re.search(r"Total Cycles:\s+(\d+)", proc.stdout)
    if not m:
        raise ToolchainError("llvm-mca: no 'Total Cycles' in its report")
    return int(m.group(1)) / iterations


# --- metrics ---------------------------------------------------------------------------

def mape(predicted: Sequence[float], measured: Sequence[float]) -> float:
    """Mean absolute percentage error, mean |p - m| / m, as a fraction (0.05 = 5 %)."""
    if len(predicted) != len(measured) or not measured:
        raise CalibrationError("mape needs two non-empty sequences of the same length")
    return float(np.mean([abs(p - m) / m for p, m in zip(predicted, measured)]))


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing the average of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson correlation of the (tie-averaged) ranks; nan when either side is constant."""
    if len(x) != len(y) or len(x) < 2:
        raise CalibrationError("spearman needs two sequences of the same length >= 2")
    rx, ry = np.array(ranks(x)), np.array(ranks(y))
    dx, dy = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return float((dx * dy).sum() / den) if den else float("nan")


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties in x)(n0 - ties in y)); nan when undefined."""
    n = len(x)
    if n != len(y) or n < 2:
        raise CalibrationError("kendall_tau needs two sequences of the same length >= 2")
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            a = (x[i] > x[j]) - (x[i] < x[j])
            b = (y[i] > y[j]) - (y[i] < y[j])
            if a == 0 and b == 0:
                continue
            if a == 0:
                tx += 1
            elif b == 0:
                ty += 1
            elif a == b:
                conc += 1
            else:
                disc += 1
    # n0 - n1 = untied-in-x pairs = conc + disc + (tied in y only); likewise for y.
    den = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / den if den else float("nan")
