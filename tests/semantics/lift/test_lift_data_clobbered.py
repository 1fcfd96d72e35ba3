"""``data clobbered`` / ``words clobbered``: a one-block function that may overwrite the caller's block.

The rule (``semantics/lift/interface.py``, ``memory.py``): under the
modifier the block's 16 words are writable and a read after a write gives
what was written; without it a write to the data is a violation; the native
run passes the function a copy of the block (``emit/adapter.py``), so the
harness's "the input data was modified" never stands in for a wrong digest;
the modifier is refused with a count argument. The C (csrc/sha1_clobber.c,
written here) is shaped like glib's in-place schedule and pam_timestamp's
wipe of the block.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift.interface import parse_interface

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
SRC = Path(__file__).parent / "csrc" / "sha1_clobber.c"


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("clobber")
    out = {}
    for name, flags in (("right", []), ("wrong", ["-DWRONG_K2"]), ("tail_jump", ["-DTAIL_JUMP"])):
        out[name] = d / f"{name}.o"
        subprocess.run(["gcc", "-O2", "-c", *flags, "-o", str(out[name]), str(SRC)], check=True, timeout=120)
    return out


def _prove(obj: Path, function: str, interface: str, tmp_path: Path):
    return prove_object(obj, function=function, interface=parse_interface(interface), workdir=tmp_path)


@pytest.mark.parametrize("function, interface", [("sha1_in_place", "(state, words clobbered)"),
                                                 ("sha1_wipe", "(state, data clobbered)")])
def test_a_block_overwritten_under_clobbered_proves(objects, tmp_path, function, interface):
    res = _prove(objects["right"], function, interface, tmp_path)
    assert res.proved, res.summary()
    assert "the data buffer may be overwritten" in res.contract.describe()


def test_a_block_overwritten_without_clobbered_is_not_proved(objects, tmp_path):
    res = _prove(objects["right"], "sha1_wipe", "(state, data)", tmp_path)
    assert not res.proved and "writes data memory" in res.summary(), res.summary()


def test_a_wrong_constant_under_clobbered_is_a_counterexample_by_its_digest(objects, tmp_path):
    """The native run hashes a copy of the block: the counterexample is the wrong digest, not the wipe."""
    res = _prove(objects["wrong"], "sha1_wipe", "(state, data clobbered)", tmp_path)
    assert res.outcome == "counterexample", res.summary()
    assert "machine gives" in res.summary() and "input data was modified" not in res.summary(), res.summary()


def test_clobbered_is_one_block_only():
    assert str(parse_interface("(state, data clobbered)")) == "(state, data clobbered)"
    with pytest.raises(ParseError, match="one block only"):
        parse_interface("(state, data clobbered, nblocks)")


def test_a_block_written_before_a_tail_jump_is_not_the_targets_own_proof(objects, tmp_path):
    """A jump out of the function is the target's own proof only when the target is called as the caller called
    the function (``induction.entry_changed``): a clobbered block already changed would be hashed changed."""
    with pytest.raises(LiftRefusal, match="not external_block's own proof: block word 0 was written"):
        _prove(objects["tail_jump"], "flip_then_jump", "(state, words clobbered)", tmp_path)
