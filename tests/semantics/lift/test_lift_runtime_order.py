"""Berkeley DB's SHA-1 idiom: the byte order tested at run time, a branch the message decides, a static flag.

Rules (issue 24, "prove the SHA-1 code people ship"):

* A branch on the flags of a data instruction (``add %r8d, %eax; jne``: the message and state decide the path,
  ``lift.control.ControlFlow.condition``) ends the path as an "untracked value", so it is "unknown" and run on
  concrete records: wrong code gets a counterexample confirmed natively, never "proved". Berkeley DB 5.3's
  ``__db_SHA1Transform`` is such code: its ``blk0`` macro has no outer parentheses, so in round t < 16 the
  ``?:`` takes ``f(b, c, d) + is_bigendian`` as its condition and a round whose f is not 0 adds the word as
  loaded, alone -- not SHA-1 ("abc" gives c8afef54..., not a9993e36...).
* A branch on a value the code computes from constants (an is-big-endian function writing a long 1 through a
  union, called on every block) is decided by the path: the function proves.
* A static the code sets on first use (``static int is_reverse = -1``) is an input of the proof, whatever
  value; a native run cannot preset a local symbol, so a path failed under one of its values is not confirmed
  ("unknown", naming the static) -- not an error (``sha1opt prove`` stopped with "is_reverse.0 is not an
  undefined or global data symbol of the object").
* A refusal in a shared object names the address objdump shows (section address + offset): the libdb
  refusal once read "at 0x135692 (`jne 0x1356a8`)", offsets in .text, for 0x164b12 (`jne 0x164b28`).

The C is this project's own (``csrc/sha1_runtime_order.c``), compiled at test time with gcc; Berkeley DB is
Debian's ``libdb-5.3.so`` (package libdb5.3), read at test time, skipped when missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.emit.confirm import Unavailable, harness_for
from sha1opt.emit.objfile import load_object
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import parse_interface

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_runtime_order.c"
FUNCTION = "sha1_runtime_order"
ONE_BLOCK = parse_interface("(state, data)")
LIBDB = Path("/usr/lib/x86_64-linux-gnu/libdb-5.3.so")
VARIANTS = {"right": (), "db_precedence": ("DB_PRECEDENCE",), "short_copy": ("SHORT_COPY",),
            "lazy_static": ("LAZY_STATIC",)}


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed (setup/system-packages.sh installs it as root)")
    out = tmp_path_factory.mktemp("runtime_order")
    built = {}
    for name, defines in VARIANTS.items():
        built[name] = out / f"{name}.o"
        subprocess.run([gcc, "-O2", *(f"-D{d}" for d in defines), "-c", "-o", str(built[name]), str(C_SOURCE)],
                       check=True, timeout=120)
    return built


def test_byte_order_computed_from_constants_decides_its_branches_and_proves(objects):
    res = prove_object(objects["right"], function=FUNCTION, interface=ONE_BLOCK, native=False)
    assert res.proved, res.summary()
    assert [p.name for p in res.proof.paths] == ["entry -> ret, one block"]


def test_blk0_without_parentheses_branches_on_data_and_is_a_native_counterexample(objects):
    res = prove_object(objects["db_precedence"], function=FUNCTION, interface=ONE_BLOCK)
    assert res.outcome == "counterexample", res.summary()
    assert "branch depends on the flags of a data computation" in res.summary()


def test_workspace_word_read_before_it_is_written_is_refuted(objects):
    res = prove_object(objects["short_copy"], function=FUNCTION, interface=ONE_BLOCK, native=False)
    assert not res.proved
    assert [p.outcome for p in res.proof.paths] == ["counterexample"], res.summary()


def test_lazily_set_static_is_no_input_a_native_run_presets(objects, tmp_path):
    """The proof takes ``is_reverse.0`` as an input (paths on -1, 0 and other values); a run to confirm a path
    that failed under one of its values cannot preset a local symbol: no confirmation (so "unknown")."""
    uo = load_object(objects["lazy_static"], tmp_path)
    got = harness_for(uo, FUNCTION, tmp_path, ONE_BLOCK, {"is_reverse.0": (2).to_bytes(4, "little")})
    assert isinstance(got, Unavailable), got
    assert got.reason.startswith("is_reverse.0 is a static of the object"), got.reason


def test_berkeley_db_sha1_transform_is_refuted_natively_at_objdump_addresses():
    if not LIBDB.exists():
        pytest.skip(f"{LIBDB} missing: package libdb5.3 (setup/system-packages.sh installs it as root)")
    res = prove_object(LIBDB, function="__db_SHA1Transform")
    assert res.interface_origin.startswith("the interface catalogue"), res.interface_origin
    assert res.interface == "__db_SHA1Transform(state, data)"
    assert res.outcome == "counterexample", res.summary()
    where = re.search(r"data computation at 0x([0-9a-f]+) \(`jne 0x([0-9a-f]+)`\)", res.summary())
    assert where, res.summary()
    obj = ObjectFile.parse(LIBDB.read_bytes())
    sym = obj.find_function("__db_SHA1Transform")
    start = obj.addresses[sym.section] + sym.value
    assert all(start <= int(a, 16) < start + sym.size for a in where.groups()), (hex(start), where.groups())
