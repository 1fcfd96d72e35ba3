"""Cost-model fidelity (issue 10): predicted vs published cycles/byte for OpenSSL's own SHA-1 code.

The code is Debian's: member ``libcrypto-lib-sha1-x86_64.o`` of
``/usr/lib/x86_64-linux-gnu/libcrypto.a`` (OpenSSL's sha1-x86_64.pl output).
For each path -- ``sha1_block_data_order`` (integer), ``_ssse3``, ``_avx``,
``_avx2``, ``_shaext`` -- the script reads the member through the project's
one front end, the one ``sha1opt analyze`` / ``prove --object`` use: the ELF
(``emit.objfile.load_object``, pyelftools), capstone
(``lift.decode.decode_function``) and the control-flow graph
(``lift.cfg.Cfg``). The block loop is the natural loop the function's back
edge closes (``Cfg.loop_body``: reachable from the head, reaching the back
edge's tail; the SSSE3/AVX loops end in an unconditional ``jmp`` back, their
``je`` to the tail is the not-taken exit; AVX2's loop is a chain of blocks
with one ``ja`` that the steady state falls through), its instructions in
address order. ``search.cost.items.cost_items`` -- the conversion
``analyze`` applies to ``FunctionProof.loop_trace`` -- turns them into the
simulator's items, and the loop is simulated in steady state on the model
of each CPU of the issue's "Reference figures" table. Bytes per iteration:
64, except the AVX2 loop (two blocks, 128).

Published figures (the only data any row of the models may be fitted to):
the header of OpenSSL's crypto/sha/asm/sha1-x86_64.pl as quoted in issue 10.
Ryzen (Zen 1) is the zen1 model (Zen 3's integer core with Zen 1's two
AGUs, one store pipe and 4-wide decode).

Check, not fitted: OpenSSL's 32-bit integer path (``sha1_block_data_order``
of ``libcrypto-lib-sha1-586.o`` in ``/usr/lib/i386-linux-gnu/libcrypto.a``)
against the sha1-586 figures of BRIEF section 4 (Pentium 15.7, P4 10.6,
Core2 7.3, Atom 12.5, Skylake 6.4 c/B), on the models of those CPUs. No row
was chosen by looking at these.

Output: one row per (CPU, path) with predicted, published and the error;
the mean absolute error and the max; per CPU whether the model ranks the
paths in the published order; then the 32-bit check block.

Usage: python bench/cost_fidelity.py  (output: bench/results/cost_fidelity.txt)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sha1opt.emit.objfile import load_object
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.decode import Decoded, decode_function
from sha1opt.semantics.lift.elf import ObjectFile

LIBCRYPTO = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-sha1-x86_64.o"
LIBCRYPTO_32 = Path("/usr/lib/i386-linux-gnu/libcrypto.a")
MEMBER_32 = "libcrypto-lib-sha1-586.o"
PATHS = ("integer", "ssse3", "avx", "avx2", "shaext")
SYMBOL = {"integer": "sha1_block_data_order", "ssse3": "sha1_block_data_order_ssse3",
          "avx": "sha1_block_data_order_avx", "avx2": "sha1_block_data_order_avx2",
          "shaext": "sha1_block_data_order_shaext"}
BYTES = {"integer": 64, "ssse3": 64, "avx": 64, "avx2": 128, "shaext": 64}

# Issue 10, "Reference figures you may calibrate on" (cycles/byte): CPU -> (model, {path: c/B}).
PUBLISHED: dict[str, tuple[str, dict[str, float]]] = {
    "P4 (Prescott)": ("p4-prescott", {"integer": 9.05}),
    "Opteron (K8)": ("k8", {"integer": 6.26}),
    "Core 2": ("core2", {"integer": 6.55, "ssse3": 6.05}),
    "Westmere": ("nehalem", {"integer": 6.73, "ssse3": 5.30}),
    "Skylake": ("skylake", {"integer": 5.18, "ssse3": 4.06, "avx2": 3.54}),
    "Ryzen (Zen 1)": ("zen1", {"integer": 4.75, "ssse3": 3.80, "shaext": 1.93}),
    "Atom (Bonnell)": ("atom", {"integer": 10.3, "ssse3": 9.17}),
}

# BRIEF section 4, OpenSSL sha1-586 (32-bit integer code), c/B: CPU -> (models, figure). Checked, never fitted.
# "P4" does not say which core: both P4 models are printed.
CHECK_32: dict[str, tuple[tuple[str, ...], float]] = {
    "Pentium": (("pentium",), 15.7),
    "P4": (("p4", "p4-prescott"), 10.6),
    "Core 2": (("core2",), 7.3),
    "Atom (Bonnell)": (("atom",), 12.5),
    "Skylake": (("skylake",), 6.4),
}


def member_object(archive: Path, member: str) -> ObjectFile:
    """The ELF object of one archive member (read as ``sha1opt analyze --member`` reads it)."""
    with tempfile.TemporaryDirectory(prefix="sha1opt-fidelity-") as d:
        return load_object(archive, Path(d), member=member).obj


def loop_trace(obj: ObjectFile, symbol: str) -> list[Decoded]:
    """The block loop of ``symbol``: the natural loop of its one outermost back edge, in address order."""
    fn = decode_function(obj, obj.find_function(symbol))
    g = Cfg.build(fn)
    heads = g.loop_heads()
    if len(heads) != 1:
        raise SystemExit(f"{symbol}: {len(heads)} outermost loops, expected one")
    (head,) = heads
    blocks: set[int] = set()
    for tail, h in g.back_edges():
        if h == head:
            blocks |= g.loop_body(tail, head)
    return [fn.instructions[a] for b in sorted(blocks) for a in g.blocks[b]]


def openssl_loops() -> dict[str, list[Decoded]]:
    """OpenSSL's five x86-64 block loops (path -> decoded instructions of one iteration)."""
    obj = member_object(LIBCRYPTO, MEMBER)
    return {p: loop_trace(obj, SYMBOL[p]) for p in PATHS}


def main() -> int:
    loops = {p: cost_items(trace) for p, trace in openssl_loops().items()}
    print(f"# cost fidelity: OpenSSL's SHA-1 loops from {LIBCRYPTO} ({MEMBER}), predicted vs published c/B")
    print("# loop sizes (items): " + ", ".join(f"{p} {len(loops[p])}" for p in PATHS))
    print("# fitted to: the issue's 'Reference figures' table only (OpenSSL x86_64 integer/SSSE3/AVX2/SHA-NI)")
    print()
    print(f"{'CPU':<16} {'model':<12} {'path':<8} {'pred':>6} {'publ':>6} {'err %':>7}  bottleneck")
    errors: list[float] = []
    ranks_ok: dict[str, bool] = {}
    for cpu, (mname, pub) in PUBLISHED.items():
        m = load_model(mname)
        pred = {}
        for path, figure in pub.items():
            sim = simulate(loops[path], m, loop=True, bytes_per_iteration=BYTES[path])
            pred[path] = sim.cycles_per_byte
            err = (pred[path] - figure) / figure
            errors.append(abs(err))
            print(f"{cpu:<16} {mname:<12} {path:<8} {pred[path]:6.2f} {figure:6.2f} {100 * err:+7.1f}  {sim.bottleneck}")
        order_pub = sorted(pub, key=pub.get)
        order_pred = sorted(pub, key=pred.get)
        ranks_ok[cpu] = order_pub == order_pred
    print()
    mae = 100 * sum(errors) / len(errors)
    print(f"mean absolute error {mae:.1f} %, max {100 * max(errors):.1f} % over {len(errors)} figures "
          f"(goal: MAE <= 5 %, max <= 10 %)")
    for cpu, ok in ranks_ok.items():
        print(f"  {cpu:<16} ranks the paths in the published order: {'yes' if ok else 'NO'}")
    check_32()
    return 0


def check_32() -> None:
    """OpenSSL's 32-bit integer loop against BRIEF section 4's sha1-586 figures: a check, nothing fitted."""
    items = cost_items(loop_trace(member_object(LIBCRYPTO_32, MEMBER_32), SYMBOL["integer"]))
    print()
    print(f"# check, not fitted: OpenSSL's 32-bit integer loop ({LIBCRYPTO_32}, {MEMBER_32}: "
          f"{len(items)} items) vs BRIEF section 4's sha1-586 figures")
    print(f"{'CPU':<16} {'model':<12} {'path':<8} {'pred':>6} {'publ':>6} {'err %':>7}  bottleneck")
    errors = []
    for cpu, (models, figure) in CHECK_32.items():
        for mname in models:
            sim = simulate(items, load_model(mname), loop=True, bytes_per_iteration=64)
            err = (sim.cycles_per_byte - figure) / figure
            errors.append(abs(err))
            print(f"{cpu:<16} {mname:<12} {'i386':<8} {sim.cycles_per_byte:6.2f} {figure:6.2f} {100 * err:+7.1f}  "
                  f"{sim.bottleneck}")
    print(f"mean absolute error {100 * sum(errors) / len(errors):.1f} %, max {100 * max(errors):.1f} % "
          f"over {len(errors)} rows (a check: nothing fitted to these)")


if __name__ == "__main__":
    sys.exit(main())
