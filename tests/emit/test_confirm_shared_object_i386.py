"""An i386 shared object's function is run natively too: a wrong one is a counterexample confirmed in the harness.

Rule (``emit.confirm.shared_harness``, ``csrc/dlopen_main.c`` built with ``gcc -m32``): the 32-bit harness
needs gcc's multilib files (gcc-multilib, libc6-dev-i386), which setup/system-packages.sh installs; before,
every i386 ``.so`` mutant was "Unavailable" with gcc's message about the missing 32-bit C library, so none was
confirmed natively. The object is a stripped i386 ``.so`` built here from C written here
(``csrc/sha1_shared.c``) with round 40-59's constant off by one: the counterexample must be confirmed natively.
Skips with the reason where ``gcc -m32`` cannot link a program (no multilib files on this host).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cpu import needs
from sha1opt.analyze import prove_object
from sha1opt.emit.confirm import Finding
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.lift.interface import KEYWORDS

pytestmark = needs()

SOURCE = Path(__file__).parent / "csrc" / "sha1_shared.c"


def _m32_links(work: Path) -> str | None:
    """Why ``gcc -m32`` cannot link a program here, or None."""
    src = work / "t.c"
    src.write_text("int main(void) { return 0; }\n")
    got = subprocess.run([which("gcc"), "-m32", str(src), "-o", str(work / "t")], capture_output=True, text=True,
                         timeout=120)
    return None if got.returncode == 0 else " ".join(got.stderr.split())[:200]


def test_a_wrong_i386_shared_object_is_refuted_natively(tmp_path):
    why = _m32_links(tmp_path)
    if why is not None:
        pytest.skip(f"gcc -m32 cannot link here ({why}): gcc-multilib (setup/system-packages.sh installs it as root)")
    so = tmp_path / "libsha1_shared.so"
    run([which("gcc"), "-m32", "-O2", "-fno-tree-vectorize", "-fPIC", "-shared", "-s", "-fno-stack-protector",
         "-DW80_K3=0x8f1bbcddu", "-o", str(so), str(SOURCE)], "building the i386 test shared object")
    res = prove_object(so, function="sha1_shared_compress", interface=KEYWORDS["one-block"], workdir=tmp_path)
    assert res.arch == "i386"
    assert res.outcome == "counterexample" and isinstance(res.native, Finding), (res.summary()[:300], res.native)
