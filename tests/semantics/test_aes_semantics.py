"""The AES-NI rows: the AES round they compute, on the CPU and in every domain, and Z3's uninterpreted reading.

Sources: FIPS-197 (the AES standard): §4.2 (GF(2^8) products), §5.1 (SubBytes,
ShiftRows, MixColumns), §5.2 (key expansion), Appendix B (the cipher example)
and Appendix C.1 (the AES-128 example); Intel SDM vol. 2A AESENC/AESENCLAST
(the rows' "Operation": the keyless round, then xor with the round key).
The key expansion below is written here from §5.2 (the rows do not need it:
round keys are operands), over ``aes.SBOX``, which its own test checks.

Byte order: a 16-byte block loads into an xmm register byte for byte, so
lane j is bytes 4j..4j+3 little-endian (``_lanes``); the native known-answer
test is what ties that claim to the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import z3

from tests.support.cpu import not_run_here
from tests.support.native import TEST_REGS, VECTOR_WORDS, SnippetRunner
from sha1opt.emit.toolchain import ToolchainError
from sha1opt.semantics import aes
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain, TermDomain, Z3Domain
from sha1opt.semantics.ir import AES_OPS, ARITY, UNINTERPRETED_IN_Z3, Builder, evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.prove import Counterexample, Proved, Prover, Unknown
from sha1opt.semantics.vector import VECTOR_ROWS, lane_name
from sha1opt.semantics.x86 import isa_set

# (what, key, plaintext, ciphertext): FIPS-197 Appendix B and Appendix C.1
KNOWN = [
    ("FIPS-197 Appendix B", "2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
     "3925841d02dc09fbdc118597196a0b32"),
    ("FIPS-197 Appendix C.1", "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
     "69c4e0d86a7b0430d8cdb78070b4c55a"),
]
ROUNDS = 10          # AES-128


def _lanes(block: bytes) -> tuple[int, int, int, int]:
    return tuple(int.from_bytes(block[4 * j:4 * j + 4], "little") for j in range(4))  # type: ignore[return-value]


def _bytes(lanes) -> bytes:
    return b"".join(int(v).to_bytes(4, "little") for v in lanes)


def _expand(key: bytes) -> list[bytes]:
    """FIPS-197 §5.2 for Nk = 4: the 11 round keys, 16 bytes each."""
    w = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    rcon = 1
    for i in range(4, 4 * (ROUNDS + 1)):
        temp = list(w[i - 1])
        if i % 4 == 0:
            temp = [aes.SBOX[b] for b in temp[1:] + temp[:1]]       # SubWord(RotWord(temp))
            temp[0] ^= rcon                                         # Rcon[i/4] = (x^(i/4 - 1), 0, 0, 0)
            rcon = aes.xtime(rcon)
        w.append([a ^ b for a, b in zip(w[i - 4], temp)])
    return [bytes(sum(w[4 * r:4 * r + 4], [])) for r in range(ROUNDS + 1)]


def _encrypt(d, state, round_keys, rounds=(("aesenc",) * (ROUNDS - 1) + ("aesenclast",))):
    """The cipher of FIPS-197 §5.1 through the rows: AddRoundKey, then one row per round."""
    state = tuple(d.apply("xor", s, k) for s, k in zip(state, round_keys[0]))
    for mnemonic, key in zip(rounds, round_keys[1:]):
        state = VECTOR_ROWS[mnemonic].fn(d, state, key)
    return state


def _numpy_cipher(key: str, plaintext: str, **kw) -> bytes:
    d = NumpyDomain(1)
    keys = [tuple(d.const(v) for v in _lanes(k)) for k in _expand(bytes.fromhex(key))]
    return _bytes(int(v[0]) for v in _encrypt(d, tuple(d.const(v) for v in _lanes(bytes.fromhex(plaintext))),
                                                keys, **kw))


def test_the_sbox_is_generated_from_its_definition():
    """FIPS-197 §4.2: {57}•{83} = {c1}, §4.2.1: {57}•{13} = {fe}; §5.1.1: S-box = affine(inverse), so S(00) = 63
    (0 has no inverse and maps to 0), and its worked example S(53) = ed; every nonzero byte times its inverse is 1,
    and the S-box is a permutation."""
    assert aes.gf_mul(0x57, 0x83) == 0xC1 and aes.gf_mul(0x57, 0x13) == 0xFE
    assert aes.SBOX[0x00] == 0x63 and aes.SBOX[0x53] == 0xED
    assert all(aes.gf_mul(x, aes.gf_inverse(x)) == 1 for x in range(1, 256))
    assert sorted(aes.SBOX) == list(range(256))


def test_the_docstring_round_example_holds():
    """``aes.py``'s worked example: FIPS-197 Appendix B round 1, "Start of Round" to "After MixColumns", then
    AESENC with round key 1 (§5.2's expansion) gives round 2's "Start of Round"."""
    state = tuple(np.array([v], dtype=np.uint32) for v in _lanes(bytes.fromhex("193de3bea0f4e22b9ac68d2ae9f84808")))
    assert [hex(int(v[0])) for v in state] == ["0xbee33d19", "0x2be2f4a0", "0x2a8dc69a", "0x848f8e9"]
    mixed = aes.keyless_round(state, True)
    assert _bytes(int(v[0]) for v in mixed).hex() == "046681e5e0cb199a48f8d37a2806264c"
    key1 = _expand(bytes.fromhex(KNOWN[0][1]))[1]
    assert key1.hex() == "a0fafe1788542cb123a339392a6c7605"
    d = NumpyDomain(1)
    round2 = VECTOR_ROWS["aesenc"].fn(d, state, tuple(d.const(v) for v in _lanes(key1)))
    assert _bytes(int(v[0]) for v in round2).hex() == "a49c7ff2689f352b6b5bea43026a5049"


@pytest.mark.parametrize("what, key, plaintext, ciphertext", KNOWN, ids=[k[0] for k in KNOWN])
def test_the_numpy_rows_compute_the_fips197_known_answers(what, key, plaintext, ciphertext):
    """AddRoundKey, nine AESENC rows and one AESENCLAST, with §5.2's round keys, give the standard's ciphertext."""
    assert _numpy_cipher(key, plaintext).hex() == ciphertext, what


def test_a_wrong_round_misses_the_known_answer():
    """The known-answer test can fail: a last round with MixColumns (AESENC throughout), or lanes read big-endian,
    give another ciphertext."""
    _, key, plaintext, ciphertext = KNOWN[0]
    assert _numpy_cipher(key, plaintext, rounds=("aesenc",) * ROUNDS).hex() != ciphertext
    swapped = _bytes(int.from_bytes(int(v).to_bytes(4, "big"), "little") for v in _lanes(bytes.fromhex(plaintext)))
    assert _numpy_cipher(key, swapped.hex()).hex() != ciphertext


# --- the CPU -------------------------------------------------------------------------------

CHAINS = {
    "aes": "pxor %xmm1, %xmm0\n" + "".join(f"aesenc %xmm{r}, %xmm0\n" for r in range(2, 11))
           + "aesenclast %xmm11, %xmm0",
    "vaes": "vpxor %xmm1, %xmm0, %xmm0\n" + "".join(f"vaesenc %xmm{r}, %xmm0, %xmm0\n" for r in range(2, 11))
            + "vaesenclast %xmm11, %xmm0, %xmm12",
}


@pytest.fixture(scope="module")
def cpu():
    if (reason := not_run_here("avx")) is not None:
        pytest.skip(f"{reason}: the harness moves ymm registers with vmovdqu")
    try:
        runner = SnippetRunner(list(CHAINS.values()), vectors=True)
    except ToolchainError as e:
        pytest.skip(f"toolchain unavailable: {e}")
    yield runner
    runner.close()


def _native(cpu, k: int, ymm: np.ndarray) -> list[int]:
    _, _, out = cpu.run_vectors(k, {r: 0 for r in TEST_REGS}, [0] * 16, [int(w) for w in ymm])
    return out


@pytest.mark.parametrize("k, chain", list(enumerate(CHAINS)), ids=list(CHAINS))
def test_the_cpu_agrees_with_numpy_and_computes_the_fips197_known_answers(cpu, k, chain):
    """AES-128 as ten AESENC/AESENCLAST (or VEX) rounds on the CPU: with xmm0 = a FIPS-197 plaintext loaded byte
    for byte and xmm1..xmm11 its round keys, the result is the standard's ciphertext (the byte order claim, on
    the CPU); on random states the CPU and the numpy rows agree on every ymm lane. Skipped with the reason
    where the CPU lacks AES-NI (or AVX)."""
    program = parse_text(CHAINS[chain], "x86_64")
    if (reason := not_run_here(*isa_set(program))) is not None:
        pytest.skip(reason)
    out_reg = 12 if chain == "vaes" else 0
    for _, key, plaintext, ciphertext in KNOWN:
        ymm = np.zeros(VECTOR_WORDS, dtype=np.uint32)
        ymm[0:4] = _lanes(bytes.fromhex(plaintext))
        for r, rk in enumerate(_expand(bytes.fromhex(key)), start=1):
            ymm[8 * r:8 * r + 4] = _lanes(rk)
        out = _native(cpu, k, ymm)
        assert _bytes(out[8 * out_reg:8 * out_reg + 4]).hex() == ciphertext
    states = 16
    rng = np.random.default_rng(197)
    ymm = rng.integers(0, 1 << 32, (VECTOR_WORDS, states), dtype=np.uint64).astype(np.uint32)
    m = Machine(NumpyDomain(states), lambda name: ymm[8 * int(name[3:].split(".")[0]) + int(name.split(".")[1])],
                lambda region, off: NumpyDomain(states).const(0))
    m.run(program)
    want = [lane for r in range(16) for lane in m.get(("reg", f"xmm{r}"))]
    for s in range(states):
        got = _native(cpu, k, ymm[:, s])
        assert got == [int(w[s]) for w in want], f"{chain}: state {s}"


# --- terms and Z3 ------------------------------------------------------------------------------

ROWS_PROGRAM = ("aesenc %xmm1, %xmm0\naesenclast 16(%rsi), %xmm0\nvaesenc %xmm0, %xmm2, %xmm3\n"
                "vaesenclast %xmm3, %xmm4, %xmm5")


def test_every_aes_op_is_in_the_ir_and_in_every_domain():
    """The IR's AES ops are the ones ``aes.py`` defines (arity 4) and exactly the ops Z3 reads as uninterpreted;
    numpy computes lane j of the keyless round, terms build the node, Z3 applies the function named after the op
    (one declaration per context, shared by every domain on it)."""
    assert set(aes.ROUND + aes.LAST) == AES_OPS == UNINTERPRETED_IN_Z3
    assert all(ARITY[op] == 4 for op in AES_OPS)
    nd, td, zd = NumpyDomain(3), TermDomain(), Z3Domain()
    s = tuple(np.array([0, 0x01234567 * j, 0xFFFFFFFF], dtype=np.uint32) for j in range(4))
    for op in AES_OPS:
        j, mix = int(op[-1]), op.startswith("aesr")
        assert np.array_equal(nd.apply(op, *s), aes.keyless_round(s, mix)[j])
        assert td.apply(op, *(td.var(f"s{i}") for i in range(4))).node.op == op
        z = zd.apply(op, *(zd.var(f"s{i}") for i in range(4)))
        assert z.decl().name() == op and z.decl().arity() == 4
        assert z.decl() == Z3Domain(zd.ctx).apply(op, *(zd.var(f"s{i}") for i in range(4))).decl()


def test_the_term_rows_evaluate_to_the_numpy_rows():
    """Running the rows over terms and evaluating the terms with numpy gives the numpy run's values, lane for lane."""
    program = parse_text(ROWS_PROGRAM, "x86_64")
    states = 32
    rng = np.random.default_rng(7)
    draw = lambda: rng.integers(0, 1 << 32, states, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    env = {lane_name(f"xmm{r}", j): draw() for r in range(6) for j in range(8)}
    env |= {f"m{4 * w}": draw() for w in range(8)}
    nd, td = NumpyDomain(states), TermDomain()
    mn = Machine(nd, env.__getitem__, lambda region, off: env[f"m{off}"], pointers={"esi": "buf"})
    mt = Machine(td, td.var, lambda region, off: td.var(f"m{off}"), pointers={"esi": "buf"})
    mn.run(program)
    mt.run(program)
    assert {n.op for n in td.builder.nodes} >= AES_OPS
    for r in (0, 3, 5):
        terms = mt.get(("reg", f"xmm{r}"))
        for got, want in zip(evaluate(list(terms), nd, env), mn.get(("reg", f"xmm{r}"))):
            assert np.array_equal(got, want), f"xmm{r}"


def _aesenc_terms(b: Builder, state, key):
    td = TermDomain(b)
    return VECTOR_ROWS["aesenc"].fn(td, state, key)


def _vars(b: Builder, name: str):
    return tuple(b.var(f"{name}{j}") for j in range(4))


def test_z3_proves_an_equality_that_holds_for_every_function():
    """aesenc(a ^ b, k) == aesenc(b ^ a, k), lane by lane: Z3 proves it over uninterpreted AES ops (unsat of
    the difference), which makes it true of AES; the numpy prefilter ran exact AES first."""
    b = Builder()
    a, c, k = _vars(b, "a"), _vars(b, "b"), _vars(b, "k")
    lhs = _aesenc_terms(b, tuple(x ^ y for x, y in zip(a, c)), k)
    rhs = _aesenc_terms(b, tuple(y ^ x for x, y in zip(a, c)), k)
    prover = Prover(timeout=10.0, lanes=64)
    for j in range(4):
        assert lhs[j].id != rhs[j].id
        assert isinstance(prover.check(lhs[j], rhs[j]), Proved), j
    assert prover.solver_calls == 4


def test_a_wrong_equality_over_aes_is_refuted_by_numpy():
    """Mutant of the proof above: aesenc(a ^ b, k) == aesenc(a | b, k) is refuted with a real (numpy, exact
    AES) counterexample, never proved."""
    b = Builder()
    a, c, k = _vars(b, "a"), _vars(b, "b"), _vars(b, "k")
    lhs = _aesenc_terms(b, tuple(x ^ y for x, y in zip(a, c)), k)
    rhs = _aesenc_terms(b, tuple(x | y for x, y in zip(a, c)), k)
    out = Prover(timeout=10.0, lanes=64).check(lhs[0], rhs[0])
    assert isinstance(out, Counterexample) and out.found_by == "tests"


def test_z3_reads_aes_as_uninterpreted_so_its_models_are_only_candidates():
    """One way only: over uninterpreted ops ``aesenc(a, k) == aesenc(b, k)`` (a, b free) has a Z3 model (which
    exact AES confirms: numpy finds the same difference), and a fact true of AES alone -- SubBytes(0) = 0x63 in
    every byte, so ``aesl0(0, 0, 0, 0) == 0x63636363`` -- is neither proved nor refuted: Z3's model picks a
    function that is not AES, numpy does not reproduce it, and the prover answers Unknown, naming why."""
    zd = Z3Domain()
    a, c, k = (tuple(zd.var(f"{n}{j}") for j in range(4)) for n in "abk")
    fn = VECTOR_ROWS["aesenc"].fn
    solver = z3.Solver(ctx=zd.ctx)
    solver.add(z3.Or(*(x != y for x, y in zip(fn(zd, a, k), fn(zd, c, k)))))
    assert solver.check() == z3.sat
    b = Builder()
    assert isinstance(Prover(lanes=64).check(_aesenc_terms(b, _vars(b, "a"), _vars(b, "k"))[0],
                                             _aesenc_terms(b, _vars(b, "b"), _vars(b, "k"))[0]), Counterexample)
    b = Builder()
    zero = b.const(0)
    out = Prover(lanes=64).check(b.op("aesl0", zero, zero, zero, zero), b.const(0x63636363))
    assert isinstance(out, Unknown) and "aesl0 as uninterpreted" in out.reason
    assert int(NumpyDomain(1).apply("aesl0", *(NumpyDomain(1).const(0),) * 4)[0]) == 0x63636363
