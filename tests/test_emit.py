"""Export validates what the assembler produced, natively and by proof, and writes nothing otherwise."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.assembly import function_text
from sha1opt.emit.export import export
from sha1opt.emit.harness import BlockHarness
from sha1opt.emit.toolchain import assemble, host_is_x86_64, run, which
from sha1opt.emit.validate import run_vectors, validate
from sha1opt.emit.harness import csrc, cflags
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg

pytestmark = pytest.mark.skipif(not host_is_x86_64(), reason="native validation needs an x86-64 host")


@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_export_validates_and_writes(tmp_path, arch):
    out = tmp_path / f"sha1-{arch}.S"
    res = export(textbook(arch), out)
    assert res.ok, res.validation.failure
    assert [c.name for c in res.validation.checks] == ["assemble", "lift", "prove", "vectors"]
    text = out.read_text()
    assert "proof: prove: machine code = SHA-1 compression" in text
    assert ".note.GNU-stack" in text and f".type sha1_block_data_order" in text
    assert res.validation.proof.cuts == 160


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


def test_clobbered_callee_saved_register_caught_natively(tmp_path):
    sched = textbook("x86_64")
    text = function_text(sched).replace("\tpush %rbx\n", "").replace("\tpop %rbx\n", "")
    v = _validate(tmp_path, sched, text)
    assert v.checks[2].ok                      # the body is still SHA-1 ...
    assert v.failure.name == "vectors" and "callee-saved" in v.failure.detail   # ... but the ABI is broken


def test_write_before_state_caught_by_canary(tmp_path):
    sched = textbook("x86_64")
    bad = replace(sched, body=sched.body + (Instr("mov", (Reg("eax"), Mem(Reg("edi", 64), None, 1, -4))),))
    v = _validate(tmp_path, bad)
    assert v.checks[2].ok, v.checks[2].detail  # invisible to the proof (other words of state are right)
    assert v.failure.name == "vectors" and "before the state" in v.failure.detail


def test_read_past_the_block_faults_on_guard_page(tmp_path):
    sched = textbook("x86_64")
    bad = replace(sched, body=(Instr("mov", (Mem(Reg("esi", 64), None, 1, 64), Reg("r10d"))),) + sched.body)
    v = _validate(tmp_path, bad)
    assert v.checks[2].ok
    assert v.failure.name == "vectors" and "SIGSEGV" in v.failure.detail


def test_wrong_loop_advance_refused_at_lift(tmp_path):
    sched = textbook("x86_64")
    text = function_text(sched).replace("add $64, %rsi", "add $32, %rsi")
    v = _validate(tmp_path, sched, text)
    assert v.failure.name == "lift" and "loop control" in v.failure.detail


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


def test_bench_json_has_promised_fields(tmp_path):
    out = tmp_path / "s.S"
    assert export(textbook("x86_64"), out).ok
    r = CliRunner().invoke(main, ["bench", str(out), "--pairs", "2", "--sizes", "64", "--openssl", "integer", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["arch"] == "x86_64" and data["tsc_hz"] > 1e8 and "not core cycles" in data["tsc_note"]
    peers = {row["peer"] for row in data["results"]}
    assert {"gcc -O2 C", "OpenSSL integer"} <= peers or peers == {"gcc -O2 C"}
    for row in data["results"]:
        for key in ("ratio_median", "ratio_p10", "ratio_p90", "ratio_of_minima", "ours_ticks_per_byte",
                    "peer_ticks_per_byte", "ours_ns_per_byte", "bytes_per_call", "pairs"):
            assert key in row
        assert row["ratio_p10"] <= row["ratio_median"] <= row["ratio_p90"]


def test_bench_rejects_bad_sizes(tmp_path):
    f = tmp_path / "s.S"
    f.write_text("\n")
    r = CliRunner().invoke(main, ["bench", str(f), "--sizes", "100"])
    assert r.exit_code == 2 and "multiples of 64" in r.output
