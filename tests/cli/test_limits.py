"""Documented limits, refused past them with one clear line (issue 13, item 8; numbers in semantics/limits.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid

import pytest

from tests.support.cpu import needs
from tests.support.processes import finished, reap, settle, started
from sha1opt.emit.toolchain import ToolchainError, run

native = needs()                           # bench runs base x86-64 code
MESSAGE_CHARS = 200          # semantics.limits.MESSAGE_CHARS
FUNCTION = "\t.text\n\t.globl sha1_block_data_order\nsha1_block_data_order:\n"


def _sha1opt(tmp_path, *args, timeout=60.0):
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    proc = started(list(args), tmp)
    try:
        code, out, err = finished(proc, timeout)
        left = settle(proc.pid)
    finally:
        reap(proc.pid)
    return code, out, err, left


def test_every_limit_is_documented_in_the_limits_docstring():
    # Imported here, not at the top: the command-line tests below must run (and fail on
    # their own) where the limits module does not exist yet.
    import sha1opt.semantics.limits as limits

    assert limits.MESSAGE_CHARS == MESSAGE_CHARS
    names = [n for n in vars(limits) if n.isupper() and n != "MiB"]
    assert names and all(f"``{n}``" in limits.__doc__ for n in names), names


@pytest.mark.parametrize("megabytes", [3, 5])
def test_unterminated_comment_before_megabytes_gives_a_short_one_line_error(tmp_path, megabytes):
    src = tmp_path / "unterminated.s"
    src.write_text("/*" + "x" * (megabytes << 20))
    code, out, err, _ = _sha1opt(tmp_path, "prove", "--asm", str(src), "--out", "eax", "--expr", "b")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and len(err) < MESSAGE_CHARS + 50, len(err)


def test_source_larger_than_4_mib_is_refused_before_parsing(tmp_path):
    src = tmp_path / "big.s"
    src.write_text("add %eax, %ebx\n" * 1_000_000)           # 15 MB, a million lines
    t0 = time.monotonic()
    code, _, err, _ = _sha1opt(tmp_path, "prove", "--asm", str(src), "--out", "eax", "--expr", "b", timeout=20)
    assert code == 2 and "4 MiB" in err, err[-300:]
    assert time.monotonic() - t0 < 15


def test_source_of_more_than_20000_lines_is_refused_before_parsing(tmp_path):
    src = tmp_path / "long.s"
    src.write_text("add %eax, %ebx\n" * 279_000)             # under 4 MiB, 280k lines: 26 s and 1.5 GB to prove
    t0 = time.monotonic()
    code, _, err, _ = _sha1opt(tmp_path, "prove", "--asm", str(src), "--out", "ebx", "--expr", "b", "--map", "b=ebx",
                               timeout=20)
    assert code == 2 and "20000 line" in err, (code, err[-300:])
    assert time.monotonic() - t0 < 15


def test_analyze_dev_zero_is_refused_without_reading_it(tmp_path):
    code, _, err, _ = _sha1opt(tmp_path, "analyze", "/dev/zero", "--uarch", "p4", timeout=20)
    assert code == 2 and "not a regular file" in err, (code, err[-300:])


@native
def test_fill_of_8_gb_stops_at_the_assembler_output_limit_with_that_reason(tmp_path):
    src = tmp_path / "fill.S"
    src.write_text(FUNCTION + "\t.fill 0x200000000, 1, 0x90\n\tret\n")
    code, _, err, left = _sha1opt(tmp_path, "bench", str(src), "--arch", "x86_64", "--openssl", "none")
    assert code == 2 and "output exceeds 64 MiB" in err, (code, err[-300:])
    assert left == []


@native
def test_rept_1e8_stops_at_the_assembler_memory_limit_with_that_reason(tmp_path):
    src = tmp_path / "rept.S"
    src.write_text(FUNCTION + "\t.rept 100000000\n\tnop\n\t.endr\n\tret\n")
    t0 = time.monotonic()
    code, _, err, left = _sha1opt(tmp_path, "bench", str(src), "--arch", "x86_64", "--openssl", "none")
    assert code == 2 and re.search(r"(memory|output) exceeds", err), (code, err[-300:])
    assert time.monotonic() - t0 < 60 and left == []


def test_tool_past_its_wall_time_is_stopped_with_its_whole_process_group(tmp_path):
    # A "tool" that starts a grandchild and waits: both must be gone when run() returns.
    # unique to this run: two test runs on one machine share tmp_path's leaf names (seen: the other run's
    # sleepers, killed a moment later, were counted as this run's)
    marker = f"sha1opt-limit-test-{os.getpid()}-{uuid.uuid4().hex}"
    sleeper = f"import time; time.sleep(30)  # {marker}"
    tool = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {sleeper!r}]); time.sleep(30)"
    t0 = time.monotonic()
    with pytest.raises(ToolchainError, match="exceeded its 1 s time limit"):
        run([sys.executable, "-c", tool], "a slow tool", timeout=1)
    assert time.monotonic() - t0 < 10
    time.sleep(0.2)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, timeout=10).stdout.split()
    assert left == []
