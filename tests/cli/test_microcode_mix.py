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


SUBJECT_REGS = ("eax", "ebx", "edx", "esi")       # microbench.groups' {a}


def test_every_subject_filler_and_k_once(mm):
    rows = mm.plan()
    assert len(rows) == len(mm.SUBJECTS) * (1 + len(mm.FILLERS) * (len(mm.KS) - 1))
    assert len({(s, f, k) for s, f, k, _t, _g in rows}) == len(rows)
    for subject, filler, k, text, groups in rows:
        lines = text.splitlines()
        assert len(lines) == groups * (1 + k) and 40 <= len(lines) <= mm.SIZE
        heads = lines[::1 + k]
        assert heads == [mm.SUBJECTS[subject].format(a=SUBJECT_REGS[g % 4]) for g in range(groups)]
        fills = [line for n, line in enumerate(lines) if n % (1 + k)]
        assert all(line.split()[0] == mm.FILLERS[filler].split()[0] for line in fills)
        assert not any(r in line for line in fills for r in SUBJECT_REGS)


def test_every_kernel_passes_calibrates_checks(mm):
    model = load_model("zen4")
    ks = [priced(f"mc.{n}", text, model, "test") for n, (*_, text, _g) in enumerate(mm.plan())]
    assert all(isinstance(c, Checked) for c in validate_all(ks, model))
    assert {c for k in ks for c in k.classes} >= {"double_rot", "double_shift", "rot_imm", "lea_simple", "load",
                                                   "nop"}
