"""``export --isa shani``: the SHA-NI function is written only after the whole-function proof from its object.

Rules (emit/shani_export.py): the checks are a user's .S checks (assemble, object, lift, prove, vectors),
the prove check is the whole function read back from the machine code, and nothing is written when a
check fails (a wrong sha1rnds4 immediate is refused by the proof, before any native run).
"""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner

from sha1opt.cli import main
from sha1opt.emit.shani_export import export_shani
from sha1opt.search.space import shani as space_shani
from sha1opt.search.space.shani import default_params
from sha1opt.semantics.x86 import Imm
from tests.support.cpu import needs

needs_sha = needs("sha", "sse4.1")


@needs_sha
@pytest.mark.parametrize("arch", ["x86_64", "i386"])
def test_shani_export_is_proved_whole_from_its_object_then_written(tmp_path, arch):
    out = tmp_path / f"s_{arch}.S"
    r = export_shani(default_params(arch), arch, out)
    names = [c.name for c in r.validation.checks]
    assert r.ok, [(c.name, c.detail) for c in r.validation.checks]
    assert names[:4] == ["assemble", "object", "lift", "prove"] and "vectors" in names
    prove = next(c for c in r.validation.checks if c.name == "prove")
    assert "nblocks" in prove.detail and out.exists()


def test_shani_export_with_a_wrong_round_function_writes_nothing(tmp_path, monkeypatch):
    real = space_shani.parts

    def broken(params, arch):
        p = real(params, arch)
        body = list(p.body)
        k = next(i for i, t in enumerate(body) if t.mnemonic == "sha1rnds4" and t.operands[0] == Imm(1))
        body[k] = dataclasses.replace(body[k], operands=(Imm(2), *body[k].operands[1:]))
        return dataclasses.replace(p, body=tuple(body))

    monkeypatch.setattr("sha1opt.emit.shani_frame.parts", broken)
    out = tmp_path / "bad.S"
    r = export_shani(default_params("x86_64"), "x86_64", out)
    assert not r.ok and not out.exists()
    failed = next(c for c in r.validation.checks if not c.ok)
    assert failed.name == "prove" and "counterexample" in failed.detail, failed.detail
    assert "vectors" not in [c.name for c in r.validation.checks]


@needs_sha
def test_cli_export_isa_shani_writes_a_validated_file(tmp_path):
    out = tmp_path / "cli.S"
    res = CliRunner().invoke(main, ["export", "-o", str(out), "--isa", "shani"])
    assert res.exit_code == 0, res.output
    assert "SHA-NI" in res.output and "[ok] prove" in res.output and out.exists()


PRELOADED = space_shani.ShaniParams(msg1_lead=4, xor_lead=4, msg2_lead=4, sched_after=True, preload=2)


@needs_sha
def test_a_software_pipelined_export_is_proved_whole_then_written(tmp_path):
    out = tmp_path / "pre.S"
    r = export_shani(PRELOADED, "x86_64", out)
    assert r.ok, [(c.name, c.detail) for c in r.validation.checks]
    assert "cmovne" in out.read_text()


def test_a_pipelined_loop_that_never_advances_is_refused_by_the_whole_function_proof(tmp_path, monkeypatch):
    # the unit (one block) is still right -- its proof passes -- but block i+1's words are block i's again:
    # only the whole-function proof from the machine code sees the loop
    real = space_shani.parts

    def stuck(params, arch):
        p = real(params, arch)
        return dataclasses.replace(p, head=p.head[:1])      # dec %rdx only: no lea / cmovne

    monkeypatch.setattr("sha1opt.emit.shani_frame.parts", stuck)
    assert space_shani.prove_shani(PRELOADED, "x86_64").ok
    out = tmp_path / "stuck.S"
    r = export_shani(PRELOADED, "x86_64", out)
    assert not r.ok and not out.exists()
    failed = next(c for c in r.validation.checks if not c.ok)
    assert failed.name == "prove", (failed.name, failed.detail)
    assert "vectors" not in [c.name for c in r.validation.checks]
