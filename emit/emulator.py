"""The emulators a run check may use where this CPU lacks a feature: ``corpus/emulators.toml``.

A row names an emulator for one arch (``qemu-x86_64`` for x86-64 code, ``qemu-i386`` for i386), the
argv it runs a static executable under (``["qemu-x86_64", "-cpu", "max"]``), the range of its
versions the row was found true for, and the features (``features.ISA_INCLUDES`` names) those versions
execute *correctly* -- found by running sha1opt's own functions of each level through the full
vector harness under it (``bench/qemu_levels.py``, results in ``bench/results/qemu_levels.txt``),
not taken from the emulator's documentation.

``emulator_for(arch, features)`` is the emulator installed here that the table says runs code
needing ``features`` (every feature the code needs, not only those this CPU lacks: the emulator runs
all of it; a row's feature covers what it includes, ``features.includes``: ``avx`` covers ``ssse3``), or
None. The installed version is asked once per program (``PROGRAM --version`` through
``toolchain.run``: an argument list under the tool limits) and must lie in the row's range. A row
only says trying is meaningful: the vectors themselves must still pass under the emulator.

Example: with Debian 12's qemu-user (``qemu-x86_64 version 7.2.22``) installed,
``emulator_for("x86_64", {"avx", "bmi2"})`` is ``Emulator("qemu-x86_64", (7, 2, 22), ("qemu-x86_64",
"-cpu", "max"), ...)``; ``emulator_for("x86_64", {"avx512vl"})`` is None (qemu 7.2 died of SIGILL on sha1opt's
AVX-512 and SHA-NI code: ``bench/results/qemu_levels.txt``).
"""

from __future__ import annotations

import functools
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError
from sha1opt.semantics.features import ISA_INCLUDES, includes
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.toolchain import ToolchainError, run

_VERSION = re.compile(r"version (\d+)\.(\d+)(?:\.(\d+))?")
VERSION_SECONDS = 10.0           # `qemu-x86_64 --version` answers at once; a hang is not an emulator


@dataclass(frozen=True)
class EmulatorRow:
    """One row of ``corpus/emulators.toml``."""

    name: str
    arch: Arch
    argv: tuple[str, ...]
    first: tuple[int, ...]           # oldest version the row holds for (inclusive)
    last: tuple[int, ...]            # newest (inclusive; compared on as many parts as given)
    features: frozenset[str]
    source: str

    def covers(self, version: tuple[int, ...]) -> bool:
        return self.first <= version[:len(self.first)] and version[:len(self.last)] <= self.last


@dataclass(frozen=True)
class Emulator:
    """An emulator installed here, of a qualified version: what runs the code, and its row."""

    name: str
    version: tuple[int, ...]
    argv: tuple[str, ...]
    row: EmulatorRow

    def __str__(self) -> str:
        return " ".join([self.name, ".".join(map(str, self.version)), *self.argv[1:]])


def _version(text: object, where: str) -> tuple[int, ...]:
    if not (isinstance(text, str) and re.fullmatch(r"\d+(\.\d+){0,2}", text)):
        raise CorpusError(f"{where}: a version is 'MAJOR.MINOR[.MICRO]', not {text!r}")
    return tuple(int(p) for p in text.split("."))


@functools.lru_cache(maxsize=None)
def emulator_table(path: Path | None = None) -> tuple[EmulatorRow, ...]:
    """corpus/emulators.toml as rows, checked: known keys, a source per row, known arch and features."""
    path = path or corpus_dir() / "emulators.toml"
    raw = load_toml(path)
    if set(raw) - {"emulator"}:
        raise CorpusError(f"{path.name}: unknown key {sorted(set(raw) - {'emulator'})[0]!r}")
    rows = []
    for i, row in enumerate(raw.get("emulator", [])):
        where = f"{path.name}: emulator {i + 1}"
        check_keys(row, where, {"name", "arch", "argv", "versions", "features", "source"})
        if row["arch"] not in ("x86_64", "i386"):
            raise CorpusError(f"{where}: arch must be 'x86_64' or 'i386', not {row['arch']!r}")
        argv = row["argv"]
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) and a for a in argv)):
            raise CorpusError(f"{where}: argv must be a non-empty list of words")
        versions = row["versions"]
        if not (isinstance(versions, list) and len(versions) == 2):
            raise CorpusError(f"{where}: versions must be [oldest, newest]")
        first, last = (_version(v, where) for v in versions)
        feats = row["features"]
        if not (isinstance(feats, list) and all(f in ISA_INCLUDES and f != "base" for f in feats)):
            raise CorpusError(f"{where}: features must be a list of feature names "
                              f"({', '.join(f for f in ISA_INCLUDES if f != 'base')})")
        if not str(row["source"]).strip():
            raise CorpusError(f"{where}: empty source")
        rows.append(EmulatorRow(row["name"], row["arch"], tuple(argv), first, last, frozenset(feats), row["source"]))
    return tuple(rows)


@functools.lru_cache(maxsize=None)
def installed_version(program: str) -> tuple[int, ...] | None:
    """``program --version``'s version (``(7, 2, 22)``), or None when it is not installed or does not say."""
    if shutil.which(program) is None:
        return None
    try:
        out = run([program, "--version"], f"{program} --version", timeout=VERSION_SECONDS).stdout
    except ToolchainError:
        return None
    m = _VERSION.search(out)
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


def emulator_for(arch: Arch, features: Iterable[str], table: tuple[EmulatorRow, ...] | None = None) -> Emulator | None:
    """The installed emulator whose row runs ``arch`` code needing every one of ``features``, or None."""
    need = set(features) - {"base"}
    for row in table if table is not None else emulator_table():
        if row.arch != arch or not all(any(includes(g, f) for g in row.features) for f in need):
            continue
        version = installed_version(row.argv[0])
        if version is not None and row.covers(version):
            return Emulator(row.name, version, row.argv, row)
    return None
