"""The README a newcomer reads in five minutes (issue 27).

Rules, each from the issue's report of a first hour with the README alone: the first screen (40 lines)
holds what sha1opt does, the two commands, how to run the CLI afterwards, and the everyday commands with
one example each; the prose is a five-minute read; no command-table cell is an essay (the ``export`` row
was one 3,024-character cell, ``prove --object`` 1,000); figures live in docs/figures.md with their host,
so the README never says "this machine"; every example names a command the CLI has.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from sha1opt.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
FIRST_SCREEN = 40
READING_WORDS = 1300        # five minutes at about 260 words a minute (code blocks and examples not counted)
CELL_CHARS = 400


def _lines() -> list[str]:
    return README.read_text().splitlines()


def _prose(lines: list[str]) -> list[str]:
    """The lines a reader reads as text: not fenced code, not indented examples."""
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not line.startswith("    "):
            out.append(line)
    return out


def test_regression_readme_first_screen_lacked_the_everyday_commands():
    """The first 40 lines: the two make commands, how to run the CLI after them, one example of each
    everyday command (prove a rewrite, search, show, export, analyze a library, bench)."""
    screen = "\n".join(_lines()[:FIRST_SCREEN])
    assert "make demo" in screen and "make test" in screen
    assert ".venv/bin/sha1opt" in screen
    for command in ("prove", "search", "show", "export", "analyze", "bench"):
        assert re.search(rf"^\s+sha1opt {command} ", screen, re.M), command


def test_regression_readme_was_4900_words():
    """The prose (code and command examples aside) is a five-minute read."""
    words = sum(len(line.split()) for line in _prose(_lines()))
    assert words <= READING_WORDS, words


def test_regression_export_row_was_one_3024_character_cell():
    """No cell of a README table is longer than a short sentence or two: the details live in --help and docs/."""
    cells = [c.strip() for line in _lines() if line.startswith("|") for c in line.strip("|").split("|")]
    assert cells and max(map(len, cells)) <= CELL_CHARS, max(cells, key=len)


def test_regression_readme_figures_said_this_machine():
    """Figures are in docs/figures.md, each with its host CPU and date; the README names no machine's figure."""
    text = README.read_text()
    assert "this machine" not in text.lower()
    assert "docs/figures.md" in text


def test_every_readme_example_is_a_command_the_cli_has():
    """Each ``sha1opt COMMAND`` example line names a command of the click group (a renamed command would leave
    the README's examples failing silently)."""
    used = {m.group(1) for line in _lines() if (m := re.match(r"\s+sha1opt ([a-z]+)", line))}
    commands = set(main.list_commands(click.Context(main)))      # (the group loads its commands lazily)
    assert used and used <= commands, used - commands
