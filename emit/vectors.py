"""SHA-1 test vectors: the NIST CAVP byte-oriented files and FIPS 180 known answers.

Purpose: give every check of emitted SHA-1 code one source of real, published
(message, digest) pairs, read from the data files in ``corpus/vectors/``:

- ``SHA1ShortMsg.rsp`` and ``SHA1LongMsg.rsp``: NIST CAVP (SHAVS) response
  files, shipped verbatim (see ``corpus/vectors/SOURCE.md``);
- ``fips180.toml``: the FIPS 180 known answers ("abc", the 448-bit message,
  one million 'a', the empty message).

Invariants:

- Every ``Vector`` has a whole number of bytes (byte-oriented SHA-1 only) and
  a 20-byte digest; a record that breaks this, or whose ``Len`` (in bits)
  disagrees with its ``Msg``, is rejected with ``VectorError``, never skipped.
- Names are unique within one loaded file: ``"SHA1ShortMsg/Len=24"`` (Len in
  bits, as in the file) or the ``name`` of a ``fips180.toml`` row.
- Loading is pure: no printing, no caching, no writes; the data files are only
  read. Whether a digest is *correct* is not checked here (that is what the
  tests do against ``hashlib``); this module only checks the files' shape.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from sha1opt.semantics.datafiles import corpus_dir
from sha1opt.semantics.errors import Sha1optError

__all__ = [
    "CAVP_FILES",
    "DIGEST_SIZE",
    "Vector",
    "VectorError",
    "all_vectors",
    "load_cavp",
    "load_fips",
    "parse_rsp",
    "parse_fips_toml",
]

#: SHA-1 digest size in bytes (the ``L`` of the CAVP ``[L = 20]`` header).
DIGEST_SIZE: Final = 20

#: The CAVP files shipped in ``corpus/vectors/`` (without the ``.rsp`` suffix).
CAVP_FILES: Final = ("SHA1ShortMsg", "SHA1LongMsg")

_FIPS_FILE: Final = "fips180.toml"

# Keys allowed in one ``[[vector]]`` row of fips180.toml, and at its top level.
_FIPS_ROW_KEYS: Final = frozenset({"name", "message", "repeat", "count", "digest", "source"})
_FIPS_TOP_KEYS: Final = frozenset({"vector"})

# ``Key = value`` in a .rsp record; values are decimal (Len) or hex (Msg, MD).
_RSP_LINE: Final = re.compile(r"^(?P<key>[A-Za-z]+)\s*=\s*(?P<value>\S*)$")
# ``[L = 20]`` section header: the digest length in bytes.
_RSP_HEADER: Final = re.compile(r"^\[\s*L\s*=\s*(?P<value>\d+)\s*\]$")
_HEX: Final = re.compile(r"^(?:[0-9a-fA-F]{2})*$")
# Record fields, in the order the CAVP files give them.
_RSP_FIELDS: Final = ("Len", "Msg", "MD")


class VectorError(Sha1optError):
    """A vector data file is malformed; ``str(e)`` names the file and line."""


@dataclass(frozen=True)
class Vector:
    """One known answer: SHA-1(``message``) == ``digest`` (20 bytes)."""

    name: str
    message: bytes
    digest: bytes


# --------------------------------------------------------------------------
# Locating the data


def _vectors_dir() -> Path:
    """The ``corpus/vectors`` directory (``semantics.datafiles.corpus_dir``, installed or in a checkout)."""
    return corpus_dir() / "vectors"


def _read_text(filename: str) -> str:
    """Read one data file as text, with a ``VectorError`` if it is missing."""
    path = _vectors_dir() / filename
    try:
        # ASCII by format; utf-8 is a superset, and a non-ASCII byte in a
        # hex field is rejected by the parser rather than by the decoder.
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VectorError(f"{filename}: cannot read vector file ({exc})") from exc


# --------------------------------------------------------------------------
# CAVP .rsp files


def _hex_bytes(value: str, where: str, field: str) -> bytes:
    """Decode an even-length hex field, or raise ``VectorError``."""
    if not _HEX.fullmatch(value):
        raise VectorError(f"{where}: {field} is not an even-length hex string: {value!r}")
    return bytes.fromhex(value)


def _make_record(fields: dict[str, str], name: str, line_no: int) -> Vector:
    """Check one complete Len/Msg/MD record and build its ``Vector``.

    ``line_no`` is the 1-based line of the record's ``MD`` (for messages).
    """
    where = f"{name}:{line_no}"
    len_text = fields["Len"]
    if not len_text.isdigit():
        raise VectorError(f"{where}: Len is not a bit count: {len_text!r}")
    bits = int(len_text)
    # Byte-oriented SHA-1 only: a bit-length that is not whole bytes has no
    # bytes message (the bit-oriented CAVP files are deliberately unsupported).
    if bits % 8 != 0:
        raise VectorError(f"{where}: Len = {bits} bits is not a multiple of 8")
    raw = _hex_bytes(fields["Msg"], where, "Msg")
    # CAVP writes the empty message as "Msg = 00" with Len = 0: the one
    # byte is a placeholder, not data.
    message = b"" if bits == 0 else raw
    if bits == 0 and raw != b"\x00":
        raise VectorError(f"{where}: Len = 0 but Msg is {fields['Msg']!r}, not '00'")
    if bits != 0 and 8 * len(message) != bits:
        raise VectorError(
            f"{where}: Len = {bits} bits but Msg holds {8 * len(message)} bits"
        )
    digest = _hex_bytes(fields["MD"], where, "MD")
    if len(digest) != DIGEST_SIZE:
        raise VectorError(f"{where}: MD is {len(digest)} bytes, not {DIGEST_SIZE}")
    return Vector(name=f"{name}/Len={bits}", message=message, digest=digest)


def parse_rsp(text: str, name: str) -> list[Vector]:
    """Parse the text of a CAVP SHA-1 ``.rsp`` file into vectors, in file order.

    ``name`` prefixes each vector's name (``f"{name}/Len={bits}"``) and every
    error message. Blank lines, ``#`` comments and ``[L = 20]`` headers are
    skipped; each record must be ``Len``, ``Msg``, ``MD`` in that order.
    Raises ``VectorError`` on any malformed line or record.
    """
    vectors: list[Vector] = []
    seen: set[str] = set()
    fields: dict[str, str] = {}  # the record being read
    # splitlines() also drops the CR of the files' CRLF line endings.
    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name}:{line_no}"
        header = _RSP_HEADER.fullmatch(line)
        if header:
            if fields:
                raise VectorError(f"{where}: header inside an unfinished record")
            if int(header["value"]) != DIGEST_SIZE:
                raise VectorError(f"{where}: [L = {header['value']}] is not SHA-1's {DIGEST_SIZE}")
            continue
        match = _RSP_LINE.fullmatch(line)
        if not match:
            raise VectorError(f"{where}: not a 'Key = value' line: {line[:40]!r}")
        key, value = match["key"], match["value"]
        expected = _RSP_FIELDS[len(fields)]
        if key != expected:
            raise VectorError(f"{where}: expected {expected}, found {key}")
        fields[key] = value
        if len(fields) == len(_RSP_FIELDS):
            vector = _make_record(fields, name, line_no)
            if vector.name in seen:
                raise VectorError(f"{where}: duplicate record {vector.name}")
            seen.add(vector.name)
            vectors.append(vector)
            fields = {}
    if fields:
        raise VectorError(f"{name}: file ends inside a record (after {', '.join(fields)})")
    return vectors


def load_cavp(name: str) -> list[Vector]:
    """Load ``corpus/vectors/{name}.rsp``; ``name`` is one of ``CAVP_FILES``."""
    if name not in CAVP_FILES:
        raise VectorError(f"unknown CAVP vector file {name!r}; expected one of {CAVP_FILES}")
    return parse_rsp(_read_text(f"{name}.rsp"), name)


# --------------------------------------------------------------------------
# fips180.toml


def _fips_row(row: Any, index: int) -> Vector:
    """Check one ``[[vector]]`` table of fips180.toml and build its ``Vector``."""
    where = f"{_FIPS_FILE}: vector #{index + 1}"
    if not isinstance(row, dict):
        raise VectorError(f"{where}: not a table")
    unknown = set(row) - _FIPS_ROW_KEYS
    if unknown:
        raise VectorError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("name", "digest", "source"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise VectorError(f"{where}: '{key}' must be a non-empty string")
    name: str = row["name"]
    where = f"{_FIPS_FILE}: {name}"

    has_message = "message" in row
    has_repeat = "repeat" in row or "count" in row
    if has_message == has_repeat:
        raise VectorError(f"{where}: give exactly one of 'message' or 'repeat' + 'count'")
    if has_message:
        text = row["message"]
        if not isinstance(text, str):
            raise VectorError(f"{where}: 'message' must be a string")
    else:
        unit, count = row.get("repeat"), row.get("count")
        if not isinstance(unit, str) or not unit:
            raise VectorError(f"{where}: 'repeat' must be a non-empty string")
        # bool is an int subclass in Python; `count = true` is a typo, not 1.
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise VectorError(f"{where}: 'count' must be a positive integer")
        text = unit * count
    # ASCII only, so the bytes hashed never depend on an encoding choice.
    if not text.isascii():
        raise VectorError(f"{where}: message must be ASCII")

    digest_hex: str = row["digest"]
    if not _HEX.fullmatch(digest_hex) or len(digest_hex) != 2 * DIGEST_SIZE:
        raise VectorError(f"{where}: 'digest' must be {2 * DIGEST_SIZE} hex digits")
    return Vector(name=name, message=text.encode("ascii"), digest=bytes.fromhex(digest_hex))


def parse_fips_toml(text: str) -> list[Vector]:
    """Parse fips180.toml text into vectors, in file order.

    Raises ``VectorError`` on invalid TOML, an unknown key (top level or row),
    a missing or mistyped field, or a duplicate name.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VectorError(f"{_FIPS_FILE}: invalid TOML ({exc})") from exc
    unknown = set(data) - _FIPS_TOP_KEYS
    if unknown:
        raise VectorError(f"{_FIPS_FILE}: unknown top-level key(s) {', '.join(sorted(unknown))}")
    rows = data.get("vector", [])
    if not isinstance(rows, list):
        raise VectorError(f"{_FIPS_FILE}: 'vector' must be an array of tables ([[vector]])")
    vectors: list[Vector] = []
    seen: set[str] = set()
    for index, row in enumerate(rows):
        vector = _fips_row(row, index)
        if vector.name in seen:
            raise VectorError(f"{_FIPS_FILE}: duplicate name {vector.name!r}")
        seen.add(vector.name)
        vectors.append(vector)
    return vectors


def load_fips() -> list[Vector]:
    """Load the FIPS 180 known answers from ``corpus/vectors/fips180.toml``."""
    return parse_fips_toml(_read_text(_FIPS_FILE))


def all_vectors() -> list[Vector]:
    """Every shipped vector: FIPS 180 first, then each CAVP file in ``CAVP_FILES``."""
    vectors = load_fips()
    for name in CAVP_FILES:
        vectors.extend(load_cavp(name))
    return vectors
