"""Vector state in the whole-function prover: one test per rule (the OpenSSL paths are test_lift_openssl).

Each rule is shown on the project's own x86-64 export with one edit (so
what is proved is known to be SHA-1), or on the template / schedule
functions directly where the rule is about them:

* vector registers carry state across instructions (a state load through
  xmm lanes proves; the wrong lane does not), ymm lanes 4-7 too (kept by a
  legacy-SSE xmm write, zeroed by a VEX one);
* a head value over the block's words is a template kind of its own, and
  only when one iteration advances it to the next block's words;
* the chaining value may live in vector lanes (SHA-NI keeps ABCD in xmm0);
* ``cmov`` on a pointer forks the path like a branch;
* an aligned access is discharged or refused by name, never ignored;
* the message schedule's affine identities prove by basis evaluation
  (loops of several blocks per iteration: test_lift_multiblock).
"""

from __future__ import annotations

import pytest
import z3
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.emit.toolchain import compile_source
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.domain import TermDomain
from sha1opt.semantics.ir import Builder
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.executor import Int, PathMachine, Program, Ptr, State, explore
from sha1opt.semantics.lift.schedule import affine, affine_equal
from sha1opt.semantics.lift.template import FREE, H, HeadTerm, Lanes, build_template, next_word_name
from sha1opt.semantics.sha1 import compress

LOAD = "\tmov (%rdi), %eax\n\tmov 4(%rdi), %ebx\n\tmov 8(%rdi), %ecx\n\tmov 12(%rdi), %edx\n"


@pytest.fixture(scope="module")
def text64() -> str:
    return function_text(textbook("x86_64"))


def _prove(tmp_path, text: str, name: str = "v.S"):
    p = tmp_path / name
    p.write_text(text)
    return CliRunner().invoke(main, ["prove", "--object", str(p)])


def test_state_loaded_through_vector_lanes_proves(tmp_path, text64):
    vec = "\tmovdqu (%rdi), %xmm3\n\tmovd %xmm3, %eax\n\tpextrd $1, %xmm3, %ebx\n" \
          "\tpshufd $0x4e, %xmm3, %xmm4\n\tmovd %xmm4, %ecx\n\tpextrd $3, %xmm3, %edx\n"
    assert LOAD in text64
    r = _prove(tmp_path, text64.replace(LOAD, vec, 1))
    assert r.exit_code == 0 and "SHA-1: proved SHA-1" in r.output, r.output


def test_wrong_vector_lane_is_not_proved(tmp_path, text64):
    vec = "\tmovdqu (%rdi), %xmm3\n\tmovd %xmm3, %eax\n\tpextrd $2, %xmm3, %ebx\n" \
          "\tpextrd $2, %xmm3, %ecx\n\tpextrd $3, %xmm3, %edx\n"
    r = _prove(tmp_path, text64.replace(LOAD, vec, 1))
    assert r.exit_code != 0 and "proved SHA-1" not in r.output


@pytest.mark.parametrize("clear, proves", [("pxor %xmm3, %xmm3", True), ("vpxor %xmm3, %xmm3, %xmm3", False)])
def test_ymm_upper_lanes_survive_a_legacy_sse_xmm_write_and_not_a_vex_one(tmp_path, text64, clear, proves):
    """The state words through ymm lanes 4-7 (``vbroadcasti128``, ``vextracti128 $1``): a legacy-SSE write to
    %xmm3 keeps them (proved), a VEX one zeroes them (not proved: the words read are 0)."""
    vec = (f"\tvbroadcasti128 (%rdi), %ymm3\n\t{clear}\n\tvextracti128 $1, %ymm3, %xmm4\n"
           "\tmovd %xmm4, %eax\n\tpextrd $1, %xmm4, %ebx\n\tpextrd $2, %xmm4, %ecx\n\tpextrd $3, %xmm4, %edx\n")
    r = _prove(tmp_path, text64.replace(LOAD, vec, 1))
    assert ("SHA-1: proved SHA-1" in r.output) == proves and (r.exit_code == 0) == proves, r.output


def test_aligned_access_to_the_callers_buffer_is_refused_by_name(tmp_path, text64):
    t = text64.replace("\tmov (%rsi), %r8d\n", "\tmovdqa (%rsi), %xmm5\n\tmov (%rsi), %r8d\n", 1)
    r = _prove(tmp_path, t)
    assert r.exit_code == 2
    assert "movdqa needs a 16-byte aligned address in the caller's data buffer" in r.stderr, r.stderr


def test_aligned_stack_access_the_entry_alignment_does_not_align_is_refused_by_name(tmp_path, text64):
    # (%rsp) is 16-aligned here (entry %rsp = 8 mod 16, then 120 bytes pushed and reserved): 8(%rsp) is not
    t = text64.replace("\tmov %rdx, 64(%rsp)\n",
                       "\tmov %rdx, 64(%rsp)\n\tpxor %xmm5, %xmm5\n\tmovdqa %xmm5, 8(%rsp)\n", 1)
    r = _prove(tmp_path, t)
    assert r.exit_code == 2 and "movdqa needs a 16-byte aligned stack address; not proved" in r.stderr, r.stderr


def test_aligned_stack_access_after_realignment_proves(tmp_path, text64):
    t = text64.replace("\tsub $72, %rsp\n", "\tmov %rsp, %r14\n\tsub $72, %rsp\n\tand $-64, %rsp\n", 1)
    t = t.replace("\tmov %rdx, 64(%rsp)\n", "\tmov %rdx, 64(%rsp)\n\tpxor %xmm5, %xmm5\n\tmovdqa %xmm5, 16(%rsp)\n", 1)
    t = t.replace("\tadd $72, %rsp\n", "\tmov %r14, %rsp\n", 1)
    r = _prove(tmp_path, t)
    assert r.exit_code == 0 and "SHA-1: proved SHA-1" in r.output, r.output + r.stderr


def _heads(b: Builder):
    """A first head S0 and the head S1 one iteration later, as the explorer would leave them."""
    dom = TermDomain(b)
    h = [b.var(f"h{i}") for i in range(5)]
    m = [b.var(f"m{j}") for j in range(16)]
    nxt = [b.var(next_word_name(j)) for j in range(16)]
    h1 = compress(dom, h, m)
    s0, s1 = State(("", 0)), State(("", 0))
    for i in range(5):
        s0.mem[("state", "", 4 * i)] = (h[i], 4)
        s1.mem[("state", "", 4 * i)] = (h1[i], 4)
    return dom, h, m, nxt, h1, s0, s1


def test_block_value_is_a_template_kind_when_advanced_to_the_next_block():
    b = Builder()
    dom, h, m, nxt, h1, s0, s1 = _heads(b)
    k0 = dom.const(0x5A827999)
    s0.mem[("stack", "", -64)] = (m[0].bswap() + k0, 4)           # W0 + K of this block ...
    s1.mem[("stack", "", -64)] = (nxt[0].bswap() + k0, 4)         # ... and of the next block one iteration later
    s0.mem[("stack", "", -60)] = (m[1].bswap() + k0, 4)
    s1.mem[("stack", "", -60)] = (m[1].bswap() + k0, 4)           # not advanced: the same block's word again
    s0.regs["esi"] = h[1] & (h[2] ^ h[3])                         # b & (c ^ d) of the next round
    s1.regs["esi"] = h1[1] & (h1[2] ^ h1[3])
    t = build_template(z3.BitVec("k", 64), s0, s1)
    assert isinstance(t[("mem", ("stack", "", -64))][0], HeadTerm)
    assert t[("mem", ("stack", "", -60))][0] == FREE
    assert isinstance(t[("reg", "esi")][0], HeadTerm)


def test_chaining_value_in_vector_lanes_is_h_per_lane():
    b = Builder()
    dom, h, m, nxt, h1, s0, s1 = _heads(b)
    zero = dom.const(0)
    s0.regs["xmm0"] = (h[3], h[2], h[1], h[0]) + (zero,) * 4        # SHA-NI: ABCD reversed
    s1.regs["xmm0"] = (h1[3], h1[2], h1[1], h1[0]) + (zero,) * 4
    s0.regs["xmm1"] = (zero, zero, zero, h[4]) + (zero,) * 4        # E in the top lane
    s1.regs["xmm1"] = (zero, zero, zero, h1[2]) + (zero,) * 4       # the wrong word after an iteration
    t = build_template(z3.BitVec("k", 64), s0, s1)
    lanes = t[("reg", "xmm0")][0]
    assert isinstance(lanes, Lanes) and lanes.kinds[:4] == (H(3), H(2), H(1), H(0))
    assert t[("reg", "xmm1")][0].kinds[3] == FREE


def test_cmov_on_a_pointer_forks_the_path(tmp_path):
    src = tmp_path / "c.S"
    src.write_text("\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tdec %rdx\n\tlea 64(%rsi), %r8\n"
                   "\tcmovne %r8, %rsi\n\tret\n\t.size f, .-f\n")
    obj = ObjectFile.parse(compile_source(src, "x86_64", tmp_path / "c.o", "test").read_bytes())
    fn = decode_function(obj, obj.find_function("f"))
    program = Program(obj, fn, decode_function)
    n = z3.BitVec("n", 64)
    b = Builder()
    st = State((fn.section, fn.entry))
    st.regs.update({"esp": Ptr("stack", z3.BitVecVal(0, 64)), "esi": Ptr("data", z3.BitVecVal(0, 64)), "edx": Int(n)})
    st.mem[("stack", "", 0)] = (Int(z3.BitVecVal(0, 64)), 8)
    dom = TermDomain(b)
    ends = explore(lambda s: PathMachine(program, dom, b.var, lambda r, o: b.var(f"{r}[{o}]"), s, bits=64), st, set())
    offsets = sorted(z3.simplify(e.state.regs["esi"].off).as_long() for e in ends)
    assert offsets == [0, 64]                                      # two paths, each pointer exact (no if-then-else)
    for e in ends:
        moved = z3.simplify(e.state.regs["esi"].off).as_long() == 64
        s = z3.Solver()
        s.add(*e.state.cond, n - 1 == 0)
        assert (s.check() == z3.sat) != moved                      # moved exactly when n - 1 != 0


def test_schedule_identity_proves_by_basis_and_a_wrong_one_does_not():
    b = Builder()
    w = {j: b.var(f"W{j}") for j in (0, 2, 8, 13)}
    t0 = w[13] ^ w[8] ^ w[2] ^ w[0]
    w16 = t0.rol(1)
    # OpenSSL's lane 3: rol(t0, 2) built as (t0 << 2) ^ (t0 >> 30), against rol(W16, 1)
    code = (t0 << 2) ^ (t0 >> 30)
    assert affine(code) and affine(w16.rol(1))
    assert affine_equal(code, w16.rol(1))
    assert not affine_equal((t0 << 2) ^ (t0 >> 29), w16.rol(1))
    assert not affine(w[0] + w[2])                                 # an add of overlapping values is not affine


ZERO_W0 = ("\tmov (%rsi), %r8d\n\tbswap %r8d\n", "\tmov (%rsi), %r8d\n\tbswap %r8d\n\tmovd %xmm7, %r9d\n\tadd %r9d, %r8d\n")


@pytest.mark.parametrize("zeroing, proves", [("pxor %xmm7, %xmm7", True), ("pxor %xmm6, %xmm7", False)])
def test_pxor_zero_idiom_lanes_are_the_constant_0_across_the_loop(tmp_path, text64, zeroing, proves):
    """Regression (Crypto++'s SHA-NI code zeroes E's other lanes with ``pxor x, x`` before its loop): the zero
    idiom's lanes are the constant 0 (``vectors.ZERO_IDIOMS``), so the loop invariant keeps them and W0 + 0
    proves; as the data term xor(x, x) they were havocked at the loop head and the proof failed. The
    xor of two different registers is no idiom: not proved."""
    text = text64.replace(".Lsha1_loop:\n", f"\t{zeroing}\n.Lsha1_loop:\n", 1).replace(*ZERO_W0, 1)
    r = _prove(tmp_path, text)
    assert ("SHA-1: proved SHA-1" in r.output) == proves, r.output
