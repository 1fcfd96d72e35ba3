"""Click parameter types of the CLI: every value is checked when parsed, so a bad one is one line and exit 2.

Invariant: a value that reaches a command body is usable -- numbers are
ASCII (``semantics.numerals``; click's own ``int``/``float`` accept
``"١٢"`` and ``"inf"``), time limits are finite, output paths name a
regular file or a new name in an existing directory
(``semantics.datafiles.check_output``), an output directory exists and
takes a file (``datafiles.output_dir``), and a source file is readable
text. Each type turns the library's ``Sha1optError`` into click's
``BadParameter``, which the CLI prints as one line.

Example: ``--timeout inf`` -> ``Invalid value for '--timeout': 'inf' is not
a finite number of seconds``; ``-o /dev/null`` -> ``Invalid value for
'-o': /dev/null: a character device, not a regular file; refusing to
replace it``.
"""

from __future__ import annotations

from pathlib import Path

import click

from sha1opt.semantics import numerals
from sha1opt.semantics.att import read_source
from sha1opt.semantics.datafiles import check_output, output_dir
from sha1opt.semantics.errors import Sha1optError

MAX_SECONDS = 7 * 86400.0   # a week: far above any search, and a Z3 timeout in ms still fits 32 bits


class Seconds(click.ParamType):
    """A finite number of seconds in ``[low, high]`` (``inf``, ``nan``, ``1e999``, ``٥`` refused)."""

    name = "seconds"

    def __init__(self, low: float, high: float = MAX_SECONDS) -> None:
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            v = value
        else:
            text = str(value).strip()
            negative = text.startswith("-")      # "-5" is out of range, said as "0" is, not unreadable
            try:
                v = numerals.seconds(text[1:] if negative else text)
            except Sha1optError:
                self.fail(f"{text!r} is not a finite number of seconds", param, ctx)
            v = -v if negative else v
        if not self.low <= v <= self.high:
            self.fail(f"{v:g} is not within {self.low:g}..{self.high:g} seconds", param, ctx)
        return v


class Integer(click.ParamType):
    """An ASCII decimal integer, optionally within ``[low, high]`` (``--seed ١٢`` refused)."""

    name = "integer"

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            v = value
        else:
            try:
                v = numerals.decimal(str(value))
            except Sha1optError as e:
                self.fail(str(e), param, ctx)
        if self.low is not None and v < self.low:
            self.fail(f"{v} is below the minimum {self.low}", param, ctx)
        if self.high is not None and v > self.high:
            self.fail(f"{v} is above the maximum {self.high}", param, ctx)
        return v


class Sizes(click.ParamType):
    """A comma list of bytes per call: ASCII integers, each a positive multiple of 64 up to 1 MiB."""

    name = "sizes"
    MAX = 1 << 20

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        out = []
        for item in filter(None, (x.strip() for x in str(value).split(","))):
            try:
                v = numerals.decimal(item)
            except Sha1optError as e:
                self.fail(str(e), param, ctx)
            if v <= 0 or v % 64 or v > self.MAX:
                self.fail(f"sizes must be positive multiples of 64, at most {self.MAX} (got {v})", param, ctx)
            out.append(v)
        if not out:
            self.fail("no sizes given", param, ctx)
        return out


class OutputFile(click.ParamType):
    """A file to write: a regular file or a new name in an existing, writable directory (never a device or FIFO)."""

    name = "file"

    def convert(self, value, param, ctx):
        try:
            output_dir(check_output(value).parent)     # refused now, not after the work is done
        except Sha1optError as e:
            self.fail(str(e), param, ctx)
        return str(value)


class OutputDir(click.ParamType):
    """A directory to write into: created if missing, and checked to take a file."""

    name = "directory"

    def convert(self, value, param, ctx):
        try:
            return output_dir(value)
        except Sha1optError as e:
            self.fail(str(e), param, ctx)


class TextSource(click.ParamType):
    """An existing source file that reads as text (a binary file is refused here, not by a traceback)."""

    name = "file"

    def convert(self, value, param, ctx):
        if not Path(value).is_file():           # first: never read a device or FIFO to find out
            self.fail(f"{value}: no such file" if not Path(value).exists() else f"{value}: not a regular file",
                      param, ctx)
        try:
            read_source(value)
        except Sha1optError as e:
            self.fail(str(e), param, ctx)
        return str(value)
