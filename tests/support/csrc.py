"""A C source of the tests' own (``tests/semantics/lift/csrc``) compiled with gcc -O2 at test time.

``compile_c(source, folder, *defines)``: ``gcc -O2 -DNAME=VALUE... -c source`` written to ``folder/STEM.o`` and
parsed; the test is skipped, with the reason, when gcc is not installed (setup/system-packages.sh installs it).
Example: ``compile_c(C_SOURCE, tmp_path_factory.mktemp("setcc"), "K3_TWO=0x8f1bbcddu")`` builds the mutant.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile


def compile_c(source: Path, folder: Path, *defines: str) -> ObjectFile:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed (setup/system-packages.sh installs it as root)")
    out = folder / f"{source.stem}.o"
    subprocess.run([gcc, "-O2", *(f"-D{d}" for d in defines), "-c", "-o", str(out), str(source)],
                   check=True, timeout=120)
    return ObjectFile.parse(out.read_bytes())
