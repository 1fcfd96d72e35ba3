"""User inputs to an object file: ``.s``/``.S`` text, a ``.o``, a member of a ``.a``, a shared object.

``load_object(path, workdir, arch=None, member=None)`` returns a
``UserObject``: the ELF bytes, where they are on disk (inside ``workdir``
when they had to be made), the architecture, and how they were obtained.
Text is assembled by the system toolchain exactly as a user's build would
(``gcc -c -g``, so ``.S`` goes through cpp and macros, ``.rept``,
constant expressions and ``.byte``-encoded instructions all work; ``-g``
gives the DWARF line table refusals quote). Archives are read with ``ar``.
Every tool runs as an argument list with a time limit (``toolchain.run``).

Invariant: the user's files are only read; everything made goes into
``workdir``. Which file kind it is comes from its bytes (ELF magic, ``!<arch>``),
not its name; anything else is text.

Example: ``load_object("e.S", tmp)`` runs ``gcc -m64 -c -g -o tmp/e.o e.S``
(``-m32`` when the text names no 64-bit register, ``emit.assembly.guess_arch``)
and returns ``UserObject(kind="assembled", arch="x86_64", ...)``;
``load_object("libcrypto.a", tmp, member="libcrypto-lib-sha1-x86_64.o")``
extracts that member with ``ar p``.
"""

from __future__ import annotations

import os
import stat

import subprocess
from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.att import read_source
from sha1opt.semantics.limits import OBJECT_BYTES, size_text
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.assembly import guess_arch
from sha1opt.emit.toolchain import Preprocessor, ToolchainError, arch_flag, run, which

TEXT_SUFFIXES = (".s", ".S", ".asm")
TOOL_SECONDS = 60.0


class InputError(Sha1optError):
    """The input file cannot be read or is not something we can turn into an object."""


@dataclass(frozen=True)
class UserObject:
    path: Path            # the ELF file on disk (made in workdir, or the user's own file)
    obj: ObjectFile
    kind: str             # "assembled" | "object" | "archive member" | "shared object" | "executable"
    source: str           # one line: what was done ("e.S assembled with gcc -m64 -c -g")
    member: str | None = None   # the archive member it was read from ("sha1dgst.o"), for kind "archive member"
    archive: Path | None = None  # and the archive: the rest of it links with the member natively (``confirm``)

    @property
    def arch(self) -> Arch:
        return self.obj.arch


def _read(path: Path) -> bytes:
    """The input's bytes: a regular file only (``/dev/zero`` or a FIFO is never read), at most
    ``limits.OBJECT_BYTES``; text inputs are held to ``limits.SOURCE_BYTES`` (``read_source``)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file")
        if st.st_size > OBJECT_BYTES:
            raise InputError(f"{path}: larger than the {size_text(OBJECT_BYTES)} input limit")
        with open(path, "rb") as fh:
            head = fh.read(8)
        if head[:4] != b"\x7fELF" and head != b"!<arch>\n":
            return read_source(path).encode()      # assembly text: the source limits apply
        return path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None


# The --member option's help (prove --object, analyze): what ``_member`` does without one.
MEMBER_HELP = ("For a .a archive: the member to read. Default: the one member whose name contains \"sha1\"; "
               "when several do (as in OpenSSL's libcrypto.a), name one -- the refusal lists them.")


def archive_members(path: Path) -> list[str]:
    proc = run([which("ar"), "t", str(path)], "listing the archive", timeout=TOOL_SECONDS)
    return [ln for ln in proc.stdout.splitlines() if ln.strip()]


def defining_members(path: Path, symbols: set[str]) -> dict[str, str]:
    """The member of the archive ``path`` that defines each of ``symbols`` (one ``nm -A --defined-only``); a
    symbol no member defines is left out. Example: in nettle's ``libnettle.a``,
    ``{"_nettle_sha1_compress_x86_64": "sha1-compress.o"}``."""
    proc = run([which("nm"), "-A", "--defined-only", str(path)], "listing the archive's symbols", timeout=TOOL_SECONDS)
    out: dict[str, str] = {}
    prefix = f"{path}:"
    for line in proc.stdout.splitlines():
        head, _, rest = line.rpartition(" ")
        if rest in symbols and rest not in out and line.startswith(prefix) and len(head.split()) >= 2 \
                and head.split()[-1] not in ("U", "w", "v"):
            out[rest] = line[len(prefix):].split(":", 1)[0]
    return out


_CALL_RELOCS = frozenset({"R_X86_64_PLT32", "R_X86_64_PC32", "R_386_PLT32", "R_386_PC32"})


def with_called_members(uo: UserObject, archive: Path, member: str, workdir: Path,
                        contracts: frozenset[str]) -> UserObject:
    """``uo`` (the archive's ``member``) linked (``ld -r``) with the members defining the functions its code
    calls directly (``call rel32`` against an undefined symbol) that have no contract (``contracts``), so a
    path that calls one runs its code as a local function; ``uo`` itself when it calls none. Example: i386
    OpenSSL's ``sha1dgst.o`` ``SHA1_Transform`` calls ``sha1_block_data_order`` of ``sha1-586.o``."""
    obj = uo.obj
    called = {r.symbol for sec, relocs in obj.relocs.items() if sec in obj.executable
              for off, r in relocs.items()
              if r.section is None and r.symbol and r.kind in _CALL_RELOCS and off >= 1
              and obj.sections[sec][off - 1] == 0xE8 and r.symbol not in contracts}
    others = sorted(set(defining_members(archive, called).values()) - {member}) if called else []
    if not others:
        return uo
    paths = []
    for name in others:
        raw, _ = _member(archive, name, workdir)
        paths.append(workdir / f"called_{Path(name).name}")
        paths[-1].write_bytes(raw)
    out = workdir / f"linked_{Path(member).name}"
    emu = "elf_i386" if obj.arch == "i386" else "elf_x86_64"
    run([which("ld"), "-m", emu, "-r", "-o", str(out), str(uo.path), *map(str, paths)],
        f"linking {member} with the members it calls", timeout=TOOL_SECONDS)
    return UserObject(out, ObjectFile.parse(out.read_bytes()), uo.kind,
                      f"{uo.source} linked (ld -r) with {', '.join(others)}", member, archive)


def _member(path: Path, member: str | None, workdir: Path) -> tuple[bytes, str]:
    names = archive_members(path)
    if member is None:     # MEMBER_HELP: the one member whose name contains "sha1", else a refusal
        sha = [n for n in names if "sha1" in n.lower()]
        if len(sha) > 1:
            raise InputError(f"{path.name}: {len(sha)} of its {len(names)} members have \"sha1\" in their name, so "
                             f"none is taken by default: name one with --member ({', '.join(sha)})")
        if not sha:
            raise InputError(f"{path.name}: none of its {len(names)} members has \"sha1\" in its name: name one "
                             "with --member (`ar t` lists them)")
        member = sha[0]
    if member not in names:
        raise InputError(f"{path.name} has no member {member!r}")
    try:
        proc = subprocess.run([which("ar"), "p", str(path), member], capture_output=True, timeout=TOOL_SECONDS,
                              check=False)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"ar timed out after {TOOL_SECONDS:.0f} s") from None
    if proc.returncode != 0:
        raise ToolchainError(f"ar: {proc.stderr.decode(errors='replace').strip()}")
    out = workdir / Path(member).name
    out.write_bytes(proc.stdout)
    return proc.stdout, member


def load_object(path: str | Path, workdir: Path, arch: Arch | None = None, member: str | None = None,
                cpp: Preprocessor = Preprocessor()) -> UserObject:
    """See the module docstring; ``cpp``: the ``-I``/``-D`` a ``.S`` is assembled with (the source's own
    directory is always searched: the text is assembled from a copy)."""
    p = Path(path)
    data = _read(p)
    if data[:8] == b"!<arch>\n":
        raw, name = _member(p, member, workdir)
        return UserObject(workdir / Path(name).name, ObjectFile.parse(raw), "archive member", f"{p.name}({name})",
                          name, p)
    if data[:4] == b"\x7fELF":
        obj = ObjectFile.parse(data)
        kind = "object" if obj.relocatable else ("shared object" if _is_shared(data) else "executable")
        return UserObject(p, obj, kind, f"{p.name} ({kind})")
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise InputError(f"{p}: neither an ELF file, an archive nor assembly text") from None
    arch = arch or guess_arch(text)
    suffix = p.suffix if p.suffix in TEXT_SUFFIXES else ".s"
    src = workdir / f"{p.stem}{'.S' if suffix == '.S' else '.s'}"     # the assembler's messages name the user's file
    src.write_text(text)
    out = workdir / f"{p.stem}.o"
    args = [which("gcc"), arch_flag(arch), *cpp.flags(p), "-c", "-g", "-o", str(out), str(src)]
    run(args, f"assembling {p.name}", timeout=TOOL_SECONDS)
    return UserObject(out, ObjectFile.parse(out.read_bytes()), "assembled",
                      f"{p.name} assembled with gcc {arch_flag(arch)} -c -g")


def _is_shared(data: bytes) -> bool:
    return len(data) > 17 and int.from_bytes(data[16:18], "little") == 3   # e_type ET_DYN
