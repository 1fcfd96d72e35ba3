"""What a linked object's PLT call or GOT slot is bound to (review of ``ObjectFile.got_slots``/``plt_names``).

The rules, each a regression of a hole a review found (every one proved wrong code):
* the slot's symbol is the dynamic relocation's own ``.dynsym`` entry, never a lookup by name -- a local
  symbol of the same name (another file's ``static``) is another thing: undefined in ``.dynsym``, the call
  or the read is external (``ext:``);
* a C library name the object defines itself (its own ``memset``) is its code, never the C library's
  contract; the object's own globals are followed, and the proof says it assumes no interposition.
The objects are built here from C written here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

USER = """extern int kadd(int);
extern const int K_TABLE;
void *memset(void *, int, unsigned long);
int user(int x, char *buf) { memset(buf, 0, 8); return kadd(x) + K_TABLE; }
"""
LOCALS = """static int kadd(int x) { return x + 0x5a827999; }
static const int K_TABLE = 0x5a827999;
int keep_locals(int x) { return kadd(x) ^ K_TABLE; }
"""
OWN_MEMSET = """void *memset(void *d, int c, unsigned long n) { char *p = d; while (n--) *p++ = (char)c; return d; }
"""


def _so(tmp_path: Path, *sources: tuple[str, str]) -> ObjectFile:
    paths = []
    for name, text in sources:
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    out = tmp_path / "lib.so"
    subprocess.run(["gcc", "-O1", "-fPIC", "-shared", "-fno-builtin", "-o", str(out), *paths], check=True,
                   timeout=120)
    return ObjectFile.parse(out.read_bytes())


def _refs(obj: ObjectFile) -> tuple[list, list]:
    fn = decode_function(obj, obj.find_function("user"))
    calls = [d for d in fn.instructions.values() if d.mnemonic == "call"]
    slots = [d for d in fn.instructions.values() if d.got_slot]
    return calls, slots


def test_regression_a_plt_call_and_a_got_slot_were_bound_to_a_local_symbol_of_the_same_name(tmp_path):
    obj = _so(tmp_path, ("user.c", USER), ("locals.c", LOCALS))
    calls, slots = _refs(obj)
    assert {d.imm_ref.region for d in calls} >= {"ext:kadd", "ext:memset"}, [d.imm_ref for d in calls]
    assert [d.mem_ref.region for d in slots] == ["ext:K_TABLE"] and not any(d.bound for d in calls + slots)


def test_regression_a_known_contract_stood_for_the_objects_own_memset(tmp_path):
    obj = _so(tmp_path, ("user.c", USER), ("memset.c", OWN_MEMSET))
    calls, _ = _refs(obj)
    own = [d for d in calls if d.bound == "memset"]
    assert len(own) == 1 and own[0].imm_ref.region.startswith("sec:"), [(d.imm_ref, d.bound) for d in calls]
