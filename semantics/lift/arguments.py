"""One argument of a declared interface (``interface.parse_interface``): the scanner's tokens and each role read.

``tokens(text)`` splits ``--interface`` text into (kind, text, column) -- names, numbers (decimal or ``0x``
hex, ``-`` before one: an offset before the argument) and the punctuation ``( ) , [ ] @ +``; ``read_role``
reads one role with its size (``workspace[16]``) or offset (``state@0x40``, ``workspace@-0x30[32]``),
``read_counter`` a state's ``counter@OFFSET``, ``joined_workspace`` checks a workspace joined to the state
(``state@S + workspace@W[N]``) lies outside the state's words. Each problem is a ``ParseError`` of one line
naming its column; the grammar and what each role means are ``interface``'s docstring.

Example: ``tokens("(state@-0x58 wide")`` is ``[("punct", "(", 1), ("name", "state", 2), ("punct", "@", 7),
("num", "-0x58", 8), ("name", "wide", 14)]``, and ``number("-0x58") == -88``.
"""

from __future__ import annotations

import re

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.limits import clip

ROLES = ("state", "data", "words", "nblocks", "bytes", "workspace", "plain", "cipher", "key", "iv", "lanes", "messages",
         "groups")
DATA_ROLES = ("data", "words")
COUNT_ROLES = ("nblocks", "bytes")
CONST = "const"                 # the role of an integer literal: a fixed argument
MAX_WORKSPACE_WORDS = 80
MAX_CONTEXT_WORKSPACE_WORDS = 256      # a workspace in the state's context: up to 1 KiB of it
MAX_STATE_OFFSET = 4096
MAX_CONSTANT = (1 << 32) - 1
MAX_TEXT = 200
CONTEXT_BLOCK = 64              # the bytes of the one block inside a context (``state@S + words@D``)
_FIXED_SIZE = {"state": (5, "words"), "data": (64, "bytes"), "words": (16, "words")}
_TOKEN = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>-?(?:0[xX][0-9a-fA-F]+|[0-9]+))|(?P<punct>[(),\[\]@+])")


def tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, column) of each token; anything else is a ParseError naming the column."""
    out, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return out
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(clip(f"--interface: column {pos + 1}: unexpected character {text[pos]!r}"))
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()


def number(text: str) -> int:
    """A decimal or ``0x`` hex number, ``-`` before it for a negative one (an offset before the argument)."""
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text)
    return sign * (int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10))


def joined_workspace(given: tuple, col: int, state_offset: int, stride: int) -> tuple[int, int]:
    """``state@S + workspace@W[N]``: (W, N), checked: W given, the N words outside the state's 5 words (or
    slots, ``stride`` bytes apart); ``given`` is the workspace's (number, ``@`` column) from ``read_role``."""
    spec, at = given
    if at is None:
        raise ParseError(f"--interface: column {col}: the workspace joined to the state needs its byte in the "
                         "context (workspace@OFFSET[N])")
    off, words = spec
    hi, state_hi = off + 4 * words, state_offset + 5 * stride
    if off < state_hi and state_offset < hi:
        raise ParseError(f"--interface: column {col}: the workspace (bytes {off:#x}..{hi - 1:#x}) overlaps the "
                         f"state (bytes {state_offset:#x}..{state_hi - 1:#x})")
    return off, words


def read_counter(expect, state_offset: int) -> int:
    """``counter@OFFSET`` after the state role: the counter's byte in the context, 8 bytes outside the state
    words, a multiple of 4 within 0..MAX_STATE_OFFSET."""
    expect("name", "counter")
    expect("punct", "@")
    _, num, col = expect("num")
    off = number(num)
    if off % 4 or off > MAX_STATE_OFFSET:
        raise ParseError(f"--interface: column {col}: counter offset {num} is not a multiple of 4 within "
                         f"0..{MAX_STATE_OFFSET}")
    if off + 8 > state_offset and off < state_offset + 20:
        raise ParseError(f"--interface: column {col}: the counter's 8 bytes at {num} overlap the 5 state words "
                         f"at {state_offset}")
    return off


def read_role(tok: tuple[str, str, int], expect, peek,
              roles: list[str]) -> tuple[str, int | tuple[int, int], int | None]:
    """One named role, its number (a workspace's size, the state's or a block's offset, (offset, size) of a
    ``workspace@W[N]``; else 0) and the column of its ``@`` (None when it has no offset)."""
    _, role, col = tok
    if role not in ROLES:
        raise ParseError(clip(f"--interface: column {col}: unknown role {role!r} (roles: state[@OFFSET], data, "
                              "words, nblocks, bytes, workspace[N], plain, cipher, key, iv, lanes, messages, groups, a "
                              "constant; or the "
                              "keywords blocks, one-block)"))
    if role in roles:
        raise ParseError(f"--interface: column {col}: {role} given twice")
    for group, what in ((DATA_ROLES, "data argument"), (COUNT_ROLES, "count")):
        if role in group and any(r in group for r in roles):
            raise ParseError(f"--interface: column {col}: a second {what} ({role}; one of {', '.join(group)})")
    if role == "workspace" and peek()[1] == "@":
        # a workspace in the state's context: ``workspace@W[N]`` (joined to the state by the caller)
        _, _, acol = expect("punct", "@")
        off = offset_of(expect("num"), "workspace")
        expect("punct", "[")
        _, num, ncol = expect("num")
        size = number(num)
        expect("punct", "]")
        if not 1 <= size <= MAX_CONTEXT_WORKSPACE_WORDS:
            raise ParseError(f"--interface: column {ncol}: a workspace of {size} words in the context is not within "
                             f"1..{MAX_CONTEXT_WORKSPACE_WORDS}")
        return role, (off, size), acol
    size = None
    if peek()[1] == "[":
        expect("punct", "[")
        _, num, ncol = expect("num")
        size = number(num)
        expect("punct", "]")
        if role in COUNT_ROLES:
            raise ParseError(f"--interface: column {ncol}: {role} is a count, not an array")
        if role in _FIXED_SIZE and size != _FIXED_SIZE[role][0]:
            raise ParseError(f"--interface: column {ncol}: {role} is {' '.join(map(str, _FIXED_SIZE[role]))}, "
                             f"not {size}")
        if role == "workspace" and not 1 <= size <= MAX_WORKSPACE_WORDS:
            raise ParseError(f"--interface: column {ncol}: workspace of {size} words is not within "
                             f"1..{MAX_WORKSPACE_WORDS}")
    if role == "workspace":
        if size is None:
            raise ParseError(f"--interface: column {col}: workspace needs its size in 32-bit words, e.g. workspace[16]")
        return role, size, None
    if peek()[1] == "@":
        _, _, acol = expect("punct", "@")
        if role != "state" and role not in DATA_ROLES:
            raise ParseError(f"--interface: column {acol}: only the state has an offset (state@OFFSET)")
        return role, offset_of(expect("num"), role), acol
    return role, 0, None


def offset_of(tok: tuple[str, str, int], role: str) -> int:
    """A role's byte offset: a multiple of 4; the state's or a context workspace's within +-MAX_STATE_OFFSET of the
    argument (negative: before it), a block's within 0..MAX_STATE_OFFSET."""
    _, num, col = tok
    off = number(num)
    least = -MAX_STATE_OFFSET if role in ("state", "workspace") else 0
    if off % 4 or not least <= off <= MAX_STATE_OFFSET:
        raise ParseError(f"--interface: column {col}: {role} offset {num} is not a multiple of 4 within "
                         f"{least}..{MAX_STATE_OFFSET}")
    return off
