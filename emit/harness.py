"""Native execution of an emitted transform: the freestanding harness in ``csrc/``.

``BlockHarness(obj, arch)`` links an assembled ``sha1_block_data_order``
with ``csrc/harness.c`` and ``csrc/callcheck_<arch>.S`` into a static
executable with its own ``_start`` and raw syscalls (no libc, so the i386
build needs no 32-bit libraries). ``run(records)`` feeds it records on stdin
and returns per record the state after the call(s) and the harness flags
(callee-saved registers, canaries around the state, input data unchanged).
A crash (e.g. a fault on a guard page) or a run past ``NATIVE_LIMITS`` is
reported as a value, not raised; the harness runs through
``toolchain.run_child`` (own process group, killed on return or interrupt).

``ArchiveHarness(obj, arch, workdir, archive, extra, restore)`` is the same
record loop built into a libc program (``csrc/hosted_main.c``) linked with
the member, the rest of its archive and the C library, for a member that
calls them; ``restore`` names function pointers written back as the file
holds them once the constructors ran.

``SharedObjectHarness(shared, address, arch, workdir, entry, words)`` runs a
function of a shared object the same way: the record loop is ``harness.c``
built into a libc program (``-DSHA1OPT_HOSTED``, ``csrc/dlopen_main.c``) that
loads the object with ``dlopen`` in the bounded child and calls the function
at ``address`` (its address in the file's layout; the load base is added at
run time) through ``entry`` -- ``jump_stub`` (a jump to it named
``sha1_block_data_order``) or an interface adapter calling such a stub --
after writing ``words`` (address -> bytes, e.g. a dispatch path's
capability words) into the loaded object. Example: ``libcrypto.so.3``'s
``SHA1_Transform`` at 0x1be8f0 with ``{0x4895a4: b"\0\0\0\0"}`` takes its
integer path.
"""

from __future__ import annotations

import signal
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.toolchain import (
    FREESTANDING_FLAGS, NATIVE_LIMITS, ToolchainError, assemble, compile_source, csrc, link_hosted, link_static,
    run_child,
)

FLAG_CALLEE_SAVED = 1
FLAG_CANARY = 2
FLAG_DATA_WRITTEN = 4
FLAG_TEXT = {FLAG_CALLEE_SAVED: "a callee-saved register or the stack pointer changed",
             FLAG_CANARY: "a write just before the state array", FLAG_DATA_WRITTEN: "the input data was modified"}


# Functions harness.c defines for the code it links (the C library's, which the freestanding harness has not):
# an object may call them. i386 has no stack-protector guard here (%gs:0x14 needs a segment descriptor).
HARNESS_FUNCTIONS = {"x86_64": frozenset({"memcpy", "memset", "explicit_bzero", "mbedtls_platform_zeroize",
                                          "__stack_chk_fail"}),
                     "i386": frozenset({"memcpy", "memset", "explicit_bzero", "mbedtls_platform_zeroize"})}


class HarnessError(Sha1optError):
    """Misuse of the harness: a record the C side cannot read (data not whole blocks)."""


@dataclass(frozen=True)
class Record:
    state: tuple[int, ...]       # 5 words
    data: bytes                  # a multiple of 64 bytes
    misalign: int = 0            # bytes the data ends before the guard page
    chunk: int = 0               # blocks per call (0: one call)
    tail: bytes = b""            # 0..63 bytes after the blocks, in the buffer, not hashed: a byte length counts them

    def encode(self) -> bytes:
        if len(self.data) % 64:
            raise HarnessError(f"data must be whole 64-byte blocks, not {len(self.data)} bytes")
        if len(self.tail) > 63:
            raise HarnessError(f"a tail is less than a block, not {len(self.tail)} bytes")
        return struct.pack("<9I", len(self.data) // 64, self.misalign, self.chunk, len(self.tail),
                           *self.state) + self.data + self.tail


@dataclass(frozen=True)
class Result:
    state: tuple[int, ...]
    flags: int


@dataclass(frozen=True)
class RunFailure:
    """The harness died (signal or exit status) before answering every record."""

    reason: str
    completed: int


class BlockHarness:
    def __init__(self, obj: Path, arch: Arch, workdir: Path, extra: Sequence[Path] = (),
                 prefix: Sequence[str] = ()) -> None:
        """``extra``: more objects to link (the lifter's zero definitions of a function's undefined data symbols);
        ``prefix``: the argv an emulator runs the executable under (``emulator.Emulator.argv``), () natively."""
        self.arch = arch
        self.prefix = tuple(prefix)
        self.args: tuple[str, ...] = ()        # after the executable's name (SharedObjectHarness)
        self.env: Mapping[bytes, bytes] | None = None      # the child's environment (None: this process's)
        h_obj = compile_source(csrc("harness.c"), arch, workdir / f"harness_{arch}.o", "compiling the harness",
                               FREESTANDING_FLAGS)
        c_obj = compile_source(csrc(f"callcheck_{arch}.S"), arch, workdir / f"callcheck_{arch}.o",
                               "assembling the call checker")
        self.exe = link_static([h_obj, c_obj, obj, *extra], arch, workdir / f"harness_{arch}", "linking the harness")

    def transcript(self, records: list[Record], timeout: float | None = None) -> tuple[int, bytes, bytes] | str:
        """Everything a run on ``records`` shows: (exit status, stdout, stderr), or why it did not end."""
        try:
            proc = run_child([*self.prefix, str(self.exe), *self.args], "the vector harness",
                             NATIVE_LIMITS.with_seconds(timeout), input=b"".join(r.encode() for r in records),
                             env=self.env)
        except ToolchainError as e:
            return str(e)
        return proc.returncode, proc.stdout, proc.stderr

    def run(self, records: list[Record], timeout: float | None = None) -> list[Result] | RunFailure:
        """Feed ``records``; the harness runs under ``NATIVE_LIMITS`` (``timeout`` seconds of wall time if given)."""
        seen = self.transcript(records, timeout)
        if isinstance(seen, str):
            return RunFailure(seen, 0)
        returncode, out, _ = seen
        n = len(out) // 24
        results = [Result(tuple(w[:5]), w[5]) for w in struct.iter_unpack("<6I", out[: 24 * n])]
        if returncode != 0 or n != len(records):
            if returncode < 0:
                why = f"killed by {signal.Signals(-returncode).name}"
            else:
                why = f"exit status {returncode}"
            return RunFailure(f"harness {why} at record {n} of {len(records)}", n)
        return results


class SharedObjectHarness(BlockHarness):
    """A function of a shared object in the harness (see the module docstring); built and loaded once here, so
    an object the C library cannot load is a ``ToolchainError`` now, not a record's failure later."""

    def __init__(self, shared: Path, address: int, arch: Arch, workdir: Path, entry: Sequence[Path],
                 words: Mapping[int, bytes] | None = None, environment: Mapping[str, bytes] | None = None) -> None:
        self.arch = arch
        self.prefix = ()
        self.env = _environment(environment)
        self.exe = link_hosted([*_hosted_loop(arch, workdir, "dlopen_main.c"), *entry], arch,
                               workdir / f"harness_shared_{arch}", "linking the shared-object harness")
        self.args = (str(Path(shared).resolve()), f"{address:x}",
                     *(f"{a:x}={b.hex()}" for a, b in sorted((words or {}).items())))
        proc = run_child([str(self.exe), *self.args], "loading the shared object", NATIVE_LIMITS, input=b"")
        if proc.returncode != 0:
            said = proc.stderr.decode(errors="replace").strip().splitlines()
            raise ToolchainError(f"cannot load {Path(shared).name} in the harness: "
                                 f"{said[0] if said else f'exit status {proc.returncode}'}")


class ArchiveHarness(BlockHarness):
    """An archive member's function in the harness built as a libc program (``-DSHA1OPT_HOSTED``,
    ``csrc/hosted_main.c``), linked with the member (``obj``, renamed as ``BlockHarness`` links it), ``extra``, the
    archive (the members it needs: nettle's fat ``nettle_sha1_compress`` jumps into ``sha1-compress.o``) and the C
    library (``getenv``, ``fwrite``, ``stderr``): for code that calls functions the freestanding harness does not
    define. The archive's constructors run before the records, as in a program linked with it; then each of
    ``restore`` (function pointers of the member, by symbol) is written back as the file holds it, so a record's
    first call takes the path a call before the constructors takes (nettle: ``nettle_sha1_compress_vec`` =
    ``nettle_sha1_compress_init``, the resolver), and its later calls the value the resolver stored."""

    def __init__(self, obj: Path, arch: Arch, workdir: Path, archive: Path, extra: Sequence[Path] = (),
                 restore: Sequence[str] = (), environment: Mapping[str, bytes] | None = None) -> None:
        self.arch = arch
        self.prefix = ()
        self.env = _environment(environment)
        self.exe = link_hosted([*_hosted_loop(arch, workdir, "hosted_main.c"), obj, *extra, archive], arch,
                               workdir / f"harness_archive_{arch}", "linking the archive harness")
        self.args = tuple(f"{at:x}={raw.hex()}" for at, raw in _initial_words(self.exe, restore))


def _hosted_loop(arch: Arch, workdir: Path, main: str) -> list[Path]:
    """The record loop built for a libc program (``harness.c`` and the call checker with ``-DSHA1OPT_HOSTED``) and
    the program's ``main`` (``csrc/dlopen_main.c``, ``csrc/hosted_main.c``), compiled."""
    hosted = ("-DSHA1OPT_HOSTED",)
    return [compile_source(csrc(main), arch, workdir / f"{Path(main).stem}_{arch}.o", f"compiling {main}", ("-O2",)),
            compile_source(csrc("harness.c"), arch, workdir / f"harness_hosted_{arch}.o", "compiling the harness",
                           (*FREESTANDING_FLAGS, *hosted)),
            compile_source(csrc(f"callcheck_{arch}.S"), arch, workdir / f"callcheck_hosted_{arch}.o",
                           "assembling the call checker", hosted)]


def _environment(given: Mapping[str, bytes] | None) -> dict[bytes, bytes]:
    """A child's whole environment: the variables a path read (``witness``) and no others. Names are the
    object's bytes (``latin-1`` round-trips them)."""
    return {name.encode("latin-1"): value for name, value in (given or {}).items()}


def _initial_words(exe: Path, names: Sequence[str]) -> list[tuple[int, bytes]]:
    """(address, bytes as the file holds them) of every writable data symbol of each name ``names`` gives in a
    linked executable (same-named statics of other members too: their file values, so writing them changes
    nothing a run has not changed)."""
    obj = ObjectFile.parse(exe.read_bytes())
    return [(obj.addresses[s.section] + s.value, raw) for s in obj.symbols
            if s.name in names and s.size and s.section in obj.writable
            and (raw := obj.read(s.section, s.value, s.size)) is not None]


def jump_stub(arch: Arch, name: str, workdir: Path) -> Path:
    """An object defining ``name`` as a jump to ``sha1opt_target`` (``csrc/dlopen_main.c`` sets it to the shared
    object's function): registers, stack and return address reach the function as the caller left them."""
    target = "*sha1opt_target(%rip)" if arch == "x86_64" else "*sha1opt_target"
    text = (f"\t.text\n\t.globl {name}\n\t.type {name}, @function\n{name}:\n\tjmp {target}\n"
            f"\t.size {name}, .-{name}\n\t.section .note.GNU-stack,\"\",@progbits\n")
    return assemble(text, arch, workdir, "shared_entry")


__all__ = ["ArchiveHarness", "BlockHarness", "HarnessError", "Record", "Result", "RunFailure", "SharedObjectHarness",
           "ToolchainError", "FLAG_TEXT", "jump_stub"]
