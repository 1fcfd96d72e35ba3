"""OpenSSL's stitched AES-CBC + SHA-1 (``aesni_cbc_sha1_enc``) proved whole: the hash and the ciphertext (``cbc``).

The functions come from Debian's libcrypto.a (libssl-dev, installed by setup/system-packages.sh); the member is
extracted at test time, never kept in the project. Mutants are byte patches of that member made here.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import z3
from elftools.elf.elffile import ELFFile

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift import cbc
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.lift.values import Int, Ptr
from tests.support.archives import member_file

LIB = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
MEMBER = "libcrypto-lib-aesni-sha1-x86_64.o"
STITCHED = "(plain, cipher, nblocks, key, iv, state, data)"


@pytest.fixture(scope="module")
def member(tmp_path_factory) -> bytes:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("stitched")).read_bytes()


def _prove(data: bytes, function: str):
    contract = parse_interface(STITCHED).contract("sysv", 1)
    return prove_function(ObjectFile.parse(data), function, contract)


def _patched(data: bytes, function: str, at: int, old: str, new: str) -> bytes:
    """``data`` with the bytes ``old`` at ``function + at`` (an offset into the function) replaced by ``new``."""
    sym = ObjectFile.parse(data).find_function(function)
    off = ELFFile(io.BytesIO(data)).get_section_by_name(sym.section)["sh_offset"] + sym.value + at
    out = bytearray(data)
    assert out[off:off + len(old) // 2] == bytes.fromhex(old), "the member's code is not the one these patches know"
    out[off:off + len(new) // 2] = bytes.fromhex(new)
    return bytes(out)


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


def test_each_stitched_body_proves_the_hash_and_the_ciphertext(member):
    """The SSSE3, AVX and SHA-NI bodies: one loop each, its 6 paths (3 round counts, back or out) proved: H :=
    compress(H, block), the block's 16 ciphertext words E(P xor C), the chain at the head, the iv at the exit."""
    for body in ("aesni_cbc_sha1_enc_ssse3", "aesni_cbc_sha1_enc_avx", "aesni_cbc_sha1_enc_shaext"):
        proof = _prove(member, body)
        assert proof.proved, (body, [(p.name, p.detail) for p in proof.paths])
        assert [p.kind for p in proof.paths] == ["loop"]


@pytest.mark.parametrize("function,at,old,new,why", [
    # aesenclast -> aesenc in the first block's last round
    ("aesni_cbc_sha1_enc_ssse3", 0x483, "660f38ddd1", "660f38dcd1", "ciphertext word at block+0"),
    # the ciphertext store of AES block 0 stores %xmm6 (a message schedule register) for %xmm2
    ("aesni_cbc_sha1_enc_ssse3", 0x4ec, "430f11142c", "430f11342c", "ciphertext word at block+0"),
    # a round key read 16 bytes off (round key 11 for 10)
    ("aesni_cbc_sha1_enc_ssse3", 0x463, "410f104f50", "410f104f60", "ciphertext word at block+0"),
])
def test_a_wrong_aes_round_is_not_proved(member, function, at, old, new, why):
    """Mutants of the AES half (the hash half untouched) are not proved: the step's ciphertext check fails."""
    proof = _prove(_patched(member, function, at, old, new), function)
    assert not proof.proved
    assert any(why in p.detail for p in proof.paths), [p.detail for p in proof.paths]


def test_iv_read_inside_the_loop_is_refused():
    """Rule (``cbc.load``): the iv is read only before the loop -- an earlier iteration may have written it."""
    class M:
        bits, block = 64, z3.BitVec("k", 64) * 64

        @staticmethod
        def initial_mem(region, off):
            return (region, off)
    from sha1opt.semantics.lift.values import Refused
    with pytest.raises(Refused, match="inside the loop"):
        cbc.load(M, ("iv", "", 0), 4, None)
    M.block = z3.BitVecVal(0, 64)
    assert cbc.load(M, ("iv", "", 4), 4, None) == ("iv", 4)
