"""``emit.adapter``: a declared one-block interface runs in the native harness, and the harness still sees its defects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cpu import needs
from sha1opt.emit.adapter import adapter_text
from sha1opt.emit.confirm import harness_for
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import run, which
from sha1opt.emit.validate import run_vectors
from sha1opt.semantics.lift.interface import parse_interface

pytestmark = needs()

C_SOURCE = Path(__file__).parent.parent / "semantics" / "lift" / "csrc" / "sha_transform.c"
FLAGS = {"x86_64": ("-O2", "-m64"), "i386": ("-O2", "-m32")}


def _harness(tmp_path, arch, interface, *defines):
    out = tmp_path / "sha_transform.o"
    run([which("gcc"), *FLAGS[arch], *defines, "-c", "-o", str(out), str(C_SOURCE)], "compiling the test C")
    uo = load_object(out, tmp_path)
    itf = parse_interface(interface)
    return harness_for(uo, itf.name, tmp_path, itf)


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
@pytest.mark.parametrize("interface", ["sha_transform80(state, data, workspace[80])", "SHA1Transform(state, data)"])
def test_one_block_function_passes_every_vector_through_the_adapter(tmp_path, arch, interface):
    ok, detail = run_vectors(_harness(tmp_path, arch, interface))
    assert ok, detail


def test_a_wrong_round_constant_fails_the_vectors_through_the_adapter(tmp_path):
    ok, detail = run_vectors(_harness(tmp_path, "x86_64", "sha_transform16(state, data, workspace[16])",
                                      "-DK3=0x8f1bbcddu"))
    assert not ok and "got" in detail


def test_adapter_keeps_nothing_in_callee_saved_registers():
    """So a clobber by the user's function reaches the harness's check."""
    for arch in ("x86_64", "i386"):
        text = adapter_text(arch, parse_interface("f(state, data, workspace[16])"), "f")
        for reg in ("%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15", "%ebx", "%ebp", "%esi", "%edi"):
            assert reg not in text, (arch, reg)


ROLES_SOURCE = C_SOURCE.parent / "sha1_ifaces.c"


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
@pytest.mark.parametrize("interface", ["ctx_process(state@8, data)", "checked_transform(state@0x4c, words)",
                                       "hash_multiple(state, data, bytes, 1)", "hash_multiple(state, words, bytes, 0)"])
def test_every_role_runs_through_the_adapter(tmp_path, arch, interface):
    """The adapter copies the state into a context at its offset, byte-swaps the block into host words, passes
    the byte length and the constant as declared: each shape of csrc/sha1_ifaces.c passes every vector."""
    out = tmp_path / "sha1_ifaces.o"
    run([which("gcc"), *FLAGS[arch], "-c", "-o", str(out), str(ROLES_SOURCE)], "compiling the test C")
    itf = parse_interface(interface)
    ok, detail = run_vectors(harness_for(load_object(out, tmp_path), itf.name, tmp_path, itf))
    assert ok, detail


def test_a_wrong_constant_fails_the_vectors_through_the_adapter(tmp_path):
    out = tmp_path / "sha1_ifaces.o"
    run([which("gcc"), *FLAGS["x86_64"], "-c", "-o", str(out), str(ROLES_SOURCE)], "compiling the test C")
    itf = parse_interface("hash_multiple(state, data, bytes, 0)")
    ok, detail = run_vectors(harness_for(load_object(out, tmp_path), itf.name, tmp_path, itf))
    assert not ok and "got" in detail
