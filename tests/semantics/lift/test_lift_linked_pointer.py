"""A linked shared object's function pointer (nettle's fat ``libnettle.so``): every value it may hold, each a path.

Rule (issue 24; ``lift.pointers``): in a linked x86-64 object a ``.data`` word the loader initialises with an
``R_X86_64_RELATIVE`` relocation to the object's own code is a function pointer whose values are its initial
value and each code address the object's code stores into it (found from every rip-relative displacement of
the code reaching it); a jump through it forks once per value and each is proved as its own path -- a tail jump
to one of the object's global functions by that function's own proof, assuming no other object interposes it
(``FunctionProof.assumes``). A pointer with a ``.dynsym`` entry (another object may store to it) is refused by
name. Refusals in a linked object name the linked address (``Decoded.where``), not the section offset.

The C (csrc/sha1_fp_resolver.c) is written here: a static pointer initialised to a resolver stub that stores
one of two exported implementations (by getenv) and jumps through it again. nettle's is Debian's
``libnettle.so`` (libnettle8), read at test time.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import KEYWORDS
from sha1opt.semantics.lift.pointers import pointer_targets

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
SRC = Path(__file__).parent / "csrc" / "sha1_fp_resolver.c"
ONE = KEYWORDS["one-block"]
NETTLE = Path("/usr/lib/x86_64-linux-gnu/libnettle.so")
NETTLE_TARGETS = {"_nettle_sha1_compress_sha_ni", "_nettle_sha1_compress_x86_64"}
IMPLS = ["sha1_so_bytes", "sha1_so_swapped"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("resolver")
    out = {}
    for name, flags in (("right", []), ("wrong", ["-DKB3=0x8f1bbcddu"]), ("exported", ["-DEXPORTED_VEC"])):
        out[name] = d / f"lib{name}.so"
        subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-fno-tree-vectorize", *flags, "-o", str(out[name]),
                        str(SRC)], check=True, timeout=120)
    return out


def _through(obj: ObjectFile, function: str) -> tuple[str, int]:
    """The (section, offset) of the pointer ``function``'s first instruction jumps through."""
    fn = decode_function(obj, obj.find_function(function))
    d = fn.instructions[fn.entry]
    assert d.mnemonic == "jmp" and d.mem_ref is not None and d.mem_ref.region.startswith("sec:"), d
    return d.mem_ref.region[4:], d.mem_ref.offset


def test_linked_pointer_targets_are_its_relocation_and_the_stores(libs):
    """The resolver stub (the RELATIVE relocation's value), then each implementation a GOT slot gives the
    resolver's stores (bound: the loader's choice of that name)."""
    obj = ObjectFile.parse(libs["right"].read_bytes())
    targets = pointer_targets(obj, *_through(obj, "sha1_so_compress"), 64)
    assert [t.name for t in targets] == ["sha1_so_resolve", *IMPLS]
    assert [t.bound for t in targets] == [None, *IMPLS]


def test_linked_resolver_proves_per_target(libs, tmp_path):
    """Each value of the pointer a path: the implementations' by their own proofs (each proved once), the
    stub's getenv paths each storing one and jumping to it; the interposition assumption is stated."""
    res = prove_object(libs["right"], function="sha1_so_compress", interface=ONE, workdir=tmp_path, native=False)
    assert res.proved, res.summary()
    assert {p.pointers[0][1] for p in res.proof.paths} == {"sha1_so_resolve", *IMPLS}
    assert all("(this object) proved" in p.detail for p in res.proof.paths)
    assert set(res.proof.assumes) == set(IMPLS)


def test_linked_resolver_wrong_implementation_refuted_on_its_paths(libs, tmp_path):
    """One implementation with a wrong constant: every path reaching it (directly, or through the stub) is a
    counterexample; the other's paths stay proved."""
    res = prove_object(libs["wrong"], function="sha1_so_compress", interface=ONE, workdir=tmp_path, native=False)
    assert not res.proved
    outcomes = {(p.pointers[0][1], p.outside): p.outcome for p in res.proof.paths}
    assert outcomes == {("sha1_so_bytes", "sha1_so_bytes"): "counterexample",
                        ("sha1_so_swapped", "sha1_so_swapped"): "proved",
                        ("sha1_so_resolve", "sha1_so_bytes"): "counterexample",
                        ("sha1_so_resolve", "sha1_so_swapped"): "proved"}, res.summary()


def test_exported_linked_pointer_refused_by_name(libs):
    """A pointer in ``.dynsym`` (another object may store to it): no bounded target set, refused naming it."""
    obj = ObjectFile.parse(libs["exported"].read_bytes())
    proof = prove_function(obj, "sha1_so_compress", ONE.contract("sysv"))
    assert proof.outcome == "refused"
    assert "sha1_so_vec is a global symbol" in proof.refusal


def test_refusal_in_a_linked_object_names_the_linked_address_not_the_section_offset(libs):
    """Regression (libnettle.so's ``indirect jump at 0x24030`` for the jump at 0x31cd0, ``.text`` offset
    0x24030): the refusal names the address objdump and ``scan``'s ``@0x...`` show."""
    obj = ObjectFile.parse(libs["exported"].read_bytes())
    sym = obj.find_function("sha1_so_compress")
    jump = next(d for d in decode_function(obj, sym).instructions.values() if d.mnemonic == "jmp")
    linked = obj.addresses[sym.section] + jump.address
    assert linked != jump.address
    proof = prove_function(obj, "sha1_so_compress", ONE.contract("sysv"))
    assert f"at 0x{linked:x} (" in proof.refusal, proof.refusal


def _nettle() -> ObjectFile:
    if not NETTLE.exists():
        pytest.skip(f"{NETTLE} is not installed (libnettle8; setup/system-packages.sh installs nettle-dev)")
    return ObjectFile.parse(NETTLE.read_bytes())


def test_nettle_so_fat_pointer_targets():
    """libnettle.so's ``nettle_sha1_compress`` pointer (no ``.dynsym`` entry): its init stub (a RELATIVE
    relocation to code no symbol names), then the two implementations fat_init stores from GOT slots."""
    obj = _nettle()
    targets = pointer_targets(obj, *_through(obj, "nettle_sha1_compress"), 64)
    assert len(targets) == 3 and targets[0].bound is None and obj.covering(".text", targets[0].offset) is None
    assert {t.name for t in targets[1:]} == NETTLE_TARGETS == {t.bound for t in targets[1:]}


def test_nettle_so_fat_entry_proved_per_target(tmp_path):
    """The shared object's fat entry as the archive's (test_lift_calls.py): both implementations proved as
    their own proofs in this object, assuming no other object interposes them; the init stub's paths, through
    NETTLE_FAT_OVERRIDE's token loop (``lift.summary``) too, each jump to one of them: every path proved."""
    _nettle()
    res = prove_object(NETTLE, function="nettle_sha1_compress", interface=ONE, workdir=tmp_path, native=False)
    direct = {p.pointers[0][1]: p.outcome for p in res.proof.paths if p.pointers[0][1] in NETTLE_TARGETS}
    assert direct == {t: "proved" for t in NETTLE_TARGETS}
    init = [p for p in res.proof.paths if p.pointers[0][1] not in NETTLE_TARGETS]
    assert {p.outside for p in init} == NETTLE_TARGETS and all(p.outcome == "proved" for p in init)
    assert NETTLE_TARGETS <= set(res.proof.assumes)
    assert res.proof.proved, res.summary()
