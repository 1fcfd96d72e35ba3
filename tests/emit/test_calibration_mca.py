"""emit.calibration.newest_llvm_mca: the llvm-mca the host bench uses, and mca_cycles' choice of binary."""

from __future__ import annotations

import os
import shutil

import pytest

from sha1opt.emit import calibration


def test_newest_llvm_mca_is_an_installed_binary_of_the_highest_version():
    tool = calibration.newest_llvm_mca()
    versions = sorted(int(n.rsplit("-", 1)[1]) for n in os.listdir("/usr/bin")
                      if n.startswith("llvm-mca-") and n.rsplit("-", 1)[1].isdigit())
    if versions:
        assert tool == f"/usr/bin/llvm-mca-{versions[-1]}"
    else:
        assert tool == calibration.LLVM_MCA


@pytest.mark.skipif(shutil.which("llvm-mca") is None, reason="needs llvm-mca")
def test_mca_cycles_runs_the_binary_it_is_given():
    """Two dependent adds per iteration: about 2 cycles with any x86 model, whichever llvm-mca runs it."""
    body = "\taddl %ebx, %eax\n\taddl %eax, %ebx\n"
    for tool in {calibration.LLVM_MCA, calibration.newest_llvm_mca()}:
        assert 1.5 <= calibration.mca_cycles(body, "x86_64", "skylake", 100, tool) <= 3
