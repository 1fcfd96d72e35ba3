"""The discovered corpus: proved minimal sequences kept in ``corpus/discovered.toml``, with their provenance.

Each row (``Discovered``) is one sequence that ``synthesize`` proved equal
to its target with Z3 and minimal in length for its setting. The file is
data: ``load_discovered`` refuses unknown or missing keys, wrong types,
duplicate names, code that does not parse and a ``length`` that is not the
code's; ``save_discovered`` merges new results in (rows of the same target
and setting are replaced, not duplicated), writes the file with tomli-w and
replaces the old one in one rename (``datafiles.atomic_write``), so a reader
never sees half a file. The test suite proves every shipped row again.

Example row::

    [[sequence]]
    name = "f2/t1/base/keep/1"        # target/temps/isa/keep|destroy/rank
    target = "f2"
    temps = 1
    isa = "base"
    destroy = false
    length = 3
    code = "mov %ebx, %esi; xor %ecx, %esi; xor %edx, %esi"
    minimal = true
    proved_by = "z3"
    date = "2026-11-30"
    tool_version = "0.1.0"
    source = "sha1opt synth"
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import tomli_w

from sha1opt.search.synth.cegis import Result
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.datafiles import atomic_write, check_keys, corpus_dir, load_toml, output_dir, user_data_dir
from sha1opt.semantics.errors import CorpusError, ParseError, UnsupportedError
from sha1opt.semantics.x86 import Instr

SOURCE = "sha1opt synth"
# The installed distribution's version (pyproject.toml); search may not import the sha1opt package.
TOOL_VERSION = importlib.metadata.version("sha1opt")

_TYPES = {"name": str, "target": str, "temps": int, "isa": str, "destroy": bool, "length": int, "code": str,
          "minimal": bool, "proved_by": str, "date": str, "tool_version": str, "source": str}
DISCOVERED_KEYS = set(_TYPES)

HEADER = """\
# Sequences found by `sha1opt synth --save`: each proved equal to its target with Z3
# (x86 semantics over terms) and minimal in length for its setting (all shorter
# lengths searched exhaustively). Written by sha1opt.search.synth.save_discovered.

"""


@dataclass(frozen=True)
class Discovered:
    """One row of ``corpus/discovered.toml``: a proved sequence and where it came from."""

    name: str
    target: str
    temps: int
    isa: str
    destroy: bool
    length: int
    code: str
    minimal: bool
    proved_by: str
    date: str
    tool_version: str
    source: str

    @property
    def program(self) -> list[Instr]:
        return parse_text(self.code, "x86_64", self.name)


def discovered_path() -> Path:
    """The shipped, read-only corpus of discovered sequences (``corpus/discovered.toml``)."""
    return corpus_dir() / "discovered.toml"


def user_discovered_path() -> Path:
    """Where ``synth --save`` writes by default: ``$XDG_DATA_HOME/sha1opt/discovered.toml``
    (``~/.local/share/sha1opt/discovered.toml``), never into the installed package."""
    return user_data_dir() / "discovered.toml"


def discovered_rows(result: Result, date: str | None = None, limit: int | None = None) -> list[dict]:
    """The corpus rows for a found result: one per proved minimal sequence, best ``limit`` if given."""
    if result.status != "found":
        return []
    s = result.setting
    day = date or _dt.date.today().isoformat()
    base = f"{result.target}/t{s.temps}/{s.isa}/{'destroy' if s.destroy else 'keep'}"
    return [{"name": f"{base}/{k + 1}", "target": result.target, "temps": s.temps, "isa": s.isa,
             "destroy": s.destroy, "length": len(sol.program), "code": sol.text, "minimal": True,
             "proved_by": "z3", "date": day, "tool_version": TOOL_VERSION, "source": SOURCE}
            for k, sol in enumerate(result.solutions[:limit])]


def load_discovered(path: Path | None = None) -> list[Discovered]:
    """Rows of the discovered corpus; unknown/missing keys, wrong types, duplicate names, bad code refused."""
    path = path or discovered_path()
    if not path.exists():
        return []
    data = load_toml(path)
    extra = sorted(set(data) - {"sequence"})
    if extra:
        raise CorpusError(f"{path}: unknown top-level key {extra[0]!r}")
    rows = data.get("sequence", [])
    if not isinstance(rows, list):
        raise CorpusError(f"{path}: 'sequence' must be an array of tables")
    out: list[Discovered] = []
    names: set[str] = set()
    for i, row in enumerate(rows, start=1):
        where = f"{path.name}: sequence #{i}"
        if not isinstance(row, dict):
            raise CorpusError(f"{where}: not a table")
        check_keys(row, where, DISCOVERED_KEYS)
        for k, typ in _TYPES.items():
            if type(row[k]) is not typ:
                raise CorpusError(f"{where}: {k} must be {typ.__name__}")
        if row["name"] in names:
            raise CorpusError(f"{path.name}: duplicate sequence name {row['name']!r}")
        names.add(row["name"])
        d = Discovered(**row)
        try:
            prog = d.program
        except (ParseError, UnsupportedError) as e:
            raise CorpusError(f"{where}: code: {e}") from None
        if len(prog) != d.length:
            raise CorpusError(f"{where}: length {d.length} but the code has {len(prog)} instructions")
        out.append(d)
    return out


def save_discovered(results: Sequence[Result], path: Path | None = None, date: str | None = None,
                    limit: int | None = None) -> Path:
    """Merge found results into the file (best ``limit`` sequences of each; default the user's
    ``user_discovered_path()``), replacing rows of the same target and setting; all or nothing
    (``atomic_write``: regular files only, umask honoured)."""
    if path is None:
        path = user_discovered_path()
        output_dir(path.parent)
    keep = load_discovered(path)
    fresh: list[dict] = []
    replaced: set[tuple] = set()
    for res in results:
        rows = discovered_rows(res, date, limit)
        if rows:
            s = res.setting
            replaced.add((res.target, s.temps, s.isa, s.destroy))
            fresh += rows
    old = [asdict(r) for r in keep if (r.target, r.temps, r.isa, r.destroy) not in replaced]
    return atomic_write(path, toml_text(old + fresh))


def toml_text(rows: list[dict]) -> str:
    """The file's text: the header comment, then one ``[[sequence]]`` table per row, sorted by name, keys in
    ``Discovered`` order. (tomli-w inlines an array of tables only when every row fits one short line; a
    full row never does, so each row is a ``[[sequence]]`` block.)"""
    order = list(_TYPES)
    table = {"sequence": [{k: row[k] for k in order} for row in sorted(rows, key=lambda r: r["name"])]}
    return HEADER + tomli_w.dumps(table) if rows else HEADER.rstrip("\n") + "\n"
