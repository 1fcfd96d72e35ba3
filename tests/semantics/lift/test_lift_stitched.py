"""OpenSSL's stitched AES-CBC + SHA-1 (``aesni_cbc_sha1_enc``) proved whole: the hash and the ciphertext (``cbc``).

The functions come from Debian's libcrypto.a (libssl-dev, installed by setup/system-packages.sh); the member is
extracted at test time, never kept in the project. Mutants are byte patches of that member made here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from sha1opt.semantics.errors import ParseError, Sha1optError
from sha1opt.semantics.lift import cbc
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.lift.values import Int, Ptr, Refused
from sha1opt.emit.cbc_confirm import cbc_finding
from sha1opt.emit.confirm import Finding
from sha1opt.emit.objfile import load_object
from tests.support.archives import member_file
from tests.support.mutants import patched_function
from tests.support.cpu import needs

LIB = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-aesni-sha1-x86_64.o"
STITCHED = "(plain, cipher, nblocks, key, iv, state, data)"


@pytest.fixture(scope="module")
def member(tmp_path_factory) -> bytes:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("stitched")).read_bytes()


def _prove(data: bytes, function: str):
    contract = parse_interface(STITCHED).contract("sysv", 1)
    return prove_function(ObjectFile.parse(data), function, contract)


def test_the_stitched_interface_takes_the_four_roles_together_and_the_seventh_argument_on_the_stack():
    """Rule (``cbc.check_roles``): plain, cipher, key and iv come all four, with nblocks; SysV's seventh argument
    is at entry + 8 (psABI 3.2.3)."""
    contract = parse_interface(STITCHED).contract("sysv", 1)
    assert contract.cbc and contract.arg_text().endswith("8(%rsp) data")
    assert "AES-CBC encryption of plain" in contract.describe()
    with pytest.raises(ParseError, match="missing: iv"):
        parse_interface("(plain, cipher, nblocks, key, state, data)")
    with pytest.raises(ParseError, match="nblocks"):
        parse_interface("(plain, cipher, key, iv, state, data)")


def test_the_output_address_inp_plus_out_minus_inp_is_the_ciphertext():
    """Rule (``cbc.distance``/``rebase``): ``out - inp`` is an integer with the buffers' distance in it, and
    ``inp + 64k + (out - inp)`` is ``out + 64k``; twice the distance is no buffer's address."""
    k = z3.BitVec("k", 64)
    plain, cipher = Ptr("plain", z3.BitVecVal(0, 64)), Ptr("cipher", z3.BitVecVal(0, 64))
    apart = cbc.distance(cipher, plain, 64)
    assert isinstance(apart, Int)
    got = cbc.rebase(Ptr("plain", 64 * k + 16 + apart.v), 64)
    assert got.region == "cipher" and z3.simplify(got.off - (64 * k + 16)).as_long() == 0
    assert cbc.rebase(Ptr("plain", 2 * apart.v), 64).region == "plain"
    assert cbc.distance(plain, plain, 64) is None


@pytest.mark.parametrize("body", ["aesni_cbc_sha1_enc_ssse3", "aesni_cbc_sha1_enc_avx", "aesni_cbc_sha1_enc_shaext"])
def test_each_stitched_body_proves_the_hash_and_the_ciphertext(member, body):
    """Each body (SSSE3, AVX, SHA-NI) is one loop whose 6 paths (3 round counts, back or out) prove: H :=
    compress(H, block), the block's 16 ciphertext words E(P xor C), the chain at the head, the iv at the exit."""
    proof = _prove(member, body)
    assert proof.proved, [(p.name, p.detail) for p in proof.paths]
    assert [p.kind for p in proof.paths] == ["loop"] and "6 path(s)" in proof.paths[0].detail
    assert "AES-CBC chain" in proof.paths[0].detail


@pytest.mark.parametrize("at,old,new,why", [
    # aesenclast -> aesenc in the first AES block's last round
    (0x483, "660f38ddd1", "660f38dcd1", "ciphertext word at block+0"),
    # the store of AES block 0 stores %xmm6 (a message schedule register), not %xmm2
    (0x4ec, "430f11142c", "430f11342c", "ciphertext word at block+0"),
    # a round key read 16 bytes off (round key 11 for round key 10)
    (0x463, "410f104f50", "410f104f60", "ciphertext word at block+0"),
], ids=["aesenclast-as-aesenc", "store-of-another-register", "round-key-off-by-16"])
def test_a_wrong_aes_round_is_a_counterexample(member, at, old, new, why):
    """Mutants of the AES half (the hash half untouched) are refuted: exact AES (numpy) gives the ciphertext word
    another value than E(P xor C)."""
    body = "aesni_cbc_sha1_enc_ssse3"
    proof = _prove(patched_function(member, body, at, old, new), body)
    assert proof.outcome == "counterexample"
    assert any(why in p.detail for p in proof.paths), [p.detail for p in proof.paths]


@needs("aes", "ssse3")
def test_the_ciphertext_check_runs_natively_and_refutes_a_wrong_round(member, tmp_path):
    """Native confirmation (``cbc_confirm``): OpenSSL's SSSE3 body agrees with AES-CBC by the numpy rounds on
    records of 9, 11 and 13 rounds; with aesenclast changed to aesenc it gives another ciphertext word."""
    body = "aesni_cbc_sha1_enc_ssse3"
    good, bad = tmp_path / "good.o", tmp_path / "bad.o"
    good.write_bytes(member)
    bad.write_bytes(patched_function(member, body, 0x483, "660f38ddd1", "660f38dcd1"))
    assert cbc_finding(load_object(good, tmp_path), body, tmp_path) is None
    found = cbc_finding(load_object(bad, tmp_path), body, tmp_path)
    assert isinstance(found, Finding) and "ciphertext block 0 word" in found.problem


def test_iv_read_inside_the_loop_is_refused():
    """Rule (``cbc.load``): the iv is read only before the loop -- an earlier iteration may have written it."""
    class M:
        bits, block = 64, z3.BitVec("k", 64) * 64

        @staticmethod
        def initial_mem(region, off):
            return (region, off)
    with pytest.raises(Refused, match="inside the loop"):
        cbc.load(M, ("iv", "", 0), 4, None)
    M.block = z3.BitVecVal(0, 64)
    assert cbc.load(M, ("iv", "", 4), 4, None) == ("iv", 4)


def test_every_copy_of_the_chain_at_the_head_is_checked_not_only_the_first():
    """Rule (``cbc.homes``): every location the loop head holds a chain lane in is materialized as the chain, so
    each is an obligation -- a second copy left stale would be read as the chain in the next iteration."""
    from sha1opt.semantics.lift.template import Lanes, flat_locations
    template = {("reg", "xmm2"): (Lanes(tuple(cbc.Chain(j) for j in range(4)) + ("free",) * 4), 0),
                ("reg", "xmm3"): (Lanes((cbc.Chain(0),) + ("free",) * 7), 0)}
    where = cbc.homes(template, flat_locations)
    assert ("reg", "xmm3.0") in [loc for _, loc in where] and len(where) == 5


def test_a_path_that_skips_the_loop_writes_neither_the_ciphertext_nor_the_iv():
    """Rule (``cbc.untouched``): nblocks = 0 leaves the ciphertext unwritten and the iv as the caller left it."""
    from sha1opt.semantics.ir import Builder
    from sha1opt.semantics.lift.paths import State
    b = Builder()
    st = State((".text", 0))
    st.mem[("iv", "", 4)] = (b.var("iv[4]"), 4)          # read, not changed
    assert cbc.untouched(st) is None
    st.mem[("iv", "", 0)] = (b.var("iv[4]"), 4)
    assert cbc.untouched(st) == "writes the iv"
    st.mem[("iv", "", 0)] = (b.var("iv[0]"), 4)
    st.mem[("cipher", "", 0)] = (b.var("x"), 4)
    assert cbc.untouched(st) == "writes the ciphertext"


SHARED = Path("/usr/lib/x86_64-linux-gnu/libcrypto.so.3")


def test_the_stripped_bodies_of_libcrypto_so_are_found_and_prove_under_their_shape(tmp_path):
    """x86-64 libcrypto.so.3 keeps the stitched bodies without symbols (``candidates._referencing`` finds them by
    the K table they load from .text); the ``[[shape]]`` row's interface proves them (libssl3)."""
    from sha1opt.analyze import prove_object
    from sha1opt.semantics.lift.candidates import found_functions
    if not SHARED.exists():
        pytest.skip(f"{SHARED} missing (libssl3)")
    _, functions = found_functions(ObjectFile.parse(SHARED.read_bytes()))
    bodies = [c for c in functions if c.evidence == "stripped" and c.symbol.size > 0x400]
    stitched = []
    for c in bodies:
        res = prove_object(SHARED, function=c.name, workdir=tmp_path, interface=parse_interface(STITCHED))
        if res.proved:
            stitched.append(c.name)
            break
    assert stitched, [c.name for c in bodies]


@pytest.mark.parametrize("function,patches", [
    # the dispatcher skips its capability loads and stores %edx at %rsp + 8 * nblocks (the caller's frame)
    ("aesni_cbc_sha1_enc", [(0x0, "448b", "eb11"), (0x13, "0f82a72300", "8914d4eb28")]),
    # the SSSE3 body stores at %rsp + (out - inp), an address nothing bounds
    ("aesni_cbc_sha1_enc_ssse3", [(0xd1, "eb0d66662e0f1f8400000000006690", "4289042ceb09" + "90" * 9)]),
], ids=["index-by-nblocks", "index-by-buffer-distance"])
def test_regression_a_stack_store_at_a_computed_offset_was_never_bounds_checked(member, function, patches):
    """A stack store whose address has an unknown part was taken as the function's own frame unchecked (found in
    review: both mutants were "proved"). Now it must be proved below the entry stack pointer (``memory``)."""
    data = member
    for at, old, new in patches:
        data = patched_function(data, function, at, old, new)
    proof = _prove(data, function)
    assert not proof.proved
    assert any("computed offset not proved below the entry stack pointer" in p.detail for p in proof.paths)


def test_regression_a_wrapper_that_writes_the_iv_then_jumps_to_a_proved_body_was_proved(member, tmp_path):
    """A tail jump to another function is that function's own proof only when the caller's arguments are intact:
    a wrapper that zeroes the iv's first word first (found in review: "proved SHA-1 and AES-CBC") is not."""
    import subprocess
    from sha1opt.analyze import prove_object
    (tmp_path / "wrap.s").write_text("\t.text\n\t.globl wrap\n\t.type wrap, @function\nwrap:\n\tmovl $0, (%r8)\n"
                                     "\tjmp aesni_cbc_sha1_enc\n\t.size wrap, .-wrap\n"
                                     '\t.section .note.GNU-stack,"",@progbits\n')
    subprocess.run(["gcc", "-c", "-o", str(tmp_path / "wrap.o"), str(tmp_path / "wrap.s")], check=True, timeout=60)
    (tmp_path / MEMBER).write_bytes(member)
    subprocess.run(["ar", "rcs", str(tmp_path / "lib.a"), str(tmp_path / "wrap.o"), str(tmp_path / MEMBER)],
                   check=True, timeout=60)
    try:
        res = prove_object(tmp_path / "lib.a", member="wrap.o", function="wrap", workdir=tmp_path,
                           interface=parse_interface("wrap" + STITCHED), min_blocks=1)
        detail = " ".join(p.detail for p in res.proof.paths)
        assert not res.proved
    except Sha1optError as e:
        detail = str(e)
    assert "writes the iv before the jump" in detail


def test_a_stripped_dispatcher_named_by_its_unwind_entry_proves_every_path(tmp_path):
    """``prove --function sub_<address>`` takes an unwind entry that starts there even when it is no scan
    candidate (``analyze.with_stripped_name``): x86-64 libcrypto.so.3's stripped ``aesni_cbc_sha1_enc`` holds no
    constant, its three bodies do; proved whole, every dispatch path (libssl3)."""
    from sha1opt.analyze import prove_object
    if not SHARED.exists():
        pytest.skip(f"{SHARED} missing (libssl3)")
    obj = ObjectFile.parse(SHARED.read_bytes())
    base = obj.addresses[".text"]
    entry = next(a for a, n in obj.unwind_extents(".text")
                 if obj.sections[".text"][a:a + 7] == bytes.fromhex("448b15") + obj.sections[".text"][a + 3:a + 7]
                 and obj.sections[".text"][a + 7:a + 14].hex().startswith("4c8b1d") and
                 obj.sections[".text"][a + 14:a + 19] == bytes.fromhex("490fbae33d"))   # mov; mov; bt $0x3d,%r11
    res = prove_object(SHARED, function=f"sub_{base + entry:x}", workdir=tmp_path, interface=parse_interface(STITCHED),
                       min_blocks=1)
    assert res.proved and len(res.proof.paths) == 3, res.summary()
