"""The native toolchain: ``as``, ``gcc``, ``ld`` and ``objdump`` as argument lists.

Invariants: no shell, ever (argument lists only); every tool failure becomes
a ``ToolchainError`` whose one-line message starts with the tool's own first
error line; outputs go into a caller-owned directory, so nothing half-built
is left where a user would find it.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch


class ToolchainError(Sha1optError):
    """An external tool is missing or reported an error."""


def host_is_x86_64() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64")


def cpu_flags() -> set[str]:
    """The host CPU's feature flags from /proc/cpuinfo (empty when unknown)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def which(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise ToolchainError(f"{tool} not found on PATH")
    return path


def run(args: list[str], what: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise ToolchainError(f"{args[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"{what}: {args[0]} timed out after {timeout:.0f} s") from None
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "rror" in ln), lines[0] if lines else f"exit status {proc.returncode}")
        raise ToolchainError(f"{what}: {first.strip()}")
    return proc


def assemble(source: str, arch: Arch, workdir: Path, name: str = "code") -> Path:
    """Assemble AT&T ``source`` with GNU as into ``workdir/name.o``."""
    src = workdir / f"{name}.s"
    obj = workdir / f"{name}.o"
    src.write_text(source)
    run([which("as"), "--32" if arch == "i386" else "--64", "-o", str(obj), str(src)], "assembler")
    return obj


def link_shared(objects: list[Path], out: Path) -> Path:
    """Link x86-64 objects into a shared library loadable with ctypes."""
    run([which("gcc"), "-shared", "-nostartfiles", "-o", str(out), *map(str, objects)], "linker")
    return out


def compile_preprocessed(source: str, arch: Arch, workdir: Path, name: str = "code") -> Path:
    """Assemble a ``.S`` through gcc (so through cpp), as a user's build would."""
    src = workdir / f"{name}.S"
    obj = workdir / f"{name}.o"
    src.write_text(source)
    run([which("gcc"), "-m32" if arch == "i386" else "-m64", "-c", "-o", str(obj), str(src)], "gcc -c (with cpp)")
    return obj
