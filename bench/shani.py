"""SHA-NI: sha1opt's exported SHA-NI functions vs OpenSSL's SHA-NI (shaext) path, on this host.

Issue 14's done-means: ``export --uarch zen5`` (SHA-NI allowed) vs OpenSSL's
SHA-NI path, median ratio <= 1.00. The exports timed are those of ``--uarch``
(default: this CPU's model, ``--uarch host``; the output's header names this CPU:
brand, vendor, family, model); code needing a feature this CPU lacks
(``host_cpu.lacking``, ``SHA1OPT_CPU_LACKS`` honoured) is listed, not run. This script:

1. searches the SHA-NI block for every model with SHA-NI
   (``search.engines.shani.best_shani``, both arches, export's budget) and
   prints the predicted cycles per block and c/B, the proof and the stop reason;
2. exports, per model in ``--uarch`` and arch, exactly what
   ``sha1opt export --uarch U --isa shani`` writes (``emit.families.export_choice``,
   then ``emit.shani_export.export_shani``: the block proved, the file
   assembled, its machine code lifted and the whole function proved, the
   native vectors run -- nothing is timed before that);
3. times each export in one process against OpenSSL's shaext function taken
   from Debian's ``libcrypto.a`` itself (the ``sha1-x86_64`` / ``sha1-586``
   member, ``objcopy`` renaming ``sha1_block_data_order_shaext`` to the
   timing program's second peer, called directly: no ``SHA1_Update`` in
   the way) and, on x86-64, libcrypto.so's ``SHA1_Update`` on its default
   (SHA-NI) path as context; i386 in the freestanding 32-bit program
   (``emit.timing.freestanding_i386``) against the 32-bit member's
   ``_sha1_block_data_order_shaext``. On x86-64 the program's third peer is
   ``emit.clock.clock_library``'s dependent add chain, so each pair carries
   its own core-cycles-per-tick sample: core cycles/B beside the ticks, to
   hold against the model's prediction. Per size (16 KiB and 1 MiB per call,
   each call repeated to 1 MiB), ``--pairs`` interleaved pairs (the order
   inside a pair rotating), split over ``--rounds`` runs that alternate
   between the exports; per-pair ratios ours/peer of TSC ticks per byte:
   median, p10, p90. The first export is also timed against the default
   point (``shani.default_params``, what both models exported before the
   schedule and slack rule of issue 14's SHA-NI item), validated first.

``--forms`` also times named points of the space (x86-64; each validated by
the block proof and the native harness first) against the same peer, beside
the cycles the goldencove and zen5 models predict for them: how the model's
ranking compares with the host's.

Usage: nice -n -10 python bench/shani.py [--pairs 80] [--rounds 4] [--forms]   (output: bench/results/shani.txt)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from sha1opt.emit.families import export_choice
from sha1opt.emit.family_shani import SHANI, SHANI_EVALUATIONS
from sha1opt.emit.clock import clock_library
from sha1opt.emit.objfile import load_object
from sha1opt.emit.shani_export import export_shani
from sha1opt.emit.host_cpu import host, lacking, lacks_text, uarch_name
from sha1opt.emit.shani_frame import SYMBOL, validated_text
from sha1opt.emit.timing import run_program, timing_program
from sha1opt.emit.toolchain import assemble, compile_preprocessed, run, which
from sha1opt.search.cost import Simulator, load_model, model_names
from sha1opt.search.engines.shani import best_shani, block_cycles, has_shani
from sha1opt.search.space.shani import ShaniParams, default_params, isa_rows_used
from sha1opt.semantics.errors import Sha1optError

SIZES = (16384, 1 << 20)
MIN_BYTES = 1 << 20
ARCHIVES = {"x86_64": ("/usr/lib/x86_64-linux-gnu/libcrypto.a", "libcrypto-lib-sha1-x86_64.o",
                       "sha1_block_data_order_shaext"),
            "i386": ("/usr/lib/i386-linux-gnu/libcrypto.a", "libcrypto-lib-sha1-586.o",
                     "_sha1_block_data_order_shaext")}
PEER_SYMBOL = "sha1_ref_block_data_order"      # the timing program's peer 1 (csrc/bench.c)
CAP_STUB = ('\t.bss\n\t.globl OPENSSL_ia32cap_P\n\t.p2align 4\nOPENSSL_ia32cap_P:\n\t.zero 16\n'
            '\t.section .note.GNU-stack,"",@progbits\n')


def openssl_shaext_peer(arch: str, work: Path) -> list[Path]:
    """OpenSSL's shaext function from Debian's libcrypto.a as ``sha1_ref_block_data_order`` (+ its cap word).

    The member's own dispatcher ``sha1_block_data_order`` is made local (ours
    has that name); nothing of OpenSSL's code is changed or copied anywhere
    but into this temporary object.
    """
    archive, member, symbol = ARCHIVES[arch]
    d = work / f"ossl_{arch}"
    d.mkdir()
    extracted = load_object(archive, d, member=member).path
    step = d / "renamed.o"
    run([which("objcopy"), "--localize-symbol=sha1_block_data_order", f"--redefine-sym={symbol}={PEER_SYMBOL}",
         str(extracted), str(step)], "renaming OpenSSL's shaext function")
    peer = d / "shaext.o"
    run([which("objcopy"), f"--globalize-symbol={PEER_SYMBOL}", str(step), str(peer)], "exporting it")
    return [peer, assemble(CAP_STUB, arch, d, "ia32cap")]


def default_peer(arch: str, work: Path) -> list[Path]:
    """The default point's function (``shani.default_params``: last session's export) as peer 1,
    validated (block proof + native harness, ``shani_frame.validated_text``) before it is renamed."""
    text, _ = validated_text(arch, default_params(arch))
    renamed = text.replace(SYMBOL, PEER_SYMBOL)
    return [assemble(renamed, arch, work, f"default_{arch}")]


def program(arch: str, ours: Path, peer: list[Path], work: Path, name: str) -> Path:
    """The timing program: ours as peer 0, ``peer`` as peer 1 (x86-64: the clock library as peer 2)."""
    return timing_program(arch, [ours, *peer] if arch == "x86_64" else [*peer, ours], work, f"bench_{name}")


def row(size: int, name: str, tpb: dict[int, np.ndarray], clock: int | None) -> str:
    """Ratio ours/peer 1 per pair (median, p10, p90); core cycles/B from the clock peer of the same pairs
    (its ticks per byte are ticks per dependent add: one core cycle each)."""
    ours, peer = tpb[0], tpb[1]
    r = ours / peer
    text = (f"  {size:>8} B  vs {name:<20} median {np.median(r):.3f}  p10 {np.percentile(r, 10):.3f}"
            f"  p90 {np.percentile(r, 90):.3f}   (ours {np.median(ours):.3f}, peer {np.median(peer):.3f}"
            f" TSC ticks/B")
    if clock is not None:
        cpt = 1.0 / tpb[clock]
        text += (f"; core c/B ours {np.median(ours * cpt):.3f}, peer {np.median(peer * cpt):.3f} at "
                 f"{np.median(cpt):.2f} cycles/tick")
    return text + f"; {len(r)} pairs)"


def forms(arch: str) -> dict[str, ShaniParams]:
    """Named points of the space for ``--forms`` (the model's ranking against the host's)."""
    d = default_params(arch)
    far = replace(d, msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True)
    return {"default point: 3/2/1 ahead, schedule before the rounds": d,
            "3/2/1 ahead, schedule after": replace(d, sched_after=True),
            "4/3/1 after, loads 2 ahead, stack saves (last goldencove export)":
                replace(d, msg1_lead=4, xor_lead=3, msg2_lead=1, sched_after=True, load_lead=2, save_on_stack=True),
            "4/4/4 ahead, schedule before": replace(far, sched_after=False),
            "4/4/4 ahead, schedule after": far,
            "4/4/4 after, sha1nexte after the previous rounds (OpenSSL's order)": replace(far, nexte_early=True),
            "4/4/4 after, loads pipelined, dec/lea/cmovne (zen5's export)": replace(far, preload=1),
            "4/4/4 after, sha1msg2 as AVX-512 ops": replace(far, msg2_form="avx512"),
            "4/4/4 after, AVX-512 sha1msg2, loads pipelined (goldencove's export)":
                replace(far, msg2_form="avx512", preload=1)}


def time_forms(work: Path, pairs: int, rounds: int) -> list[str]:
    """Every ``forms`` point (x86-64) validated, then timed against OpenSSL's shaext, beside its predictions."""
    arch = "x86_64"
    (work / "forms").mkdir()
    peer = openssl_shaext_peer(arch, work / "forms")
    lib = clock_library(work / "forms")
    sims = {u: Simulator(load_model(u)) for u in ("goldencove", "zen5")}
    programs, lines = {}, []
    for k, (name, params) in enumerate(forms(arch).items()):
        missing = lacking(isa_rows_used(params, arch).values())
        if missing:
            lines.append(f"  {name}: not run: {lacks_text(missing)}")
            continue
        text, _ = validated_text(arch, params)      # block proof + native harness before any timing
        obj = assemble(text, arch, work / "forms", f"form{k}")
        programs[name] = program(arch, obj, peer, work / "forms", f"form{k}")
    got: dict[str, list[list[np.ndarray]]] = {n: [[] for _ in SIZES] for n in programs}
    per_round = max(1, pairs // rounds)
    for _ in range(rounds):
        for name, exe in programs.items():
            t = run_program(exe, SIZES, per_round, MIN_BYTES, {}, str(lib))
            for s_idx, tpb in enumerate(t.per_pair()):
                got[name][s_idx].append(tpb[0] / tpb[1])
    lines.append(f"  {'form':<70} {'goldencove':>10} {'zen5':>6}   ratio to OpenSSL's shaext, median [p10, p90]")
    for name, params in forms(arch).items():
        if name not in got:                          # not run here (its line is above)
            continue
        pred = "  ".join(f"{block_cycles(params, arch, sim):>{w}.1f}" for sim, w in zip(sims.values(), (10, 6)))
        cells = "  ".join(f"{SIZES[i] // 1024:>5} KiB {np.median(np.concatenate(r)):.3f} "
                          f"[{np.percentile(np.concatenate(r), 10):.3f}, {np.percentile(np.concatenate(r), 90):.3f}]"
                          for i, r in enumerate(got[name]))
        lines.append(f"  {name:<70} {pred}   {cells}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=80, help="pairs per size and export (all rounds together)")
    ap.add_argument("--rounds", type=int, default=4, help="runs per export, alternating between the exports")
    ap.add_argument("--uarch", nargs="+", default=["host"],
                    help="models whose SHA-NI export is timed here (default: this CPU's, --uarch host)")
    ap.add_argument("--arch", nargs="+", default=["x86_64", "i386"])
    ap.add_argument("--no-search-table", action="store_true", help="skip the per-model search report")
    ap.add_argument("--no-vs-default", dest="vs_default", action="store_false",
                    help="skip timing the first export against the default point (last session's form)")
    ap.add_argument("--forms", action="store_true",
                    help="also time the named forms of the space (x86-64) beside their predicted cycles")
    ap.add_argument("--output", default=str(Path(__file__).parent / "results" / "shani.txt"))
    args = ap.parse_args()
    try:
        args.uarch = [uarch_name(u) for u in args.uarch]
    except Sha1optError as e:                      # an unknown model, or this CPU in no row of cpus.toml
        ap.error(f"--uarch: {e}")
    out = [f"# bench/shani.py on {platform.node()} ({platform.machine()}), "
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load: {os.getloadavg()}",
           f"# host CPU: {host() or 'unreadable'}",
           f"# command: {' '.join(sys.argv)}"]
    if not args.no_search_table:
        out += ["", f"## search (predicted, per model with SHA-NI; {SHANI_EVALUATIONS} evaluations as export)"]
        for name in model_names():
            model = load_model(name)
            if not has_shani(model):
                continue
            for arch in ("x86_64", "i386"):
                r = best_shani(model, arch, budget=SHANI_EVALUATIONS)
                out.append(f"  {name:<10} {arch:<6} {r.cycles:6.1f} cycles/block = {r.cycles_per_byte:.3f} c/B "
                           f"(default point {r.default_cycles:.1f}); {r.legal} legal of {r.evaluations} evaluated; "
                           f"stop: {r.stop_reason}; {r.proof}")
                out.append(f"             {r.params.describe()}")
    if lacking(("sha", "sse4.1")):
        out.append(f"\n{lacks_text(lacking(('sha', 'sse4.1')))}: no timing")
        print("\n".join(out))
        return 1
    with tempfile.TemporaryDirectory(prefix="sha1opt-bench-shani-") as work:
        w = Path(work)
        for arch in args.arch:
            out += ["", f"## timing, {arch}: export --uarch U --isa shani vs OpenSSL's shaext (libcrypto.a)"]
            peer = openssl_shaext_peer(arch, w)
            programs: dict[str, tuple[Path, str]] = {}
            texts: dict[str, str] = {}
            for uarch in args.uarch:
                choice = export_choice(uarch, arch, "shani")
                if choice.family is not SHANI:
                    out.append(f"  {uarch}: no SHA-NI export ({'; '.join(choice.notes)})")
                    continue
                missing = lacking(isa_rows_used(choice.code, arch).values())
                if missing:
                    out.append(f"  {uarch}: not run: {lacks_text(missing)}")
                    continue
                res = export_shani(choice.code, arch, w / f"{uarch}_{arch}.S", uarch=uarch,
                                   prediction=choice.notes[0], command=f"bench/shani.py {uarch} {arch}")
                checks = "; ".join(f"{c.name}: {c.detail}" for c in res.validation.checks)
                if not res.ok:
                    out.append(f"  {uarch}: export refused: {checks}")
                    continue
                out.append(f"  {uarch}: {choice.notes[0]}")
                out.append(f"    export checks: {checks}")
                body = res.text.split("*/", 1)[1]
                same = next((u for u, t in texts.items() if t == body), None)
                if same is not None:
                    out.append(f"    (the same code as {same}'s export: timed once)")
                    continue
                texts[uarch] = body
                obj = compile_preprocessed(res.text, arch, w, f"{uarch}_{arch}")   # the file as written
                programs[f"{uarch}'s export"] = (program(arch, obj, peer, w, f"{uarch}_{arch}"), "OpenSSL shaext (.a)")
                if args.vs_default and len(programs) == 1:
                    old = default_peer(arch, w)
                    programs[f"{uarch}'s export vs the default point"] = (
                        program(arch, obj, old, w, f"{uarch}_{arch}_vs_default"), "default point")
            got: dict[str, list[dict[int, list]]] = {u: [{} for _ in SIZES] for u in programs}
            per_round = max(1, args.pairs // args.rounds)
            lib = clock_library(w) if arch == "x86_64" else None
            for _ in range(args.rounds):
                for uarch, (exe, _) in programs.items():
                    t = run_program(exe, SIZES, per_round, MIN_BYTES, {}, str(lib) if lib else None)
                    for s_idx, tpb in enumerate(t.per_pair()):
                        for p, v in tpb.items():
                            got[uarch][s_idx].setdefault(p, []).append(v)
            for label, by in got.items():
                out.append(f"  {label} ({arch}), {args.rounds} runs x {per_round} pairs:")
                for s_idx, tpb in enumerate(by):
                    joined = {p: np.concatenate(v) for p, v in tpb.items()}
                    out.append(row(SIZES[s_idx], programs[label][1], joined, 2 if lib else None))
        if args.forms:
            out += ["", f"## forms (x86-64): predicted cycles/block vs measured, {args.rounds} runs x "
                        f"{max(1, args.pairs // args.rounds)} pairs each, load {os.getloadavg()}"]
            out += time_forms(w, args.pairs, args.rounds)
    out.append(f"\nload after: {os.getloadavg()}")
    text_out = "\n".join(out) + "\n"
    print(text_out, end="")
    Path(args.output).write_text(text_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
