"""How numbers are spelled in everything sha1opt reads: ASCII only.

Invariant: a number is made of ASCII characters -- decimal ``[0-9]``, hex
``0x[0-9a-fA-F]``, an optional sign, and for seconds a decimal point and
exponent -- and nothing else is ever read as one. Python's ``int`` and
``float`` accept any Unicode decimal digit (``int("١٢") == 12``), while GNU
as reads ``$٣`` as a symbol, so a parser that leaned on them would prove
something other than what gets assembled. Every number parser of the
project (expression grammar, AT&T operands, listings, CLI options) matches
ASCII patterns first; ``non_ascii_digit`` finds the character to name in
the refusal.

Examples: ``decimal("40") == 40``; ``decimal("٤٠")`` raises
``ParseError("'٤٠' is not a number: column 1: non-ASCII digit '٤' (U+0664); numbers are ASCII 0-9")``;
``seconds("inf")`` raises ``ParseError("'inf' is not a finite number of seconds")``.
"""

from __future__ import annotations

import math
import re

from sha1opt.semantics.errors import ParseError

DECIMAL = re.compile(r"[+-]?[0-9]+")
SECONDS = re.compile(r"[+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def non_ascii_digit(text: str) -> int | None:
    """Index of the first character that is numeric but not ASCII (``'١'``, ``'５'``, ``'²'``), else None."""
    for i, ch in enumerate(text):
        if not ch.isascii() and ch.isnumeric():
            return i
    return None


def describe(ch: str) -> str:
    """``"non-ASCII digit '١' (U+0661); numbers are ASCII 0-9"``."""
    return f"non-ASCII digit {ch!r} (U+{ord(ch):04X}); numbers are ASCII 0-9"


def _refuse(text: str, what: str) -> ParseError:
    i = non_ascii_digit(text)
    shown = text if len(text) <= 40 else text[:40] + "..."
    return ParseError(f"{shown!r} is not {what}" + (f": column {i + 1}: {describe(text[i])}" if i is not None else ""))


def decimal(text: str) -> int:
    """An ASCII decimal integer (optional sign), or a one-line ``ParseError``."""
    t = text.strip()
    if not DECIMAL.fullmatch(t):
        raise _refuse(t, "a number")
    return int(t, 10)


def seconds(text: str) -> float:
    """A finite, non-negative ASCII decimal number of seconds (``"0.5"``, ``"1e3"``), or a ``ParseError``.

    ``inf``, ``nan``, ``-1`` and ``1e999`` (infinite once read) are refused:
    a time limit that never arrives is not a limit.
    """
    t = text.strip()
    if not SECONDS.fullmatch(t):
        raise _refuse(t, "a finite number of seconds")
    v = float(t)
    if not math.isfinite(v):
        raise ParseError(f"{t!r} is not a finite number of seconds")
    return v
