"""The i386 hybrid block (``search.space.hybrid_i386``) and its search (``engines.hybrid_i386``)."""

from dataclasses import replace

import pytest

from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid_i386 import search_hybrid_i386
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_i386 import HISTORY, K_TABLE, MASK, build_i386, relocate, setup_invariant_i386
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Mem, Reg


def _regs(block):
    for ins in block.code():
        for o in ins.operands:
            if isinstance(o, Reg):
                yield o
            elif isinstance(o, Mem):
                yield from (r for r in (o.base, o.index) if r is not None)


@pytest.mark.parametrize("isa", ["ssse3", "avx", "avx512vl"])
def test_the_i386_block_uses_only_i386_registers(isa):
    regs = set(_regs(build_i386(HybridParams(isa=isa, arch="i386"))))
    assert all(r.width != 64 for r in regs)
    assert {r.name for r in regs if r.width == 128} <= {f"xmm{k}" for k in range(8)}


def test_relocate_puts_k_in_the_stack_table_and_the_mask_in_xmm7():
    code = [Instr("vpaddd", (Reg("xmm12", 128), Reg("xmm0", 128), Reg("xmm4", 128))),
            Instr("pshufb", (Reg("xmm15", 128), Reg("xmm1", 128)))]
    k, m = relocate(code)
    assert k.operands[0] == Mem(Reg("esp"), None, 1, K_TABLE + 16) and m.operands[0] == MASK


@pytest.mark.parametrize("isa", ["ssse3", "avx", "avx512vl"])
def test_the_i386_block_proves(isa):
    res = prove_hybrid(build_i386(HybridParams(isa=isa, arch="i386", lead=1, every=3)))
    assert res.ok, res


@pytest.mark.parametrize("isa", ["ssse3", "avx", "avx512vl"])
def test_the_rol2_block_proves_and_is_shorter(isa):
    rol1 = build_i386(HybridParams(isa=isa, arch="i386"))
    rol2 = build_i386(HybridParams(isa=isa, arch="i386", recurrence="rol2"))
    assert prove_hybrid(rol2).ok and rol2.vector_ops < rol1.vector_ops


def test_the_rol2_block_reads_its_older_groups_from_the_history():
    rol2 = build_i386(HybridParams(isa="avx", arch="i386", recurrence="rol2"))
    reads = {o.disp for ins in rol2.body for o in ins.operands[:-1] if isinstance(o, Mem) and o.base == Reg("esp")
             and o.disp >= HISTORY}
    assert reads == {HISTORY + 16 * k for k in range(8)}


def test_a_wrong_i386_block_does_not_prove():
    block = build_i386(HybridParams(isa="avx", arch="i386"))
    k = next(i for i, ins in enumerate(block.body) if ins.mnemonic == "vpaddd" and
             ins.operands[0] == Mem(Reg("esp"), None, 1, K_TABLE + 16))
    body = list(block.body)
    body[k] = Instr("vpaddd", (Mem(Reg("esp"), None, 1, K_TABLE + 32),) + body[k].operands[1:])   # K_2 for K_1
    assert not prove_hybrid(replace(block, body=tuple(body))).ok


def test_the_setup_invariant_holds_and_a_mask_write_is_named():
    block = build_i386(HybridParams(isa="ssse3", arch="i386"))
    assert setup_invariant_i386(block) is None
    bad = replace(block, body=block.body + (Instr("pxor", (Reg("xmm0", 128), MASK)),))
    assert "xmm7" in setup_invariant_i386(bad)


def test_i386_params_refuse_what_i386_has_no_registers_for():
    for kw in ({"scalar": "rotate"}, {"ahead": True, "scalar": "rotate-bmi-early2"}, {"scalar": "rotate-bmi"},
               {"scalar": "pin-early"}):
        with pytest.raises(Sha1optError, match="recipe or the lazy rounds"):
            HybridParams(arch="i386", **kw)
    HybridParams(arch="i386", ahead=True)        # read-ahead borrows a scalar temporary (test_hybrid_lazy.py)
    with pytest.raises(Sha1optError):
        build(HybridParams(arch="i386"))          # the x86-64 builder never builds i386 code


def test_the_i386_key_names_the_arch_and_the_x86_64_key_is_unchanged():
    assert HybridParams(arch="i386").key().startswith("hybrid-i386:isa=avx,lead=2,every=3;")
    assert HybridParams().key().startswith("hybrid:isa=avx,lead=2,every=3;")


def test_the_i386_search_is_deterministic_and_stays_i386():
    model = load_model("goldencove")
    a = search_hybrid_i386(model, cap="ssse3", evaluations=10, seed=3)
    b = search_hybrid_i386(model, cap="ssse3", evaluations=10, seed=3)
    assert a.params == b.params and a.params.arch == "i386" and a.params.isa == "ssse3"
    assert a.cycles <= a.grid_best and a.reason == "budget"
    assert any(p.shifts for p in a.ranked)        # the release polish ran after the annealing
