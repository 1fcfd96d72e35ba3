"""The layers after the proof: each test builds a defect that slips past every earlier layer.

The proof trusts two things it cannot check itself: that ``x86.SEMANTICS``
says what the CPU does, and that the assembler turns the same text into the
same machine code every time. The native vector run and the re-assembly byte
comparison are the nets for those two; without a test that reaches them, either
net could be switched off with the suite still green (issue 13, item 7).
"""

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

import sha1opt.emit.toolchain as toolchain
from sha1opt.emit.assembly import SYMBOL, function_text
from sha1opt.emit.export import export
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics import x86
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Instr, Reg

pytestmark = pytest.mark.skipif(not toolchain.host_is_x86_64(), reason="native validation needs an x86-64 host")


def _add_f_replaced_by_sub(arch="x86_64", round_=10):
    """The textbook block with round ``round_``'s ``add %tmp, %e`` (e += f) turned into ``sub``.

    Nothing else in the textbook block uses ``sub``, so a table in which ``sub``
    means ``add`` proves this block SHA-1 while the CPU computes e - f.
    """
    sched = textbook(arch)
    assert not any(i.mnemonic == "sub" for i in sched.body)
    body = list(sched.body)
    k = next(i for i in range(sched.round_starts[round_], sched.round_starts[round_ + 1])
             if body[i].mnemonic == "add" and all(isinstance(o, Reg) for o in body[i].operands))
    body[k] = Instr("sub", body[k].operands)
    return replace(sched, body=tuple(body))


def test_injected_sub_really_is_wrong_under_the_true_table(tmp_path):
    """The defect of the next test is real: with the real table the proof refuses it."""
    sched = _add_f_replaced_by_sub()
    v = validate(function_text(sched), sched, tmp_path, native=False)
    assert v.failure is not None and v.failure.name == "prove", v.checks
    assert "round 10" in v.failure.detail


def test_semantics_entry_that_disagrees_with_the_cpu_is_refused_by_the_native_vectors_only(tmp_path, monkeypatch):
    """A wrong row in x86.SEMANTICS (``sub`` computed as ``add``) makes the proof pass on code the CPU
    computes differently; only the native digest comparison in ``run_vectors`` stands between that
    and a file reported "validated"."""
    wrong = replace(x86.SEMANTICS["sub"], fn=x86.SEMANTICS["add"].fn)
    monkeypatch.setitem(x86.SEMANTICS, "sub", wrong)
    out = tmp_path / "wrong.S"
    res = export(_add_f_replaced_by_sub(), out)
    checks = res.validation.checks
    assert [c.name for c in checks] == ["assemble", "lift", "prove", "vectors"]
    assert [c.ok for c in checks] == [True, True, True, False], checks   # every layer before it passed
    assert not res.ok and not out.exists()
    detail = res.validation.failure.detail
    # A digest mismatch (not a crash, not a harness flag) on the very first record, the empty message.
    assert detail.startswith("fips180/empty: got "), detail
    assert detail.endswith(f", want {hashlib.sha1(b'').hexdigest()}"), detail


def _second_assembly_differs(monkeypatch):
    """Wrap ``toolchain.run`` so every assembly of our function after the first gets different text.

    The first assembly of a source defining ``sha1_block_data_order:`` (the one
    validated) is left alone; from the second on, the first ``ror $2`` becomes
    ``ror $3`` just before the tool reads the file: same length, other bytes,
    an assembler that "emits something else the second time".
    Returns the list of sources seen, in order.
    """
    real_run = toolchain.run
    seen: list[Path] = []

    def run(args, what, *rest, **kw):
        src = next((Path(a) for a in args if a.endswith((".s", ".S"))), None)
        if src is not None and src.is_file() and f"{SYMBOL}:" in src.read_text():
            seen.append(src)
            if len(seen) > 1:
                text = src.read_text()
                assert "ror $2, " in text
                src.write_text(text.replace("ror $2, ", "ror $3, ", 1))
        return real_run(args, what, *rest, **kw)

    monkeypatch.setattr(toolchain, "run", run)
    return seen


def test_reassembly_that_differs_from_the_validated_object_is_refused_and_nothing_written(tmp_path, monkeypatch):
    """Everything validated passes (the first assembly is untouched); only the comparison of the
    written file's re-assembly with the validated object stops the export."""
    seen = _second_assembly_differs(monkeypatch)
    out = tmp_path / "drift.S"
    with pytest.raises(Sha1optError, match="different code than was validated"):
        export(textbook("x86_64"), out)
    assert len(seen) == 2                 # the validated assembly, then the re-assembly of the final text
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_reassembly_wrapper_leaves_an_honest_export_alone(tmp_path, monkeypatch):
    """Control for the test above: with the wrapper installed but only one assembly, nothing differs."""
    seen = _second_assembly_differs(monkeypatch)
    v = validate(function_text(textbook("x86_64")), textbook("x86_64"), tmp_path, native=False)
    assert v.ok, v.failure
    assert len(seen) == 1
