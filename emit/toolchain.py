"""The native toolchain: ``as``, ``gcc``, ``ld`` and ``objdump`` as argument lists.

Invariants: no shell, ever (argument lists only); every child -- a tool or
validated native code -- runs through ``run_child``: its own process group,
stdin from a pipe or /dev/null, rlimits and a wall-time limit
(``semantics.limits``), the group killed when the call returns or is
interrupted; every tool failure becomes a ``ToolchainError`` whose one-line
message (at most ``limits.MESSAGE_CHARS``) starts with the tool's own first
error line, or the limit it ran into; outputs and gcc's temporaries
(``TMPDIR``) go into a caller-owned directory, so nothing half-built is left
where a user would find it.

This is the one place for C builds and their flags: the freestanding flags
(``cflags``), compiling a C or assembly source (``compile_source``), gcc's
assembly of a C file (``c_assembly``), static linking with our own
``_start`` (``link_static``) and a libc program's link (``link_hosted``). Example: the harness is
``compile_source(csrc("harness.c"), "i386", obj, "compiling the harness", FREESTANDING_FLAGS)``,
i.e. ``gcc -m32 -O2 -ffreestanding ... -c -o obj harness.c``.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import multiprocessing
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Callable, Mapping, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import (
    NATIVE_CPU_SECONDS, NATIVE_MEMORY, NATIVE_OUTPUT, NATIVE_SECONDS, TOOL_CPU_SECONDS, TOOL_MEMORY, TOOL_OUTPUT,
    TOOL_SECONDS, clip, size_text,
)
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


@dataclass(frozen=True)
class Limits:
    """Bounds for one child process (numbers from ``semantics.limits``).

    ``seconds`` is wall time (the group is killed past it); ``cpu_seconds``,
    ``memory`` and ``output`` become RLIMIT_CPU, RLIMIT_AS and RLIMIT_FSIZE
    in the child before it executes, so a tool that allocates or writes past
    them stops there, and the reason is named (``output_text``).
    """

    seconds: float
    cpu_seconds: int
    memory: int
    output: int

    def with_seconds(self, seconds: float | None) -> "Limits":
        """These limits with ``seconds`` of wall time (and at least as much CPU time); None keeps them."""
        if seconds is None:
            return self
        return replace(self, seconds=seconds, cpu_seconds=max(self.cpu_seconds, math.ceil(seconds)))


TOOL_LIMITS = Limits(TOOL_SECONDS, TOOL_CPU_SECONDS, TOOL_MEMORY, TOOL_OUTPUT)
NATIVE_LIMITS = Limits(NATIVE_SECONDS, NATIVE_CPU_SECONDS, NATIVE_MEMORY, NATIVE_OUTPUT)

_PR_SET_PDEATHSIG = 1
try:   # resolved once here, not in the forked child
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux
    _PRCTL = None


def _child_setup(limits: Limits):
    """In the child, before exec: resource limits, and die with sha1opt (PR_SET_PDEATHSIG)."""
    def setup() -> None:
        for kind, value in ((resource.RLIMIT_AS, limits.memory), (resource.RLIMIT_CPU, limits.cpu_seconds),
                            (resource.RLIMIT_FSIZE, limits.output), (resource.RLIMIT_CORE, 0)):
            hard = resource.getrlimit(kind)[1]      # never above a tighter limit sha1opt itself runs under
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    return setup


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(args: Sequence[str], what: str, limits: Limits = TOOL_LIMITS, input: bytes | None = None,
              env: Mapping[str, str] | Mapping[bytes, bytes] | None = None) -> subprocess.CompletedProcess:
    """Run ``args`` (a list, never a shell string) as a bounded child; bytes in, bytes out; ``env``: its whole
    environment (None: this process's).

    The child gets its own process group, stdin from ``input`` (or /dev/null:
    ``.include "/dev/stdin"`` reads nothing), ``limits`` as rlimits, and is
    killed with its whole group when it returns, when ``limits.seconds``
    pass (``ToolchainError``: "... exceeded its 120 s time limit") and when
    sha1opt itself is interrupted (SIGINT, or SIGTERM turned into an
    exception by the CLI) -- so nothing it started outlives the call. A
    non-zero exit is returned, not raised: the caller words it.
    """
    args = [str(a) for a in args]
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, process_group=0,
                                preexec_fn=_child_setup(limits))
    except FileNotFoundError:
        raise ToolchainError(f"{args[0]} not found") from None
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolchainError(clip(f"{what}: cannot start {args[0]}: {getattr(e, 'strerror', None) or e}")) from None
    try:
        out, err = proc.communicate(input, timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"{what}: {Path(args[0]).name} exceeded its {limits.seconds:g} s time limit "
                             f"and was stopped") from None
    finally:
        _kill_group(proc.pid)
        if proc.returncode is None:    # timed out or interrupted (KeyboardInterrupt...): reap before unwinding
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@dataclass(frozen=True)
class Stopped:
    """Why a forked child (``run_forked``) gave no answer: ``"time limit"`` or ``"died"``, and a sentence."""

    reason: str
    detail: str


def run_forked(work: Callable[[], object], limit: float) -> object:
    """``work()`` in a forked child: its (picklable) answer, or ``Stopped``.

    The child ignores SIGINT (the caller decides: on its interrupt the child is killed with it); past ``limit``
    seconds it is killed, and what its ``run_child`` calls started (a harness, gcc) dies with it
    (PR_SET_PDEATHSIG, ``_child_setup``). An exception in ``work`` is raised here, as a ``RuntimeError`` naming
    it (not every error pickles)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            send.send(work())
        except BaseException as e:          # noqa: BLE001 -- reported to the caller, which raises it
            send.send(RuntimeError(f"{type(e).__name__}: {e}"))

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(limit):
            return Stopped("time limit", f"stopped at the {limit:g} s time limit")
        try:
            got = recv.recv()
        except EOFError:
            return Stopped("died", f"the process ended without an answer (exit code {proc.exitcode})")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    if isinstance(got, BaseException):
        raise got
    return got


def limit_reason(proc: subprocess.CompletedProcess, limits: Limits) -> str | None:
    """Which limit a failed child ran into, from its status and messages, or None.

    ``"output exceeds 64 MiB (limits.TOOL_OUTPUT)"`` for SIGXFSZ (also when gcc
    reports it for ``as``); memory and CPU likewise.
    """
    text = (proc.stderr or b"").decode(errors="replace") if isinstance(proc.stderr, bytes) else (proc.stderr or "")
    if proc.returncode == -signal.SIGXFSZ or "File size limit exceeded" in text:
        return f"output exceeds {size_text(limits.output)} (the output limit)"
    if proc.returncode == -signal.SIGXCPU or "CPU time limit exceeded" in text:
        return f"used more than {limits.cpu_seconds} s of CPU (the CPU limit)"
    if re.search(r"out of memory|memory exhausted|cannot allocate memory", text, re.I):
        return f"memory exceeds {size_text(limits.memory)} (the memory limit)"
    return None


def run(args: list[str], what: str, timeout: float | None = None, input: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A toolchain step under ``TOOL_LIMITS``: text out, any failure a one-line ``ToolchainError``.

    The message is ``what: <the tool's first error line>``, cut at
    ``limits.MESSAGE_CHARS``; past a limit it names the limit, e.g.
    ``assembler: output exceeds 64 MiB (the output limit): as: ...``.
    """
    limits = TOOL_LIMITS.with_seconds(timeout)
    raw = run_child(args, what, limits, None if input is None else input.encode(), env)
    proc = subprocess.CompletedProcess(raw.args, raw.returncode, raw.stdout.decode(errors="replace"),
                                       raw.stderr.decode(errors="replace"))
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "rror" in ln), lines[0] if lines else f"exit status {proc.returncode}")
        reason = limit_reason(proc, limits)
        raise ToolchainError(clip(f"{what}: {reason}: {first.strip()}" if reason else f"{what}: {first.strip()}"))
    return proc


def tool_env(workdir: Path) -> dict[str, str]:
    """The environment for gcc and friends: ``TMPDIR`` inside ``workdir``, so their temporaries go with it."""
    tmp = workdir / "tmp"
    tmp.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp)}


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


_MACRO = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Preprocessor:
    """cpp's ``-I DIR`` and ``-D NAME[=VALUE]`` for a user's ``.S`` (``prove --object``, ``analyze``, ``bench``).

    Built by ``preprocessor(includes, defines)``, which checks each value
    itself: a directory that exists, a NAME that is a C identifier (so no
    value can become another gcc option), a VALUE without a newline or NUL.
    ``flags(source)`` are gcc's arguments, one list item each, the source's
    own directory first (the file is assembled from a copy, and its
    ``#include "x.h"`` means the x.h next to it). Example:
    ``preprocessor(["inc"], ["HAVE_SHA_NI", "ROUNDS=80"]).flags(Path("a/s.S"))`` is
    ``["-I", "/abs/a", "-I", "/abs/inc", "-DHAVE_SHA_NI", "-DROUNDS=80"]``.
    """

    includes: tuple[Path, ...] = ()
    defines: tuple[tuple[str, str | None], ...] = ()

    def flags(self, source: Path | None = None) -> list[str]:
        dirs = ([Path(source).resolve().parent] if source is not None else []) + list(self.includes)
        return ([a for d in dirs for a in ("-I", str(d))]
                + [f"-D{n}" if v is None else f"-D{n}={v}" for n, v in self.defines])


def preprocessor(includes: Sequence[str | Path] = (), defines: Sequence[str] = ()) -> Preprocessor:
    """A checked ``Preprocessor`` (see its docstring); a bad value is a one-line ``ToolchainError``."""
    dirs = []
    for d in includes:
        path = Path(d)
        if not path.is_dir():
            raise ToolchainError(f"-I {clip(str(d))}: not a directory")
        dirs.append(path.resolve())
    defs = []
    for text in defines:
        name, eq, value = str(text).partition("=")
        if not _MACRO.fullmatch(name):
            raise ToolchainError(clip(f"-D {text!r}: {name!r} is not a macro name (a letter or _, then letters, "
                                      "digits, _)"))
        if any(c in value for c in "\n\r\0"):
            raise ToolchainError(f"-D {name}: the value holds a newline or NUL")
        defs.append((name, value if eq else None))
    return Preprocessor(tuple(dirs), tuple(defs))


def cflags(arch: Arch) -> list[str]:
    """The freestanding C flags for ``arch``: ``["-m32", "-O2", "-ffreestanding", ...]``."""
    return [arch_flag(arch), *FREESTANDING_FLAGS]


def compile_source(src: Path, arch: Arch, obj: Path, what: str, flags: Sequence[str] = ()) -> Path:
    """``gcc -m32|-m64 <flags> -c -o obj src``: a C file, or a ``.S`` (through cpp) / ``.s`` file.

    A C file that includes no file of its own (``#include "..."``) is compiled once per process for each
    (compiler, arch, flags, content): the harness is built for every validation, the same bytes each time
    (``_COMPILED``; a changed file is another key)."""
    # An absolute path: a file named "-v" or "-fplugin=x.so" must never reach gcc as an option.
    path = Path(src).resolve()
    text = path.read_bytes() if path.suffix == ".c" else None
    key = None if text is None or b'#include "' in text else \
        (which("gcc"), arch, tuple(flags), path.name, hashlib.sha256(text).hexdigest())
    if key is not None and key in _COMPILED:
        obj.write_bytes(_COMPILED[key])
        return obj
    run([which("gcc"), arch_flag(arch), *flags, "-c", "-o", str(obj), str(path)], what, env=tool_env(obj.parent))
    if key is not None:
        _COMPILED[key] = obj.read_bytes()
    return obj


_COMPILED: dict[tuple, bytes] = {}      # compile_source's objects of this process, by (gcc, arch, flags, file)


def c_assembly(src: Path, arch: Arch, flags: Sequence[str] = ()) -> str:
    """gcc -O2 (then ``flags``) assembly of the C file ``src``, as text (``-S``, no unwind tables, no PIE)."""
    with tempfile.TemporaryDirectory(prefix="sha1opt-gcc-") as d:
        out = Path(d) / f"{src.stem}.s"
        run([which("gcc"), "-O2", arch_flag(arch), *flags, *ASSEMBLY_FLAGS, "-S", "-o", str(out), str(src)],
            f"compiling {src.name} to assembly", env=tool_env(Path(d)))
        return out.read_text()


def link_static(objects: Sequence[Path], arch: Arch, exe: Path, what: str) -> Path:
    """``ld -static -e _start``: objects (one of them defining ``_start``) into a libc-free executable."""
    emu = "elf_i386" if arch == "i386" else "elf_x86_64"
    run([which("ld"), "-m", emu, "-static", "-e", "_start", "-o", str(exe), *map(str, objects)], what)
    return exe


def link_hosted(objects: Sequence[Path], arch: Arch, exe: Path, what: str) -> Path:
    """``gcc -m32|-m64 -no-pie -o exe objects -ldl``: a libc program (``-fno-pie`` objects such as the harness's
    link into it), which may load shared objects with ``dlopen``."""
    run([which("gcc"), arch_flag(arch), "-no-pie", "-o", str(exe), *map(str, objects), "-ldl"], what,
        env=tool_env(exe.parent))
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
    run([which("gcc"), "-shared", "-nostartfiles", "-o", str(out), *map(str, objects)], "linker",
        env=tool_env(out.parent))
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
