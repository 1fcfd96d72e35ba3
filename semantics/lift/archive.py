"""The members of an ``ar`` archive (``.a``), read from its bytes: what ``sha1opt scan`` walks.

``members(data)`` lists ``Member(name, offset, size)`` for every member of
a GNU or BSD archive (long names from the ``//`` table or ``#1/N``), the
symbol tables (``/``, ``/SYM64/``, ``__.SYMDEF``) left out. Reading in
process instead of one ``ar p`` per member: Debian's ``libcrypto.a`` has
~700 members, and ``scan`` looks at each member's bytes before parsing it.

Invariant: the bytes are only read; a malformed header, a size past the end
or a thin archive (``!<thin>``: members are other files) is an
``ArchiveError`` naming the byte offset. ``emit.objfile`` still extracts the
member ``prove --object --member`` names with ``ar`` itself.

Example: ``members(Path("/usr/lib/x86_64-linux-gnu/libnettle.a").read_bytes())``
includes ``Member("sha1-compress.o", offset, size)``; its bytes are
``data[offset:offset + size]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sha1opt.semantics.errors import Sha1optError

MAGIC = b"!<arch>\n"
_HEADER = 60
_SYMBOL_TABLES = ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED")


class ArchiveError(Sha1optError):
    """The bytes are not an archive this reader understands."""


@dataclass(frozen=True)
class Member:
    name: str
    offset: int      # of the member's bytes in the archive
    size: int


def members(data) -> list[Member]:
    """Every member of the archive ``data`` (bytes, or an mmap) in file order (see the module docstring)."""
    if data[:8] != MAGIC:
        raise ArchiveError("thin archive (members are separate files)" if data[:8] == b"!<thin>\n"
                           else "not an ar archive")
    out: list[Member] = []
    longnames = b""
    at = len(MAGIC)
    while at + _HEADER <= len(data):
        head = bytes(data[at:at + _HEADER])
        if head[58:60] != b"`\n":
            raise ArchiveError(f"malformed member header at byte {at}")
        try:
            size = int(head[48:58].decode("ascii").strip() or "0", 10)
        except (UnicodeDecodeError, ValueError):
            raise ArchiveError(f"malformed member size at byte {at}") from None
        start = at + _HEADER
        if size < 0 or start + size > len(data):
            raise ArchiveError(f"member at byte {at} runs past the end of the archive")
        raw = head[:16].decode("latin-1").rstrip(" ")
        name, skip = raw, 0
        if raw == "//":
            longnames = bytes(data[start:start + size])
            name = ""
        elif raw.startswith("#1/"):                 # BSD: the name follows the header
            skip = int(raw[3:] or "0", 10) if raw[3:].isdigit() else 0
            name = bytes(data[start:start + skip]).rstrip(b"\0").decode("latin-1")
        elif raw.startswith("/") and raw[1:].isdigit():     # GNU: an offset into the // table
            off = int(raw[1:], 10)
            end = longnames.find(b"/\n", off)
            name = longnames[off:end if end >= 0 else None].decode("latin-1")
        elif raw.endswith("/") and raw not in _SYMBOL_TABLES:
            name = raw[:-1]
        if name and name not in _SYMBOL_TABLES and raw not in _SYMBOL_TABLES:
            out.append(Member(name, start + skip, size - skip))
        at = start + size + (size & 1)
    if bytes(data[at:]).strip(b"\n"):
        raise ArchiveError(f"truncated member header at byte {at}")
    return out
