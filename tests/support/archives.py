"""An installed archive's member, extracted once into a test's temporary folder (tests of other libraries' code).

``member_file(lib, member, folder)``: ``ar p LIB MEMBER`` written to ``folder/MEMBER``; the test is skipped, with
the reason, when the archive is not installed (setup/system-packages.sh installs it as root) or lacks the member.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.emit.toolchain import run_child, which


def member_file(lib: Path, member: str, folder: Path) -> Path:
    if not lib.exists():
        pytest.skip(f"{lib} missing (setup/system-packages.sh installs it as root)")
    proc = run_child([which("ar"), "p", str(lib), member], f"extracting {member}")
    if proc.returncode != 0 or not proc.stdout:
        pytest.skip(f"{lib} has no member {member}")
    out = folder / member
    out.write_bytes(proc.stdout)
    return out
