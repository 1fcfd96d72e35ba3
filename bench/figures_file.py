"""The sections of docs/figures.md that bench scripts write: one marked section per script, replaced whole.

A script's section lies between ``<!-- NAME table: begin -->`` and ``<!-- NAME table: end -->`` (``markers``);
``replace_section`` swaps what is between them and keeps everything else byte for byte, so no figure in
the file is typed by hand and a script never touches another's section.

Example: ``replace_section("a\\n<B>\\nold\\n<E>\\nz", "x.py", ["new"])`` with ``<B>``/``<E>`` the markers of
``x.py`` is ``"a\\n<B>\\nnew\\n<E>\\nz"``; without both markers (or with the end before the begin) it is None.
"""

from __future__ import annotations

from pathlib import Path

from sha1opt.semantics.datafiles import atomic_write


def markers(script: str) -> tuple[str, str]:
    """The begin and end markers of ``script``'s section (``best_vs_openssl.py``...)."""
    return f"<!-- {script} table: begin -->", f"<!-- {script} table: end -->"


def replace_section(text: str, script: str, body: list[str]) -> str | None:
    """``text`` with ``script``'s section replaced by ``body`` (the markers kept); None without both markers."""
    begin, end = markers(script)
    if begin not in text or end not in text.split(begin, 1)[1]:
        return None
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + "\n".join([begin, *body, end]) + tail


def write_section(path: str | Path, script: str, body: list[str]) -> str:
    """Replace ``script``'s section of the file at ``path``; what was done, as one line to print."""
    new = replace_section(Path(path).read_text(), script, body)
    if new is None:
        begin, end = markers(script)
        return f"{path}: no table markers ({begin} ... {end}): not written"
    atomic_write(Path(path), new)
    return f"wrote the table into {path}"
