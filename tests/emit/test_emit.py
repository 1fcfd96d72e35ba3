"""Export validates what the assembler produced, natively and by proof, and writes nothing otherwise."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cpu import needs
import sha1opt.emit.bench as bench_module
from sha1opt.cli import main
from sha1opt.emit.assembly import function_text, guess_arch
from sha1opt.emit.export import export
from sha1opt.emit.harness import BlockHarness, HarnessError, Record
from sha1opt.emit.peers import gcc_reference_loop, libcrypto
from sha1opt.emit.toolchain import ToolchainError, cflags, csrc, run, which
from sha1opt.emit.validate import run_vectors, validate
from sha1opt.search.cost.model import load_model
from sha1opt.search.driver import model_version
from sha1opt.search.space.candidate import textbook
from sha1opt.search.space.recipe import TEXTBOOK
from sha1opt.search.store import Store
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg

pytestmark = needs()                       # native validation of base x86 code


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_export_validates_and_writes(textbook_exports, arch):
    res = textbook_exports[arch]        # export(textbook(arch), F), made once for the session (tests/conftest.py)
    assert res.ok, res.validation.failure
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    text = res.path.read_text()
    assert "proof: prove: machine code = SHA-1 compression" in text
    assert ".note.GNU-stack" in text and f".type sha1_block_data_order" in text
    assert res.validation.proof.proved and "160 cuts" in res.validation.checks[2].detail


def test_macho_flavor_differs_only_in_directives(tmp_path):
    sched = textbook("x86_64")
    res = export(sched, tmp_path / "m.S", flavor="macho")
    assert res.ok
    text = (tmp_path / "m.S").read_text()
    assert "_sha1_block_data_order:" in text
    assert ".type" not in text and ".size" not in text and "GNU-stack" not in text
    elf = function_text(sched, "elf")
    strip = lambda t: [ln for ln in t.splitlines() if not re.search(r"\.type|\.size|GNU-stack|\.globl|^_?sha1_block|^\.?L|/\*|^ \*", ln)
                       and "Lsha1" not in ln]
    assert strip(text) == strip(elf)


def _corrupt(sched, round_, pick, new):
    body = list(sched.body)
    k = next(i for i in range(sched.round_starts[round_], sched.round_starts[round_ + 1]) if pick(body[i]))
    if new is None:
        del body[k]
    else:
        body[k] = new(body[k])
    return replace(sched, body=tuple(body))


def test_wrong_register_refused_with_counterexample_and_no_file(tmp_path):
    sched = textbook("x86_64")
    bad = _corrupt(sched, 45, lambda i: i.mnemonic == "and",
                   lambda i: Instr("and", (Reg("eax") if i.operands[0] != Reg("eax") else Reg("ebx"), i.operands[1])))
    out = tmp_path / "bad.S"
    res = export(bad, out)
    assert not res.ok and not out.exists()
    fail = res.validation.failure
    assert fail.name == "prove"
    assert "round 45" in fail.detail and "counterexample:" in fail.detail
    assert list(tmp_path.iterdir()) == []          # no temp file left behind either


def test_missing_rotate_refused_with_counterexample_and_no_file(tmp_path):
    sched = textbook("i386")
    bad = _corrupt(sched, 22, lambda i: i.mnemonic == "ror", None)
    out = tmp_path / "bad.S"
    res = export(bad, out)
    assert not res.ok and not out.exists()
    assert res.validation.failure.name == "prove" and "counterexample:" in res.validation.failure.detail


def test_assembler_error_refused_and_no_file(tmp_path, monkeypatch):
    import sha1opt.emit.export as ex
    monkeypatch.setattr(ex, "function_text", lambda *a, **k: "\t.text\n\tfrobnicate %eax\n")
    out = tmp_path / "x.S"
    res = ex.export(textbook("x86_64"), out)
    assert not res.ok and not out.exists()
    assert res.validation.failure.name == "assemble"
    assert "frobnicate" in res.validation.failure.detail


def _validate(tmp_path, sched, text=None):
    return validate(text or function_text(sched), sched, tmp_path)


def _refused_by_the_proof(v, *needles):
    """The whole-function proof caught it: nothing was run natively."""
    assert v.failure.name == "prove" and "vectors" not in [c.name for c in v.checks], v.checks
    for n in needles:
        assert n in v.failure.detail, v.failure.detail


def test_clobbered_callee_saved_register_caught_by_the_proof(tmp_path):
    sched = textbook("x86_64")
    text = function_text(sched).replace("\tpush %rbx\n", "").replace("\tpop %rbx\n", "")
    _refused_by_the_proof(_validate(tmp_path, sched, text), "callee-saved %ebx is not restored")


def test_write_before_state_caught_by_the_proof(tmp_path):
    sched = textbook("x86_64")
    bad = replace(sched, body=sched.body + (Instr("mov", (Reg("eax"), Mem(Reg("edi", 64), None, 1, -4))),))
    _refused_by_the_proof(_validate(tmp_path, bad), "writes outside the 5 state words")


def test_read_past_the_block_caught_by_the_proof(tmp_path):
    sched = textbook("x86_64")
    bad = replace(sched, body=(Instr("mov", (Mem(Reg("esi", 64), None, 1, 64), Reg("r10d"))),) + sched.body)
    _refused_by_the_proof(_validate(tmp_path, bad), "reads past the end of the data (block+64)")


def test_wrong_loop_advance_refused_by_the_proof(tmp_path):
    sched = textbook("x86_64")
    text = function_text(sched).replace("add $64, %rsi", "add $32, %rsi")
    _refused_by_the_proof(_validate(tmp_path, sched, text), "loop at 0x")


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_c_peer_is_correct(tmp_path, arch):
    obj = tmp_path / "ref.o"
    run([which("gcc"), *cflags(arch), "-Dsha1_ref_block_data_order=sha1_block_data_order", "-c", "-o", str(obj),
         str(csrc("sha1_ref.c"))], "compile")
    ok, detail = run_vectors(BlockHarness(obj, arch, tmp_path))
    assert ok, detail


def test_export_cli(tmp_path):
    out = tmp_path / "s.S"
    r = CliRunner().invoke(main, ["export", "-o", str(out), "--arch", "i386"])
    assert r.exit_code == 0 and out.exists(), r.output
    r = CliRunner().invoke(main, ["export", "-o", str(tmp_path / "nodir" / "s.S")])
    assert r.exit_code == 2 and "no such directory" in r.output


BENCH_KEYS = ("ratio_median", "ratio_p10", "ratio_p90", "ratio_of_minima", "ours_ticks_per_byte",
              "peer_ticks_per_byte", "ours_ns_per_byte", "bytes_per_call", "pairs")


def _bench_json(textbook_file, *args):
    out = textbook_file("x86_64", "s.S")      # a copy of the session's validated textbook export
    r = CliRunner().invoke(main, ["bench", str(out), "--pairs", "2", "--sizes", "64", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.skipif(libcrypto() is None, reason="libcrypto not installed: there is no OpenSSL peer to measure")
def test_bench_json_has_promised_fields_for_gcc_and_openssl(textbook_file):
    data = _bench_json(textbook_file, "--openssl", "integer")
    assert data["arch"] == "x86_64" and data["tsc_hz"] > 1e8 and "not core cycles" in data["tsc_note"]
    assert [row["peer"] for row in data["results"]] == ["gcc -O2 C", "OpenSSL integer"]
    for row in data["results"]:
        for key in BENCH_KEYS:
            assert key in row
        assert row["ratio_p10"] <= row["ratio_median"] <= row["ratio_p90"]


def test_bench_without_libcrypto_measures_gcc_and_says_openssl_was_skipped(textbook_file, monkeypatch):
    monkeypatch.setattr(bench_module, "libcrypto", lambda: None)
    data = _bench_json(textbook_file, "--openssl", "integer")
    assert [row["peer"] for row in data["results"]] == ["gcc -O2 C"]
    assert data["notes"] == ["libcrypto not found: OpenSSL peers skipped"]


def test_export_names_a_stored_result_that_rebuilds_to_different_code(tmp_path):
    """Regression: a stored row whose candidate no longer rebuilds to its stored code was reported as
    "default schedule (no stored result for this key)", hiding that a result exists and why it was not used."""
    db = tmp_path / "results.sqlite"
    store = Store(db)
    store.put(uarch="p4", arch="i386", first=20, last=39, model_version=model_version(load_model("p4")),
              cycles=1.0, recipe=TEXTBOOK.key(), offsets=(), code="not what the candidate rebuilds to",
              evaluations=1, seconds=0.0, seed=0, proved=True)
    store.close()
    r = CliRunner().invoke(main, ["export", "-o", str(tmp_path / "p4.S"), "--uarch", "p4", "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert ("rounds 20-39: stored result for rounds 20-39 on p4 rebuilds to different code: "
            "using the default schedule for that range") in r.output
    assert "rounds 0-19: default schedule\n" in r.output     # a range with no stored result says just that


def test_bench_rejects_bad_sizes(tmp_path):
    f = tmp_path / "s.S"
    f.write_text("\n")
    r = CliRunner().invoke(main, ["bench", str(f), "--sizes", "100"])
    assert r.exit_code == 2 and "multiples of 64" in r.output


def test_guess_arch_reads_64_bit_register_names():
    assert guess_arch(function_text(textbook("x86_64"))) == "x86_64"
    assert guess_arch(function_text(textbook("i386"))) == "i386"
    assert guess_arch("mov %r8, %rax\n") == "x86_64" and guess_arch("mov %eax, %ebx\n") == "i386"


@pytest.mark.parametrize("arch, mtune", [("i386", "pentium4"), ("x86_64", "znver3")])
def test_gcc_reference_loop_is_the_block_loop_and_says_how_it_was_built(arch, mtune):
    items, description = gcc_reference_loop(arch, mtune)
    assert description == f"gcc -O2 -mtune={mtune} {'-m32' if arch == 'i386' else '-m64'}"
    assert items[-1].kind == "branch" and items[-1].mnemonic != "jmp"      # ends at the backward branch
    assert sum(isinstance(it, Instr) for it in items) > 400               # 80 rounds of a few instructions each


def test_gcc_reference_loop_failure_is_a_toolchain_error():
    with pytest.raises(ToolchainError, match="no-such-cpu"):
        gcc_reference_loop("x86_64", "no-such-cpu")


def test_harness_record_of_partial_block_is_a_sha1opt_error():
    with pytest.raises(HarnessError, match="whole 64-byte blocks"):
        Record((0,) * 5, b"x" * 65).encode()
    assert issubclass(HarnessError, Sha1optError)
