"""Native confirmation: run the object on concrete inputs before a counterexample is printed.

``confirm(user_object, function, min_blocks, workdir)`` links the function
(renamed to ``sha1_block_data_order`` with ``objcopy`` when it has another
name; a declared interface other than (state, data, nblocks) is called
through ``emit.adapter``, once per block) into the freestanding harness (``harness.BlockHarness``) and runs it
on concrete (state, data, nblocks) records -- random states and blocks for
each nblocks the contract allows up to 3 (up to 3 pairs for ``nblocks even``;
for a byte length, every other record with 1..63 bytes after its blocks, which
the contract leaves unhashed),
then the FIPS/CAVP vectors (not for ``nblocks even``: they hash odd counts) -- and
returns the first record on which the machine disagrees with SHA-1
(``numpy`` spec / ``hashlib``), or on which the harness saw a callee-saved
register, the stack pointer or memory around the state change, or the
process die. ``None`` means every record agreed (the proof's failure is then
reported as unknown, never as a counterexample); ``Unavailable`` says why
the object could not be run here (external symbols, a non-x86-64 host, a
shared object's function not lifted).

An archive member whose code calls functions the freestanding harness does
not define (``stubbed_calls``: the C library's ``getenv``, another member's
code) is run through ``harness.ArchiveHarness``: linked as a libc program
with the rest of its archive and the C library, the function pointers a
proved path jumped through (``lifted``) written back as the file holds them
after the constructors ran, so each record's first call takes the resolver
(nettle's fat ``nettle_sha1_compress``). Where that link fails (a C++
member needs more than the C library), the freestanding harness with data
stubs, as before.

A function of a shared object (``libcrypto.so.3``) is run through
``harness.SharedObjectHarness``: the object (the file itself, mutated or
not) loaded with ``dlopen`` in the bounded child, the function called at its
address (a stripped one has no name to look up), a dispatch path's words
(``mem_4895a4``: ``lift.decode.linked_word``) written at theirs after the
object's constructors ran. Only code that was validated is run: the caller
passes the proof (``lifted``) that lifted this function under this
interface, and a path it refused is not run.

Example: our export with ``pop %rbx`` removed gives
``Finding(nblocks=0, ..., problem="a callee-saved register or the stack pointer changed")``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.canary import FAIL_FUNCTIONS
from sha1opt.semantics.lift.decode import linked_word_address
from sha1opt.semantics.lift.elf import NoFunction
from sha1opt.semantics.lift.function import FunctionProof
from sha1opt.semantics.lift.interface import DEFAULT, Interface
from sha1opt.semantics.lift.witness import ENV
from sha1opt.semantics.sha1 import compress
from sha1opt.emit.adapter import adapter_object
from sha1opt.emit.harness import (FLAG_TEXT, HARNESS_FUNCTIONS, ArchiveHarness, BlockHarness, Record, RunFailure,
                                  SharedObjectHarness, jump_stub)
from sha1opt.emit.objfile import UserObject
from sha1opt.emit.toolchain import ToolchainError, arch_flag, host_is_x86_64, run, which
from sha1opt.emit.validate import run_vectors

SYMBOL = "sha1_block_data_order"
CALLEE = "sha1opt_declared_function"      # a declared-interface function's name inside the harness


def assemble_file(src: Path, arch, out: Path) -> Path:
    run([which("gcc"), arch_flag(arch), "-c", "-o", str(out), str(src)], "assembling the stubs")
    return out


@dataclass(frozen=True)
class Finding:
    state: tuple[int, ...]
    data: bytes
    nblocks: int
    got: tuple[int, ...] | None
    want: tuple[int, ...]
    problem: str
    tail: int = 0           # bytes after the blocks (a byte-length interface was passed 64 * nblocks + tail)

    def describe(self) -> str:
        st = " ".join(f"{w:08x}" for w in self.state)
        length = f" (byte length {64 * self.nblocks + self.tail}: {self.tail} bytes after the blocks)" \
            if self.tail else ""
        head = (f"state {st}, nblocks {self.nblocks}{length}, data {self.data[:16].hex()}"
                f"{'...' if len(self.data) > 16 else ''}")
        if self.nblocks < 0:
            return self.problem
        if self.got is None:
            return f"{head}: {self.problem}"
        return (f"{head}: machine gives {' '.join(f'{w:08x}' for w in self.got)}, SHA-1 gives "
                f"{' '.join(f'{w:08x}' for w in self.want)}" + (f" ({self.problem})" if self.problem else ""))


@dataclass(frozen=True)
class Unavailable:
    reason: str


def expected(state: tuple[int, ...], data: bytes) -> tuple[int, ...]:
    """The state SHA-1's compression leaves after ``data`` (whole blocks), chained from ``state``."""
    return expected_many([(state, data)])[0]


def expected_many(pairs: Sequence[tuple[tuple[int, ...], bytes]]) -> list[tuple[int, ...]]:
    """``expected`` of every (state, data) pair at once: one numpy lane a pair, the k-th blocks of all pairs that
    have one compressed together (a pair whose data ends keeps its state). Example: 128 lanes of 1..3 blocks are
    three ``compress`` calls, not 256."""
    h = np.array([p[0] for p in pairs], dtype=np.uint32).reshape(len(pairs), 5)
    for blk in range(max((len(d) // 64 for _, d in pairs), default=0)):
        idx = [i for i, (_, d) in enumerate(pairs) if len(d) // 64 > blk]
        m = np.frombuffer(b"".join(pairs[i][1][64 * blk:64 * blk + 64] for i in idx), dtype="<u4").reshape(-1, 16)
        out = compress(NumpyDomain(len(idx)), [h[idx, k].copy() for k in range(5)],
                       [m[:, j].astype(np.uint32) for j in range(16)])
        h[idx] = np.stack(out, axis=1)
    return [tuple(int(w) for w in row) for row in h]


STUB_BYTES = 64


def stubs(uo: UserObject, workdir: Path, symbols: Mapping[str, bytes] | None = None,
          given_only: bool = False) -> list[Path]:
    """Definitions of the object's undefined data symbols, 64 bytes each: zero (``OPENSSL_ia32cap_P = 0``: no
    extensions) unless ``symbols`` gives a symbol's first bytes (a dispatch path's capability words);
    ``given_only``: of those ``symbols`` gives alone (the archive and the C library define the rest,
    ``ArchiveHarness``)."""
    names = sorted({s.name for s in uo.obj.symbols if s.section is None and s.name and s.kind in ("STT_NOTYPE",
                                                                                                  "STT_OBJECT")
                    and (not given_only or s.name in (symbols or {}))}
                   - HARNESS_FUNCTIONS[uo.arch])        # (memcpy and the like: the harness defines them)
    if not names:
        return []
    symbols = symbols or {}
    parts = []
    for n in names:
        init = symbols.get(n, b"")[:STUB_BYTES]
        body = (f"\t.byte {', '.join(str(b) for b in init)}\n" if init else "") + \
            (f"\t.zero {STUB_BYTES - len(init)}\n" if len(init) < STUB_BYTES else "")
        parts.append(f"\t.data\n\t.globl {n}\n\t.p2align 4\n{n}:\n{body}")
    src = workdir / "confirm_stubs.s"
    src.write_text("".join(parts) + '\t.section .note.GNU-stack,"",@progbits\n')
    return [assemble_file(src, uo.arch, workdir / "confirm_stubs.o")]


def stubbed_calls(uo: UserObject) -> list[str]:
    """The undefined functions the object calls (PLT32 relocations) that the harness does not define: a run that
    reaches one calls a zeroed data stub (``stubs``) and dies, which says nothing about the code (Crypto++'s
    ``SHA1::Transform`` calls ``DetectX86Features``). ``__stack_chk_fail`` is not one: reaching it is a defect."""
    called = {r.symbol for relocs in uo.obj.relocs.values() for r in relocs.values()
              if r.kind in ("R_X86_64_PLT32", "R_386_PLT32") and r.section is None and r.symbol}
    return sorted(called - HARNESS_FUNCTIONS[uo.arch] - set(FAIL_FUNCTIONS))


def driver_input(uo: UserObject, function: str, entry: str, workdir: Path, what: str) -> Path | Unavailable:
    """A copy of the object with ``function`` renamed ``entry`` and made global (``objcopy``), for a libc driver
    that calls it by that name (``cbc_confirm``, ``lanes_confirm``); ``Unavailable`` off x86-64 or for an object
    that is not linked (a shared object, an executable). ``what`` names the check in the messages.

    Example: ``driver_input(uo, "sha1_multi_block", "sha1_block_data_order", work, "the lanes check")`` is
    ``work/sha1_block_data_order_input.o``."""
    if uo.arch != "x86_64" or not host_is_x86_64():
        return Unavailable(f"{what} runs natively on an x86-64 host only")
    if uo.kind not in ("assembled", "object", "archive member"):
        return Unavailable(f"a {uo.kind}'s function is not linked into {what}")
    out = workdir / f"{entry}_input.o"
    try:
        run([which("objcopy"), f"--redefine-sym={function}={entry}", f"--globalize-symbol={entry}", str(uo.path),
             str(out)], "objcopy")
    except ToolchainError as e:
        return Unavailable(f"cannot link the function into {what}: {e}")
    return out


class ConfirmError(Sha1optError):
    """A native confirmation asked for something the object does not have."""


def preset(uo: UserObject, symbols: Mapping[str, bytes], workdir: Path) -> Path:
    """A copy of the object whose *defined* data symbols start with the given bytes (``objcopy
    --update-section``): how a capability word the object defines itself (the dispatching export's
    ``sha1opt_ia32cap``, filled by a constructor the harness never runs) is forced to one path.

    Example: ``{"sha1opt_ia32cap": b"\\x07\\0\\0\\0"}`` gives an object whose word starts as 7."""
    contents: dict[str, bytearray] = {}
    for name, init in sorted(symbols.items()):
        sym = next(s for s in uo.obj.symbols if s.name == name and s.section)
        if sym.section not in uo.obj.sections or sym.section.startswith((".bss", ".tbss")):
            raise ConfirmError(f"{name} lives in {sym.section}, which has no contents to preset")
        size = sym.size or len(init)
        if len(init) > size:
            raise ConfirmError(f"{name} is {size} bytes; {len(init)} given")
        data = contents.setdefault(sym.section, bytearray(uo.obj.sections[sym.section]))
        data[sym.value:sym.value + len(init)] = init
    args = [which("objcopy")]
    for k, (sec, data) in enumerate(sorted(contents.items())):
        blob = workdir / f"preset_{k}.bin"
        blob.write_bytes(bytes(data))
        args.append(f"--update-section={sec}={blob}")
    out = workdir / "confirm_preset.o"
    run(args + [str(uo.path), str(out)], "objcopy (preset)")
    return out


def harness_for(uo: UserObject, function: str, workdir: Path, interface: Interface = DEFAULT,
                symbols: Mapping[str, bytes] | None = None, lifted: FunctionProof | None = None,
                environment: Mapping[str, bytes] | None = None) -> BlockHarness | Unavailable:
    """The function linked into the native harness (renamed; undefined data symbols zero or as ``symbols``
    gives them; a global data symbol the object defines starts as ``symbols`` gives it, ``preset``), or why not.

    A declared interface other than ``(state, data, nblocks)`` is called through
    ``adapter.adapter_text`` (the function renamed to ``CALLEE``, made global). A shared object's function
    runs in ``harness.SharedObjectHarness`` when ``lifted`` is its proof (``shared_harness``).
    """
    symbols = symbols or {}
    if uo.kind == "shared object":
        return shared_harness(uo, function, workdir, interface, symbols, lifted, environment or {})
    if uo.kind not in ("assembled", "object", "archive member"):
        # (before the symbols: a linked object's run-time words are inputs named by address, ``mem_4895a0``)
        return Unavailable(f"a {uo.kind} cannot be linked into the harness")
    undefined = {s.name for s in uo.obj.symbols if s.section is None and s.name}
    defined = {s.name for s in uo.obj.symbols if s.section and s.kind == "STT_OBJECT" and s.bind != "STB_LOCAL"}
    # A static of the object (a local symbol: ``static int is_reverse = -1`` set on first use) is not preset: the
    # run starts from the file's value and the function sets it as a program's calls do, so a disagreement is
    # one a caller meets; a value a path assumed need not be one the object stores.
    symbols = {n: b for n, b in symbols.items() if n in undefined or n in defined
               or not any(s.name == n and s.section and s.bind == "STB_LOCAL" for s in uo.obj.symbols)}
    unknown = sorted(set(symbols) - undefined - defined)
    if unknown:
        raise ConfirmError(f"{unknown[0]} is not an undefined or global data symbol of the object")
    if not host_is_x86_64():
        return Unavailable("native runs need an x86-64 host")
    obj = uo.path
    try:
        own = {n: b for n, b in symbols.items() if n in defined}
        if own:
            obj = preset(uo, own, workdir)
            symbols = {n: b for n, b in symbols.items() if n not in own}
        extra: list[Path] = []
        if interface.roles != DEFAULT.roles:
            renamed = workdir / "confirm_input.o"
            run([which("objcopy"), f"--redefine-sym={function}={CALLEE}", f"--globalize-symbol={CALLEE}", str(obj),
                 str(renamed)], "objcopy")
            obj, extra = renamed, [adapter_object(uo.arch, interface, CALLEE, workdir)]
        elif function != SYMBOL:
            renamed = workdir / "confirm_input.o"
            run([which("objcopy"), f"--redefine-sym={function}={SYMBOL}", str(obj), str(renamed)], "objcopy")
            obj = renamed
        if uo.archive is not None and stubbed_calls(uo):
            try:        # (the calls are the C library's and the archive's own: linked, not stubbed)
                # (a function pointer a proved path jumped through: its value as the file holds it at each
                # record's first call, ``ArchiveHarness``)
                restore = sorted({var for p in lifted.paths for var, _ in p.pointers} if lifted is not None else ())
                return ArchiveHarness(obj, uo.arch, workdir, uo.archive,
                                      extra=[*extra, *stubs(uo, workdir, symbols, given_only=True)], restore=restore,
                                      environment=environment or {})
            except ToolchainError:   # (it needs more than the C library -- C++'s, ... --: the freestanding harness
                pass                 # and its stubs, whose Unavailable says a stubbed call was reached)
        return BlockHarness(obj, uo.arch, workdir, extra=[*extra, *stubs(uo, workdir, symbols)])
    except (ToolchainError, Sha1optError) as e:
        return Unavailable(f"cannot link the function into the harness: {e}")


def shared_harness(uo: UserObject, function: str, workdir: Path, interface: Interface, symbols: Mapping[str, bytes],
                   lifted: FunctionProof | None,
                   environment: Mapping[str, bytes] | None = None) -> SharedObjectHarness | Unavailable:
    """A shared object's function in ``harness.SharedObjectHarness``, or why not.

    Run only when validated: ``lifted`` is the proof of ``function`` under ``interface`` (its code decoded, its
    arguments checked) and the path ``symbols`` select (its ``witness``) is not one it refused. The function is
    found at its address in the file's layout (``find_function``: a stripped one is the symbol ``scan`` made
    of its extent); each word of ``symbols`` (``mem_<address>``) must lie in a section written at run time
    and outside the part made read-only after relocation.
    """
    if lifted is None or lifted.function != function:
        return Unavailable(f"a function of a shared object is run only once lifted: no proof of {function} given")
    if replace(interface.contract(lifted.contract.abi), min_blocks=lifted.contract.min_blocks) != lifted.contract:
        return Unavailable(f"a function of a shared object is run only through the interface it was lifted under: "
                           f"({', '.join(lifted.contract.arg_names())}), not {interface}")
    refused = [p for p in lifted.paths if p.outcome == "refused"]
    # (the path's whole witness: its words and its environment, ``lift.witness``)
    chosen = tuple(sorted({**symbols, **{ENV + k: v for k, v in (environment or {}).items()}}.items()))
    bad = next((p for p in refused if p.witness == chosen), None) or \
        (refused[0] if len(refused) == len(lifted.paths) else None)
    if bad is not None:
        return Unavailable(f"a function of a shared object is run only on a lifted path: {bad.name} was refused "
                           f"({bad.detail})")
    if not host_is_x86_64():
        return Unavailable("native runs need an x86-64 host")
    try:
        sym = uo.obj.find_function(function)
    except NoFunction as e:
        raise ConfirmError(str(e)) from None
    words: dict[int, bytes] = {}
    for name, init in symbols.items():
        at = linked_word_address(name)
        if at is None:
            raise ConfirmError(f"{name} is not a word of the shared object named by its address (mem_<hex>)")
        hit = uo.obj.section_at(at)
        if hit is None or hit[0] not in uo.obj.writable or any(lo < at + len(init) and at < hi for lo, hi in
                                                                 uo.obj.read_only_after_relocation):
            return Unavailable(f"the word at 0x{at:x} is not in data written at run time: it cannot be set")
        words[at] = init
    try:
        if interface.roles != DEFAULT.roles:
            entry = [jump_stub(uo.arch, CALLEE, workdir), adapter_object(uo.arch, interface, CALLEE, workdir)]
        else:
            entry = [jump_stub(uo.arch, SYMBOL, workdir)]
        return SharedObjectHarness(uo.path, uo.obj.addresses.get(sym.section, 0) + sym.value, uo.arch, workdir,
                                   entry, words, environment)
    except (ToolchainError, Sha1optError) as e:
        return Unavailable(f"cannot run the shared object's function in the harness: {e}")


def run_zero_blocks(uo: UserObject, function: str, workdir: Path, lifted: FunctionProof | None = None,
                    interface: Interface = DEFAULT) -> str:
    """What the machine does when called with nblocks = 0 (for a contract that excludes it: a finding), through
    the function's own ``interface``."""
    harness = harness_for(uo, function, workdir, interface, lifted=lifted)
    if isinstance(harness, Unavailable):
        return f"not run natively ({harness.reason})"
    st = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)
    res = harness.run([Record(st, b"")])
    if isinstance(res, RunFailure):
        return f"measured: {res.reason} (data ends at a guard page)"
    return "measured: returns" + (" with the state unchanged" if res[0].state == st else " with the state changed")


def confirm(uo: UserObject, function: str, min_blocks: int, workdir: Path, seed: int = 12,
            interface: Interface = DEFAULT, symbols: Mapping[str, bytes] | None = None,
            lifted: FunctionProof | None = None,
            environment: Mapping[str, bytes] | None = None) -> Finding | Unavailable | None:
    """The first concrete record on which the function disagrees with SHA-1, run with the undefined data
    symbols zero or as ``symbols`` gives them (to take one dispatch path), or None when all agree.
    ``lifted``: the function's proof (required to run a shared object's function: ``shared_harness``);
    ``environment``: the variables a path's getenv calls read (``ArchiveHarness``: set, and no others)."""
    harness = harness_for(uo, function, workdir, interface, symbols, lifted, environment)
    if isinstance(harness, Unavailable):
        return harness
    rng = random.Random(seed)
    records, wants = [], []
    m = interface.block_multiple
    # a byte length: every other record 1..63 bytes longer than its blocks (the contract hashes whole blocks only)
    tails = "bytes" in interface.roles and not interface.whole_bytes      # (``bytes whole``: no trailing bytes)
    for nb in range(min_blocks, 3 * m + 1):
        if nb % m:
            continue        # a count outside the contract (``nblocks even``: 2, 4, 6, never 3)
        for j in range(4):
            st = tuple(rng.getrandbits(32) for _ in range(5))
            data = rng.randbytes(64 * nb)
            tail = rng.randbytes(rng.randrange(1, 64)) if tails and j % 2 else b""
            records.append(Record(st, data, tail=tail))
            wants.append(expected(st, data))
    for rec, want in zip(records, wants):
        res = harness.run([rec])
        if isinstance(res, RunFailure):
            calls = stubbed_calls(uo) if not isinstance(harness, ArchiveHarness) else []
            if calls:
                return Unavailable(f"the process died ({res.reason}), and the object calls external functions the "
                                   f"harness stubs as data ({', '.join(calls[:3])}): no verdict on the code")
            return Finding(rec.state, rec.data, len(rec.data) // 64, None, want, f"the process died ({res.reason})",
                           len(rec.tail))
        r = res[0]
        problem = "; ".join(t for bit, t in FLAG_TEXT.items() if r.flags & bit)
        if r.state != want or problem:
            return Finding(rec.state, rec.data, len(rec.data) // 64, r.state, want, problem, len(rec.tail))
    if min_blocks == 0 and interface.block_multiple == 1:     # (the vectors hash odd counts too)
        ok, detail = run_vectors(harness)
        if not ok:
            return Finding((), b"", -1, None, (), f"known-answer vectors: {detail}")
    return None
