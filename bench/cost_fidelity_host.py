"""This host's CPU model against this host (issue 10): predicted vs measured core cycles/byte, llvm-mca beside it.

The model measured is this CPU's (``--uarch``, default ``host``: ``emit.host_cpu.host_model`` from
``corpus/cpus.toml``; the header names the CPU -- brand, vendor, family, model -- and its row, exact or
nearest). ``--other`` (default ``zen5``, or ``goldencove`` on a Zen 5) stays in the table as "not this
CPU". The figures in bench/results/cost_fidelity_host.txt were taken on an Intel Xeon family 6 model 207
(Emerald Rapids, Raptor Cove cores: ``goldencove``).

Two sets, disjoint:

1. Calibration set -- microbenchmarks (``MICRO``): straight-line loop bodies timed in core cycles per
   iteration by ``emit.clock.loop_cycles`` (each sample beside its own add-chain clock sample). The
   goldencove rows whose source says "microbenchmark" were set from these numbers (where the literature
   -- Intel's manual, LLVM 19's SapphireRapids model, uops.info -- disagreed or was silent). Printed
   with goldencove's prediction of the same body, to show what the rows do.
2. Scored set (the hold-out: nothing was fitted to these) -- SHA-1 codes, each a correct
   ``sha1_block_data_order`` checked before it is timed: OpenSSL's five paths in Debian's libcrypto
   (dlopen'ed as peer 2 of ``csrc/bench.c``, each path forced with ``OPENSSL_ia32cap``; AVX =
   ``:~0x20000020``: no AVX2, no SHA); gcc -O2 / -O1 / -O2 -mtune=sapphirerapids and clang -O2 of
   ``csrc/sha1_ref.c`` (unrolled) and ``csrc/sha1_rolled.c`` (rolled); sha1opt exports (``emit.export``:
   assembled, proved, vectors) -- the textbook schedule, recipe variants, and the best blocks of short
   searches (``search_ranges``, ``--evaluations`` budget, seed 0) for goldencove, zen5 and skylake.

Measured: each own code is peer 1 of a program whose peer 0 is the textbook export and peer 2 the
add-chain clock (``emit.clock.clock_library``): pairs interleaved, 16 KiB per call, 64 KiB per timed
record (about 0.1 ms: on a machine shared by several agents a long record is often preempted, a short
one seldom, so medians stay meaningful). A code's figure is
the median over pairs of its ticks/byte over the textbook's in the same pair, times the textbook's core
cycles/byte T; T is the 10th percentile over every pair of all those programs of (textbook ticks/byte x
that pair's core cycles per tick): the models price a core running one thread alone, and on this shared VM
a pair is only ever slowed (preemption, the other hardware thread of the core busy), so the fast end is
the core-alone figure; the median is printed beside it. OpenSSL's paths run with the textbook as peers 0 and 1 (the clock cannot
share the dlopen slot with libcrypto) and use the same T. ``--passes`` repeats the whole set, so every
code is measured at several moments and the pairs are pooled.

Predicted: ``simulate(loop, model, loop=True).cycles_per_byte`` on the code's block loop (OpenSSL's
loops cut as in bench/cost_fidelity.py). llvm-mca: the newest versioned llvm-mca installed
(``calibration.newest_llvm_mca``; Debian 12 has llvm-19 with the SapphireRapids model of LLVM 17+),
``-mcpu=sapphirerapids``, on the same loop text, Total Cycles / iterations / bytes.

Statistics: absolute percentage error per code, MAPE, Kendall tau-b over the scored set; also on the
relative speeds (code / textbook), which do not depend on the clock estimate.

Usage: nice -n -10 python bench/cost_fidelity_host.py [--pairs N] [--passes K]
(output: bench/results/cost_fidelity_host.txt)
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sha1opt.emit.calibration import (gcc_variant, kendall_tau, loop_items, loop_text, mape, mca_cycles,
                                      newest_llvm_mca, rename_symbol, vectors_ok)
from sha1opt.emit.clock import clock_library, loop_cycles
from sha1opt.emit.export import export
from sha1opt.emit.host_cpu import host, identify, uarch_name
from sha1opt.emit.peers import OPENSSL_PATHS, libcrypto, openssl_path_note
from sha1opt.emit.timing import hosted_program, run_program
from sha1opt.emit.toolchain import c_assembly, compile_text, csrc, run, which
from sha1opt.search.blocks import STANDARD_RANGES, best_block
from sha1opt.search.cost.items import cost_items
from sha1opt.search.cost.model import canonical_name, load_model
from sha1opt.search.cost.simulator import simulate
from sha1opt.search.driver import search_ranges
from sha1opt.search.space.candidate import Candidate, block_schedule, realize, textbook
from sha1opt.search.space.recipe import Recipe
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.opaque import Opaque

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cost_fidelity  # noqa: E402  (the OpenSSL loop extraction, shared with the published-figure script)

SIZE = 16384
MIN_BYTES = 1 << 16          # bytes per timed record: 4 calls, about 0.1 ms, so few records are preempted
MCA_CPU = "sapphirerapids"           # --mca-cpu: llvm-mca's -mcpu (the newest Intel model of Debian 12's LLVM)
PEER_PATH = {"integer": "integer", "ssse3": "ssse3", "avx": "avx", "avx2": "avx2", "shaext": "shani"}
#            (cost_fidelity's loop names -> emit.peers' path names: which mask forces it, whether it runs here)
MASKS = {path: OPENSSL_PATHS[peer] for path, peer in PEER_PATH.items()}
RECIPES = [{"kw": "add"}, {"rol5": "rorx"}, {"f1": "andn", "f3": "sum", "rol5": "rorx", "kw": "wk"},
           {"f1": "ands-xor", "kw": "add", "wsrc": "load"}, {"wsrc": "load"}]
EXTRA_SEARCHED = ("skylake",)      # searched and exported beside --uarch and --other
EVALUATIONS = 400            # per range and model: a short, reproducible search

# --- the calibration set: microbenchmarks (emit.clock's frame: %rdi counter, %r12 saved, 0(%rsp) = %rsp) ---
_R8 = ("eax", "ebx", "edx", "esi", "r8d", "r9d", "r13d", "r14d")
_X12 = tuple(f"xmm{i}" for i in range(2, 14))


def _each(fmt: str, regs=_R8, total: int = 240) -> str:
    return "".join(fmt.format(r=regs[k % len(regs)]) + "\n" for k in range(total))


def _rep(lines: str, times: int) -> str:
    return lines * times


MICRO: dict[str, tuple[str, str]] = {      # name -> (body, the row it informs)
    "add, dependent chain x240": (_rep("addl $1, %eax\n", 240), "add_rr latency (the clock itself)"),
    "add, 8 independent x30": (_each("addl %r15d, %{r}"), "add_rr: 5 ALU ports"),
    "mov r,r chain x240": (_rep("movl %eax, %ebx\nmovl %ebx, %eax\n", 120), "move_elimination"),
    "mov ring of 8 regs x240": ("".join(f"movl %{_R8[k % 8]}, %{_R8[(k + 1) % 8]}\n" for k in range(240)),
                                "move_elimination: 8 live aliases"),
    "6-uop mix, 1320 instr": (_rep("movl %r15d, %eax\nrorxl $5, %r15d, %ebx\nleal 1(%r15), %ecx\nmovl 64(%rsp), %edx\n"
                                   "andnl %r15d, %r14d, %esi\nleal 7(%r14,%r15), %r8d\n", 220),
                              "issue_width 6 on a large body"),
    "roll $5, 8 independent": (_each("roll $5, %{r}"), "rot_imm: 1 uop p0/p6"),
    "roll $1, 8 independent": (_each("roll $1, %{r}"), "rot1: 2 uops p0/p6"),
    "xor; roll $1 chain x120": (_rep("xorl %ebx, %eax\nroll $1, %eax\n", 120), "rot1 latency 1: its 2 uops on 2 ports"),
    "shll $1, 8 independent": (_each("shll $1, %{r}"), "shift_imm"),
    "rorx $5, 8 independent": (_each("rorxl $5, %r15d, %{r}"), "rorx"),
    "shld $5 one reg, chain x240": (_rep("shldl $5, %eax, %eax\n", 240), "double_rot latency 1 (a rotate)"),
    "shld $5 one reg, 8 independent": (_each("shldl $5, %{r}, %{r}"), "double_rot: p0/p6"),
    "shld $5 one reg + bswap": ("".join(f"shldl $5, %{_R8[k % 8]}, %{_R8[k % 8]}\nbswapl %{_R8[(k + 4) % 8]}\n"
                                        for k in range(120)), "double_rot: not port 1"),
    "shld $5 two regs, chain x240": (_rep("shldl $5, %r15d, %eax\n", 240), "double_shift latency 3"),
    "shld $5 two regs, 8 independent": (_each("shldl $5, %r15d, %{r}"), "double_shift: one port"),
    "lea K(r,r), chain": (_rep("leal 1(%rax,%r15), %eax\n", 240), "lea_complex latency 1"),
    "lea K(r,r), 8 independent": (_each("leal 0x5a827999(%r15,%r15), %{r}"), "lea_complex: 5 ports"),
    "bswap, 8 independent": (_each("bswapl %{r}"), "bswap: one port"),
    "andn, 8 independent": (_each("andnl %r15d, %{r}, %{r}"), "andn: 3 ports"),
    "andn, chain": (_rep("andnl %r15d, %eax, %eax\n", 240), "andn latency 1"),
    "load, pointer chase": (_rep("movq (%rbp), %rbp\n", 240), "load latency 5"),
    "load, 8 independent": (_each("movl 64(%rsp), %{r}"), "load ports (3 in the literature)"),
    "store, 16 addresses": ("".join(f"movl %eax, {64 + 4 * (k % 16)}(%rsp)\n" for k in range(240)), "store: 2/clk"),
    "store, reload, add": (_rep("movl %eax, 64(%rsp)\nmovl 64(%rsp), %eax\naddl $1, %eax\n", 80),
                           "store_forwarding 0"),
    "store, reload via %r11, add": (_rep("movl %eax, 64(%rsp)\nmovl 64(%r11), %eax\naddl $1, %eax\n", 80),
                                    "not modelled: %r11 = %rsp (the model matches address expressions)"),
    "store, add m,r, mov": (_rep("movl %eax, 64(%rsp)\naddl 64(%rsp), %ebx\nmovl %ebx, %eax\n", 80),
                            "store_forwarding into a load-op"),
    "xor r,m chain (RMW) x240": (_rep("xorl %eax, 64(%rsp)\n", 240), "rmw_forwarding 6 (register operand)"),
    "add r,m then mov load x80": (_rep("addl %ebx, 64(%rsp)\nmovl 64(%rsp), %ebx\n", 80), "rmw_forwarding into a load"),
    "add $1,m chain (RMW) x240": (_rep("addl $1, 64(%rsp)\n", 240), "store_forwarding 0 (RMW by an immediate)"),
    "paddd, 12 independent": (_each("paddd %xmm15, %{r}", _X12), "vec_alu: p0 p1 p5"),
    "pslld, 12 independent": (_each("pslld $1, %{r}", _X12), "vec_shift: p0 p1"),
    "pshufb, 12 independent": (_each("pshufb %xmm15, %{r}", _X12), "vec_shuffle: p1 p5"),
    "palignr, 12 independent": (_each("palignr $8, %xmm15, %{r}", _X12), "vec_palignr: p5 only"),
    "movd x->r->x chain": (_rep("movd %xmm0, %eax\nmovd %eax, %xmm0\n", 120), "vec_to_gpr + gpr_to_vec"),
    "vector load chain": (_rep("movq %xmm0, %rax\nmovdqa 128(%rsp,%rax), %xmm0\n", 120), "vec_load latency"),
    "vector store, scalar reload": (_rep("movdqa %xmm0, 64(%rsp)\naddl 64(%rsp), %eax\nmovd %eax, %xmm0\n", 80),
                                    "vector_store_forwarding 5"),
    "sha1rnds4 chain": (_rep("sha1rnds4 $0, %xmm1, %xmm0\n", 60), "sha1rnds4 latency 4"),
    "sha1rnds4, 12 independent": (_each("sha1rnds4 $0, %xmm15, %{r}", _X12, 120), "sha1rnds4: SHA unit 3 clk"),
    "sha1nexte, 12 independent": (_each("sha1nexte %xmm15, %{r}", _X12), "sha1msg class"),
    "sha1msg1, 12 independent": (_each("sha1msg1 %xmm15, %{r}", _X12), "sha1msg class"),
    "sha1nexte + sha1msg1 pairs": ("".join(f"sha1nexte %xmm15, %xmm{2 + k % 6}\nsha1msg1 %xmm15, %xmm{8 + k % 6}\n"
                                           for k in range(60)), "sha1msg: one unit (units.sha)"),
    "sha1rnds4 + sha1nexte pairs": ("".join(f"sha1rnds4 $0, %xmm15, %xmm{2 + k % 6}\nsha1nexte %xmm15, %xmm{8 + k % 6}\n"
                                            for k in range(60)), "not modelled: nexte beside rnds4 is free"),
    "sha1nexte -> sha1rnds4 chain": (_rep("sha1nexte %xmm3, %xmm1\nsha1rnds4 $0, %xmm1, %xmm0\nmovdqa %xmm0, %xmm1\n", 20),
                                     "not modelled: nexte -> rnds4 latency"),
    "sha1msg2, 12 independent": (_each("sha1msg2 %xmm15, %{r}", _X12, 120), "sha1msg2: 30 front-end slots"),
    "sha1msg2 chain": (_rep("sha1msg2 %xmm1, %xmm0\n", 60), "sha1msg2 latency 5"),
    "sha1msg2 + nop": ("".join(f"sha1msg2 %xmm15, %xmm{2 + k % 6}\nnop\n" for k in range(60)), "sha1msg2: front end"),
    "sha1rnds4 + sha1msg2 pairs": ("".join(f"sha1rnds4 $0, %xmm15, %xmm{2 + k % 6}\nsha1msg2 %xmm15, %xmm{8 + k % 6}\n"
                                           for k in range(60)), "sha1msg2 front end (as + nop)"),
}


def clang_variant(src: str, symbol: str, flags=("-O2",)) -> str:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "c.s"
        run([which("clang"), *flags, "-fno-asynchronous-unwind-tables", "-fno-pie", "-S", "-o", str(out),
             str(csrc(src))], "clang")
        text = out.read_text()
    text = "\n".join(line for line in text.splitlines() if not line.strip().startswith((".addrsig", ".ident")))
    return rename_symbol(text + "\n", symbol, "sha1_block_data_order")


def gcc_rolled(flags=()) -> str:
    return rename_symbol(c_assembly(csrc("sha1_rolled.c"), "x86_64", flags), "sha1_rolled_block_data_order",
                         "sha1_block_data_order")


def recipe_schedule(opts):
    parts = []
    for first, last in STANDARD_RANGES:
        r = realize(Candidate(first, last, "x86_64", Recipe(**opts), ()))
        if r is None:
            return None
        parts.append(r.code)
    return block_schedule(parts, "x86_64", "fidelity")


def mca_text(text: str) -> str:
    """``text`` for llvm-mca 19, which refuses a 32-bit displacement written unsigned (``0x8f1bbcdc(%rax)``,
    as gas accepts): such displacements are written as the signed value they encode."""
    def signed(m: re.Match) -> str:
        v = int(m.group(1), 16)
        return str(v - (1 << 32)) + "(" if v >= 1 << 31 else m.group(0)
    return re.sub(r"\b0x([0-9a-fA-F]{8})\(", signed, text)


def straight_line(items) -> bool:
    """Whether the loop body has no branch but its closing one: the models (and llvm-mca) price a straight-line
    loop; a rolled C function's innermost loop is one round with the round-function choice as branches, not
    the block loop, and the engines have no mechanic for an executed path through nested loops."""
    return sum(1 for it in items if isinstance(it, Opaque) and it.kind in ("branch", "jump")) <= 1


def predict(items, model, nbytes: int, notes: list[str], name: str) -> float:
    """The model's cycles/byte of the loop, or nan (and a note) when its cost classes cannot price an instruction."""
    if name.startswith("OpenSSL"):
        pass                        # cost_fidelity cut these loops (the SIMD paths keep a mid-loop exit test)
    elif not straight_line(items):
        notes.append(f"# not priced: {name}: its innermost loop has branches inside (one round of a rolled "
                     f"loop, not the block); the models price straight-line loops only")
        return float("nan")
    try:
        return simulate(items, model, loop=True, bytes_per_iteration=nbytes).cycles_per_byte
    except Sha1optError as e:           # e.g. OpenSSL's AVX path rotates with shrd, which search.cost has no class for
        notes.append(f"# {model.name} cannot price {name}: {e}")
        return float("nan")


def stats(pred: list[float], meas: list[float]) -> tuple[float, float, int]:
    """(MAPE %, Kendall tau-b, n) over the codes the predictor priced."""
    ok = [i for i, p in enumerate(pred) if p == p]
    p, m = [pred[i] for i in ok], [meas[i] for i in ok]
    return 100 * mape(p, m), kendall_tau(p, m), len(ok)


def host_lines(uarch: str) -> list[str]:
    cpu = host()
    if cpu is None:
        note, desc = f"this CPU could not be read: {uarch} is NOT known to be its model", "unreadable"
    else:
        row = identify(cpu.id)
        mine = row.model if row else None
        note = (f"the CPU of the {uarch} model ({row.match}: {row.name})" if mine == uarch
                else f"NOT the CPU of the {uarch} model (its model: {mine or 'none in corpus/cpus.toml'})")
        desc = f"{cpu}, features {' '.join(sorted(cpu.features))}"
    up = subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    return [f"host: {desc} -- {note}",
            f"uptime at start: {up}; python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]


def micro_table(model, rounds: int) -> list[str]:
    meas = loop_cycles({k: v[0] for k, v in MICRO.items()}, iterations=2000, rounds=rounds)
    out = [f"{'microbenchmark (calibration set)':<34} {'measured':>8} {'p10':>7} {'p90':>7} {model.name:>10}  row",
           f"{'':<34} {'c/iter':>8} {'':>7} {'':>7} {'c/iter':>10}"]
    for name, (body, row) in MICRO.items():
        m = meas[name]
        p = simulate(parse_listing(body, "x86_64", name).items, model, loop=True).cycles
        out.append(f"{name:<34} {m.cycles:8.1f} {m.p10:7.1f} {m.p90:7.1f} {p:10.1f}  {row}")
    return out


def searched_exports(work: Path, searched: tuple[str, ...]) -> list[tuple[str, str]]:
    db = work / "search.sqlite"
    search_ranges([(u, "x86_64", f, l) for u in searched for f, l in STANDARD_RANGES], time_limit=120,
                  workers=1, seed=0, db=db, evaluations=EVALUATIONS)
    out = []
    for u in searched:
        sched, sources = best_block(u, "x86_64", db)
        res = export(sched, work / f"best-{u}.S", uarch=u)
        if res.ok:
            out.append((f"sha1opt search+export {u} ({EVALUATIONS} ev/range)", res.text))
        else:
            print(f"# skipped the {u} export: {res.validation.failure}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200, help="pairs per code per pass")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--micro-rounds", type=int, default=31)
    ap.add_argument("--uarch", default="host", help="the model measured (default: this CPU's)")
    ap.add_argument("--other", default=None, help="a model shown as 'not this CPU' (default: zen5, or goldencove)")
    ap.add_argument("--mca-cpu", default=MCA_CPU, help=f"llvm-mca -mcpu (default {MCA_CPU})")
    args = ap.parse_args()
    try:
        MODEL = uarch_name(args.uarch)
        OTHER = canonical_name(args.other or ("goldencove" if MODEL == "zen5" else "zen5"))
    except Sha1optError as e:                      # an unknown model, or this CPU in no row of cpus.toml
        ap.error(str(e))
    model, other = load_model(MODEL), load_model(OTHER)
    mca_tool = newest_llvm_mca()
    mca_version = re.search(r"LLVM version ([\d.]+)", run([mca_tool, "--version"], "llvm-mca").stdout)
    for line in host_lines(MODEL):
        print("# " + line)
    print(f"# llvm-mca: {mca_tool} (LLVM {mca_version.group(1) if mca_version else '?'}) -mcpu={args.mca_cpu}, "
          f"the newest Intel model of the newest LLVM Debian 12 packages")
    print()
    print("## 1. calibration set: microbenchmarks, core cycles per loop iteration (emit.clock.loop_cycles)")
    print("## (the goldencove rows marked 'microbenchmark' were set from these; none of section 2 was used)")
    for line in micro_table(model, args.micro_rounds):
        print(line)
    print()
    with tempfile.TemporaryDirectory(prefix="sha1opt-host-") as d:
        work = Path(d)
        ref = export(textbook("x86_64"), work / "textbook.S")
        assert ref.ok
        ref_text = ref.text
        codes: list[tuple[str, str | None, list, str, int]] = []   # name, text, items, mca text, bytes
        for path, trace in cost_fidelity.openssl_loops().items():
            timed, note = openssl_path_note(PEER_PATH[path], host())
            if note:                # not timed (the mask would time another path under this name), or forced
                print(f"# {note}")
            if not timed:
                continue
            mca = "\n".join("\t" + d.text for d in trace if not d.mnemonic.startswith("j")) + "\n"
            codes.append((f"OpenSSL {path}", None, cost_items(trace), mca, cost_fidelity.BYTES[path]))
        variants = [("gcc -O2 (unrolled C)", gcc_variant("x86_64")),
                    ("gcc -O1 (unrolled C)", gcc_variant("x86_64", ("-O1",))),
                    ("gcc -O2 -mtune=sapphirerapids (unrolled C)", gcc_variant("x86_64", ("-mtune=sapphirerapids",))),
                    ("gcc -O2 (rolled C)", gcc_rolled()),
                    ("clang -O2 (unrolled C)", clang_variant("sha1_ref.c", "sha1_ref_block_data_order")),
                    ("clang -O2 (rolled C)", clang_variant("sha1_rolled.c", "sha1_rolled_block_data_order")),
                    ("sha1opt textbook export", ref_text)]
        for opts in RECIPES:
            sched = recipe_schedule(opts)
            res = export(sched, work / "variant.S") if sched is not None else None
            if res is not None and res.ok:
                variants.append(("sha1opt export " + ",".join(f"{k}={v}" for k, v in opts.items()), res.text))
        variants += searched_exports(work, tuple(dict.fromkeys((MODEL, OTHER, *EXTRA_SEARCHED))))
        for name, text in variants:
            ok, detail = vectors_ok(text, "x86_64") if not name.startswith("sha1opt") else (True, "")
            if not ok:
                print(f"# skipped {name}: vectors failed ({detail})")
                continue
            codes.append((name, text, loop_items(text, "x86_64", name), loop_text(text, "x86_64", name), 64))

        # -- measure --
        lib = libcrypto()
        clock_lib = str(clock_library(work))
        ref_obj = compile_text(ref_text, "x86_64", work, "reference")
        exes: dict[str, tuple[Path, dict, str]] = {}
        for name, text, _, _, _ in codes:
            if text is None:
                continue
            obj = compile_text(rename_symbol(text, "sha1_block_data_order", "sha1_ref_block_data_order"),
                               "x86_64", work, f"v{len(exes)}")
            exes[name] = (hosted_program([ref_obj, obj], work, f"pair{len(exes)}"), {}, clock_lib)
        ossl = hosted_program([ref_obj, compile_text(rename_symbol(ref_text, "sha1_block_data_order",
                                                                   "sha1_ref_block_data_order"),
                                                     "x86_64", work, "ref2")], work, "ossl")
        for path, mask in MASKS.items():
            if any(c[0] == f"OpenSSL {path}" for c in codes):
                exes[f"OpenSSL {path}"] = (ossl, {"OPENSSL_ia32cap": mask} if mask else {}, lib)
        ratios: dict[str, list[float]] = {n: [] for n in exes}
        textbook_core: list[float] = []
        clocks: list[float] = []
        loads = []
        share: list[float] = []
        for k in range(args.passes):
            loads.append(os.getloadavg()[0])
            share.append(loop_cycles({"adds": MICRO["add, 8 independent x30"][0]}, rounds=7)["adds"].cycles)
            for name, (exe, env, peer_lib) in exes.items():
                t = run_program(exe, [SIZE], args.pairs, MIN_BYTES, env=env, lib=peer_lib)
                pp = t.per_pair()[0]
                ratios[name] += list(pp[1 if peer_lib == clock_lib else 2] / pp[0])
                if peer_lib == clock_lib:
                    cpt = t.clock_samples(2)
                    clocks += list(cpt)
                    textbook_core += list(pp[0] * cpt)
        loads.append(os.getloadavg()[0])
    # T: the 10th percentile of the textbook's per-pair core c/B. The models price a core running one thread
    # alone; on this shared VM a pair is slowed by preemption or by the other hardware thread of the core
    # (the core share check below), never sped up, so the fast end is the core-alone figure. The median
    # (printed too) moves with the load: 4.24 and 5.26 c/B in two runs at load ~10, p10 3.90 and 3.84.
    T = float(np.percentile(textbook_core, 10))
    T_med = float(np.median(textbook_core))
    cpt = np.array(clocks)
    print("## 2. scored set (hold-out): SHA-1 codes at 16 KiB per call, core cycles/byte")
    print(f"# {args.passes} passes x {args.pairs} pairs per code; 1-min load average at each pass: "
          f"{', '.join(f'{x:.2f}' for x in loads)}")
    print(f"# core share check at each pass: 240 independent adds took {', '.join(f'{x:.0f}' for x in share)} core "
          f"cycles (48 at 5 per clock; more when the other hardware thread of this core is busy: a latency-bound "
          f"chain, the clock, does not see it, throughput-bound code does)")
    print(f"# core cycles per TSC tick (clock peer, {len(cpt)} pairs): median {np.median(cpt):.3f}, "
          f"p10 {np.percentile(cpt, 10):.3f}, p90 {np.percentile(cpt, 90):.3f}")
    print(f"# textbook export T = {T:.3f} core c/B: the p10 over {len(textbook_core)} pairs of (ticks/B x that pair's "
          f"cycles/tick) -- median {T_med:.3f}, p90 {np.percentile(textbook_core, 90):.3f}; a code's figure is its "
          f"median ratio to the textbook x T")
    print()
    print(f"{'code':<46} {'measured':>8} {'[p10':>6} {'p90]':>6} {MODEL:>10} {'err %':>6} {OTHER:>6} "
          f"{'err %':>6} {'mca':>6} {'err %':>6}")
    meas, pred, pother, mca, rel_m, rel_p, rel_o, rel_q = [], [], [], [], [], [], [], []
    notes: list[str] = []

    def mca_of(name: str, mtext: str, nbytes: int, items) -> float:
        if not name.startswith("OpenSSL") and not straight_line(items):
            return float("nan")
        try:
            return mca_cycles(mca_text(mtext), "x86_64", args.mca_cpu, 10, mca_tool) / nbytes
        except Sha1optError as e:                   # llvm-mca refuses some instruction: say so
            notes.append(f"# llvm-mca failed on {name}: {e}")
            return float("nan")
    base = {}
    for name, _, items, mtext, nbytes in codes:
        if name == "sha1opt textbook export":
            base = {"p": predict(items, model, nbytes, [], name), "o": predict(items, other, nbytes, [], name),
                    "q": mca_of(name, mtext, nbytes, items)}
    for name, _, items, mtext, nbytes in codes:
        r = np.array(ratios[name])
        m = float(np.median(r)) * T
        p, o = predict(items, model, nbytes, notes, name), predict(items, other, nbytes, notes, name)
        q = mca_of(name, mtext, nbytes, items)
        meas.append(m), pred.append(p), pother.append(o), mca.append(q)
        rel_m.append(m / T), rel_p.append(p / base["p"]), rel_o.append(o / base["o"]), rel_q.append(q / base["q"])
        print(f"{name:<46} {m:8.2f} {np.percentile(r, 10) * T:6.2f} {np.percentile(r, 90) * T:6.2f} {p:10.2f} "
              f"{100 * (p - m) / m:+6.1f} {o:6.2f} {100 * (o - m) / m:+6.1f} {q:6.2f} {100 * (q - m) / m:+6.1f}")
    print()
    for note in dict.fromkeys(notes):
        print(note)
    a, b, c = stats(pred, meas), stats(pother, meas), stats(mca, meas)
    print(f"{MODEL}: MAPE {a[0]:.1f} %, Kendall tau-b {a[1]:.2f} over {a[2]} codes (goal: <= 5 %, tau >= 0.85)")
    print(f"{OTHER} (not this CPU): MAPE {b[0]:.1f} %, Kendall tau-b {b[1]:.2f} over {b[2]} codes")
    print(f"llvm-mca -mcpu={args.mca_cpu}: MAPE {c[0]:.1f} %, Kendall tau-b {c[1]:.2f} over {c[2]} codes")
    a, b, c = stats(rel_p, rel_m), stats(rel_o, rel_m), stats(rel_q, rel_m)
    print(f"(with T = the median {T_med:.3f} instead: {MODEL} MAPE "
          f"{stats(pred, [x * T_med / T for x in meas])[0]:.1f} %)")
    print(f"relative to the textbook export (no clock estimate involved), MAPE / tau-b: {MODEL} {a[0]:.1f} % / "
          f"{a[1]:.2f}, {OTHER} {b[0]:.1f} % / {b[1]:.2f}, llvm-mca {c[0]:.1f} % / {c[1]:.2f}")
    print(f"# uptime at the end: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    return 0


if __name__ == "__main__":              # the search's local Dask cluster starts processes: guard the entry point
    sys.exit(main())
