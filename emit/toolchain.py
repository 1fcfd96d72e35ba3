"""The native toolchain: ``as``, ``gcc``, ``ld`` and ``objdump`` as argument lists.

Invariants: no shell, ever (argument lists only); every tool failure becomes
a ``ToolchainError`` whose one-line message starts with the tool's own first
error line; outputs go into a caller-owned directory, so nothing half-built
is left where a user would find it.

This is the one place for C builds and their flags: the freestanding flags
(``cflags``), compiling a C or assembly source (``compile_source``), gcc's
assembly of a C file (``c_assembly``) and static linking with our own
``_start`` (``link_static``). Example: the harness is
``compile_source(csrc("harness.c"), "i386", obj, "compiling the harness", FREESTANDING_FLAGS)``,
i.e. ``gcc -m32 -O2 -ffreestanding ... -c -o obj harness.c``.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.x86 import Arch

# Freestanding C (no libc, no stack protector, no CET notes, no unwind tables): what the
# harness and the i386 benchmark are built with, so the i386 build needs no 32-bit libraries.
FREESTANDING_FLAGS = ("-O2", "-ffreestanding", "-nostdlib", "-fno-pie", "-fno-stack-protector", "-fno-builtin",
                      "-fcf-protection=none", "-fno-asynchronous-unwind-tables")
# gcc -S of a C file: no .cfi noise and no PIC indirections in the listing.
ASSEMBLY_FLAGS = ("-fno-asynchronous-unwind-tables", "-fno-pie")


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


def run(args: list[str], what: str, timeout: float = 120.0, input: str | None = None) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False, input=input)
    except FileNotFoundError:
        raise ToolchainError(f"{args[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"{what}: {args[0]} timed out after {timeout:.0f} s") from None
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "rror" in ln), lines[0] if lines else f"exit status {proc.returncode}")
        raise ToolchainError(f"{what}: {first.strip()}")
    return proc


def csrc(name: str) -> Path:
    """A file of ``emit/csrc/`` (the C harness, the bench program, the reference C), installed or not."""
    try:
        p = Path(str(resources.files("sha1opt.emit") / "csrc" / name))
        if p.exists():
            return p
    except ModuleNotFoundError:  # pragma: no cover
        pass
    return Path(__file__).resolve().parent / "csrc" / name


def arch_flag(arch: Arch) -> str:
    """gcc's word-size flag: ``-m32`` for i386, ``-m64`` for x86-64."""
    return "-m32" if arch == "i386" else "-m64"


def cflags(arch: Arch) -> list[str]:
    """The freestanding C flags for ``arch``: ``["-m32", "-O2", "-ffreestanding", ...]``."""
    return [arch_flag(arch), *FREESTANDING_FLAGS]


def compile_source(src: Path, arch: Arch, obj: Path, what: str, flags: Sequence[str] = ()) -> Path:
    """``gcc -m32|-m64 <flags> -c -o obj src``: a C file, or a ``.S`` (through cpp) / ``.s`` file."""
    run([which("gcc"), arch_flag(arch), *flags, "-c", "-o", str(obj), str(src)], what)
    return obj


def c_assembly(src: Path, arch: Arch, flags: Sequence[str] = ()) -> str:
    """gcc -O2 (then ``flags``) assembly of the C file ``src``, as text (``-S``, no unwind tables, no PIE)."""
    with tempfile.TemporaryDirectory(prefix="sha1opt-gcc-") as d:
        out = Path(d) / f"{src.stem}.s"
        run([which("gcc"), "-O2", arch_flag(arch), *flags, *ASSEMBLY_FLAGS, "-S", "-o", str(out), str(src)],
            f"compiling {src.name} to assembly")
        return out.read_text()


def link_static(objects: Sequence[Path], arch: Arch, exe: Path, what: str) -> Path:
    """``ld -static -e _start``: objects (one of them defining ``_start``) into a libc-free executable."""
    emu = "elf_i386" if arch == "i386" else "elf_x86_64"
    run([which("ld"), "-m", emu, "-static", "-e", "_start", "-o", str(exe), *map(str, objects)], what)
    return exe


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
    src.write_text(source)
    return compile_source(src, arch, workdir / f"{name}.o", "gcc -c (with cpp)")


def compile_text(source: str, arch: Arch, workdir: Path, name: str) -> Path:
    """Assemble AT&T text as a ``.s`` through gcc: GNU as reads /* */ comments of our files and gcc's output alike."""
    src = workdir / f"{name}.s"
    src.write_text(source)
    return compile_source(src, arch, workdir / f"{name}.o", f"assembling {name}")
