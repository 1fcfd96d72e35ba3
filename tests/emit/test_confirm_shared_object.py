"""A function of a shared object is run natively: loaded with dlopen, called at its address, each path by its words.

Rule (``emit.confirm.shared_harness``, ``emit.harness.SharedObjectHarness``, ``csrc/dlopen_main.c``): the
object -- the file itself, here a stripped ``.so`` built from C written here (``csrc/sha1_shared.c``), and
Debian's ``libcrypto.so.3`` -- is loaded with ``dlopen`` in the bounded harness child; the function is called
at its address in the file's layout plus the load base (a stripped internal function has no name), through the
interface the prover used; a dispatch path's words (``mem_<address>``, the path's ``witness``) are written at
their addresses after the object's constructors ran. Only validated code runs: the caller passes the proof
that lifted the function, and a path it refused, or a word outside the data written at run time, is not run.
Before, a shared object was never run ("a shared object cannot be linked into the harness"): every mutant of
``libcrypto.so.3`` was "not proved, not refuted" (``bench/other_libraries.py``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import capstone
import pytest
from elftools.elf.elffile import ELFFile

from tests.support.cpu import needs
from sha1opt.analyze import prove_object
from sha1opt.emit.confirm import Finding, Unavailable, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.lift.decode import linked_word
from sha1opt.semantics.lift.interface import KEYWORDS

pytestmark = needs()

SOURCE = Path(__file__).parent / "csrc" / "sha1_shared.c"
FUNCTION = "sha1_shared_compress"
ONE_BLOCK = KEYWORDS["one-block"]
LIBCRYPTO = Path("/usr/lib/x86_64-linux-gnu/libcrypto.so.3")


@pytest.fixture(scope="module")
def wrong_w80(tmp_path_factory):
    """The stripped shared object with block_w80's round 40-59 constant off by one, proved (native runs on):
    (its path, the work folder, the proof)."""
    work = tmp_path_factory.mktemp("shared")
    so = work / "libsha1_shared.so"
    run([which("gcc"), "-O2", "-fno-tree-vectorize", "-fPIC", "-shared", "-s", "-fno-stack-protector",
         "-DW80_K3=0x8f1bbcddu", "-o", str(so), str(SOURCE)], "building the test shared object")
    return so, work, prove_object(so, function=FUNCTION, interface=ONE_BLOCK, workdir=work)


def _path(proof, caps: int):
    """The path whose words set the capability word to ``caps``."""
    return next(p for p in proof.proof.paths if p.witness and p.witness[0][1][0] == caps)


def test_a_stripped_function_of_a_shared_object_is_refuted_natively(wrong_w80):
    """The prover refutes the block_w80 path (caps 0), and the counterexample is confirmed by running the .so:
    its words are written after the constructor set the other path's bit."""
    _, _, res = wrong_w80
    assert _path(res, 0).outcome == "counterexample" and _path(res, 2).outcome == "proved"
    assert res.outcome == "counterexample" and isinstance(res.native, Finding), res.summary()


def test_the_words_of_a_path_select_that_path(wrong_w80, tmp_path):
    """Run with the right path's words, the same object agrees with SHA-1 on every record; with the wrong
    path's, it does not."""
    so, _, res = wrong_w80
    uo = load_object(so, tmp_path)
    runs = {caps: confirm(uo, FUNCTION, 1, tmp_path, interface=ONE_BLOCK, symbols=dict(_path(res, caps).witness),
                          lifted=res.proof) for caps in (0, 2)}
    assert runs[2] is None and isinstance(runs[0], Finding), runs


def test_code_not_lifted_is_not_run(wrong_w80, tmp_path):
    """No proof, a proof of another function, a refused path, another interface than the proof's, a word in code
    or in data made read-only after relocation (``.got``): nothing runs, and the reason says why."""
    so, _, res = wrong_w80
    uo = load_object(so, tmp_path)
    words = dict(_path(res, 2).witness)
    refused = dataclasses.replace(res.proof, paths=tuple(dataclasses.replace(p, outcome="refused")
                                                         for p in res.proof.paths))
    for lifted in (None, dataclasses.replace(res.proof, function="other"), refused):
        got = confirm(uo, FUNCTION, 1, tmp_path, interface=ONE_BLOCK, symbols=words, lifted=lifted)
        assert isinstance(got, Unavailable) and "lifted" in got.reason, got
    got = confirm(uo, FUNCTION, 1, tmp_path, symbols=words, lifted=res.proof)      # (state, data, nblocks)
    assert isinstance(got, Unavailable) and "interface it was lifted under" in got.reason, got
    for section in (".text", ".got"):
        got = confirm(uo, FUNCTION, 1, tmp_path, interface=ONE_BLOCK, lifted=res.proof,
                      symbols={linked_word(uo.obj.addresses[section]): b"\0"})
        assert isinstance(got, Unavailable) and "written at run time" in got.reason, (section, got)


@pytest.mark.slow
def test_a_mutant_of_libcrypto_so_is_refuted_natively(tmp_path):
    """OpenSSL's ``SHA1_Transform`` in the installed ``libcrypto.so.3``: its integer path with round 30's
    ``rol $5`` made ``rol $6`` is a counterexample confirmed natively on that path's words."""
    if not LIBCRYPTO.exists():
        pytest.skip(f"{LIBCRYPTO} missing: libssl3 (setup/system-packages.sh)")
    orig = prove_object(LIBCRYPTO, function="SHA1_Transform", native=False, workdir=tmp_path)
    path = next(p for p in orig.proof.paths if p.outcome == "proved" and any(d.mnemonic == "rol" for d in p.trace))
    site = [d for d in path.trace if d.mnemonic == "rol" and d.text.startswith("roll $5")][30]
    raw = bytearray(LIBCRYPTO.read_bytes())
    with open(LIBCRYPTO, "rb") as fh:
        text = ELFFile(fh).get_section_by_name(".text")
        at = text["sh_offset"] + site.address
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    assert next(md.disasm(bytes(raw[at:at + site.size]), 0)).op_str.endswith(", 5")
    raw[at + site.size - 1] = 6                  # (the count is the last byte of ``c1 /0 ib``)
    mutant = tmp_path / "libcrypto.so.3"
    mutant.write_bytes(bytes(raw))
    res = prove_object(mutant, function="SHA1_Transform", workdir=tmp_path, paths=frozenset({path.label}))
    assert res.outcome == "counterexample" and isinstance(res.native, Finding), res.summary()
