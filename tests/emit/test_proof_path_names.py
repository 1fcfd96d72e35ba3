"""The names of a proved function's paths, as the export header prints them (issue 27)."""

import tempfile
from pathlib import Path

from sha1opt.emit.assembly import function_text
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook


def test_regression_header_said_no_loop_and_loop_at():
    """Every export's header read "whole function: entry -> ret, no loop, loop at 0x2a": the nblocks = 0
    exit of a function with a loop is the path that skips the loop, and is named so."""
    sched = textbook("x86_64")
    with tempfile.TemporaryDirectory() as d:
        v = validate(function_text(sched), sched, Path(d), native=False)
    names = [p.name for p in v.proof.paths]
    assert v.ok and [p.kind for p in v.proof.paths] == ["loop not entered", "loop"]
    assert names == ["entry -> ret, loop not entered", f"loop at 0x{v.proof.paths[1].head:x} (sha1_block_data_order)"]
    assert not any("no loop" in n for n in names)
