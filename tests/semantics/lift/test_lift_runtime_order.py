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
* A static only the function reads and writes, set on first use (``static int is_reverse = -1``,
  ``lift.statics.own_static``), holds at entry its initial value or a constant the function stores there
  (``lift.paths.Program.widen``: explored again with each stored value, every store checked against them),
  assuming no other thread or reentrant call runs the function meanwhile: the right code proves, a wrong stored
  value is a counterexample a native run confirms from the file's initial value (a local symbol is never
  preset: ``sha1opt prove`` once stopped with "is_reverse.0 is not an undefined or global data symbol"). A
  static another function also writes is not bounded so: an input of any value.
* A static buffer only the function uses (``static u32 w[16]``, ``lift.statics.own_scratch``) may be written;
  a word the call reads before writing it is any value (never the file's bytes), under the same assumption: the
  workspace idiom proves, a read of a word the call did not write is refuted natively, a write past its end
  is not proved.
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
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.lift.statics import own_static

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_runtime_order.c"
FUNCTION = "sha1_runtime_order"
ONE_BLOCK = parse_interface("(state, data)")
LIBDB = Path("/usr/lib/x86_64-linux-gnu/libdb-5.3.so")
VARIANTS = {"right": (), "db_precedence": ("DB_PRECEDENCE",), "short_copy": ("SHORT_COPY",),
            "lazy_static": ("LAZY_STATIC",), "lazy_wrong": ("LAZY_STATIC", "LAZY_WRONG"),
            "shared_flag": ("LAZY_STATIC", "SHARED_FLAG"), "static_workspace": ("STATIC_WORKSPACE",),
            "static_short_copy": ("STATIC_WORKSPACE", "SHORT_COPY"), "static_past_end": ("STATIC_WORKSPACE", "PAST_END")}


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    """``objects[variant]``: the C compiled with that variant's defines, once, when a test first asks."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed (setup/system-packages.sh installs it as root)")
    out = tmp_path_factory.mktemp("runtime_order")

    class Built(dict):
        def __missing__(self, name: str) -> Path:
            path = out / f"{name}.o"
            subprocess.run([gcc, "-O2", *(f"-D{d}" for d in VARIANTS[name]), "-c", "-o", str(path), str(C_SOURCE)],
                           check=True, timeout=120)
            self[name] = path
            return path

    return Built()


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


def test_static_set_on_first_use_proves_for_the_values_it_can_hold(objects):
    res = prove_object(objects["lazy_static"], function=FUNCTION, interface=ONE_BLOCK, native=False)
    assert res.proved, res.summary()
    assert [p.outcome for p in res.proof.paths] == ["proved", "proved"]      # is_reverse -1 (set now), and 0
    assert any("is_reverse.0 is a static only this function reads and writes" in f and "(0x0, 0xffffffff)" in f
               for f in res.findings), res.findings


def test_static_set_on_first_use_to_a_wrong_value_is_a_native_counterexample(objects):
    """The static takes 1 (``!is_bigendian()``): both paths are counterexamples, and the run, which starts from
    the file's -1 as a program does (a local symbol is not preset), confirms it."""
    res = prove_object(objects["lazy_wrong"], function=FUNCTION, interface=ONE_BLOCK)
    assert res.outcome == "counterexample", res.summary()
    assert [p.outcome for p in res.proof.paths] == ["counterexample", "counterexample"]


def test_a_static_another_function_writes_is_not_the_functions_own(objects):
    """``own_static`` bounds a static's values only when every reference is the function's: with
    ``sha1opt_set_order(v)`` storing any v, ``is_reverse`` is an input of any value (``run_time_name``)."""
    def own(name: str):
        obj = ObjectFile.parse(objects[name].read_bytes())
        var = next(s for s in obj.symbols if s.name.startswith("is_reverse"))
        return own_static(obj, obj.find_function(FUNCTION), var.section, var.value, 4)

    assert own("lazy_static") == ("is_reverse.0", 0xFFFFFFFF)
    assert own("shared_flag") is None


def test_static_workspace_only_the_function_uses_proves(objects):
    res = prove_object(objects["static_workspace"], function=FUNCTION, interface=ONE_BLOCK, native=False)
    assert res.proved, res.summary()
    assert any(f.startswith("w.0 is a static buffer only this function uses") for f in res.findings), res.findings


def test_static_workspace_read_before_the_call_writes_it_is_a_native_counterexample(objects):
    """Word 15 is never copied: the proof takes it as any value (not the file's zeros) and fails; the run
    confirms it."""
    res = prove_object(objects["static_short_copy"], function=FUNCTION, interface=ONE_BLOCK)
    assert res.outcome == "counterexample", res.summary()


def test_static_workspace_written_past_its_end_is_not_proved(objects):
    res = prove_object(objects["static_past_end"], function=FUNCTION, interface=ONE_BLOCK, native=False)
    assert not res.proved
    assert "writes .bss memory (.bss+0x40" in res.proof.paths[0].detail, res.summary()


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
