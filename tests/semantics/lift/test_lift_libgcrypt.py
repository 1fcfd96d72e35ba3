"""libgcrypt's AVX2 SHA-1 (``_gcry_sha1_transform_amd64_avx2_bmi2``, Debian's libgcrypt.a) proves whole.

The function hashes two blocks per iteration: the message schedule of block
2j in ymm lanes 0-3 and of block 2j+1 in lanes 4-7 (``vmovdqu`` +
``vinserti128 $1``, ``vbroadcasti128`` of the byte-swap mask, ``vpalignr`` /
``vpsrldq`` / ``vpshufb`` working in each 128-bit half), W+K stored on the
stack, the rounds in BMI2 scalar code. Its C wrapper (libgcrypt's
``cipher/sha1.c``, ``do_sha1_transform_amd64_avx2_bmi2``) calls it only with
an even nblocks >= 2 -- an odd block goes to the AVX code first -- so the
contract is declared ``nblocks even`` with ``--min-blocks 1``; the proof is
the two-block invariant of ``multiblock`` with no odd tail. The same code
under the default contract reads a block past the data (a true finding for
that contract), and one-byte mutants of its ymm code are refuted.

The object is taken at test time from the installed package (skipped with
the reason when libgcrypt20-dev is missing); nothing of it is in the project.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cpu import not_run_here
from sha1opt import cli_analyze
from sha1opt.analyze import analyze_file, prove_object
from tests.support.archives import member_file
from tests.support.mutants import instruction_mutant
from sha1opt.semantics.lift.interface import KEYWORDS, parse_interface

LIB = Path("/usr/lib/x86_64-linux-gnu/libgcrypt.a")
MEMBER = "sha1-avx2-bmi2-amd64.o"
FUNCTION = "_gcry_sha1_transform_amd64_avx2_bmi2"
PAIRS = parse_interface(f"{FUNCTION}(state, data, nblocks even)")


@pytest.fixture(scope="module")
def avx2_object(tmp_path_factory) -> Path:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("gcry"))


def _mutant(obj: Path, tmp_path: Path, mnemonic: str, operands: str, imm: int) -> Path:
    """``obj`` with the immediate (the last byte) of the first ``mnemonic operands...`` of the function
    changed to ``imm``: a one-instruction mutant, found by decoding the object at test time."""
    return instruction_mutant(obj, FUNCTION, mnemonic, operands, lambda b: b[:-1] + bytes([imm]),
                              tmp_path / "mutant.o")


@pytest.fixture(scope="module")
def avx2_analysis(avx2_object):
    """``analyze_file`` as ``sha1opt analyze --interface '...(state, data, nblocks even)' --min-blocks 1
    --uarch zen3`` calls it: the proof and the price, made once."""
    return analyze_file(avx2_object, ["zen3"], interface=PAIRS, min_blocks=1)


def test_libgcrypt_avx2_two_blocks_per_iteration_proves_for_every_even_count(avx2_analysis):
    res = avx2_analysis[0].proof
    assert res.proved, res.summary()
    (loop,) = res.proof.paths
    assert loop.kind == "loop" and "2-block invariant" in loop.detail and "no tail" in loop.detail
    assert "every even nblocks >= 2" in res.summary() and "even nblocks >= 2" in res.contract.describe()


def test_libgcrypt_avx2_under_every_count_reads_past_the_data(avx2_object):
    """Without ``nblocks even`` the count 1 is allowed, and the code loads a second block: not proved."""
    res = prove_object(avx2_object, function=FUNCTION, min_blocks=1, native=False, interface=KEYWORDS["blocks"])
    assert not res.proved
    assert "reads past the end of the data" in res.summary()


@pytest.mark.parametrize("mnemonic, operands, imm", [
    ("vinserti128", "$1, 0x40(", 0),     # block 2j+1 into the low half: the lanes of the pair swapped
    ("vpsrld", "$0x1f", 0x1e),           # W[t] = rol(..., 1) made a rotate by 2 in both halves
])
def test_libgcrypt_avx2_one_instruction_mutant_is_refuted(avx2_object, tmp_path, mnemonic, operands, imm):
    """Refuted by the prover; where the CPU runs it, confirmed natively on the first count the contract
    allows, nblocks 2 (native confirmation runs only even counts: an odd one would read past the data)."""
    res = prove_object(_mutant(avx2_object, tmp_path, mnemonic, operands, imm), interface=PAIRS, min_blocks=1)
    assert not res.proved
    (loop,) = res.proof.paths
    assert loop.outcome == "counterexample" and "code gives" in loop.detail, loop.detail
    if not_run_here("avx2", "bmi2") is None:
        assert res.outcome == "counterexample", res.summary()
        assert res.native.nblocks == 2 and res.native.got is not None and res.native.got != res.native.want


def test_analyze_prices_libgcrypt_avx2_per_byte_of_both_blocks(avx2_analysis, avx2_object, monkeypatch):
    """One iteration compresses two blocks: its cycles are priced per byte of both (128 bytes), and the CLI
    says "per iteration of 2 blocks" (the CLI run here is handed the analysis made above)."""
    (a,) = avx2_analysis
    assert a.loop and a.blocks == 2 and a.cycles_per_byte == pytest.approx(a.cycles / 128)
    monkeypatch.setattr(cli_analyze, "analyze_file", lambda *args, **kw: avx2_analysis)
    r = CliRunner().invoke(cli_analyze.analyze, [str(avx2_object), "--interface",
                                                 f"{FUNCTION}(state, data, nblocks even)", "--min-blocks", "1",
                                                 "--uarch", "zen3"])
    assert r.exit_code == 0, r.output
    assert "instructions per iteration of 2 blocks" in r.output and "every even nblocks >= 2" in r.output
