"""The vector and SHA-NI rows agree with themselves (numpy vs Z3 vs terms) and with the real CPU.

For every row of ``vector.VECTOR_ROWS`` there are snippets in ``FORMS``
covering its operand shapes (xmm and ymm, register and memory operands,
immediates at and beyond their edges). Each snippet runs on random states
-- the 16 general registers, a 64-byte buffer at %rsi and all 16 ymm
registers -- through the numpy interpreter and natively (assembled with
``as``, run through ctypes, ymm registers loaded and saved with
``vmovdqu``); a few of those states also run through Z3 (symbolically, then
instantiated) and through the term IR. Every ymm lane is compared, so the
upper-lane rules (legacy SSE keeps lanes 4-7, VEX/EVEX zero them) are
checked too.

``pshufb`` needs a constant mask: %xmm15/%ymm15 and buffer words 12-15 hold
one fixed (random, or given) value in every state of a snippet and are
constants in the Z3 and term runs; everything else is random per state.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import z3

from tests.support.cpu import not_run_here, skip_unless_runs
from tests.support.native import BUFFER_WORDS, TEST_REGS, VECTOR_REGS, SnippetRunner
from sha1opt.emit.toolchain import ToolchainError
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain, TermDomain, Z3Domain
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.ir import evaluate, to_text, uninterpreted_ops
from sha1opt.semantics.machine import Machine, Pointer
from sha1opt.semantics.vector import VECTOR_ROWS, lane_name, shape
from sha1opt.semantics.features import ISA_INCLUDES, includes
from sha1opt.semantics.x86 import SEMANTICS, effects, isa_of, isa_set, operand_kinds, required_features, required_isa

LANES = 24          # random states per snippet, natively and in numpy
Z3_LANES = 4        # of those, also through Z3 and terms
MASK_REG = 15       # %xmm15 / %ymm15 hold a constant (pshufb masks)
MASK_WORDS = range(12, 16)   # so do buffer words 12..15 (48(%rsi))
BSWAP_MASK = [0x00010203, 0x04050607, 0x08090A0B, 0x0C0D0E0F] * 2
# packuswb's saturation edges as %xmm15's words: 0, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x80, 0x7f00
PACK_EDGES = [0x00FF0000, 0x7FFF0100, 0xFFFF8000, 0x7F000080] * 2

# mnemonic -> snippets (AT&T; %rsi points at the 16-word buffer). A snippet may be
# (text, mask words for ymm15); its first instruction is the row it tests.
FORMS: dict[str, list] = {
    "movdqa": ["movdqa %xmm1, %xmm0", "movdqa 16(%rsi), %xmm2", "movdqa %xmm3, 32(%rsi)"],
    "movdqu": ["movdqu 4(%rsi), %xmm4", "movdqu %xmm5, 20(%rsi)", "movdqu %xmm9, %xmm14"],
    "movaps": ["movaps %xmm1, %xmm0", "movaps 48(%rsi), %xmm2", "movaps %xmm11, (%rsi)"],
    "movups": ["movups 8(%rsi), %xmm6", "movups %xmm7, 36(%rsi)"],
    "movd": ["movd %eax, %xmm0", "movd 8(%rsi), %xmm1", "movd %xmm2, %ebx", "movd %xmm3, 12(%rsi)",
             "movd %r9d, %xmm10"],
    "movq": ["movq %xmm1, %xmm0", "movq 8(%rsi), %xmm2", "movq %xmm3, 24(%rsi)", "movq %rbx, %xmm4",
             "movq %r9, %xmm3\nmovq %xmm3, %rcx"],
    "paddd": ["paddd %xmm1, %xmm0", "paddd 16(%rsi), %xmm8"],
    "psubd": ["psubd %xmm2, %xmm3", "psubd 32(%rsi), %xmm12"],
    "pcmpgtd": ["pcmpgtd %xmm2, %xmm3", "pcmpgtd 32(%rsi), %xmm12"],
    "pxor": ["pxor %xmm7, %xmm5", "pxor (%rsi), %xmm4"],
    "por": ["por %xmm1, %xmm2", "por 48(%rsi), %xmm3"],
    "pand": ["pand %xmm4, %xmm5", "pand 16(%rsi), %xmm6"],
    "pandn": ["pandn %xmm7, %xmm8", "pandn 32(%rsi), %xmm9"],
    "pshufb": ["pshufb %xmm15, %xmm0", "pshufb 48(%rsi), %xmm3", ("pshufb %xmm15, %xmm7", BSWAP_MASK)],
    "psrld": ["psrld $30, %xmm0", "psrld $0, %xmm1", "psrld $32, %xmm2", "psrld $200, %xmm3"],
    "pslld": ["pslld $5, %xmm4", "pslld $31, %xmm5", "pslld $40, %xmm6"],
    "psrlw": ["psrlw $8, %xmm4", "psrlw $1, %xmm0", "psrlw $15, %xmm1", "psrlw $0, %xmm2", "psrlw $16, %xmm3",
              "psrlw $200, %xmm5", "psrlw $9, %xmm1\npackuswb %xmm1, %xmm6"],
    "psllw": ["psllw $8, %xmm7", "psllw $3, %xmm0", "psllw $15, %xmm1", "psllw $16, %xmm2", "psllw $255, %xmm3"],
    "packuswb": ["packuswb %xmm1, %xmm0", "packuswb 16(%rsi), %xmm2", ("packuswb %xmm15, %xmm3", PACK_EDGES)],
    "punpcklbw": ["punpcklbw %xmm1, %xmm0", "punpcklbw 32(%rsi), %xmm2"],
    "punpckhbw": ["punpckhbw %xmm3, %xmm4", "punpckhbw 16(%rsi), %xmm5"],
    "punpcklwd": ["punpcklwd %xmm6, %xmm7", "punpcklwd (%rsi), %xmm8"],
    "punpckhwd": ["punpckhwd %xmm9, %xmm10", "punpckhwd 32(%rsi), %xmm11"],
    "psrldq": ["psrldq $1, %xmm0", "psrldq $4, %xmm1", "psrldq $7, %xmm2", "psrldq $15, %xmm3", "psrldq $16, %xmm4"],
    "pslldq": ["pslldq $1, %xmm5", "pslldq $4, %xmm6", "pslldq $12, %xmm10", "pslldq $17, %xmm7"],
    "palignr": ["palignr $8, %xmm1, %xmm0", "palignr $3, 16(%rsi), %xmm2", "palignr $0, %xmm3, %xmm4",
                "palignr $17, %xmm5, %xmm6", "palignr $31, %xmm7, %xmm8", "palignr $32, %xmm9, %xmm10"],
    "pshufd": ["pshufd $0x1b, %xmm1, %xmm1", "pshufd $0xe4, 32(%rsi), %xmm2", "pshufd $0x39, %xmm3, %xmm4"],
    "punpcklqdq": ["punpcklqdq %xmm1, %xmm0", "punpcklqdq 16(%rsi), %xmm2"],
    "punpckhqdq": ["punpckhqdq %xmm3, %xmm4", "punpckhqdq 32(%rsi), %xmm5"],
    "punpckldq": ["punpckldq %xmm2, %xmm1", "punpckldq 16(%rsi), %xmm3"],
    "punpckhdq": ["punpckhdq %xmm2, %xmm1", "punpckhdq 32(%rsi), %xmm3"],
    "pextrd": ["pextrd $1, %xmm1, %eax", "pextrd $3, %xmm2, 8(%rsi)", "pextrd $0, %xmm3, %r12d"],
    "pinsrd": ["pinsrd $2, %eax, %xmm0", "pinsrd $0, 12(%rsi), %xmm1", "pinsrd $3, %r10d, %xmm2"],
    "pextrq": ["pextrq $1, %xmm2, 8(%rsi)", "pextrq $0, %xmm3, 24(%rsi)", "pextrq $3, %xmm5, 40(%rsi)"],
    "pinsrq": ["pinsrq $1, %rax, %xmm0", "pinsrq $0, 16(%rsi), %xmm1", "pinsrq $3, %r10, %xmm2",
               "pinsrq $0, %rcx, %xmm6\npextrq $0, %xmm6, %rdx"],
    "vpextrd": ["vpextrd $1, %xmm1, %eax", "vpextrd $3, %xmm2, 8(%rsi)", "vpextrd $6, %xmm3, %r12d"],
    "vpinsrd": ["vpinsrd $2, %eax, %xmm1, %xmm0", "vpinsrd $0, 12(%rsi), %xmm1, %xmm1",
                "vpinsrd $7, %r10d, %xmm3, %xmm2"],
    "vpextrq": ["vpextrq $1, %xmm2, 8(%rsi)", "vpextrq $0, %xmm3, 24(%rsi)", "vpextrq $3, %xmm5, 40(%rsi)"],
    "vpinsrq": ["vpinsrq $1, %rax, %xmm1, %xmm0", "vpinsrq $0, 16(%rsi), %xmm1, %xmm1",
                "vpinsrq $3, %r10, %xmm4, %xmm2", "vpinsrq $0, %rcx, %xmm7, %xmm6\nvpextrq $0, %xmm6, %rdx"],
    "vmovdqa": ["vmovdqa %xmm1, %xmm0", "vmovdqa %ymm2, %ymm3", "vmovdqa 32(%rsi), %ymm4", "vmovdqa %ymm5, (%rsi)",
                "vmovdqa 16(%rsi), %xmm6", "vmovdqa %xmm7, 48(%rsi)"],
    "vmovdqu": ["vmovdqu 4(%rsi), %ymm1", "vmovdqu %ymm9, 12(%rsi)", "vmovdqu 20(%rsi), %xmm3",
                "vmovdqu %xmm9, %xmm10", "vmovdqu %ymm11, %ymm12"],
    "vmovups": ["vmovups 4(%rsi), %ymm1", "vmovups %ymm9, 12(%rsi)", "vmovups 8(%rsi), %xmm13",
                "vmovups %xmm14, 36(%rsi)", "vmovups %ymm11, %ymm12"],
    "vmovd": ["vmovd %eax, %xmm0", "vmovd 8(%rsi), %xmm1", "vmovd %xmm2, %ebx", "vmovd %xmm3, 12(%rsi)",
              "vmovd %r9d, %xmm10"],
    "vmovq": ["vmovq %xmm1, %xmm0", "vmovq 8(%rsi), %xmm2", "vmovq %xmm3, 24(%rsi)", "vmovq %rbx, %xmm4",
              "vmovq %rcx, %xmm5\nvmovq %xmm5, %rdx"],
    "vpaddd": ["vpaddd %xmm1, %xmm2, %xmm3", "vpaddd %ymm11, %ymm7, %ymm9", "vpaddd 32(%rsi), %ymm1, %ymm1",
               "vpaddd 4(%rsi), %xmm5, %xmm6"],
    "vpsubd": ["vpsubd %xmm1, %xmm2, %xmm3", "vpsubd %ymm4, %ymm5, %ymm6"],
    "vpcmpgtd": ["vpcmpgtd %xmm1, %xmm2, %xmm3", "vpcmpgtd %ymm4, %ymm5, %ymm6"],
    "vpxor": ["vpxor %xmm1, %xmm2, %xmm3", "vpxor %ymm4, %ymm5, %ymm6", "vpxor (%rsi), %ymm7, %ymm8"],
    "vpor": ["vpor %xmm1, %xmm2, %xmm3", "vpor %ymm4, %ymm5, %ymm6"],
    "vpand": ["vpand %xmm1, %xmm2, %xmm3", "vpand 16(%rsi), %ymm5, %ymm6"],
    "vpandn": ["vpandn %xmm1, %xmm2, %xmm3", "vpandn %ymm4, %ymm5, %ymm6"],
    "vpshufb": ["vpshufb %xmm15, %xmm2, %xmm3", "vpshufb %ymm15, %ymm1, %ymm1", "vpshufb 48(%rsi), %xmm4, %xmm5",
                ("vpshufb %ymm15, %ymm6, %ymm6", BSWAP_MASK)],
    "vpsrld": ["vpsrld $30, %ymm10, %ymm9", "vpsrld $31, %xmm1, %xmm2", "vpsrld $33, %ymm3, %ymm4"],
    "vpslld": ["vpslld $2, %ymm5, %ymm6", "vpslld $1, %xmm7, %xmm7", "vpslld $32, %ymm8, %ymm9"],
    "vpsrlw": ["vpsrlw $8, %xmm1, %xmm2", "vpsrlw $5, %ymm3, %ymm4", "vpsrlw $16, %ymm5, %ymm6"],
    "vpsllw": ["vpsllw $8, %ymm7, %ymm8", "vpsllw $15, %xmm9, %xmm9", "vpsllw $17, %xmm10, %xmm11"],
    "vpsrldq": ["vpsrldq $4, %ymm6, %ymm8", "vpsrldq $3, %xmm1, %xmm2", "vpsrldq $16, %ymm1, %ymm2"],
    "vpslldq": ["vpslldq $12, %ymm7, %ymm10", "vpslldq $5, %xmm1, %xmm2", "vpslldq $9, %ymm3, %ymm4"],
    "vpalignr": ["vpalignr $8, %ymm7, %ymm0, %ymm8", "vpalignr $4, %xmm1, %xmm2, %xmm3",
                 "vpalignr $13, 32(%rsi), %ymm4, %ymm5", "vpalignr $20, %ymm1, %ymm2, %ymm3"],
    "vpshufd": ["vpshufd $0x1b, %ymm1, %ymm2", "vpshufd $0x4e, %xmm3, %xmm3", "vpshufd $0x93, 32(%rsi), %ymm4"],
    "vpunpcklqdq": ["vpunpcklqdq %ymm1, %ymm2, %ymm3", "vpunpcklqdq %xmm4, %xmm5, %xmm6"],
    "vpunpckhqdq": ["vpunpckhqdq %ymm1, %ymm2, %ymm3", "vpunpckhqdq 16(%rsi), %xmm5, %xmm6"],
    "vpunpckldq": ["vpunpckldq %ymm1, %ymm2, %ymm3", "vpunpckldq %xmm4, %xmm5, %xmm6",
                   "vpunpckldq 32(%rsi), %ymm7, %ymm8"],
    "vpunpckhdq": ["vpunpckhdq %ymm1, %ymm2, %ymm3", "vpunpckhdq 16(%rsi), %xmm5, %xmm6"],
    "vextracti128": ["vextracti128 $1, %ymm1, %xmm2", "vextracti128 $0, %ymm3, %xmm3",
                     "vextracti128 $1, %ymm4, 16(%rsi)", "vextracti128 $2, %ymm5, %xmm6"],
    "vbroadcasti128": ["vbroadcasti128 16(%rsi), %ymm1", "vbroadcasti128 4(%rsi), %ymm9"],
    "vpermq": ["vpermq $0x1b, %ymm1, %ymm2", "vpermq $0xd8, %ymm3, %ymm3", "vpermq $0x4e, 32(%rsi), %ymm4",
               "vpermq $0x00, %ymm5, %ymm6"],
    "vinserti128": ["vinserti128 $1, 16(%rsi), %ymm3, %ymm3", "vinserti128 $0, %xmm1, %ymm2, %ymm4",
                    "vinserti128 $3, %xmm5, %ymm6, %ymm7"],
    "vperm2i128": ["vperm2i128 $0x20, %ymm1, %ymm2, %ymm3", "vperm2i128 $0x31, %ymm4, %ymm5, %ymm6",
                   "vperm2i128 $0x88, %ymm1, %ymm2, %ymm3", "vperm2i128 $0x13, 32(%rsi), %ymm7, %ymm8",
                   "vperm2i128 $0x02, %ymm9, %ymm10, %ymm11"],
    "vpbroadcastd": ["vpbroadcastd %xmm1, %xmm2", "vpbroadcastd %xmm3, %ymm4", "vpbroadcastd 8(%rsi), %ymm5",
                     "vpbroadcastd 12(%rsi), %xmm6"],
    "vzeroupper": ["vzeroupper", "vzeroupper\nvpaddd %ymm1, %ymm2, %ymm3",
                   "vzeroupper\npaddd %xmm4, %xmm5\nvzeroall"],
    "vzeroall": ["vzeroall", "vzeroall\nmovd %eax, %xmm0\nvpxor %ymm1, %ymm2, %ymm3"],
    "vprold": ["vprold $5, %xmm1, %xmm2", "vprold $30, %ymm3, %ymm4", "vprold $0, %ymm5, %ymm5",
               "vprold $33, 32(%rsi), %ymm6"],
    "vpternlogd": ["vpternlogd $0x96, %xmm1, %xmm2, %xmm3", "vpternlogd $0xe8, %ymm4, %ymm5, %ymm6",
                   "vpternlogd $0xca, 32(%rsi), %ymm7, %ymm8", "vpternlogd $0x00, %xmm9, %xmm10, %xmm11",
                   "vpternlogd $0xff, %ymm12, %ymm13, %ymm14"],
    "sha1rnds4": ["sha1rnds4 $0, %xmm1, %xmm0", "sha1rnds4 $1, %xmm2, %xmm0", "sha1rnds4 $2, %xmm3, %xmm4",
                  "sha1rnds4 $3, %xmm5, %xmm6", "sha1rnds4 $3, 16(%rsi), %xmm7"],
    "sha1nexte": ["sha1nexte %xmm1, %xmm0", "sha1nexte 32(%rsi), %xmm3"],
    "sha1msg1": ["sha1msg1 %xmm1, %xmm0", "sha1msg1 16(%rsi), %xmm5"],
    "sha1msg2": ["sha1msg2 %xmm2, %xmm3", "sha1msg2 (%rsi), %xmm4"],
    "xorps": ["xorps %xmm1, %xmm0", "xorps 16(%rsi), %xmm9"],
    "vxorps": ["vxorps %xmm1, %xmm2, %xmm3", "vxorps %ymm4, %ymm5, %ymm6", "vxorps 32(%rsi), %ymm7, %ymm8"],
    "aesenc": ["aesenc %xmm1, %xmm0", "aesenc 16(%rsi), %xmm2", "aesenc %xmm3, %xmm3"],
    "aesenclast": ["aesenclast %xmm1, %xmm0", "aesenclast 32(%rsi), %xmm10"],
    "vaesenc": ["vaesenc %xmm1, %xmm2, %xmm3", "vaesenc 16(%rsi), %xmm4, %xmm5"],
    "vaesenclast": ["vaesenclast %xmm1, %xmm2, %xmm3", "vaesenclast (%rsi), %xmm11, %xmm11"],
}

ALL = [(m, *(f if isinstance(f, tuple) else (f, None))) for m, forms in FORMS.items() for f in forms]
TERNLOG = [f"vpternlogd ${imm:#04x}, %ymm1, %ymm2, %ymm3" for imm in range(256)]


def test_every_vector_row_has_forms():
    assert set(FORMS) == set(VECTOR_ROWS), "each vector row needs CPU-checked snippets"
    assert all(SEMANTICS[m] is row for m, row in VECTOR_ROWS.items()), "registered in the one table"


# --- states -----------------------------------------------------------------

def _state(seed: int, lanes: int, mask):
    """Random registers, buffer and ymm file (``ymm[8k + j]`` = lane j of register k), lanes wide."""
    rng = np.random.default_rng(seed)
    draw = lambda *shape: rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    regs = {r: draw(lanes) for r in TEST_REGS}
    buf = draw(BUFFER_WORDS, lanes)
    ymm = draw(8 * VECTOR_REGS, lanes)
    fixed = draw(12)             # this snippet's constants: 8 for ymm15, 4 for the buffer words
    if mask is not None:
        fixed[:8] = mask
    for j in range(8):
        ymm[8 * MASK_REG + j] = fixed[j]
    for w, k in zip(MASK_WORDS, range(8, 12)):
        buf[w] = fixed[k]
    regs["eax"][:3] = [0, 0xFFFFFFFF, 0x80000000]
    return regs, buf, ymm


def _constant(name: str) -> bool:
    return name.startswith(f"xmm{MASK_REG}.") or name in {f"m{4 * w}" for w in MASK_WORDS}


def _run_numpy(program, regs, buf, ymm):
    lanes = len(buf[0])
    dom = NumpyDomain(lanes)

    def initial_reg(name):
        if "." in name:
            k, j = name[3:].split(".")
            return ymm[8 * int(k) + int(j)].copy()
        return regs[name].copy()

    m = Machine(dom, initial_reg=initial_reg, initial_mem=lambda region, off: buf[off // 4].copy(),
                pointers={"esi": "buf"})
    m.run(program)
    return _outputs(m)


def _outputs(m):
    out_regs = {r: m.get(("reg", r)) for r in TEST_REGS}
    out_buf = [m.get(("mem", "buf", 4 * w)) for w in range(BUFFER_WORDS)]
    out_ymm = [lane for k in range(VECTOR_REGS) for lane in m.get(("reg", f"xmm{k}"))]
    return out_regs, out_buf, out_ymm


def _skip_unless_the_host_runs(program) -> None:
    """Exactly the snippets using a feature this CPU lacks are skipped ("this CPU lacks avx512vl")."""
    skip_unless_runs(*isa_set(program))


def _runner(snippets):
    if (reason := not_run_here("avx")) is not None:
        pytest.skip(f"{reason}: the harness moves ymm registers with vmovdqu")
    try:
        return SnippetRunner(snippets, vectors=True)
    except ToolchainError as e:
        pytest.skip(f"toolchain unavailable: {e}")


@pytest.fixture(scope="module")
def native():
    # Only snippets this host's CPU runs go into the library (gas may encode what the CPU lacks).
    runner = _runner([s for _, s, _ in ALL])
    yield runner
    runner.close()


def _compare_native(runner, k, program, regs, buf, ymm, what):
    want_regs, want_buf, want_ymm = _run_numpy(program, regs, buf, ymm)
    for lane in range(len(buf[0])):
        got_regs, got_buf, got_ymm = runner.run_vectors(
            k, {r: int(v[lane]) for r, v in regs.items()}, [int(w) for w in buf[:, lane]],
            [int(w) for w in ymm[:, lane]])
        for r in TEST_REGS:
            assert got_regs[r] == int(want_regs[r][lane]), f"{what}: %{r} lane {lane}"
        assert got_buf == [int(w[lane]) for w in want_buf], f"{what}: memory lane {lane}"
        for i, (g, w) in enumerate(zip(got_ymm, want_ymm)):
            assert g == int(w[lane]), f"{what}: %ymm{i // 8} lane {i % 8}, state {lane}"


@pytest.mark.parametrize("k", range(len(ALL)), ids=[s for _, s, _ in ALL])
def test_numpy_agrees_with_cpu(native, k):
    mnemonic, snippet, mask = ALL[k]
    program = parse_text(snippet, "x86_64")
    assert program[0].mnemonic == mnemonic
    _skip_unless_the_host_runs(program)
    _compare_native(native, k, program, *_state(k, LANES, mask), snippet)


@pytest.mark.parametrize("k", range(len(ALL)), ids=[s for _, s, _ in ALL])
def test_z3_and_terms_agree_with_numpy(k):
    """Terms evaluated by numpy, and Z3 instantiated, give the numpy run's values -- Z3 only where it reads
    every op exactly: the AES rows' ops are uninterpreted in Z3 (``ir.UNINTERPRETED_IN_Z3``), so for them the
    terms alone are compared (their Z3 reading has its own tests, tests/semantics/test_aes_semantics.py)."""
    _, snippet, mask = ALL[k]
    program = parse_text(snippet, "x86_64")
    regs, buf, ymm = _state(5000 + k, Z3_LANES, mask)
    want = _run_numpy(program, regs, buf, ymm)

    def point(lane):
        p = {r: int(regs[r][lane]) for r in TEST_REGS} | {f"m{4 * w}": int(buf[w, lane]) for w in range(BUFFER_WORDS)}
        return p | {lane_name(f"xmm{i}", j): int(ymm[8 * i + j, lane]) for i in range(VECTOR_REGS) for j in range(8)}

    fixed = point(0)
    zd, td = Z3Domain(), TermDomain()
    mz = Machine(zd, lambda r: zd.const(fixed[r]) if _constant(r) else zd.var(r),
                 lambda reg, off: zd.const(fixed[f"m{off}"]) if _constant(f"m{off}") else zd.var(f"m{off}"),
                 pointers={"esi": "buf"})
    mt = Machine(td, lambda r: td.const(fixed[r]) if _constant(r) else td.var(r),
                 lambda reg, off: td.const(fixed[f"m{off}"]) if _constant(f"m{off}") else td.var(f"m{off}"),
                 pointers={"esi": "buf"})
    mz.run(program)
    mt.run(program)
    got_z, got_t = _outputs(mz), _outputs(mt)
    flat = lambda o: list(o[0].values()) + o[1] + o[2]  # noqa: E731
    exact_in_z3 = not uninterpreted_ops(flat(got_t))
    outputs_z = flat(got_z)
    together = z3.Concat(*outputs_z)          # one substitution per state, not one per output
    for lane in range(Z3_LANES):
        values = point(lane)
        subst = [(zd.var(n), zd.const(v)) for n, v in values.items() if not _constant(n)]
        env = {n: np.array([v], dtype=np.uint32) for n, v in values.items()}
        tvals = [int(v[0]) for v in evaluate(flat(got_t), NumpyDomain(1), env)]
        if exact_in_z3:
            packed = z3.simplify(z3.substitute(together, *subst)).as_long()
            zvals = [(packed >> (32 * (len(outputs_z) - 1 - i))) & 0xFFFFFFFF for i in range(len(outputs_z))]
        else:
            zvals = tvals
        for i, (zval, tval, nv) in enumerate(zip(zvals, tvals, flat(want))):
            assert zval == tval == int(nv[lane]), f"{snippet}: output {i} state {lane}"


@pytest.fixture(scope="module")
def ternlog_runner():
    runner = _runner(TERNLOG)
    yield runner
    runner.close()


@pytest.mark.parametrize("imm", range(256))
def test_vpternlogd_every_immediate_agrees_with_cpu(ternlog_runner, imm):
    program = parse_text(TERNLOG[imm], "x86_64")
    _skip_unless_the_host_runs(program)
    _compare_native(ternlog_runner, imm, program, *_state(9000 + imm, 4, None), TERNLOG[imm])


@pytest.mark.parametrize("imm", range(256))
def test_vpternlogd_is_its_truth_table_in_every_domain(imm):
    """Bit i of the result is bit (a<<2 | b<<1 | c) of imm, with a = dst, b = src2, c = src3."""
    rng = np.random.default_rng(imm)
    a, b, c = (rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    want = np.zeros(64, dtype=np.uint32)
    for idx in range(8):
        if imm >> idx & 1:
            want |= ((a if idx & 4 else ~a) & (b if idx & 2 else ~b) & (c if idx & 1 else ~c))
    fn = VECTOR_ROWS["vpternlogd"].fn
    got = fn(NumpyDomain(64), (a,), (b,), (c,), imm)[0]
    assert np.array_equal(got, want)
    td = TermDomain()
    term = fn(td, (td.var("a"),), (td.var("b"),), (td.var("c"),), imm)[0]
    assert np.array_equal(evaluate([term], NumpyDomain(64), {"a": a, "b": b, "c": c})[0], want)


# --- flags, ISA, effects ----------------------------------------------------------

STATUS_FLAGS = 0x8D5
SINGLE = [(m, s) for m, s, _ in ALL if "\n" not in s]


@pytest.fixture(scope="module")
def flag_runner():
    runner = _runner([f"pushq ${p:#x}\npopfq\n{s}\npushfq\npopq 56(%rsi)"
                      for _, s in SINGLE for p in (0x002, 0x002 | STATUS_FLAGS)])
    yield runner
    runner.close()


@pytest.mark.parametrize("k", range(len(SINGLE)), ids=[s for _, s in SINGLE])
def test_vector_rows_leave_the_flags_alone(flag_runner, k):
    """No vector row writes flags (the table says so, and the CPU agrees for both presets)."""
    mnemonic, snippet = SINGLE[k]
    assert SEMANTICS[mnemonic].writes_flags is False
    program = parse_text(snippet, "x86_64")
    _skip_unless_the_host_runs(program)
    for p, preset in enumerate((0x002, 0x002 | STATUS_FLAGS)):
        regs, buf, ymm = _state(700 + k, 4, None)
        for lane in range(4):
            _, got_buf, _ = flag_runner.run_vectors(2 * k + p, {r: int(v[lane]) for r, v in regs.items()},
                                                    [int(w) for w in buf[:, lane]], [int(w) for w in ymm[:, lane]])
            assert got_buf[14] & STATUS_FLAGS == preset & STATUS_FLAGS, snippet


_GAS = {"base": None, "sse": ".sse", "sse2": ".sse2", "ssse3": ".ssse3", "sse4.1": ".sse4.1", "avx": ".avx",
        "avx2": ".avx2", "avx512vl": ".avx512vl", "sha": ".sha", "aes": ".aes", "bmi1": ".bmi", "bmi2": ".bmi2"}


def _refused_lines(directives: list[str], snippets: list[str], workdir) -> set[int]:
    """The indexes of ``snippets`` gas refuses under ``directives``: one assembler run for all of them
    (gas reports every refused line as ``file:LINE: Error: ...`` and goes on)."""
    head = [".arch generic64", *(f".arch {d}" for d in directives)]
    src = workdir / f"isa{len(list(workdir.iterdir()))}.s"
    src.write_text("\n".join([*head, *snippets, ""]))
    proc = subprocess.run([shutil.which("as"), "--64", "-o", os.devnull, str(src)], capture_output=True,
                          text=True, timeout=60)
    lines = {int(m.group(1)) for m in re.finditer(rf"^{re.escape(str(src))}:(\d+): Error", proc.stderr, re.M)}
    assert proc.returncode == 0 or lines, proc.stderr
    return {line - len(head) - 1 for line in lines}


def _directives(need: str) -> tuple[list[str], list[str]]:
    """(the directives that enable ``need``, every modelled feature that does not include it -- SSE/SSE2,
    which generic64 has, switched off)."""
    others = [_GAS[g] for g in ISA_INCLUDES if g != "base" and not includes(g, need)]
    if need in ("sse", "sse2"):
        others.append(".no" + need)
    return [_GAS[need]], others


@pytest.fixture(scope="module")
def gas_verdicts(tmp_path_factory) -> dict[str, tuple[bool, bool]]:
    """snippet -> (gas accepts it with its row's features, gas accepts it without any one of them), one gas
    run per feature set and one per feature left out."""
    if shutil.which("as") is None:
        pytest.skip("GNU as not on PATH")
    work = tmp_path_factory.mktemp("isa")
    by_need: dict[frozenset[str], list[str]] = {}
    for _, snippet in SINGLE:
        by_need.setdefault(required_features(parse_text(snippet, "x86_64")[0]), []).append(snippet)
    out = {}
    for need, snippets in by_need.items():
        refused_with = _refused_lines([_directives(f)[0][0] for f in sorted(need)], snippets, work)
        accepted_without = set()
        for f in need:
            accepted_without |= set(range(len(snippets))) - _refused_lines(_directives(f)[1], snippets, work)
        out.update({s: (k not in refused_with, k in accepted_without) for k, s in enumerate(snippets)})
    return out


@pytest.mark.parametrize("k", range(len(SINGLE)), ids=[s for _, s in SINGLE])
def test_isa_is_what_the_assembler_needs(k, gas_verdicts):
    """gas accepts the snippet with the row's features, and refuses it, for each of them, with every
    modelled feature that does not include that one (SSE/SSE2, which generic64 has, switched off):
    ``vaesenc`` is refused both without AVX and without AES-NI."""
    _, snippet = SINGLE[k]
    need = required_features(parse_text(snippet, "x86_64")[0])
    accepted_with, accepted_without = gas_verdicts[snippet]
    assert accepted_with, f"{snippet} refused with {sorted(need)}"
    assert not accepted_without, f"{snippet} accepted without one of {sorted(need)}"


def test_one_gas_run_reports_each_refused_line(tmp_path):
    """The batched check above reads gas's per-line errors: a refused line among accepted ones is named."""
    if shutil.which("as") is None:
        pytest.skip("GNU as not on PATH")
    with_it, without = _directives("avx")
    snippets = ["paddd %xmm1, %xmm0", "vpaddd %xmm1, %xmm2, %xmm3", "pxor %xmm7, %xmm5"]
    assert _refused_lines(without, snippets, tmp_path) == {1}
    assert _refused_lines(with_it, snippets, tmp_path) == set()


def _observe(ins):
    """(registers read, registers written, words read, words written) of one run on a fresh machine."""
    reads, words = set(), set()
    td = TermDomain()

    def initial_reg(name):
        reads.add(name.split(".")[0])
        return td.const(0x0F0E0D0C) if _constant(name) else td.var(name)   # pshufb needs a constant mask

    def initial_mem(region, off):
        words.add((region, off))
        return td.const(0x83028100) if _constant(f"m{off}") else td.var(f"{region}[{off}]")

    m = Machine(td, initial_reg, initial_mem)
    loc, value = m.step(ins)
    reads |= {r for r, v in m.regs.items() if isinstance(v, Pointer)}
    writes = {loc[1]} if loc[0] == "reg" else set()
    stored = {(loc[1], loc[2] + 4 * j) for j in range(len(value))} if loc[0] == "mem" else set()
    return reads, writes, words, stored


def _claimed(ins):
    from_mem = lambda mem: {(mem.base.name, mem.disp + 4 * j) for j in range(_words(ins))} if mem else set()  # noqa: E731
    e = effects(ins)
    return set(e.registers_read), set(e.writes), from_mem(e.mem_read), from_mem(e.mem_write)


def _words(ins) -> int:
    sh = shape(ins.mnemonic, VECTOR_ROWS[ins.mnemonic], operand_kinds(ins))
    return max(n for n, o in zip(sh.lanes, ins.operands) if type(o).__name__ == "Mem")


ACCESSES = [(m, s) for m, s in SINGLE if VECTOR_ROWS[m].form != "zero"]


@pytest.mark.parametrize("k", range(len(ACCESSES)), ids=[s for _, s in ACCESSES])
def test_effects_are_what_the_machine_reads_and_writes(k):
    _, snippet = ACCESSES[k]
    ins = parse_text(snippet, "x86_64")[0]
    assert _observe(ins) == _claimed(ins), snippet


def test_vzeroupper_and_vzeroall_touch_every_vector_register():
    """The machine zeroes lazily, so effects (what a scheduler must not move across) are stated, not observed:
    vzeroupper keeps every low half (reads and writes all 16), vzeroall reads none."""
    every = {f"xmm{i}" for i in range(16)}
    upper, zero = (effects(parse_text(t, "x86_64")[0]) for t in ("vzeroupper", "vzeroall"))
    assert (set(upper.data), set(upper.writes)) == (every, every)
    assert (set(zero.data), set(zero.writes)) == (set(), every)
    assert not upper.flags and not zero.flags
    assert set(upper.merges) == every and zero.merges == ()


@pytest.mark.parametrize("text, merges", [
    ("movdqa %xmm1, %xmm2", ("xmm2",)), ("pshufd $0x1b, %xmm1, %xmm2", ("xmm2",)), ("movd %eax, %xmm0", ("xmm0",)),
    ("paddd %xmm1, %xmm2", ()), ("vmovdqa %xmm1, %xmm2", ()), ("movdqa %xmm1, (%rsi)", ()),
    ("pshufd $0x1b, %xmm2, %xmm2", ()),
])
def test_a_legacy_sse_xmm_write_reads_its_destination_only_for_the_lanes_it_keeps(text, merges):
    """``Effects.merges``: the destination a legacy-SSE write reads only for ymm lanes 4-7 -- not an operand of
    the value it computes (a form that reads its destination, or a source that is the destination, is not)."""
    e = effects(parse_text(text, "x86_64")[0])
    assert e.merges == merges and set(merges) <= set(e.data)


# --- refusals, the ISA order, alignment, the documented representation ------------

@pytest.mark.parametrize("text, words", [
    ("vpaddq %xmm1, %xmm2, %xmm3", "unsupported instruction 'vpaddq'"),
    ("vpermd %ymm1, %ymm2, %ymm3", "unsupported instruction 'vpermd'"),
    ("pshufbl %xmm1, %xmm0", "unsupported instruction 'pshufbl'"),
    ("pxor %ymm1, %ymm0", "pxor: has no ymm form"),
    ("vaesenc %ymm1, %ymm2, %ymm3", "vaesenc: has no ymm form"),       # VAES (256-bit) is not modelled
    ("vinserti128 $1, %xmm1, %xmm2, %xmm3", "vinserti128: has no xmm form"),
    ("vbroadcasti128 %xmm1, %ymm2", "vbroadcasti128: operand kinds xy do not fit"),
    ("vpermq $0x1b, %xmm1, %xmm2", "vpermq: has no xmm form"),
    ("vpaddd %xmm1, %ymm2, %ymm3", "must all be xmm or all ymm"),
    ("psrld %xmm1, %xmm0", "psrld: the count must be an immediate"),
    ("vprold $1, %zmm1, %zmm2", "%zmm1 is EVEX-only"),
    ("vpxor %xmm17, %xmm1, %xmm2", "%xmm17 is EVEX-only"),
    ("movd %xmm1, %rax", "movd: operand kinds xg do not fit"),
    ("pextrq $1, %xmm1, %eax", "pextrq: operand kinds ixr do not fit"),
    ("movdqa (%rsi), 16(%rsi)", "at most one memory operand"),
    ("add %xmm0, %eax", "add: takes no vector register"),
    ("movdqu (%xmm1), %xmm0", "vector registers do not address memory"),
])
def test_unmodelled_vector_forms_are_refused_by_name(text, words):
    with pytest.raises(UnsupportedError, match=words.replace("$", r"\$")):
        parse_text(text, "x86_64")


@pytest.mark.parametrize("text", ["movq %xmm1, %rax", "vmovq %xmm1, %rax", "pextrq $1, %xmm1, %rax"])
def test_a_64_bit_register_takes_a_vector_result_only_with_its_upper_half_known_zero(text):
    """The straight-line machine holds 32-bit data in a general register: lane 1 of the source would be its
    upper half, which it cannot hold, so that is refused by name (not dropped)."""
    td = TermDomain()
    m = Machine(td, td.var, lambda region, off: td.var(f"{region}{off}"))
    with pytest.raises(UnsupportedError, match="upper half of %rax .* not known to be 0"):
        m.run(parse_text(text, "x86_64"))


def test_xmm8_to_15_do_not_exist_on_i386():
    assert parse_text("movdqa %xmm7, %xmm0", "i386")
    with pytest.raises(UnsupportedError, match="%xmm8 does not exist on i386"):
        parse_text("movdqa %xmm8, %xmm0", "i386")


@pytest.mark.parametrize("domain", ["z3", "term", "numpy"])
def test_pshufb_with_a_mask_that_is_not_a_constant_is_refused_by_name(domain):
    d = {"z3": Z3Domain, "term": TermDomain, "numpy": lambda: NumpyDomain(8)}[domain]()
    rng = np.random.default_rng(1)
    var = (lambda r: rng.integers(0, 1 << 32, 8, dtype=np.uint64).astype(np.uint32)) if domain == "numpy" else d.var
    m = Machine(d, var, lambda region, off: var(f"{region}[{off}]"))
    with pytest.raises(UnsupportedError, match=r"pshufb %xmm1, %xmm0: pshufb with a mask that is not a constant"):
        m.run(parse_text("pshufb %xmm1, %xmm0", "x86_64"))


def test_an_instruction_may_need_two_unrelated_features():
    """VAESENC is VEX (AVX) and AES-NI (SDM vol. 2A AESENC, CPUID "AVX AES"): both are required, the one-feature
    question refuses it by name, and code using it needs both."""
    ins = parse_text("vaesenc %xmm1, %xmm2, %xmm3", "x86_64")[0]
    assert required_features(ins) == {"avx", "aes"}
    with pytest.raises(UnsupportedError, match="vaesenc needs aes and avx, not one feature"):
        required_isa(ins)
    assert isa_set([ins, *parse_text("vpaddd %ymm1, %ymm2, %ymm3\naesenc %xmm1, %xmm0", "x86_64")]) == {"avx2", "aes"}
    assert required_isa(parse_text("aesenc %xmm1, %xmm0", "x86_64")[0]) == "aes"
    assert includes("aes", "sse2") and not includes("aes", "ssse3") and not includes("avx512vl", "aes")


def test_isa_features_are_a_partial_order():
    code = parse_text("rorx $2, %eax, %ebx\nvpaddd %ymm1, %ymm2, %ymm3\npshufb %xmm1, %xmm0", "x86_64")
    assert isa_set(code) == {"bmi2", "avx2"}                       # AVX2 includes SSSE3
    assert required_isa(parse_text("vpaddd %xmm1, %xmm2, %xmm3", "x86_64")[0]) == "avx"
    assert includes("avx512vl", "avx2") and includes("avx2", "sse4.1") and includes("sha", "sse2")
    assert not includes("sha", "avx2") and not includes("avx2", "sha") and not includes("sha", "ssse3")
    assert isa_of(parse_text("sha1msg1 %xmm1, %xmm0\npaddd %xmm1, %xmm2", "x86_64")) == "sha"
    assert isa_of(parse_text("andn %ecx, %ebx, %eax\nrorx $2, %eax, %ebx", "x86_64")) == "bmi2"
    with pytest.raises(UnsupportedError, match="unrelated ISA features sha, ssse3"):
        isa_of(parse_text("sha1msg1 %xmm1, %xmm0\npshufb %xmm1, %xmm2", "x86_64"))


def test_aligned_accesses_are_recorded_as_preconditions():
    td = TermDomain()
    m = Machine(td, td.var, lambda region, off: td.var(f"{region}[{off}]"), pointers={"esi": "buf"})
    m.run(parse_text("movdqa 16(%rsi), %xmm0\nmovdqu 4(%rsi), %xmm1\npaddd 32(%rsi), %xmm2\n"
                     "vpaddd 48(%rsi), %xmm3, %xmm3\nvmovdqa %ymm4, 64(%rsi)\nmovd 8(%rsi), %xmm5", "x86_64"))
    assert m.aligned == [("buf", 16, 16), ("buf", 32, 16), ("buf", 64, 32)]


def test_legacy_sse_keeps_the_upper_lanes_and_vex_zeroes_them():
    td = TermDomain()
    m = Machine(td, td.var, lambda region, off: td.var(f"{region}[{off}]"))
    m.run(parse_text("paddd %xmm1, %xmm0\nvpaddd %xmm1, %xmm2, %xmm2\nvzeroupper\nvmovdqa %ymm3, %ymm4", "x86_64"))
    assert [to_text(x) for x in m.get(("reg", "xmm0"))[4:]] == ["0"] * 4        # vzeroupper cleared them
    assert [to_text(x) for x in m.get(("reg", "xmm4"))] == [f"xmm3.{j}" for j in range(4)] + ["0"] * 4
    td = TermDomain()
    m = Machine(td, td.var, lambda region, off: td.var(f"{region}[{off}]"))
    m.run(parse_text("paddd %xmm1, %xmm0\nvpaddd %xmm1, %xmm2, %xmm2", "x86_64"))
    assert [to_text(x) for x in m.get(("reg", "xmm0"))[4:]] == [f"xmm0.{j}" for j in range(4, 8)]
    assert [to_text(x) for x in m.get(("reg", "xmm2"))[4:]] == ["0"] * 4


def test_the_docstring_examples_hold():
    """``vector.py``'s worked examples: psrldq $1 is shifts and ors; the byte-swap mask is bswap."""
    td = TermDomain()
    mask = dict(zip((lane_name("xmm6", j) for j in range(8)), BSWAP_MASK))
    m = Machine(td, lambda r: td.const(mask[r]) if r in mask else td.var(r), lambda region, off: td.var("m"))
    m.run(parse_text("movdqa %xmm0, %xmm1\npsrldq $1, %xmm0\npshufb %xmm6, %xmm1", "x86_64"))
    x = [f"xmm0.{j}" for j in range(4)]
    assert [to_text(v) for v in m.get(("reg", "xmm0"))[:4]] == [
        f"(({x[0]} >> 8) | ({x[1]} << 0x18))", f"(({x[1]} >> 8) | ({x[2]} << 0x18))",
        f"(({x[2]} >> 8) | ({x[3]} << 0x18))", f"({x[3]} >> 8)"]
    assert [to_text(v) for v in m.get(("reg", "xmm1"))[:4]] == [f"bswap({v})" for v in x]


WORD_SHIFTS = ("psrlw", "psllw", "vpsrlw", "vpsllw")


@pytest.mark.parametrize("mnemonic", WORD_SHIFTS)
def test_word_shift_by_16_or_more_clears_every_lane_in_every_domain(mnemonic):
    """SDM PSRLW/PSLLW: a count above 15 gives 0 in every word, as constant lanes (not a shift of x)."""
    fn = VECTOR_ROWS[mnemonic].fn
    numpy = NumpyDomain(1)
    z3d, terms = Z3Domain(), TermDomain()
    for d, lanes in ((numpy, (numpy.const(0xFFFFFFFF),) * 4), (z3d, tuple(z3d.var(f"x{j}") for j in range(4))),
                     (terms, tuple(terms.var(f"x{j}") for j in range(4)))):
        for n in (16, 17, 31, 32, 255):
            assert [d.constant(v) for v in fn(d, lanes, n)] == [0, 0, 0, 0], (d.name, n)


def test_word_shifts_and_packuswb_match_hand_computed_sdm_examples():
    """psrlw/psllw $8 of 0x12345678 are 0x00120056 / 0x34007800; packuswb saturates signed words:
    0, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x80, 0x7f00 give bytes 00 ff ff ff 00 00 80 ff."""
    d = NumpyDomain(1)
    one = lambda v: d.const(v)  # noqa: E731
    val = lambda lanes: [int(v[0]) for v in lanes]  # noqa: E731
    x = (one(0x12345678),) * 4
    assert val(VECTOR_ROWS["psrlw"].fn(d, x, 8)) == [0x00120056] * 4
    assert val(VECTOR_ROWS["psllw"].fn(d, x, 8)) == [0x34007800] * 4
    edges = tuple(one(w) for w in PACK_EDGES[:4])
    assert val(VECTOR_ROWS["packuswb"].fn(d, edges, edges)) == [0xFFFFFF00, 0xFF800000] * 2
