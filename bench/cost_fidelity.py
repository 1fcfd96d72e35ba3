"""Cost-model fidelity (issue 10): predicted vs published cycles/byte for OpenSSL's own SHA-1 code.

The code is Debian's: member ``libcrypto-lib-sha1-x86_64.o`` of
``/usr/lib/x86_64-linux-gnu/libcrypto.a`` (OpenSSL's sha1-x86_64.pl output).
For each path -- ``sha1_block_data_order`` (integer), ``_ssse3``, ``_avx``,
``_avx2``, ``_shaext`` -- the script takes ``objdump -d`` of the member,
cuts the block loop (from the target of the function's last backward branch
to that branch; the SSSE3/AVX loops end in an unconditional ``jmp`` back,
their ``je`` to the tail is the not-taken exit), reads each instruction with
``semantics.listing`` (an instruction the table has no row for becomes an
opaque item, priced by ``search.cost.classes``) and simulates the loop in
steady state on the model of each CPU of the issue's "Reference figures"
table. Bytes per iteration: 64, except the AVX2 loop (two blocks, 128).

Published figures (the only data any row of the models may be fitted to):
the header of OpenSSL's crypto/sha/asm/sha1-x86_64.pl as quoted in issue 10.
Ryzen (Zen 1) is the zen1 model (Zen 3's integer core with Zen 1's two
AGUs, one store pipe and 4-wide decode).

Output: one row per (CPU, path) with predicted, published and the error;
the mean absolute error and the max; per CPU whether the model ranks the
paths in the published order.

Usage: python bench/cost_fidelity.py  (output: bench/results/cost_fidelity.txt)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from sha1opt.search.cost.model import load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.semantics.listing import Opaque, parse_listing

LIBCRYPTO = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-sha1-x86_64.o"
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

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
_PREFIXES = re.compile(r"^(?:(?:cs|ds|data16|addr32|notrack|bnd|repz|rep)\s+)+")
_TARGET = re.compile(r"^(j[a-z]+)\s+([0-9a-f]+) <")


def objdump_member() -> str:
    with tempfile.TemporaryDirectory(prefix="sha1opt-fidelity-") as d:
        subprocess.run(["ar", "x", str(LIBCRYPTO), MEMBER], cwd=d, check=True)
        return subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", str(Path(d) / MEMBER)],
                              capture_output=True, text=True, check=True).stdout


def function_lines(dump: str, symbol: str) -> list[tuple[int, str]]:
    out, inside = [], False
    for raw in dump.splitlines():
        if raw.endswith(f"<{symbol}>:"):
            inside = True
            continue
        if inside and raw.endswith(">:"):
            break
        m = _LINE.match(raw) if inside else None
        if m:
            out.append((int(m.group(1), 16), _PREFIXES.sub("", m.group(2))))
    return out


def loop_lines(dump: str, symbol: str) -> list[str]:
    """The block loop: from the last backward branch's target to that branch, as ``L<addr>: insn`` lines."""
    lines = function_lines(dump, symbol)
    for i in range(len(lines) - 1, -1, -1):
        m = _TARGET.match(lines[i][1])
        if m and int(m.group(2), 16) <= lines[i][0] and "vzeroupper" not in lines[i][1]:
            head = int(m.group(2), 16)
            body = [(a, t) for a, t in lines if head <= a <= lines[i][0]]
            return [f"L{a:x}: {t}" for a, t in body if not t.startswith("nop") and not t.startswith("xchg %ax,%ax")]
    raise SystemExit(f"{symbol}: no backward branch")


def items_of(lines: list[str]) -> list:
    """Each line through the listing parser; a line it refuses becomes an opaque item (priced by class)."""
    items = []
    for n, line in enumerate(lines, start=1):
        try:
            items.extend(parse_listing(line, "x86_64", f"line{n}").items)
        except Exception:                                        # outside the table: priced as opaque
            word, _, rest = line.split(": ", 1)[1].partition(" ")
            ops = tuple(o.strip() for o in re.split(r",(?![^(]*\))", rest)) if rest.strip() else ()
            kind = "vector" if re.search(r"%[xyz]mm\d", rest) or word.startswith("v") else "opaque"
            items.append(Opaque(word, ops, n, kind))
    return items


def main() -> int:
    dump = objdump_member()
    loops = {p: items_of(loop_lines(dump, SYMBOL[p])) for p in PATHS}
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
