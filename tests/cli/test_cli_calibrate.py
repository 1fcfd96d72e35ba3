"""``sha1opt calibrate``'s bad input: one line on stderr naming the problem, exit 2, nothing run (issue 25)."""

import re

import pytest
from click.testing import CliRunner

from sha1opt.cli import main


@pytest.mark.parametrize("args,message", [
    (["--budget", "-1"], "--budget must be a positive number"),
    (["--budget", "x"], "'x' is not a valid float"),
    (["--passes", "0"], "--passes"),
    # (a host with no model to start from is refused before the selection, in one line too)
    (["--only", "nosuch.kernel"], "no microbenchmark selected by nosuch.kernel|corpus/cpus.toml|could not be read"),
])
def test_bad_input_is_one_line(args, message):
    r = CliRunner().invoke(main, ["calibrate", *args])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and re.search(message, lines[0]), r.output
