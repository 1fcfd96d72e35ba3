"""Compiled C proves through the same path: gcc and clang, -O2/-O3, -m32/-m64, PIE/-fPIC/-fno-pie.

The sources are the project's own: ``emit/csrc/sha1_ref.c`` (80 rounds
unrolled by the preprocessor) and ``emit/csrc/sha1_rolled.c`` (one loop over
the rounds). A fast, representative slice runs here (each build ~5 s); the
whole 24-build matrix is ``bench/lift.py`` (output in ``bench/results/lift.txt``).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.toolchain import csrc


def _build(tmp_path, cc: str, src: str, flags: list[str]):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed (setup/system-packages.sh installs it as root)")
    out = tmp_path / f"{src}.o"
    subprocess.run([cc, *flags, "-c", "-o", str(out), str(csrc(f"{src}.c"))], check=True, timeout=120)
    return out


@pytest.mark.parametrize("cc, src, flags", [
    ("gcc", "sha1_ref", ["-O2", "-m32"]),                  # Debian's gcc: PIE by default
    ("gcc", "sha1_rolled", ["-O3", "-m32", "-fPIC"]),
    ("clang", "sha1_ref", ["-O2", "-m64", "-fno-pie"]),
    ("clang", "sha1_rolled", ["-O2", "-m32"]),
])
def test_compiled_c_proves_whole_function(tmp_path, cc, src, flags):
    obj = _build(tmp_path, cc, src, flags)
    res = prove_object(obj, function=f"{src}_block_data_order")
    assert res.proved, res.summary()
    assert [p.outcome for p in res.proof.paths] == ["proved", "proved"]      # nblocks = 0, and the loop
    assert res.contract.min_blocks == 0


def test_gcc_x86_64_build_proves(tmp_path):
    """gcc -m64 vectorizes the state load and feed-forward (movd, punpckldq, punpcklqdq, movups)."""
    obj = _build(tmp_path, "gcc", "sha1_ref", ["-O2", "-m64"])
    res = prove_object(obj, function="sha1_ref_block_data_order")
    assert res.proved, res.summary()
