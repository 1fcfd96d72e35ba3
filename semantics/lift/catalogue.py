"""The interface catalogue: the declared interfaces of other libraries' SHA-1 block functions (``corpus/interfaces.toml``).

One row per known function: its exact symbol (C++ names mangled, as the
symbol table has them), its interface in the ``--interface`` grammar
(``interface.parse_interface``), the library and the ``source`` of the
interface fact. Loading refuses unknown keys, a missing key, a symbol
given twice (for one member) and any interface that does not parse, each
in one line naming the row.

``interface_for(symbol)`` is the one question callers ask (``analyze`` and
``prove --object`` when no ``--interface`` is declared; ``sha1opt scan``):
the row's ``Interface`` named ``symbol``, or None. A row with a ``member``
is a local symbol whose name other libraries may use too (wolfSSL's static
``Transform``): ``interface_for`` never answers it; ``lookup(symbol,
member)`` does, for that archive member.

``[[shape]]`` rows (interface, library, source) are interfaces seen only in
stripped code, where no symbol names the function (Perl's Digest::SHA
``SHA.so``): ``interfaces()`` lists them with the functions' for ``scan``
to try; no symbol lookup ever answers one.

Example: ``interface_for("mbedtls_internal_sha1_process")`` is
``Interface(("state", "data"), name="mbedtls_internal_sha1_process",
state_offset=8)``; ``interface_for("memcpy")`` is None.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, ParseError
from sha1opt.semantics.lift.interface import Interface, parse_interface

REQUIRED = {"symbol", "interface", "library", "source"}
OPTIONAL = {"member", "demangled", "note"}
SHAPE_KEYS = {"interface", "library", "source"}


@dataclass(frozen=True)
class Row:
    """One catalogue row: ``interface`` is parsed and named ``symbol``."""

    symbol: str
    interface: Interface
    library: str
    source: str
    member: str | None = None
    demangled: str | None = None
    note: str | None = None


def load(path: Path | None = None) -> tuple[Row, ...]:
    """The rows of ``path`` (default ``corpus/interfaces.toml``), checked (module docstring)."""
    path = path or corpus_dir() / "interfaces.toml"
    raw = load_toml(path)
    extra = sorted(set(raw) - {"function", "shape"})
    if extra:
        raise CorpusError(f"{path}: unknown table {extra[0]!r} (rows are [[function]] and [[shape]])")
    rows: list[Row] = []
    seen: set[tuple[str, str | None]] = set()
    for i, row in enumerate(raw.get("function", [])):
        where = f"{path.name}: function {i + 1}" + (f" ({row['symbol']})" if isinstance(row.get("symbol"), str) else "")
        itf = _interface(row, where, REQUIRED, OPTIONAL, "the row's symbol is the name")
        key = (row["symbol"], row.get("member"))
        if key in seen:
            raise CorpusError(f"{where}: symbol {row['symbol']!r} given twice")
        seen.add(key)
        rows.append(Row(row["symbol"], replace(itf, name=row["symbol"]), row["library"], row["source"],
                        row.get("member"), row.get("demangled"), row.get("note")))
    return tuple(rows)


def load_shapes(path: Path | None = None) -> tuple[Interface, ...]:
    """The ``[[shape]]`` rows' interfaces of ``path`` (default ``corpus/interfaces.toml``), checked alike."""
    path = path or corpus_dir() / "interfaces.toml"
    return tuple(_interface(row, f"{path.name}: shape {i + 1}", SHAPE_KEYS, set(), "a shape names no function")
                 for i, row in enumerate(load_toml(path).get("shape", [])))


def _strings(row: dict, where: str) -> None:
    """Every value of the row a non-empty string, else a CorpusError naming the key."""
    for k, v in row.items():
        if not isinstance(v, str) or not v.strip():
            raise CorpusError(f"{where}: {k} must be a non-empty string")


def _interface(row: dict, where: str, required: set[str], optional: set[str], unnamed: str) -> Interface:
    """One row's keys and strings checked and its interface parsed (it must name no function: ``unnamed``)."""
    check_keys(row, where, required, optional)
    _strings(row, where)
    try:
        itf = parse_interface(row["interface"])
    except ParseError as e:
        raise CorpusError(f"{where}: {e}") from None
    if itf.name is not None:
        raise CorpusError(f"{where}: the interface names {itf.name!r}; {unnamed}")
    return itf


@lru_cache(maxsize=1)
def _rows() -> tuple[Row, ...]:
    return load()


@lru_cache(maxsize=1)
def _shapes() -> tuple[Interface, ...]:
    return load_shapes()


def lookup(symbol: str, member: str | None = None) -> Row | None:
    """The row of ``symbol``: a row for ``member`` first (a local symbol), else one without a member."""
    rows = _rows()
    if member is not None:
        hit = next((r for r in rows if r.symbol == symbol and r.member == member), None)
        if hit is not None:
            return hit
    return next((r for r in rows if r.symbol == symbol and r.member is None), None)


def interface_for(symbol: str) -> Interface | None:
    """The catalogued interface of the function ``symbol`` (named ``symbol``), or None."""
    row = lookup(symbol)
    return row.interface if row is not None else None


def interfaces() -> tuple[Interface, ...]:
    """The catalogue's distinct interfaces, unnamed, in the file's order (functions' rows, then shapes): the
    shapes SHA-1 block functions are known to take, which ``scan`` tries on a function the catalogue does not
    name.

    Example: the rows of ``sha1_block_data_order`` and ``_gcry_sha1_transform_amd64_ssse3`` both give
    ``(state, data, nblocks)``, listed once."""
    out: list[Interface] = []
    for itf in [r.interface for r in _rows()] + list(_shapes()):
        itf = replace(itf, name=None)
        if itf not in out:
            out.append(itf)
    return tuple(out)

