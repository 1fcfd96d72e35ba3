"""CPython 3.11's SHA-1 (``sha1_compress`` of ``_sha1``, Debian's libpython3.11.a): its mutants are refuted.

Rule (issue 24): gcc vectorizes the C code's big-endian byte loads (LOAD32H)
into 16-bit-lane code -- ``pand``/``psrlw $8`` splitting even and odd bytes,
``packuswb`` packing them, ``punpck{l,h}bw`` / ``punpck{l,h}wd`` with a
zeroed register widening them again, ``pslld``/``psllw`` and ``por`` putting
each byte in its place -- and the W[16..79] expansion into an 8-iteration
loop of ``movq``/``pxor``/``psrld``/``pslld``/``por``. With those rows in the
semantics table (``semantics/vector.py``) the function proves under the
interface the catalogue gives it, ``(state@0x8, data)`` (CPython's
``struct sha1_state`` has a 64-bit length before the five state words;
``test_lift_libraries.py`` proves it), and one-instruction mutants -- a
byte-splitting ``psrlw`` dropped, a round's ``rol $5`` made ``rol $6`` --
are refuted.

The object is taken at test time from the installed package (skipped with
the reason when libpython3.11-dev is missing); nothing of it is in the project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.interface import parse_interface
from tests.support.archives import member_file
from tests.support.mutants import instruction_mutant

LIB = Path("/usr/lib/x86_64-linux-gnu/libpython3.11.a")
MEMBER = "sha1module.o"
FUNCTION = "sha1_compress"
INTERFACE = parse_interface(f"{FUNCTION}(state@0x8, data)")


@pytest.fixture(scope="module")
def sha1module(tmp_path_factory) -> Path:
    return member_file(LIB, MEMBER, tmp_path_factory.mktemp("cpython"))


@pytest.mark.parametrize("mnemonic, operands, patch", [
    # the first byte split left undone: xmm4 keeps whole words, so packuswb saturates instead of packing bytes
    ("psrlw", "$8, %xmm4", lambda b: b"\x90" * len(b)),
    # round 0's rol $5 made rol $6
    ("roll", "$5, %eax", lambda b: b[:-1] + b"\x06"),
], ids=["psrlw-dropped", "rol5-made-rol6"])
def test_cpython_sha1_compress_one_instruction_mutant_is_refuted(sha1module, tmp_path, mnemonic, operands, patch):
    """The prover's own counterexample on the one path (native runs off: its refutation is what is tested)."""
    mutant = instruction_mutant(sha1module, FUNCTION, mnemonic, operands, patch, tmp_path / "mutant.o")
    res = prove_object(mutant, function=FUNCTION, interface=INTERFACE, native=False)
    assert not res.proved
    (path,) = res.proof.paths
    assert path.outcome == "counterexample" and "code gives" in path.detail, path.detail
