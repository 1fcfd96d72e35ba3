"""Calls out of the function (``lift.calls``): known external functions by contract, local calls, function pointers.

Rules and their sources:

* a call of ``memcpy`` / ``memset`` / ``explicit_bzero`` / ``mbedtls_platform_zeroize`` does what its
  contract says (C11 7.24.2.1, 7.24.6.1; glibc's manual; mbedTLS's platform_util.h) and nothing more: the
  caller-saved registers (SysV psABI 3.2.1; i386 psABI 2.2) hold no value the code may use after it, the
  stack pointer is 16-byte aligned at the call (psABI 3.2.2), the length is a constant; any other external
  callee is refused by name;
* a local function is executed as it is (the return address pushed, its ``ret`` back), at most
  ``MAX_CALL_DEPTH`` deep, and recursion is refused by name;
* a jump or call through a function pointer takes every value the object's relocations allow (its initial
  value and each address stored to it), one path each, named; a pointer other objects may write (a global
  symbol) is refused by name;
* a cmov may pick between pointers into two objects (a data pointer and a constant table, libgcrypt/nettle
  style), and pointers into two objects compare unequal.

The C is this project's own (``csrc/sha1_calls.c``), compiled at test time with gcc (``-fno-builtin`` keeps
the library calls, ``-fstack-protector-all`` adds the canary check); the assembly is written here. The
installed libraries' functions are taken from their Debian packages at test time, skipped when missing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sha1opt.analyze import prove_object
from sha1opt.semantics.lift.calls import KNOWN, MAX_CALL_DEPTH, pointer_targets
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import parse_interface

C_SOURCE = Path(__file__).parent / "csrc" / "sha1_calls.c"
FLAGS = ["-O2", "-fno-builtin", "-fno-optimize-sibling-calls", "-fstack-protector-all"]
ONE_BLOCK = parse_interface("one-block")
LIB = Path("/usr/lib/x86_64-linux-gnu")


def _gcc() -> str:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed (setup/system-packages.sh installs it as root)")
    return gcc


_BUILT: dict[tuple, Path] = {}


def _build(tmp_path: Path, *defines: str, arch: str = "-m64") -> Path:
    """csrc/sha1_calls.c built with ``defines`` (once per session: the builds are read only)."""
    key = (defines, arch)
    if key not in _BUILT:
        out = tmp_path.parent / ("calls" + "".join(f"_{d.split('=')[0]}" for d in defines) + arch + ".o")
        subprocess.run([_gcc(), arch, *FLAGS, *(f"-D{d}" for d in defines), "-c", "-o", str(out), str(C_SOURCE)],
                       check=True, timeout=120)
        _BUILT[key] = out
    return _BUILT[key]


def _asm(tmp_path: Path, name: str, text: str) -> ObjectFile:
    src = tmp_path / f"{name}.s"
    src.write_text(text)
    out = tmp_path / f"{name}.o"
    subprocess.run([_gcc(), "-c", "-o", str(out), str(src)], check=True, timeout=60)
    return ObjectFile.parse(out.read_bytes())


def _lift(path: Path, function: str, interface=ONE_BLOCK):
    obj = ObjectFile.parse(path.read_bytes())
    return prove_function(obj, function, interface.contract("sysv" if obj.arch == "x86_64" else "cdecl"))


def _member(archive: str, member: str) -> ObjectFile:
    path = LIB / archive
    if not path.exists():
        pytest.skip(f"{path} is not installed (setup/system-packages.sh installs it)")
    raw = subprocess.run(["ar", "p", str(path), member], capture_output=True, check=True, timeout=60).stdout
    if not raw:
        pytest.skip(f"{archive} has no member {member}")
    return ObjectFile.parse(raw)


# -- 1. known external functions --------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["-m64", "-m32"])
def test_memcpy_memset_explicit_bzero_by_contract(tmp_path, arch):
    """memset, memcpy of the block into a local buffer, explicit_bzero before return, the canary: proved
    (SysV and cdecl: the arguments in registers and on the stack)."""
    proof = _lift(_build(tmp_path, arch=arch), "sha1_copy_transform")
    assert proof.proved, [p.detail for p in proof.paths]


def test_mbedtls_platform_zeroize_by_contract(tmp_path):
    """mbedtls_platform_zeroize(buf, len) is memset(buf, 0, len): the same function wiping with it proves."""
    proof = _lift(_build(tmp_path, "ZEROIZE"), "sha1_copy_transform")
    assert proof.proved, [p.detail for p in proof.paths]
    assert "mbedtls_platform_zeroize" in KNOWN


def test_copy_mutant_refuted(tmp_path):
    """A defect between the calls (word 8 of the copied block cleared): a counterexample, confirmed natively
    (the harness links the C library's memcpy and memset)."""
    res = prove_object(_build(tmp_path, "MUTANT_COPY"), function="sha1_copy_transform", interface=ONE_BLOCK)
    assert not res.proved
    assert res.proof.outcome == "counterexample", res.summary()
    assert "confirmed natively" in res.summary()


def test_unknown_external_callee_refused_by_name(tmp_path):
    """An external function with no contract (``sha1_hook``) is refused, naming it."""
    proof = _lift(_build(tmp_path, "UNKNOWN_CALL"), "sha1_copy_transform")
    assert proof.outcome == "refused"
    assert "sha1_hook" in proof.refusal and "no contract" in proof.refusal


_FRAME = """    .text
    .globl {name}
{name}:
    sub ${frame}, %rsp
{body}
    call memset
{after}
    add ${frame}, %rsp
    ret
"""


def test_misaligned_call_is_a_violation(tmp_path):
    """%rsp must be 0 mod 16 at a call (psABI 3.2.2): a frame of 16 bytes leaves it 8 mod 16 -- a contract
    violation at the call; a frame of 24 bytes does not (that path goes on, to its own verdict)."""
    body = "    mov %rsp, %rdi\n    xor %esi, %esi\n    mov $8, %edx"
    bad = prove_function(_asm(tmp_path, "bad", _FRAME.format(name="f", frame=16, body=body, after="")), "f",
                         ONE_BLOCK.contract("sysv"))
    good = prove_function(_asm(tmp_path, "good", _FRAME.format(name="f", frame=24, body=body, after="")), "f",
                          ONE_BLOCK.contract("sysv"))
    assert bad.paths[0].category == "contract" and "16-byte aligned" in bad.paths[0].detail
    assert "aligned" not in good.paths[0].detail and good.paths[0].kind == "one block"


def test_length_not_constant_refused(tmp_path):
    """The length must be a constant at the call: a data word as the length is refused by name."""
    body = "    mov %rsp, %rdi\n    mov (%rsi), %edx\n    xor %esi, %esi"
    proof = prove_function(_asm(tmp_path, "len", _FRAME.format(name="f", frame=24, body=body, after="")), "f",
                           ONE_BLOCK.contract("sysv"))
    assert proof.outcome == "refused" and "memset's length is not a constant" in proof.refusal


def test_caller_saved_register_clobbered_by_the_call(tmp_path):
    """A pointer kept in %rcx (caller-saved) across the call is gone after it: its use is refused; kept in
    %rbx (callee-saved, saved and restored) it survives, and the path goes on to its verdict."""
    body = "    mov %rdi, {r}\n    lea {at}(%rsp), %rdi\n    xor %esi, %esi\n    mov $8, %edx"
    lost = _FRAME.format(name="f", frame=24, body=body.format(r="%rcx", at=0), after="    movl $0, (%rcx)")
    kept = _FRAME.format(name="f", frame=16, body="    push %rbx\n" + body.format(r="%rbx", at=8),
                         after="    movl $0, (%rbx)\n    pop %rbx")
    p1 = prove_function(_asm(tmp_path, "lost", lost), "f", ONE_BLOCK.contract("sysv")).paths[0]
    p2 = prove_function(_asm(tmp_path, "kept", kept), "f", ONE_BLOCK.contract("sysv")).paths[0]
    assert p1.outcome == "refused" and "%rcx does not hold a pointer" in p1.detail
    assert p2.kind == "one block" and p2.outcome == "counterexample"      # state word 0 := 0: not SHA-1


def test_red_zone_clobbered_by_the_call(tmp_path):
    """The callee's frame is below the stack pointer: a pointer left in the red zone (below %rsp) before the
    call is not there after it -- its use is refused."""
    body = "    mov %rdi, -8(%rsp)\n    lea 8(%rsp), %rdi\n    xor %esi, %esi\n    mov $8, %edx"
    text = _FRAME.format(name="f", frame=24, body=body, after="    mov -8(%rsp), %rcx\n    movl $0, (%rcx)")
    path = prove_function(_asm(tmp_path, "redzone", text), "f", ONE_BLOCK.contract("sysv")).paths[0]
    assert path.outcome == "refused" and "%rcx does not hold a pointer" in path.detail


def test_overlapping_memcpy_is_a_violation(tmp_path):
    """memcpy between overlapping buffers is undefined (C11 7.24.2.1): a contract violation at the call."""
    text = ("    .text\n    .globl f\nf:\n    sub $40, %rsp\n    lea 4(%rsp), %rdi\n    mov %rsp, %rsi\n"
            "    mov $16, %edx\n    call memcpy\n    add $40, %rsp\n    ret\n")
    path = prove_function(_asm(tmp_path, "overlap", text), "f", ONE_BLOCK.contract("sysv")).paths[0]
    assert path.category == "contract" and "overlapping buffers" in path.detail


def test_tail_call_to_memset_returns_to_the_caller(tmp_path):
    """``jmp memset`` (a tail call, %rsp = 8 mod 16 as at an entry) runs the contract and returns to our caller:
    here it zeroes the 5 state words, so the one-block path ends at ret with a wrong state -- a counterexample,
    not a refusal."""
    text = "    .text\n    .globl f\nf:\n    xor %esi, %esi\n    mov $20, %edx\n    jmp memset\n"
    path = prove_function(_asm(tmp_path, "tail", text), "f", ONE_BLOCK.contract("sysv")).paths[0]
    assert path.kind == "one block" and path.outcome == "counterexample", path.detail


# -- 2. local calls ------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["-m64", pytest.param("-m32", marks=pytest.mark.slow)])
def test_local_calls_followed(tmp_path, arch):
    """wolfSSL's shape: the exported function null-checks its arguments and calls a static transform, which
    calls a static round function 80 times: followed, proved."""
    proof = _lift(_build(tmp_path, arch=arch), "sha1_local_transform")
    assert proof.proved, [p.detail for p in proof.paths]


def test_local_callee_mutant_refuted(tmp_path):
    """A wrong constant inside the called static function: a counterexample at the round it enters."""
    proof = _lift(_build(tmp_path, "K3=0x8f1bbcddu"), "sha1_local_transform")
    assert proof.outcome == "counterexample"
    assert proof.paths[0].first_wrong == "A41"


def test_block_loop_calling_a_local_transform(tmp_path):
    """A block loop calling the static transform once per block (whose round loop is not a block loop): proved
    for every nblocks."""
    proof = _lift(_build(tmp_path), "sha1_local_blocks", parse_interface("blocks"))
    assert proof.proved, [p.detail for p in proof.paths]


def test_recursion_refused_by_name(tmp_path):
    text = "    .text\n    .globl f\nf:\n    call helper\n    ret\nhelper:\n    call helper\n    ret\n"
    proof = prove_function(_asm(tmp_path, "rec", text), "f", ONE_BLOCK.contract("sysv"))
    assert proof.outcome == "refused" and "recursive call to helper" in proof.refusal


def test_call_depth_limit(tmp_path):
    chain = "".join(f"d{i}:\n    call d{i + 1}\n    ret\n" for i in range(MAX_CALL_DEPTH + 1))
    text = f"    .text\n    .globl f\nf:\n    call d0\n    ret\n{chain}d{MAX_CALL_DEPTH + 1}:\n    ret\n"
    proof = prove_function(_asm(tmp_path, "deep", text), "f", ONE_BLOCK.contract("sysv"))
    assert proof.outcome == "refused" and f"more than {MAX_CALL_DEPTH} calls deep" in proof.refusal


# -- 3. function pointers --------------------------------------------------------------------------

def test_function_pointer_targets_i386(tmp_path):
    """i386 PIC: ``lea impl@GOTOFF(%ebx), %edx; mov %edx, vec@GOTOFF(%ebx)`` stores are found too."""
    obj = ObjectFile.parse(_build(tmp_path, arch="-m32").read_bytes())
    var = next(s for s in obj.symbols if s.name == "sha1_vec")
    assert [t.name for t in pointer_targets(obj, var.section, var.value, 32)] == ["impl_rolled", "impl_copy"]


@pytest.mark.parametrize("arch", ["-m64", pytest.param("-m32", marks=pytest.mark.slow)])
def test_function_pointer_every_target_a_path(tmp_path, arch):
    """``call *sha1_vec``: its initial value and the two values stored to it (one equal to the initial one):
    two paths, each named by the value it took, each proved."""
    proof = _lift(_build(tmp_path, arch=arch), "sha1_fp_transform")
    assert proof.proved, [p.detail for p in proof.paths]
    assert [p.pointers for p in proof.paths] == [(("sha1_vec", "impl_rolled"),), (("sha1_vec", "impl_copy"),)]
    assert "[sha1_vec = impl_copy]" in proof.paths[1].name


def test_function_pointer_one_target_refuted(tmp_path):
    """A defect in one implementation: that target's path is the counterexample, the other still proved."""
    proof = _lift(_build(tmp_path, "MUTANT_COPY"), "sha1_fp_transform")
    by_target = {p.pointers[0][1]: p.outcome for p in proof.paths}
    assert by_target == {"impl_rolled": "proved", "impl_copy": "counterexample"}


@pytest.mark.slow      # (native confirmation of a refuted path: test_copy_mutant_refuted; per target: the test above)
def test_function_pointer_mutant_confirmed_natively(tmp_path):
    """A defect every implementation shares: refuted, confirmed natively (the pointer's initial value)."""
    res = prove_object(_build(tmp_path, "K3=0x8f1bbcddu"), function="sha1_fp_transform", interface=ONE_BLOCK)
    assert res.proof.outcome == "counterexample" and "confirmed natively" in res.summary()


def test_global_function_pointer_refused_by_name(tmp_path):
    """A pointer other objects may store to (a global symbol) has no bounded target set: refused, named."""
    proof = _lift(_build(tmp_path, "GLOBAL_VEC"), "sha1_fp_transform")
    assert proof.outcome == "refused"
    assert "sha1_vec is a global symbol" in proof.refusal


def test_nettle_fat_entry_targets(nettle_fat_proof):
    """nettle's ``nettle_sha1_compress`` jumps through ``nettle_sha1_compress_vec``: its initial value (the
    init function, which calls getenv by its contract and reaches the implementations: test_lift_known_calls.py)
    and the two implementations fat_init stores (defined in other members: each a path of its own, refused naming
    it). The proof is the session's (``nettle_fat_proof``, tests/conftest.py: the same member and contract)."""
    obj = _member("libnettle.a", "fat-x86_64.o")
    var = next(s for s in obj.symbols if s.name == "nettle_sha1_compress_vec")
    targets = pointer_targets(obj, var.section, var.value, 64)
    assert [t.name for t in targets] == ["nettle_sha1_compress_init", "_nettle_sha1_compress_sha_ni",
                                        "_nettle_sha1_compress_x86_64"]
    proof = nettle_fat_proof
    taken = {p.pointers[0][1]: p for p in proof.paths}
    assert set(taken) == {t.name for t in targets}
    assert "getenv" in taken["nettle_sha1_compress_init"].condition
    assert "_nettle_sha1_compress_x86_64" in taken["_nettle_sha1_compress_x86_64"].detail


def _archive(tmp_path: Path, *defines: str) -> Path:
    """An archive of two members: ``entry.o`` (csrc/sha1_fp_entry.c: a jump through a pointer to functions
    defined elsewhere) and ``calls.o`` (csrc/sha1_calls.c: those functions)."""
    d = tmp_path / ("lib" + "".join(x.split("=")[0] for x in defines))
    d.mkdir()
    subprocess.run([_gcc(), "-O2", "-c", "-o", str(d / "entry.o"), str(C_SOURCE.with_name("sha1_fp_entry.c"))],
                   check=True, timeout=120)
    shutil.copy(_build(tmp_path, *defines), d / "calls.o")
    lib = d / "libfp.a"
    subprocess.run(["ar", "rcs", str(lib), str(d / "entry.o"), str(d / "calls.o")], check=True, timeout=60)
    return lib


def test_function_pointer_to_another_member_is_its_proof(tmp_path):
    """A jump (tail call) through a pointer to functions another archive member defines, the caller's arguments
    intact: each value is a path whose proof is that function's own, from the member defining it."""
    res = prove_object(_archive(tmp_path), member="entry.o", function="sha1_fp_ext", interface=ONE_BLOCK)
    assert res.proved, res.summary()
    assert [p.outside for p in res.proof.paths] == ["sha1_impl_ext", "sha1_impl_ext2"]
    assert all("(member calls.o) proved" in p.detail for p in res.proof.paths)


def test_function_pointer_to_another_member_refuted(tmp_path):
    """The other member's functions with a wrong constant: both paths are counterexamples (from that member's
    proof); no native run claims it (the harness links one member), so the function is not proved."""
    res = prove_object(_archive(tmp_path, "K3=0x8f1bbcddu"), member="entry.o", function="sha1_fp_ext",
                       interface=ONE_BLOCK)
    assert not res.proved
    assert [p.outcome for p in res.proof.paths] == ["counterexample", "counterexample"]
    assert "does not link" in res.native.reason


def test_nettle_fat_entry_proved_per_target_from_the_archive():
    """nettle's fat entry as ``prove --object libnettle.a --member fat-x86_64.o`` sees it: every path, the init
    function's through NETTLE_FAT_OVERRIDE's token loop (``lift.summary``) too, jumps to one of the two
    implementations, each proved from its member: proved."""
    path = LIB / "libnettle.a"
    if not path.exists():
        pytest.skip(f"{path} is not installed (setup/system-packages.sh installs it)")
    res = prove_object(path, member="fat-x86_64.o", function="nettle_sha1_compress", interface=ONE_BLOCK)
    by_target = {p.pointers[0][1]: p.outcome for p in res.proof.paths}
    assert by_target == {"nettle_sha1_compress_init": "proved", "_nettle_sha1_compress_sha_ni": "proved",
                         "_nettle_sha1_compress_x86_64": "proved"}
    assert all(p.outcome == "proved" for p in res.proof.paths)
    assert res.proof.proved, res.summary()


# -- 4. a cmov between a data pointer and a table pointer --------------------------------------------

def test_cmov_sentinel_loop_proved(tmp_path):
    """``cmp end, next; cmovae table, next; cmp table, next; je out``: the loop over nblocks proved."""
    proof = _lift(_build(tmp_path), "sha1_sentinel_blocks", parse_interface("blocks"))
    assert proof.proved, [p.detail for p in proof.paths]


def test_cmov_sentinel_mutant_refuted(tmp_path):
    """cmovb for cmovae: the loop stops after the first block (and runs past the data with one): refuted."""
    proof = _lift(_build(tmp_path, "MUTANT_SENTINEL"), "sha1_sentinel_blocks", parse_interface("blocks"))
    assert proof.outcome == "counterexample"


# -- the installed libraries ---------------------------------------------------------------------------

def test_mbedtls_process_with_zeroize():
    """mbedTLS's ``mbedtls_internal_sha1_process(ctx, data)``: the state at ctx+8, a zeroize call before the
    canary check, declared here (the catalogue's row: tests/semantics/lift/test_lift_libraries.py)."""
    obj = _member("libmbedcrypto.a", "sha1.c.o")
    iface = parse_interface("mbedtls_internal_sha1_process(state@8, data)")
    proof = prove_function(obj, iface.name, iface.contract("sysv"))
    assert proof.proved, [p.detail for p in proof.paths]
