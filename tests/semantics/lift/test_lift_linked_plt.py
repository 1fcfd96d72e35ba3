"""A shared object's PLT and GOT (x86-64): calls, tail jumps and flags a linked object reaches only through them.

The rules (``ObjectFile.plt_names`` / ``got_slots``, ``decode.linked_got_address``, ``control._own_code``):
a ``call``/``jmp`` to a PLT entry is a call of the symbol the entry's GOT slot is relocated to (``memset@plt``
runs by its contract, as ``memset`` does in a ``.o``); a call or jump through the PLT to a function with no
contract that the object itself defines follows its code here; a ``mov`` of a GOT slot
holds the symbol's address, so a global flag read through it is an input each value of which is a path. Before,
each was "execution leaves the code" or "address base %rax does not hold a pointer" -- mbedTLS's
``libmbedcrypto.so`` and Crypto++'s ``SHA1::Transform`` in ``libcrypto++.so``. The C (csrc/sha1_linked.c) is
written here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.interface import KEYWORDS

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
SRC = Path(__file__).parent / "csrc" / "sha1_linked.c"
ONE = KEYWORDS["one-block"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("linked")
    out = {}
    for name, flags in (("right", []), ("wrong", ["-DWRONG_K4"])):
        out[name] = d / f"lib{name}.so"
        subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-fno-builtin", "-fno-tree-vectorize", *flags, "-o",
                        str(out[name]), str(SRC)], check=True, timeout=120)
    return out


def test_a_call_through_the_plt_runs_the_callees_contract(libs, tmp_path):
    res = prove_object(libs["right"], function="sha1_block", interface=ONE, workdir=tmp_path)
    assert res.proved, res.summary()


def test_a_tail_jump_through_the_plt_to_the_objects_own_function_follows_it(libs, tmp_path):
    res = prove_object(libs["right"], function="sha1_wrap", interface=ONE, workdir=tmp_path)
    assert res.proved, res.summary()
    assert "via sha1_block" in res.proof.paths[0].name, res.proof.paths[0].name


def test_a_flag_read_through_the_got_forks_and_each_side_is_proved(libs, tmp_path):
    res = prove_object(libs["right"], function="sha1_flagged", interface=ONE, workdir=tmp_path)
    assert res.proved and len(res.proof.paths) == 2, res.summary()


def test_the_wrong_side_of_a_got_flag_is_not_proved(libs, tmp_path):
    """The flag's other value reaches a wrong copy (rounds 60-79's constant changed): that path is a
    counterexample, confirmed natively with the flag's word (``mem_<address>``) set as the path says."""
    res = prove_object(libs["wrong"], function="sha1_flagged", interface=ONE, workdir=tmp_path)
    assert res.outcome == "counterexample", res.summary()
    bad = [p for p in res.proof.paths if p.outcome != "proved"]
    assert len(bad) == 1 and "sha1_second" in bad[0].name and "!= 0" in bad[0].condition, res.summary()
