"""CLI test helpers: the one-line refusal every bad input must get."""

from __future__ import annotations


def one_line_error(r, *needles: str) -> None:
    """Exit 2, exactly one line on the output naming the problem, no traceback."""
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("sha1opt: error: "), r.output
    for n in needles:
        assert n in lines[0], r.output
