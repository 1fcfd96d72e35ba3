"""The cost simulator's vector and SHA-NI classes: one test per documented rule (issue 10).

The classes and rows are the ones corpus/uarch/*.toml cites (Agner Fog's instruction tables,
uops.info, LLVM's scheduling models); the scalar rules are tests/search/test_cost.py's. These
tests were added with the vector rows (fd6afab), lost in the merge c69431b and restored; the uarch
notes cite them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sha1opt.search.cost import UarchError, classify, load_model, simulate
from sha1opt.search.cost.classes import vector_class, vector_effects
from sha1opt.semantics.listing import parse_listing


def vec_items(text: str) -> list:
    """The simulator's items of x86-64 listing text (vector instructions included)."""
    return parse_listing(text, "x86_64").items


def test_vector_items_are_classified_by_mnemonic_and_operand_kinds():
    items = vec_items("paddd %xmm3, %xmm9\npaddd 16(%r14), %xmm9\nmovdqa %xmm9, 48(%rsp)\nmovdqu (%rsi), %xmm0\n"
                 "movdqa %xmm1, %xmm2\npshufb %xmm6, %xmm0\npsrld $31, %xmm8\nmovd %xmm0, %eax\n"
                 "sha1rnds4 $0, %xmm1, %xmm0\nsha1nexte %xmm2, %xmm1\nvpaddd %ymm3, %ymm9, %ymm10\n")
    assert [vector_class(i) for i in items] == ["vec_alu", "vec_alu_rm", "vec_store", "vec_load", "vec_mov",
                                               "vec_shuffle", "vec_shift", "vec_to_gpr", "sha1rnds4", "sha1msg",
                                               "vec_alu"]
    assert classify(items[8], load_model("zen3")) == "sha1rnds4"
    with pytest.raises(UarchError, match="needs SHA"):
        classify(items[8], load_model("skylake"))          # client Skylake has no SHA-NI
    with pytest.raises(UarchError, match="needs SSSE3"):
        classify(items[5], load_model("k10"))              # Phenom: SSE4a, no SSSE3


def test_movq_and_inserts_follow_their_operand_kinds():
    """gcc's vectorised state update: movq between a GPR and xmm crosses domains; with memory it is a load/store."""
    items = vec_items("movq %xmm0, %rax\nmovq %rax, %xmm1\nmovq (%rdi), %xmm0\nmovq %xmm0, 8(%rdi)\n"
                 "vpinsrd $1, %eax, %xmm0, %xmm0\npunpckldq %xmm1, %xmm0\n")
    assert [vector_class(i) for i in items] == ["vec_to_gpr", "gpr_to_vec", "vec_load", "vec_store", "gpr_to_vec",
                                               "vec_shuffle"]


def test_avx512_forms_need_avx512vl():
    """vprold / vpternlogd (the AVX-512VL rotate and 3-input logic) run on zen5 only; vpternlogd reads its
    destination (it is one of the three inputs)."""
    rot, tern = vec_items("vprold $5, %xmm1, %xmm2\nvpternlogd $0x96, %xmm3, %xmm4, %xmm5\n")
    assert classify(rot, load_model("zen5")) == "vec_shift" and classify(tern, load_model("zen5")) == "vec_alu"
    with pytest.raises(UarchError, match="needs AVX512VL"):
        classify(rot, load_model("zen3"))
    assert vector_effects(tern).data == ("v3", "v4", "v5") and vector_effects(tern).writes == ("v5",)


def test_vector_operand_effects_two_and_three_operand_forms():
    sse, avx, st = vec_items("paddd %xmm3, %xmm9\nvpaddd %xmm3, %xmm9, %xmm10\nmovdqa %xmm9, 48(%rsp)\n")
    assert vector_effects(sse).data == ("v3", "v9") and vector_effects(sse).writes == ("v9",)
    assert vector_effects(avx).data == ("v3", "v9") and vector_effects(avx).writes == ("v10",)
    e = vector_effects(st)
    assert e.data == ("v9",) and e.writes == () and e.mem_write.disp == 48 and e.mem_write.base.name == "esp"


def test_vector_dependency_chain_costs_its_latency():
    """Eight dependent paddd: 8 x latency 1 on Skylake; dependent pshufb: 1 clock each on Nehalem, and at
    least Merom's 3-clock latency each on Core 2 (its 3-uop 128-bit shuffle)."""
    chain = vec_items("paddd %xmm1, %xmm0\n" * 8)
    assert simulate(chain, load_model("skylake"), loop=True).cycles == pytest.approx(8, abs=0.3)
    shuf = vec_items("pshufb %xmm1, %xmm0\n" * 8)
    assert simulate(shuf, load_model("nehalem"), loop=True).cycles == pytest.approx(8, abs=0.3)
    assert simulate(shuf, load_model("core2"), loop=True).cycles >= 24


def test_vector_store_forwards_to_a_scalar_add_from_memory():
    """The SSSE3 path's W+K: a vector store then ``add 48(%rsp), %ebp`` of the same address waits for it."""
    m = load_model("skylake")
    fwd = vec_items("paddd %xmm1, %xmm0\nmovdqa %xmm0, 48(%rsp)\naddl 48(%rsp), %ebp\n")
    other = vec_items("paddd %xmm1, %xmm0\nmovdqa %xmm0, 48(%rsp)\naddl 96(%rsp), %ebp\n")
    t_fwd = simulate(fwd, m).timeline[2].complete
    t_other = simulate(other, m).timeline[2].complete
    assert t_fwd >= t_other + 1


def test_zen_eliminates_vector_register_moves():
    """movdqa %xmm0,%xmm1 costs no latency on Zen (renamed away): a paddd/movdqa chain is 1 clock per pair."""
    chain = vec_items("paddd %xmm2, %xmm0\nmovdqa %xmm0, %xmm1\npaddd %xmm2, %xmm1\nmovdqa %xmm1, %xmm0\n")
    assert simulate(chain, load_model("zen3"), loop=True).cycles == pytest.approx(2, abs=0.1)
    assert simulate(chain, load_model("core2"), loop=True).cycles == pytest.approx(4, abs=0.1)


def test_sha1rnds4_chain_costs_its_latency():
    """OpenSSL's SHA-NI loop is bound by the sha1rnds4 chain (20 per block, 6 clocks each on Zen)."""
    chain = vec_items("sha1rnds4 $0, %xmm1, %xmm0\n" * 4)
    for u in ("zen1", "zen3", "zen5"):
        assert simulate(chain, load_model(u), loop=True).cycles == pytest.approx(24, abs=0.1)


@pytest.mark.skipif(not Path("/usr/lib/x86_64-linux-gnu/libcrypto.a").exists(), reason="needs Debian's libcrypto.a")
def test_regression_ssse3_ranked_slower_than_integer_on_every_model():
    """Issue 10: with vector code priced as opaque, every model ranked OpenSSL's SSSE3 path slower than its
    integer path; bench/cost_fidelity.py must find every CPU's paths in the published order."""
    script = Path(__file__).resolve().parents[2] / "bench" / "cost_fidelity.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    ranks = [line for line in out.splitlines() if "ranks the paths" in line]
    assert len(ranks) == 7 and all(line.endswith("yes") for line in ranks), out
