"""bench/microcode_mix.py's kernels (nothing timed): what it times is what its docstring says.

What is proved: every kernel is one subject and k fillers per group, about 48 instructions, for every subject,
filler and k; each passes calibrate's checks (``microbench.validate_all``: registers and the private buffer
only, the machine code the intended instructions) -- the only kernels it ever runs natively; and the fillers
never read what a subject writes (nothing chains a group to the next but a subject's own register).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from sha1opt.emit.microbench import Checked, priced, validate_all
from sha1opt.search.cost.model import load_model

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mm(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))    # the script imports its sibling pair_table.py
    return importlib.import_module("microcode_mix")


def test_every_subject_filler_and_k_once(mm):
    rows = mm.plan(load_model("zen4"))
    assert len(rows) == len(mm.SUBJECTS) * (1 + len(mm.FILLERS) * (len(mm.KS) - 1))
    for subject, filler, k, text, groups in rows:
        lines = text.splitlines()
        assert len(lines) == groups * (1 + k) and 40 <= len(lines) <= mm.SIZE
        heads = lines[::1 + k]
        assert all(h.split()[0] == mm.SUBJECTS[subject].split()[0] for h in heads)
        written = {h.rsplit("%", 1)[1] for h in heads}
        assert written <= set(mm.SUBJECT_REGS)
        assert not any(r in line for line in lines if line not in heads for r in mm.SUBJECT_REGS)


def test_every_kernel_passes_calibrates_checks(mm):
    model = load_model("zen4")
    ks = [priced(f"mc.{n}", text, model, "test") for n, (*_, text, _g) in enumerate(mm.plan(model))]
    assert all(isinstance(c, Checked) for c in validate_all(ks, model))
    assert {c for k in ks for c in k.classes} >= {"double_rot", "double_shift", "rot_imm", "lea_simple", "load",
                                                   "nop"}
