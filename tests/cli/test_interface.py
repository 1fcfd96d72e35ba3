"""``--interface`` on ``prove --object`` and ``analyze``: a declared one-block interface proves; a bad one is one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import one_line_error
from sha1opt.cli import main
from sha1opt.emit.toolchain import run as run_tool, which

C_SOURCE = Path(__file__).parent.parent / "semantics" / "lift" / "csrc" / "sha_transform.c"
KERNEL = "sha_transform80(state, data, workspace[80])"


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def obj32(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("iface") / "sha_transform.o"
    run_tool([which("gcc"), "-O2", "-m32", "-c", "-o", str(out), str(C_SOURCE)], "compiling the test C")
    return out


def test_prove_object_with_a_declared_interface(obj32):
    r = run("prove", "--object", str(obj32), "--interface", KERNEL)
    assert r.exit_code == 0, r.output
    assert "function sha_transform80 (i386)" in r.output
    assert "contract: cdecl i386 (state, data, workspace[80] on the stack); one block" in r.output
    assert "SHA-1: proved SHA-1 (whole function sha_transform80: 1 path(s), 0 loop(s), one block" in r.output


def test_analyze_with_a_declared_interface_costs_the_one_block(obj32):
    r = run("analyze", str(obj32), "--uarch", "zen3", "--function", "SHA1Transform", "--interface", "one-block")
    assert r.exit_code == 0, r.output
    assert "instructions once (the function has no loop)" in r.output and "proved SHA-1" in r.output


def test_wrong_interface_is_a_counterexample_or_not_proved_never_proved(obj32):
    r = run("prove", "--object", str(obj32), "--interface", "sha_transform80(state, data, workspace[16])")
    assert r.exit_code == 3 and "writes past the declared workspace" in r.output, r.output


@pytest.mark.parametrize("args, needle", [
    (["prove", "--object", "{obj}", "--interface", "f(state, digest)"], "unknown role 'digest'"),
    (["analyze", "{obj}", "--uarch", "zen3", "--interface", "f(state"], "expected ')'"),
    (["prove", "--object", "{obj}", "--function", "SHA1Transform", "--interface", KERNEL],
     "--function SHA1Transform and the interface's function sha_transform80 differ"),
    (["prove", "b", "b", "--interface", "one-block"], "--interface goes with --object"),
    (["prove", "--object", "{obj}", "--interface", KERNEL, "--min-blocks", "1"],
     "--min-blocks does not apply to the one-block interface sha_transform80(state, data, workspace[80])"),
])
def test_bad_interface_is_one_line_and_exit_2(obj32, args, needle):
    one_line_error(run(*[a.format(obj=obj32) for a in args]), needle)


ROLES_SOURCE = Path(__file__).parent.parent / "semantics" / "lift" / "csrc" / "sha1_ifaces.c"


@pytest.fixture(scope="module")
def mbedtls_shaped(tmp_path_factory) -> Path:
    """This project's ``ctx_process`` (state at byte 8 of its context) under mbedTLS's symbol name."""
    out = tmp_path_factory.mktemp("catalogue") / "ctx.o"
    run_tool([which("gcc"), "-O2", "-m64", "-fno-tree-vectorize", "-Dctx_process=mbedtls_internal_sha1_process",
              "-c", "-o", str(out), str(ROLES_SOURCE)], "compiling the test C")
    return out


def test_without_interface_the_catalogue_row_of_the_symbol_is_used_and_said(mbedtls_shaped):
    """corpus/interfaces.toml gives mbedtls_internal_sha1_process (state@8, data): it proves, and says so."""
    r = run("prove", "--object", str(mbedtls_shaped), "--function", "mbedtls_internal_sha1_process")
    assert r.exit_code == 0, r.output
    assert ("interface: mbedtls_internal_sha1_process(state@0x8, data), from the interface catalogue "
            "(corpus/interfaces.toml: mbedTLS (libmbedcrypto); wipes its locals") in r.output


def test_a_declared_interface_wins_over_the_catalogue(mbedtls_shaped):
    r = run("prove", "--object", str(mbedtls_shaped), "--interface", "mbedtls_internal_sha1_process(state, data)")
    assert r.exit_code != 0 and "interface: mbedtls_internal_sha1_process(state, data), from declared (--interface)" \
        in r.output, r.output


def test_analyze_says_the_default_when_the_function_is_not_catalogued(mbedtls_shaped):
    r = run("analyze", str(mbedtls_shaped), "--uarch", "zen3", "--function", "hash_block_words",
            "--interface", "(state, words)")
    assert r.exit_code == 0 and "from declared (--interface)" in r.output, r.output
    r = run("prove", "--object", str(mbedtls_shaped), "--function", "hash_block_words", "--json")
    assert '"interface_origin": "the default (blocks): the function is not in the interface catalogue"' in r.output
