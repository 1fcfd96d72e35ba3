"""The lazy rounds (search/space/hybrid_lazy.py) and the ``ssse3k`` dialect row (hybrid_dialects.py ``k_copy``):
each proves on both arches, uses what its docstring says, and a wrong round is refuted.

Source of the technique: OpenSSL's SSSE3 rounds (sha1-x86_64.pl / sha1-586.pl ``body_00_19`` .. ``body_40_59``,
read for the algebra; the code here is written from ``hybrid_lazy``'s invariants). Why it matters: on the SSSE3-era
models (core2, nehalem, atom) the i386 hybrid block with the recipe rounds was 10-17 % above OpenSSL's SSSE3 path
(bench/results/best_vs_openssl.txt, 2026-12-04).
"""

from dataclasses import replace

import pytest

from sha1opt.semantics.block import describe_failure
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.prove import Counterexample
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg
from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.hybrid import block_cost
from sha1opt.search.engines.hybrid import scalars_for
from sha1opt.search.engines.hybrid_i386 import build_on_arch
from sha1opt.search.space import hybrid_dialects
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.hybrid_dialects import Dialect, add_k, dialect
from sha1opt.search.space.hybrid_i386 import build_i386
from sha1opt.search.space.hybrid_lazy import lazy_rounds
from sha1opt.search.space.hybrid_proof import prove_hybrid
from sha1opt.search.space.hybrid_regs import CONSTANT_REGS, K_TABLE, SP, wk_slot


@pytest.mark.parametrize("scalar", ["lazy", "lazy-chain"])
@pytest.mark.parametrize("arch,isa,recurrence,ahead", [("i386", "ssse3k", "rol2", False),
                                                       ("i386", "avx", "rol1", False),
                                                       ("x86_64", "ssse3", "rol2", True),
                                                       ("x86_64", "avx", "rol1", False)])
def test_the_lazy_rounds_prove_on_both_arches(scalar, arch, isa, recurrence, ahead):
    p = HybridParams(isa=isa, scalar=scalar, arch=arch, recurrence=recurrence, ahead=ahead)
    res = prove_hybrid((build if arch == "x86_64" else build_i386)(p))
    assert res.ok, describe_failure(res)


def test_the_lazy_rounds_are_741_instructions_one_copy_a_round_and_two_temporaries():
    rr = lazy_rounds(("esi", "edi"))
    assert len(rr.code) == 741 and sum(i.mnemonic == "mov" for i in rr.code) == 81
    assert rr.final == ("eax", "ebx", "ecx", "edx", "ebp")
    regs = {o.name for i in rr.code for o in i.operands if isinstance(o, Reg)}
    assert regs == {"eax", "ebx", "ecx", "edx", "ebp", "esi", "edi"}     # (the ring's base is a memory operand's)
    # W_t + K_t is read once, in round t, in round order (the interleaver's contract)
    reads = [(r, i.operands[0]) for i, r in zip(rr.code, rr.rounds) if isinstance(i.operands[0], Mem)]
    assert [m for _, m in reads] == [wk_slot(t) for t in range(80)] and [r for r, _ in reads] == list(range(80))


def test_a_wrong_restore_in_one_round_is_a_counterexample():
    block = build_i386(HybridParams(isa="ssse3", scalar="lazy", arch="i386"))
    body = list(block.body)
    # round 40's ``xor d, c`` (c's register restored from C ^ D): drop it and every later round reads C ^ D for C
    k = next(i for i, ins in enumerate(body) if ins.mnemonic == "and" and isinstance(ins.operands[1], Reg)
             and body[i + 1].mnemonic == "xor" and i > len(body) // 2)
    del body[k + 1]
    res = prove_hybrid(replace(block, body=tuple(body)))
    assert not res.ok and isinstance(res.outcome, Counterexample)


def test_i386_takes_the_lazy_rounds_and_refuses_the_rotating_ones():
    """i386 takes the recipe's and the lazy rounds (with BMI2 also lazy-bmi); x86-64 never lazy-bmi (it has
    the rotating BMI forms' nine registers)."""
    assert scalars_for("bmi2", "i386") == ("recipe", "lazy", "lazy-chain", "lazy-bmi")
    assert scalars_for("base", "i386") == ("recipe", "lazy", "lazy-chain")
    assert "lazy-bmi" not in scalars_for("bmi2")
    with pytest.raises(Sha1optError, match="built for i386 only"):
        HybridParams(isa="avx", scalar="lazy-bmi")
    HybridParams(isa="ssse3", scalar="lazy-chain", arch="i386")
    with pytest.raises(Sha1optError, match="recipe or the lazy rounds"):
        HybridParams(isa="ssse3", scalar="rotate", arch="i386")


def test_the_k_copy_row_copies_k_from_the_table_on_i386():
    block = build_i386(HybridParams(isa="ssse3k", arch="i386"))
    body = block.body
    adds = [i for i, ins in enumerate(body) if ins.mnemonic == "paddd" and ins.operands[0] != ins.operands[1]]
    # every K addition adds W (a register) into a copy of K's table entry: the last write of its destination
    for i in adds:
        dst = body[i].operands[1]
        copy = next(ins for ins in reversed(body[:i]) if ins.operands and ins.operands[-1] == dst)
        assert isinstance(body[i].operands[0], Reg) and copy.mnemonic == "movdqa", (body[i], copy)
        assert isinstance(copy.operands[0], Mem) and K_TABLE <= copy.operands[0].disp < K_TABLE + 64, copy
    assert len(adds) == 20
    plain = build_i386(HybridParams(isa="ssse3", arch="i386"))
    assert len(plain.body) == len(block.body)                     # the same count, one vector ALU op fewer a group


def test_the_k_copy_row_copies_k_from_the_stack_table_on_x86_64():
    """x86-64 keeps K in xmm11-14 for every other row; the k_copy row reads it from the table its setup writes at
    80..143(%rsp) with movdqu (the prover knows %rsp aligned only after an and), and no body op names xmm11-14."""
    block = build(HybridParams(isa="ssse3k", ahead=True, recurrence="rol2"))
    code = block.setup + block.body + block.main + block.tail
    copies = [ins for ins in code if isinstance(ins.operands[0], Mem) and ins.operands[0].base == SP
              and K_TABLE <= ins.operands[0].disp < K_TABLE + 64]
    assert len(copies) == 20 + 4 and {ins.mnemonic for ins in copies} == {"movdqu"}   # 20 groups, 4 read ahead
    assert not any(o.name in CONSTANT_REGS - {"xmm15"} for ins in code for o in ins.operands if isinstance(o, Reg))
    table = [ins for ins in block.setup if ins.mnemonic == "mov" and isinstance(ins.operands[1], Mem)]
    assert [ins.operands[1].disp for ins in table] == list(range(K_TABLE, K_TABLE + 64, 4))
    assert prove_hybrid(block).ok


def test_the_k_copy_row_is_legacy_sse_only():
    with pytest.raises(Sha1optError, match="legacy-SSE"):
        hybrid_dialects.register(Dialect("vexk", "avx", True, False, False, "vmovdqu", True, k_copy=True))
    x, k, t = Reg("xmm1", 128), Reg("xmm12", 128), Reg("xmm8", 128)
    assert add_k(dialect("ssse3k"), k, x, t) == [Instr("movdqa", (k, t)), Instr("paddd", (x, t))]
    assert add_k(dialect("ssse3"), k, x, t) == [Instr("movdqa", (x, t)), Instr("paddd", (k, t))]


@pytest.mark.parametrize("uarch", ["core2", "nehalem"])
def test_on_the_ssse3_models_the_lazy_i386_block_is_cheaper_than_the_recipe_one(uarch):
    # the reason for the form: fewer copies (no move elimination on these CPUs), the same interleaving
    model = load_model(uarch)
    cost = {sc: block_cost(build_on_arch(HybridParams(isa="ssse3k", lead=3, every=2, recurrence="rol2", scalar=sc,
                                                      arch="i386"), model), model).cycles
            for sc in ("recipe", "lazy")}
    assert cost["lazy"] < 0.97 * cost["recipe"], cost


def test_lazy_round_zero_rotates_b_by_2_and_the_rest_by_7():
    rr = lazy_rounds(("r10d", "r11d"))
    rors = [(r, i.operands[0]) for i, r in zip(rr.code, rr.rounds) if i.mnemonic == "ror"]
    assert rors[0] == (0, Imm(2)) and all(n == Imm(7) for _, n in rors[1:-1]) and rors[-1] == (79, Imm(5))
    assert len(rors) == 81


@pytest.mark.parametrize("scalar,isa,recurrence", [("lazy-chain", "ssse3k", "rol2"), ("recipe", "avx", "rol1"),
                                                   ("lazy", "avx512vl", "rol1")])
def test_the_i386_read_ahead_block_proves_and_its_paths_read_what_they_should(scalar, isa, recurrence):
    """i386 read-ahead (issue 26): the last path (setup, body, tail) proves; only ``main`` reads the next block,
    through a scalar temporary loaded from the data slot where it is dead and written again before the loop head
    (else the whole-function prover finds a block's pointer left in it: "%edi should be data+0")."""
    block = build_i386(HybridParams(isa=isa, scalar=scalar, recurrence=recurrence, ahead=True, arch="i386",
                                    lead=2, every=3))
    res = prove_hybrid(block)
    assert res.ok, describe_failure(res)
    text = [str(i) for i in block.main]
    k = next(i for i, t in enumerate(text) if t.startswith("mov 68(%esp), %e"))
    ptr = text[k].split(", ")[-1]
    assert [t.split()[1] for t in text[k + 1:k + 5]] == [f"{64 + 16 * j}({ptr})," for j in range(4)]  # the loads
    reads_next = lambda t: any(f" {64 + 16 * j}(%e" in t and "(%esp)" not in t for j in range(4))  # noqa: E731
    assert not any(reads_next(str(i)) for i in block.body + block.tail)
    assert not any(str(i).startswith("mov (%esi), %eax") for i in block.body)            # a..e stay in registers


def test_the_i386_read_ahead_export_proves_whole_and_runs(tmp_path):
    """The whole function (``emit.hybrid_i386_frame``: ``body; decl; jz tail; main; addl $64; jmp``), proved from
    its object and run natively on the vectors -- what export and bench validate."""
    from sha1opt.emit.hybrid_export import function_text, validate_hybrid
    block = build_i386(HybridParams(isa="ssse3k", scalar="lazy-chain", recurrence="rol2", ahead=True, arch="i386"))
    v = validate_hybrid(function_text(block), block, tmp_path)
    assert all(c.ok for c in v.checks), [c.detail for c in v.checks if not c.ok]
    assert "loop invariant" in next(c.detail for c in v.checks if c.name == "prove")


def test_the_ssse3k_row_shifts_left_by_one_with_an_add():
    x, t = Reg("xmm1", 128), Reg("xmm9", 128)
    from sha1opt.search.space.hybrid_dialects import rol
    assert Instr("paddd", (x, x)) in rol(dialect("ssse3k"), 1, x, x, t)
    assert Instr("pslld", (Imm(1), x)) in rol(dialect("ssse3"), 1, x, x, t)
    assert Instr("pslld", (Imm(2), x)) in rol(dialect("ssse3k"), 2, x, x, t)


@pytest.mark.parametrize("uarch", ["core2", "nehalem", "atom"])
def test_on_the_ssse3_models_read_ahead_pays_on_i386(uarch):
    # the state stays in a..e and the next block's W+K is made during the last rounds: no chain through memory
    model = load_model(uarch)
    cost = {a: block_cost(build_on_arch(HybridParams(isa="ssse3", lead=3, every=2, recurrence="rol2", scalar="lazy",
                                                     arch="i386", ahead=a), model), model).cycles
            for a in (False, True)}
    assert cost[True] < 0.98 * cost[False], cost
