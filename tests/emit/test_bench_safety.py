"""``sha1opt bench`` runs only validated code, in bounded children, and leaves nothing behind (issue 13, item 3).

Every test runs the real command as a session leader (``processes.started``)
and then checks that the session is empty: no ``bench64``, ``as`` or ``gcc``
outlives the command, whatever way it ended. Temporary files are counted in
a ``TMPDIR`` of the test's own.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cpu import needs
from tests.support.processes import finished, reap, settle, started, wait_for_member
from sha1opt.emit.timing import run_program
from sha1opt.emit.toolchain import ToolchainError, which

pytestmark = needs()

QUICK = ["--arch", "x86_64", "--pairs", "2", "--sizes", "64", "--openssl", "none"]
PROLOGUE_END = "\tmov %rdx, 64(%rsp)\n"
FINAL_RET = ".Lsha1_done:\n\tret\n"


@pytest.fixture(scope="module")
def good(textbook_exports) -> str:
    """The text of a validated x86-64 export (the textbook schedule; made once for the session, tests/conftest.py)."""
    assert textbook_exports["x86_64"].ok
    return textbook_exports["x86_64"].path.read_text()


def _source(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _bench(tmp_path: Path, source: Path, *extra: str, timeout: float = 120.0, stdin=subprocess.DEVNULL):
    """Run ``sha1opt bench``; returns (exit code or None on a hang, stdout, stderr, processes left, temp files left)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    proc = started(["bench", str(source), *QUICK, *extra], tmp, stdin)
    try:
        code, out, err = finished(proc, timeout)
        left = settle(proc.pid)
    finally:
        reap(proc.pid)
    return code, out, err, left, sorted(p.name for p in tmp.iterdir())


def _refused(code, out, err, left, temps) -> None:
    assert code == 2, (code, err[-300:])
    assert len(err.strip().splitlines()) == 1 and "refused" in err, err[-300:]
    assert "ratio" not in out
    assert left == [] and temps == []


def test_bench_of_a_bare_ret_is_refused_not_shown_faster_than_openssl(tmp_path):
    src = _source(tmp_path, "ret.S", "\t.text\n\t.globl sha1_block_data_order\nsha1_block_data_order:\n\tret\n")
    _refused(*_bench(tmp_path, src))


def test_bench_of_a_system_call_is_refused_and_never_runs_it(tmp_path, good):
    marker = tmp_path / "system-ran"
    call = ("\tmov %rdi, %rbx\n\tmov %rsi, %rbp\n\tlea cmd(%rip), %rdi\n\tcall system@PLT\n"
            "\tmov %rbx, %rdi\n\tmov %rbp, %rsi\n")
    text = good.replace(PROLOGUE_END, PROLOGUE_END + call) + f'\t.section .rodata\ncmd:\t.asciz "touch {marker}"\n'
    result = _bench(tmp_path, _source(tmp_path, "system.S", text))
    assert not marker.exists()
    _refused(*result)


def test_bench_of_clobbered_callee_saved_registers_is_refused_not_reported_as_nan(tmp_path, good):
    text = good.replace(FINAL_RET, ".Lsha1_done:\n\txor %ebx, %ebx\n\txor %ebp, %ebp\n\tret\n")
    code, out, err, left, temps = _bench(tmp_path, _source(tmp_path, "clobber.S", text))
    assert "nan" not in out
    _refused(code, out, err, left, temps)


@pytest.mark.parametrize("where", ["whole function", "after the prologue"])
def test_bench_of_an_infinite_loop_stops_with_exit_2_and_no_process_left(tmp_path, good, where):
    if where == "whole function":
        text = "\t.text\n\t.globl sha1_block_data_order\nsha1_block_data_order:\n1:\tjmp 1b\n"
    else:
        text = good.replace(PROLOGUE_END, PROLOGUE_END + "1:\tjmp 1b\n")
    t0 = time.monotonic()
    result = _bench(tmp_path, _source(tmp_path, "loop.S", text), timeout=60)
    assert time.monotonic() - t0 < 60
    _refused(*result)


def test_include_dev_stdin_leaves_no_orphaned_as_or_temp_file(tmp_path):
    src = _source(tmp_path, "inc.S", '\t.include "/dev/stdin"\n')
    # stdin is a pipe nobody writes to or closes: a tool reading it would wait for ever.
    code, out, err, left, temps = _bench(tmp_path, src, timeout=30, stdin=subprocess.PIPE)
    assert code is not None, "bench hung reading stdin"
    _refused(code, out, err, left, temps)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_bench_during_timing_leaves_no_spinning_process(tmp_path, good, signum):
    src = _source(tmp_path, "good.S", good)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = started(["bench", str(src), "--arch", "x86_64", "--pairs", "100000", "--sizes", "1048576",
                    "--openssl", "none"], tmp)
    try:
        assert wait_for_member(proc.pid, "bench64", 60), "the timing program never started"
        time.sleep(0.3)
        proc.send_signal(signum)
        code, _, err = finished(proc, 10)
        left = settle(proc.pid)
    finally:
        reap(proc.pid)
    assert code == 128 + signum, (code, err[-300:])
    assert "interrupted" in err
    assert left == []
    assert list(tmp.iterdir()) == []


def test_timing_program_past_its_time_limit_is_killed_with_its_group(tmp_path):
    # A stand-in for a timing program that never returns: it forks a grandchild and both spin.
    spin = tmp_path / "spin.c"
    spin.write_text("#include <unistd.h>\nint main(void) { fork(); for (;;) ; }\n")
    exe = tmp_path / "spin"
    subprocess.run([which("gcc"), "-O0", "-o", str(exe), str(spin)], check=True, timeout=60)
    t0 = time.monotonic()
    with pytest.raises(ToolchainError, match="time limit"):
        run_program(exe, [64], 2, 64, time_limit=1.0)
    assert time.monotonic() - t0 < 10
    spinning = subprocess.run(["pgrep", "-f", str(exe)], capture_output=True, text=True, timeout=10).stdout.split()
    assert spinning == []


def test_bench_time_limit_stops_a_long_timing_run_with_exit_2_and_no_process_left(tmp_path, good):
    src = _source(tmp_path, "good.S", good)
    t0 = time.monotonic()
    code, out, err, left, temps = _bench(tmp_path, src, "--pairs", "100000", "--sizes", "1048576",
                                         "--time-limit", "1", timeout=90)
    assert code == 2 and "exceeded its 1 s time limit" in err, (code, err[-300:])
    assert len(err.strip().splitlines()) == 1
    assert time.monotonic() - t0 < 60
    assert left == [] and temps == []
