"""llvm-mca beside the cost simulator, where LLVM has a model: where they agree, and the differences
docs/uarch-notes.md explains (LLVM's Atom has no lea stall, llvm-mca ignores store-to-load forwarding).

Skipped where llvm-mca is not on PATH (Debian's llvm package; the project's set-up does not install it).
"""

from __future__ import annotations

import shutil

import pytest

from sha1opt.emit import calibration
from sha1opt.emit.assembly import format_instr
from sha1opt.search.cost import load_model, simulate
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.att import parse_text


def sim(src: str, uarch: str, arch: str = "i386", **kw):
    return simulate(parse_text(src, arch), load_model(uarch), **kw)


def rol_chain(n: int, op: str = "roll $1, %eax") -> str:
    return "\n".join([op] * n)


LLVM_MCA = shutil.which("llvm-mca")
needs_mca = pytest.mark.skipif(LLVM_MCA is None, reason="llvm-mca (LLVM 14) not installed")


def mca_cycles(text: str, cpu: str, iterations: int = 100) -> float:
    """llvm-mca's cycles per iteration (the one helper in emit.calibration), x86-64 triple."""
    return calibration.mca_cycles(text, "x86_64", cpu, iterations)


@needs_mca
@pytest.mark.parametrize("cpu,uarch", [("skylake", "skylake"), ("znver3", "zen3"), ("atom", "atom")])
def test_mca_agrees_on_a_dependent_rotate_chain(cpu, uarch):
    text = rol_chain(8, "roll $5, %eax") + "\n"
    assert sim(text, uarch, "x86_64", loop=True).cycles == pytest.approx(mca_cycles(text, cpu), rel=0.03)


@needs_mca
@pytest.mark.parametrize("cpu,uarch", [("skylake", "skylake"), ("znver3", "zen3")])
def test_mca_agrees_on_alu_throughput(cpu, uarch):
    regs = ("eax", "ebx", "ecx", "edx", "esi", "edi", "r8d", "r9d")
    text = "\n".join(f"xorl $1, %{r}" for r in regs) + "\n"
    assert sim(text, uarch, "x86_64", loop=True).cycles == pytest.approx(mca_cycles(text, cpu), rel=0.05)


@needs_mca
def test_mca_misses_the_atom_lea_stall():
    """LLVM's Atom model (X86ScheduleAtom.td) has no AGU stall: it runs add->lea in 2 clocks, we in 5."""
    text = "addl %ebx, %eax\nleal 4(%rax), %eax\n"
    assert mca_cycles(text, "atom") == pytest.approx(2.0, abs=0.05)
    ours = sim(text, "atom", "x86_64", loop=True)
    assert ours.cycles == 5.0 and ours.bottleneck == "lea stall"


@needs_mca
def test_mca_on_the_textbook_block():
    """Differences explained in docs/uarch-notes.md: LLVM's Skylake dispatches 6 uops/clk (we: 4 per
    rename), its Atom has no lea stall, and llvm-mca assumes loads never alias stores."""
    body = textbook("x86_64").body
    text = "\n".join(format_instr(i, "x86_64") for i in body) + "\n"
    items = parse_text(text, "x86_64")
    ours = {u: simulate(items, load_model(u), loop=True) for u in ("skylake", "zen3", "atom")}
    mca = {u: mca_cycles(text, cpu, 10) for u, cpu in (("skylake", "skylake"), ("zen3", "znver3"), ("atom", "atom"))}
    # Skylake: we are slower -- 4-wide rename (LLVM: 6) and the W ring's store->load
    # forwarding, which llvm-mca ignores (it assumes loads never alias stores).
    assert mca["skylake"] < ours["skylake"].cycles <= 1.25 * mca["skylake"]
    # zen3 is a literature model again (issue 10): 7-clk forwarding of the W ring, which llvm-mca
    # ignores, keeps us above LLVM's figure, by at most 25 %.
    assert mca["zen3"] < ours["zen3"].cycles <= 1.25 * mca["zen3"]
    stall = ours["atom"].breakdown["lea stall"]
    assert ours["atom"].cycles - mca["atom"] >= 0.5 * stall > 0    # most of the gap is the lea stall
