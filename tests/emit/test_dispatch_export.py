"""The dispatching export: every path proved whole from the object, the constructor run, every path forced and run.

Native checks skip on a host that cannot run them (feature checks from /proc/cpuinfo).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from sha1opt.emit.assembly import function_text
from sha1opt.emit.confirm import Unavailable, harness_for
from sha1opt.emit.dispatch_export import taken, validate_dispatch
from sha1opt.emit.dispatch_text import PathCode, dispatch_function_text, hybrid_path_text
from sha1opt.emit.dispatch_word import WORD_SYMBOL, mask_of, word_from_cpu_flags
from sha1opt.emit.host_cpu import host
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import compile_preprocessed, cpu_flags, run, which
from sha1opt.emit.validate import run_vectors
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.emit.shani_frame import shani_function_text
from sha1opt.search.space.shani import default_params
from sha1opt.semantics.sha1 import IV, pad
from tests.support.cpu import needs

pytestmark = needs()

RETURNS = ("\t.text\n\t.globl sha1_block_data_order\n\t.type sha1_block_data_order, @function\n"
           "sha1_block_data_order:\n\tret\n\t.size sha1_block_data_order, .-sha1_block_data_order\n")


@pytest.fixture(scope="module")
def exported(dispatch_runs):
    """(plan_dispatch(None, arch), export_dispatch(plan, F)) as ``export --dispatch`` made them (tests/conftest.py)."""
    return {arch: (run.plan, run.result) for arch, run in dispatch_runs.items()}


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_the_file_is_written_after_every_check_passed(exported, arch):
    plan, res = exported[arch]
    assert res.ok, [(c.name, c.detail) for c in res.validation.checks]
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "constructor", "vectors"]
    assert res.path.read_text() == res.text and "dispatching: " in res.text


@needs("sha", "sse4.1")
@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_on_a_sha_ni_host_the_dispatch_takes_sha_ni(exported, arch):
    plan, res = exported[arch]
    assert taken(plan.codes(), word_from_cpu_flags(cpu_flags())).name == "shani"
    assert "this CPU takes path shani" in res.validation.checks[3].detail


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_every_path_this_cpu_has_is_forced_and_run(exported, arch):
    plan, res = exported[arch]
    word = mask_of(host().features)           # what the one predicate says runs here (SHA1OPT_CPU_LACKS too)
    detail = res.validation.checks[4].detail
    for p in plan.codes():
        if p.mask & ~word == 0:
            assert f"{p.name} ({WORD_SYMBOL} = {p.mask:#x})" in detail
        else:
            assert f"not run here: " in detail and p.name in detail.split("not run here: ")[1]


def test_prove_object_on_the_written_file_proves_every_path(dispatch_runs, dispatch_reproof):
    """``prove_object(F)`` on the i386 dispatching file F, as ``prove --object F`` called it: every path of the
    plan is a proved loop path. (Slow: the export's ``prove`` check is this rule on the validated object, which
    the written file re-assembles to.)"""
    run = dispatch_runs["i386"]
    plan, got = run.plan, dispatch_reproof[1]
    assert run.result.path == run.path
    assert got.proved, got.summary()
    labels = {p.label for p in got.proof.paths if p.kind == "loop" and p.outcome == "proved"}
    assert {p.symbol for p in plan.codes()} <= labels, labels


def _obj(paths, arch, d):
    return compile_preprocessed(dispatch_function_text(arch, paths), arch, d, "mutant")


def test_forcing_the_word_runs_that_path_and_only_that_path(tmp_path):
    """A broken path (returns at once) behind the AVX bits: forcing them finds it, forcing 0 runs the scalar path."""
    paths = [PathCode("avx", frozenset({"avx"}), RETURNS), PathCode("scalar", frozenset(), function_text(textbook("x86_64")))]
    uo = load_object(_obj(paths, "x86_64", tmp_path), tmp_path)
    for p, good in ((paths[0], False), (paths[1], True)):
        work = tmp_path / p.name
        work.mkdir()
        harness = harness_for(uo, "sha1_block_data_order", work, symbols={WORD_SYMBOL: p.mask.to_bytes(4, "little")})
        assert not isinstance(harness, Unavailable), harness
        assert run_vectors(harness)[0] is good, p.name


def test_a_broken_path_is_refused_before_anything_runs(tmp_path):
    paths = [PathCode("avx", frozenset({"avx"}), RETURNS), PathCode("scalar", frozenset(), function_text(textbook("x86_64")))]
    v = validate_dispatch(dispatch_function_text("x86_64", paths), paths, "x86_64", tmp_path)
    assert not v.ok and v.failure.name == "prove" and "sha1opt_ia32cap" in v.failure.detail
    assert [c.name for c in v.checks] == ["assemble", "lift", "prove"]


def test_regression_sha_ni_saved_its_state_over_the_return_address(tmp_path):
    """The x86-64 SHA-NI unit with save_on_stack stored the state at (%rsp) without allocating: the
    return address and the caller's frame were overwritten, so goldencove's SHA-NI point (which
    saves on the stack) was refused by the whole-function proof and no dispatch could hold it."""
    params = replace(default_params("x86_64"), save_on_stack=True)
    path = PathCode("shani", frozenset({"sha", "sse4.1"}), shani_function_text("x86_64", params))
    paths = [path, PathCode("scalar", frozenset(), function_text(textbook("x86_64")))]
    v = validate_dispatch(dispatch_function_text("x86_64", paths), paths, "x86_64", tmp_path, native=False)
    assert v.ok, v.failure


def test_an_x86_64_k_table_block_proves_as_a_dispatch_path(tmp_path):
    """The ssse3k row keeps K at 80..143(%rsp) (hybrid.k_in_memory); the dispatch frame realigns the stack and
    keeps the entry %rsp at frame_bytes(block)(%rsp) = 152, above the table: the whole function proves."""
    block = build(HybridParams(isa="ssse3k", ahead=True, recurrence="rol2"))
    paths = [PathCode("ssse3", frozenset({"ssse3"}), hybrid_path_text(block)),
             PathCode("scalar", frozenset(), function_text(textbook("x86_64")))]
    assert "movdqu 80(%rsp)" in paths[0].text
    v = validate_dispatch(dispatch_function_text("x86_64", paths), paths, "x86_64", tmp_path, native=False)
    assert v.ok, v.failure


def test_a_path_the_dispatch_never_takes_fails_the_proof_check(tmp_path):
    """SSSE3 before AVX: every AVX CPU has SSSE3, so the AVX path is dead code -- not a proved path."""
    ssse3, avx = build(HybridParams(isa="ssse3")), build(HybridParams(isa="avx"))
    paths = [PathCode("ssse3", frozenset({"ssse3"}), hybrid_path_text(ssse3)),
             PathCode("avx", frozenset({"avx"}), hybrid_path_text(avx)),
             PathCode("scalar", frozenset(), function_text(textbook("x86_64")))]
    v = validate_dispatch(dispatch_function_text("x86_64", paths), paths, "x86_64", tmp_path, native=False)
    assert v.failure is not None and v.failure.name == "prove" and "path avx is never reached" in v.failure.detail


def test_a_program_linked_with_libc_runs_the_constructor_and_hashes_right(exported, tmp_path):
    """The file as a user links it: the C runtime runs .init_array, the word is this CPU's, the digest is SHA-1's."""
    plan, res = exported["x86_64"]
    msg = b"sha1opt dispatch " * 50
    blocks = pad(msg)
    main = tmp_path / "main.c"
    main.write_text(
        "#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\n"
        "void sha1_block_data_order(uint32_t *, const void *, size_t);\nextern uint32_t sha1opt_ia32cap;\n"
        f"static const unsigned char data[{len(blocks)}] = {{{', '.join(str(b) for b in blocks)}}};\n"
        "int main(void) { uint32_t h[5] = {" + ", ".join(f"{w:#x}u" for w in IV) + "};\n"
        f"  sha1_block_data_order(h, data, {len(blocks) // 64});\n"
        '  printf("%x", sha1opt_ia32cap); for (int i = 0; i < 5; i++) printf(" %08x", h[i]); printf("\\n");\n'
        "  return 0; }\n")
    exe = tmp_path / "main"
    run([which("gcc"), "-O1", "-o", str(exe), str(main), str(res.path)], "linking the user program")
    out = run([str(exe)], "the user program").stdout.split()
    assert int(out[0], 16) == word_from_cpu_flags(cpu_flags())
    assert bytes.fromhex("".join(out[1:])) == hashlib.sha1(msg).digest()


def test_regression_a_word_in_bss_cannot_be_preset(tmp_path):
    """objcopy cannot give a .bss symbol contents: asking must say so, not run the zero word as if forced."""
    src = tmp_path / "bss.S"
    src.write_text(function_text(textbook("x86_64")).replace(
        "sha1_block_data_order:\n", "sha1_block_data_order:\n\ttestb $1, capx(%rip)\n", 1)
        + "\t.bss\n\t.globl capx\n\t.type capx, @object\ncapx:\n\t.zero 4\n\t.size capx, 4\n")
    uo = load_object(src, tmp_path)
    got = harness_for(uo, "sha1_block_data_order", tmp_path, symbols={"capx": b"\x01\0\0\0"})
    assert isinstance(got, Unavailable) and "no contents" in got.reason
