"""`sha1opt bench` reports estimated core cycles/byte beside TSC ticks/byte, from a clock measured with the runs.

The rule (emit/bench.py docstring; the statistics are the timing driver's, ``emit.timing.Timings``): on x86-64 the first timing process has
the add-chain library (``emit.clock.clock_library``) as a third peer, so each
pair has its own core-cycles-per-tick sample and core c/B is the median over
pairs of ticks/byte x that pair's cycles/tick; OpenSSL rows (own processes)
use the median clock. ``emit.clock.loop_cycles`` is the microbenchmark
instrument of bench/cost_fidelity_host.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from tests.support.cpu import needs
from sha1opt.cli import main
from sha1opt.emit import clock
from sha1opt.emit.timing import Timings, hosted_program, run_program
from sha1opt.emit.toolchain import ToolchainError, compile_source, csrc

pytestmark = needs()


def _records(pairs: list[tuple[float, float, float]], nbytes: int = 1024) -> np.ndarray:
    """bench.c records for 3 peers: per pair (ours ticks, C ticks, clock ticks), one size, nbytes per record."""
    rows = []
    for ours, c, clk in pairs:
        rows += [(0, ours, nbytes), (1, c, nbytes), (2, clk, nbytes)]
    return np.array(rows, dtype=np.float64)


def test_core_cycles_per_byte_is_the_median_of_each_pairs_product():
    """A pair at 2 ticks/B with the clock at 1.5 cycles/tick is 3 c/B; the median is over those products."""
    # clock ticks 1024 / 1.5, 1024 / 1.0, 1024 / 2.0 -> cycles per tick 1.5, 1.0, 2.0
    recs = _records([(2048, 4096, 1024 / 1.5), (3072, 4096, 1024 / 1.0), (1024, 2048, 1024 / 2.0)])
    [st] = Timings(0.0, 3, recs, (1024,), 3).stats({1: "gcc -O2 C"}, clock_peer=2)
    assert st.ours_cycles_per_byte == pytest.approx(np.median([2 * 1.5, 3 * 1.0, 1 * 2.0]))
    assert st.peer_cycles_per_byte == pytest.approx(np.median([4 * 1.5, 4 * 1.0, 2 * 2.0]))
    assert st.ours_ticks_per_byte == pytest.approx(2.0)


def test_peers_without_a_clock_in_their_process_use_the_median_clock():
    recs = _records([(2048, 4096, 1024), (2048, 4096, 1024)])      # peer 2: 1 tick per byte
    [st] = Timings(0.0, 3, recs, (1024,), 2).stats({2: "OpenSSL integer"}, cycles_per_tick=1.25)
    assert st.peer == "OpenSSL integer" and st.peer_cycles_per_byte == pytest.approx(1.0 * 1.25)


def test_a_clock_record_without_ticks_is_refused():
    with pytest.raises(ToolchainError):
        clock.ratio_of_record(1024, 0)


def test_the_clock_library_agrees_with_the_clock_program(tmp_path):
    """The add chain as bench.c's dlopen peer gives the same cycles/tick as emit.clock's own program (within 25 %)."""
    lib = clock.clock_library(tmp_path)
    ref = compile_source(csrc("sha1_ref.c"), "x86_64", tmp_path / "ref.o", "compiling", ("-O2",))
    ours = compile_source(csrc("sha1_ref.c"), "x86_64", tmp_path / "ours.o", "compiling",
                          ("-O2", "-Dsha1_ref_block_data_order=sha1_block_data_order"))
    exe = hosted_program([ref, ours], tmp_path, "b")
    t = run_program(exe, [16384], 9, 1 << 19, lib=str(lib))
    as_peer = float(np.median(t.clock_samples(2)))
    own = clock.core_cycles_per_tick(adds=1_000_000, samples=9)[0]
    assert 0.75 < as_peer / own < 1.33, (as_peer, own)


def test_loop_cycles_counts_core_cycles_of_a_body():
    """80 dependent imuls (latency 3 on every x86-64 core) cost about 240 core cycles; 80 independent adds far fewer."""
    r = clock.loop_cycles({"imul": "imull %ecx, %eax\n" * 80,
                           "adds": "".join(f"addl $1, %{x}\n" for x in ("edx", "esi", "r8d", "r9d") * 20)},
                          iterations=1000, rounds=9)
    assert 200 < r["imul"].cycles < 290
    assert r["adds"].cycles < 60
    assert r["imul"].p10 <= r["imul"].cycles <= r["imul"].p90


def _bench(textbook_file, arch: str, *args: str):
    out = textbook_file(arch, f"s-{arch}.S")      # a copy of the session's validated textbook export
    return CliRunner().invoke(main, ["bench", str(out), "--arch", arch, "--pairs", "3", "--sizes", "64", *args])


def test_bench_prints_the_clock_and_core_cycles_per_byte(textbook_file):
    r = _bench(textbook_file, "x86_64", "--openssl", "none")
    assert r.exit_code == 0, r.output
    assert "core clock: " in r.output and "p10 " in r.output and "p90 " in r.output
    assert "ours c/B" in r.output and "peer c/B" in r.output


def test_bench_json_carries_the_clock_and_core_cycles(textbook_file):
    r = _bench(textbook_file, "x86_64", "--openssl", "none", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    c = data["core_clock"]
    assert 0 < c["cycles_per_tick_p10"] <= c["cycles_per_tick_median"] <= c["cycles_per_tick_p90"]
    assert c["samples"] == 3 and "interleaved" in c["method"]
    [row] = data["results"]
    assert row["ours_core_cycles_per_byte"] > 0 and row["peer_core_cycles_per_byte"] > 0


def test_i386_bench_clocks_around_its_run(textbook_file):
    """The freestanding i386 program loads no library: its clock is sampled just before and after it."""
    r = _bench(textbook_file, "i386", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["core_clock"]["samples"] == 14 and "before" in data["core_clock"]["method"]
    assert data["results"][0]["ours_core_cycles_per_byte"] > 0
