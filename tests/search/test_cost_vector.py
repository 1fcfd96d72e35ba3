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
from sha1opt.search.cost.classes import UNPRICED_VECTOR_ROWS, VECTOR_FAMILY, vector_class, vector_effects
from sha1opt.search.cost.model import VECTOR_CLASSES
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.vector import VECTOR_ROWS


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


def test_every_vector_row_of_the_semantics_table_has_a_cost_family_and_nothing_else_does():
    """The cost model keeps only the class family; what an instruction reads and writes is its semantics row's.
    The rows no model prices yet are a named exemption (``UNPRICED_VECTOR_ROWS``), disjoint from the families."""
    assert set(VECTOR_FAMILY) | UNPRICED_VECTOR_ROWS == set(VECTOR_ROWS)
    assert not set(VECTOR_FAMILY) & UNPRICED_VECTOR_ROWS
    assert set(VECTOR_FAMILY.values()) - {"vec_lane", "nop"} <= set(VECTOR_CLASSES) | {"sha1rnds4", "sha1msg"}
    with pytest.raises(UarchError, match="vpaddq is not a vector row of the semantics table"):
        vector_class(vec_items("vpaddq %xmm1, %xmm2, %xmm3\n")[0])


def test_an_unpriced_vector_row_is_refused_by_name_not_priced():
    """``aesenc`` is a semantics row (the prover lifts it) that no cost model prices: the engines say so."""
    item = vec_items("aesenc %xmm1, %xmm0\n")[0]
    with pytest.raises(UarchError, match="aesenc has no cost class: no cost model prices it yet"):
        classify(item, load_model("zen3"))


def test_movq_and_inserts_follow_their_operand_kinds():
    """gcc's vectorised state update: movq between a GPR and xmm crosses domains; with memory it is a load/store."""
    items = vec_items("movq %xmm0, %rax\nmovq %rax, %xmm1\nmovq (%rdi), %xmm0\nmovq %xmm0, 8(%rdi)\n"
                 "vpinsrd $1, %eax, %xmm0, %xmm0\npunpckldq %xmm1, %xmm0\n")
    assert [vector_class(i) for i in items] == ["vec_to_gpr", "gpr_to_vec", "vec_load", "vec_store", "gpr_to_vec",
                                               "vec_shuffle"]


def test_general_register_rows_cross_domains_and_their_memory_forms_load_or_store():
    """movq/vmovd/vmovq/pextrq/pinsrq and the VEX lane rows: a general register makes the class; to memory a
    store of the row's width (4 or 8 bytes), from memory a load (an insert: a load and a shuffle)."""
    text = ("vmovd %eax, %xmm0\nvmovd %xmm1, %ebx\nvmovq %rcx, %xmm2\nvmovq %xmm3, %rdx\nvmovq 8(%rsi), %xmm4\n"
            "pextrq $1, %xmm5, %rax\npinsrq $1, %rax, %xmm6\nvpextrd $2, %xmm7, %r8d\nvpinsrq $0, %r9, %xmm8, %xmm9\n"
            "pextrd $1, %xmm1, 4(%rsp)\nmovd %xmm2, 8(%rsp)\npextrq $0, %xmm3, 16(%rsp)\npinsrd $3, 12(%rsi), %xmm4\n"
            "movd 4(%rsi), %xmm5\n")
    items = vec_items(text)
    assert [vector_class(i) for i in items] == [
        "gpr_to_vec", "vec_to_gpr", "gpr_to_vec", "vec_to_gpr", "vec_load", "vec_to_gpr", "gpr_to_vec", "vec_to_gpr",
        "gpr_to_vec", "vec_store", "vec_store", "vec_store", "vec_alu_rm", "vec_load"]
    assert [vector_effects(i).width for i in items[9:]] == [4, 4, 8, 4, 4]
    assert vector_effects(items[8]).data == ("r9d", "xmm8") and vector_effects(items[8]).writes == ("xmm9",)
    skylake, core2 = load_model("skylake"), load_model("core2")
    assert all(classify(i, skylake) for i in items)
    with pytest.raises(UarchError, match="needs SSE4.1"):
        classify(items[5], core2)                          # Merom: SSSE3, no SSE4.1
    with pytest.raises(UarchError, match="needs AVX"):
        classify(items[0], load_model("nehalem"))


def test_isa_features_are_the_rows_at_the_operand_width():
    """vpaddd on xmm needs AVX, on ymm AVX2 (the semantics row's widths); vpbroadcastd AVX2 at either width."""
    x, y, b = vec_items("vpaddd %xmm1, %xmm2, %xmm3\nvpaddd %ymm1, %ymm2, %ymm3\nvpbroadcastd %xmm1, %xmm2\n")
    assert [vector_effects(i).isa for i in (x, y, b)] == ["avx", "avx2", "avx2"]


def test_avx512_forms_need_avx512vl():
    """vprold / vpternlogd (the AVX-512VL rotate and 3-input logic) run on the AVX-512 models (zen5 here; zen4:
    tests/search/test_uarch_zen4.py), not on zen3; vpternlogd reads its destination (it is one of the three
    inputs)."""
    rot, tern = vec_items("vprold $5, %xmm1, %xmm2\nvpternlogd $0x96, %xmm3, %xmm4, %xmm5\n")
    assert classify(rot, load_model("zen5")) == "vec_shift" and classify(tern, load_model("zen5")) == "vec_alu"
    with pytest.raises(UarchError, match="needs AVX512VL"):
        classify(rot, load_model("zen3"))
    assert vector_effects(tern).data == ("xmm3", "xmm4", "xmm5") and vector_effects(tern).writes == ("xmm5",)


def test_vector_operand_effects_two_and_three_operand_forms():
    sse, avx, st = vec_items("paddd %xmm3, %xmm9\nvpaddd %xmm3, %xmm9, %xmm10\nmovdqa %xmm9, 48(%rsp)\n")
    assert vector_effects(sse).data == ("xmm3", "xmm9") and vector_effects(sse).writes == ("xmm9",)
    assert vector_effects(avx).data == ("xmm3", "xmm9") and vector_effects(avx).writes == ("xmm10",)
    e = vector_effects(st)
    assert e.data == ("xmm9",) and e.writes == () and e.mem_write.disp == 48 and e.mem_write.base.name == "esp"
    assert e.width == 16 and vector_effects(vec_items("vmovdqu %ymm1, (%rsp)\n")[0]).width == 32


def test_a_legacy_sse_write_does_not_wait_for_its_destination():
    """movdqa %xmm1, %xmm2 keeps ymm lanes 4-7 of xmm2 (the semantics row reads it: ``Effects.merges``), but the
    value it computes is xmm1's: no dependency on xmm2's producer."""
    mov, shuf, zu = vec_items("movdqa %xmm1, %xmm2\npshufd $0x1b, %xmm1, %xmm2\nvzeroupper\n")
    assert vector_effects(mov).data == ("xmm1",) and vector_effects(shuf).data == ("xmm1",)
    assert vector_effects(zu).data == () and len(vector_effects(zu).writes) == 16


def test_a_symbolic_memory_operand_is_memory_without_a_forwarding_address():
    """``.LC0(%rip)`` (the listing reader's ``Symbol``): the row reads memory, so a load -- no address to
    compare with a store."""
    ld, add = vec_items("movdqa .LC0(%rip), %xmm0\npaddd .LC1(%rip), %xmm1\n")
    assert [vector_class(i) for i in (ld, add)] == ["vec_load", "vec_alu_rm"]
    assert vector_effects(ld).loads and vector_effects(ld).mem_read is None


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
