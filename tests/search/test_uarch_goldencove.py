"""The goldencove model (corpus/uarch/goldencove.toml): Intel Golden Cove / Raptor Cove, the host's CPU since 2026-12-01.

Each test proves one property the model's rows claim, with the source the row
cites: the Intel optimization manual's port layout, llvm-mca-19's
SapphireRapids model, or the calibration microbenchmarks of
bench/cost_fidelity_host.py (measured on this host, Emerald Rapids).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from click.testing import CliRunner

from sha1opt.cli_analyze import uarchs
from sha1opt.search.cost import load_model, simulate
from sha1opt.search.cost.model import derived_rthroughput
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.listing import parse_listing
from sha1opt.views import uarch_notes

GC = "goldencove"
REGS = ("eax", "ebx", "ecx", "edx", "esi", "edi", "r8d", "r9d", "r10d", "r11d")


def loop_cycles(src: str, uarch: str = GC) -> float:
    """Steady-state clocks per iteration of ``src`` as a loop body (scalar AT&T text)."""
    return simulate(parse_text(src, "x86_64"), load_model(uarch), loop=True).cycles


def test_names_width_window_and_tuning():
    """Intel optimization manual / LLVM 19 SapphireRapids: 6-wide allocation, 512-entry ROB; GCC 12 -mtune=sapphirerapids."""
    m = load_model(GC)
    for alias in ("raptorcove", "sapphirerapids", "emeraldrapids", "alderlake-p"):
        assert load_model(alias) is m
    assert (m.engine, m.issue_width, m.window, m.arch, m.gcc_mtune) == \
        ("out-of-order", 6, 512, "x86_64", "sapphirerapids")


def test_ports_five_alus_two_loads_two_stores():
    """Ports 0 1 5 6 10 integer ALU, 7 8 store address, 4 9 store data; loads on 2 and 3 only: the third
    load port (11) exists, but two loads per clock is what this host sustains (microbenchmark)."""
    m = load_model(GC)
    alu = set(m.classes["add_rr"].ports[0].units)
    assert alu == {"p0", "p1", "p5", "p6", "p10"}
    assert "p11" in m.ports and "microbenchmark" in next(u.source for u in m.units if u.name == "p11").lower()
    assert set(m.classes["load"].ports[0].units) == {"p2", "p3"}
    sta, std = m.classes["store"].ports
    assert (sta.role, set(sta.units), std.role, set(std.units)) == ("sta", {"p7", "p8"}, "std", {"p4", "p9"})


def test_vector_ports_are_shared_with_the_integer_alus():
    """Intel cores run vector uops on ports 0 1 5, the same ports as three integer ALUs (a shared resource)."""
    m = load_model(GC)
    alu = set(m.classes["add_rr"].ports[0].units)
    for cls in ("vec_alu", "vec_shift", "vec_shuffle", "vec_mov"):
        assert set(m.classes[cls].ports[-1].units) <= alu, cls


def test_isa_bmi2_avx512vl_sha_and_no_amd_extensions():
    """/proc/cpuinfo of the host: bmi1 bmi2 avx512vl sha_ni; SSE4a is AMD-only."""
    m = load_model(GC)
    assert m.isa == "bmi2"
    assert all(m.has_vector(x) for x in ("ssse3", "avx2", "avx512f", "avx512vl", "sha"))
    assert not m.has_vector("sse4a")


def test_port_map_matches_every_rows_throughput():
    """Each row's rthroughput is what its uops and units imply (the same rule test_uarch.py checks for the others)."""
    m = load_model(GC)
    for c in m.classes.values():
        assert derived_rthroughput(c, m) == pytest.approx(c.rthroughput, abs=1e-5), c.name


def test_rows_settled_by_measurement_say_so():
    """Where the literature disagrees with this host, the row cites the microbenchmark (the calibration set)."""
    m = load_model(GC)
    for cls in ("rot_imm", "double_rot", "sha1rnds4", "sha1msg", "lea_complex", "andn"):
        assert "microbenchmark" in m.classes[cls].source, cls
    assert "microbenchmark" in m.rules.store_forward_source
    assert all(c.source for c in m.classes.values()) and all(u.source for u in m.units)


def test_five_alus_run_ten_independent_adds_in_two_clocks():
    body = "\n".join(f"addl $1, %{r}" for r in REGS)
    assert loop_cycles(body) == 2.0
    assert loop_cycles(body, "skylake") == 2.5       # four ALUs there


def test_three_term_lea_is_one_clock():
    """Golden Cove: every LEA form is one clock (Skylake's 3-term lea is 3 clocks on p1); measured 1.00 here."""
    chain = "leal 0x5a827999(%eax,%ebx), %eax"
    assert loop_cycles(chain) == 1.0
    assert loop_cycles(chain, "skylake") == 3.0


def test_rol_by_one_is_two_uops_rol_by_five_one():
    """Microbenchmark: independent roll $1 1.05 clk each, roll $5 0.50 (both on p0/p6)."""
    eight = REGS[:8]
    assert loop_cycles("\n".join(f"roll $1, %{r}" for r in eight)) == 8.0
    assert loop_cycles("\n".join(f"roll $5, %{r}" for r in eight)) == 4.0


def test_store_forwarding_adds_no_latency():
    """Microbenchmark: store, reload, add costs 1 clk per round here (the add); Skylake's model charges 4 more."""
    body = "movl %eax, 64(%rsp)\nmovl 64(%rsp), %eax\naddl $1, %eax"
    assert loop_cycles(body) == 1.0
    assert loop_cycles(body, "skylake") > 4.0


def test_sha1rnds4_latency_four_one_per_three_clocks():
    """Microbenchmark: a chain of sha1rnds4 costs 4 clk each; 12 independent chains run one per 3 clk."""
    m = load_model(GC)
    chain = parse_listing("sha1rnds4 $0, %xmm1, %xmm0\n" * 10, "x86_64", "chain").items
    indep = parse_listing("".join(f"sha1rnds4 $0, %xmm15, %xmm{i}\n" for i in range(12)), "x86_64", "indep").items
    assert simulate(chain, m, loop=True).cycles == 40.0
    assert simulate(indep, m, loop=True).cycles == 36.0


def test_uarchs_lists_goldencove():
    """`sha1opt uarchs` lists every model file: the new one with its width, window and vector ISA."""
    r = CliRunner().invoke(uarchs, [])
    assert r.exit_code == 0, r.output
    header = uarch_notes.header(load_model(GC))
    assert header in r.output and "issue 6/clk" in header and "window 512" in header and "avx512vl" in header


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_gcc_knows_the_tuning_name():
    """The gcc peer for this model is built with -mtune=sapphirerapids: the installed gcc must accept it."""
    proc = subprocess.run(["gcc", f"-mtune={load_model(GC).gcc_mtune}", "-x", "c", "-S", "-o", "-", "-"],
                          input="int f(int x) { return x + 1; }\n", capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def vector_loop_cycles(src: str, uarch: str = GC) -> float:
    """Steady-state clocks per iteration of ``src`` (vector/SHA-NI lines, priced as vector items)."""
    return simulate(parse_listing(src, "x86_64", "body").items, load_model(uarch), loop=True).cycles


def test_rmw_with_a_register_operand_forwards_its_store_after_six_clocks():
    """rules.rmw_forwarding (microbenchmark on this host, bench/cost_fidelity_host.py section 1, 2026-12-01):
    240 chained 'xorl %eax, 64(%rsp)' cost 1782-1833 clk (7.4-7.6 per step: 6 + the xor), an RMW read back by
    a mov load 6.7-7.3 per round; by an immediate the same chain costs 1.0-1.1 per step (store_forwarding 0).
    Skylake has no such rule: its RMW chain is its ordinary forwarding (4) + 1."""
    assert load_model(GC).rules.rmw_forwarding.latency == 6
    assert loop_cycles("xorl %eax, 64(%rsp)\n" * 10) == 70.0
    assert loop_cycles("addl %ebx, 64(%rsp)\nmovl 64(%rsp), %ebx") == 7.0
    assert loop_cycles("addl $1, 64(%rsp)\n" * 10) == 10.0
    assert load_model("skylake").rules.rmw_forwarding is None
    assert loop_cycles("xorl %eax, 64(%rsp)\n" * 10, "skylake") == 50.0


def test_palignr_runs_on_port_5_only():
    """classes.vec_palignr (microbenchmark on this host, 2026-12-01: 240 independent palignr 240-245 clk, beside
    as many pshufb no slower; llvm-mca-19 -mcpu=sapphirerapids: PALIGNR one uop on SPRPort05). pshufb keeps
    vec_shuffle's two ports; skylake, without the optional row, prices palignr as vec_shuffle (p5 there too)."""
    twelve = "".join(f"palignr $8, %xmm15, %xmm{2 + k}\n" for k in range(12))
    assert vector_loop_cycles(twelve) == 12.0
    assert vector_loop_cycles(twelve.replace("palignr $8,", "pshufb")) == 6.0
    assert vector_loop_cycles("".join(f"vpalignr $8, %ymm15, %ymm14, %ymm{2 + k}\n" for k in range(12))) == 12.0
    assert "vec_palignr" not in load_model("skylake").classes


def test_sha1msg2_costs_five_clocks_of_the_front_end():
    """classes.sha1msg2 (microbenchmark on this host, 2026-12-01): a chain 5.0 clk per step; beside another
    instruction of any port the pair costs 5-6 (p10 4.9-5.4) -- the front end's cost of a microcoded instruction,
    not units.sha: sha1rnds4 + sha1msg2 pairs cost what pxor + sha1msg2 pairs do (back to back, 4.1 measured, the
    row over-prices by a clock). zen3, with no sha1msg2 row, prices it as sha1msg."""
    assert load_model(GC).classes["sha1msg2"].uops == 30
    assert vector_loop_cycles("sha1msg2 %xmm1, %xmm0\n" * 10) == 50.0
    assert vector_loop_cycles("".join(f"sha1msg2 %xmm15, %xmm{2 + k}\nnop\n" for k in range(12))) == 62.0
    pairs = "".join(f"sha1rnds4 $0, %xmm15, %xmm{2 + k}\nsha1msg2 %xmm15, %xmm{8 + k}\n" for k in range(6))
    assert vector_loop_cycles(pairs) == vector_loop_cycles(pairs.replace("sha1rnds4 $0, %xmm15,", "pxor %xmm15,"))
    assert "sha1msg2" not in load_model("zen3").classes
