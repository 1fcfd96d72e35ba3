"""Validate an emitted transform: trust neither the emitter nor the assembler.

``validate(text, schedule, workdir)`` (export: our own text; checks 1, 3,
5, 6) and ``validate_source(path, arch, workdir)`` (bench: a user's ``.S``,
under ``search.space.frame.block_bindings``; all six) run, in order,
stopping at the first failure; only code that passed the checks before 6
is ever run natively (check 6, and bench's timing runs after it):

1. ``assemble``   -- GNU as (``--32`` for i386; bench: gcc -c through cpp),
                     under ``toolchain.TOOL_LIMITS``; its error is the message.
2. ``object``     -- (bench) ``image.runnable_problem``: only the function in
                     ``.text`` (no other loaded section such as
                     ``.init_array``, no relocation such as ``call system``,
                     no other global symbol).
3. ``lift``       -- objdump the object's machine code back into a listing,
                     find the block loop, check the loop control is exactly
                     "advance data by 64, count down, branch back".
4. ``shape``      -- (bench) re-emit the function around the lifted body with
                     ``assembly.function_text``: it must assemble to the same
                     ``.text`` bytes, so every instruction outside the proved
                     body is our own prologue / loop control / epilogue (a
                     bare ``ret``, a spin loop, a clobbered callee-saved
                     register all stop at 3 or here).
5. ``prove``      -- the lifted loop body equals the SHA-1 compression
                     function (80 rounds, the W schedule, the feed-forward
                     into state), compositionally with round cut points.
6. ``vectors``    -- run natively in the freestanding harness: FIPS 180-4
                     and NIST CAVP SHA1ShortMsg/LongMsg, random messages vs
                     hashlib, nblocks 0 / 1 / many, misaligned data ending
                     at a guard page, random states vs the numpy spec, a
                     state array followed by a guard page and preceded by
                     canaries, callee-saved registers checked after each call.

The outcome is a ``Validation`` value listing every check with its figures.
"""

from __future__ import annotations

import hashlib
import random
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sha1opt.search.space.frame import Schedule, block_bindings, state_regs
from sha1opt.semantics.att import read_source
from sha1opt.semantics.block import describe_failure, prove_block
from sha1opt.semantics.composition import CompositionResult
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.sha1 import IV, compress, pad
from sha1opt.semantics.x86 import Arch
from sha1opt.emit.assembly import SYMBOL, function_text, loop_control_ok
from sha1opt.emit.disasm import disassemble
from sha1opt.emit.harness import FLAG_TEXT, BlockHarness, Record, RunFailure
from sha1opt.emit.image import read_object, runnable_problem
from sha1opt.emit.toolchain import ToolchainError, assemble, compile_source, host_is_x86_64
from sha1opt.emit.vectors import all_vectors


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float


@dataclass
class Validation:
    checks: list[Check] = field(default_factory=list)
    proof: CompositionResult | None = None
    obj: Path | None = None

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.checks)


def _digest(state) -> bytes:
    return struct.pack(">5I", *state)


def _message_records(seed: int) -> tuple[list[Record], list[bytes], list[str]]:
    """Records whose expected result is a message digest from hashlib."""
    rng = random.Random(seed)
    recs, want, names = [], [], []
    for v in all_vectors():
        recs.append(Record(IV, pad(v.message)))
        want.append(v.digest)
        names.append(v.name)
    for k in range(48):
        msg = rng.randbytes(rng.choice([rng.randrange(0, 200), rng.randrange(200, 5000)]))
        recs.append(Record(IV, pad(msg), misalign=rng.randrange(0, 64), chunk=rng.choice([0, 1, 2, 3])))
        want.append(hashlib.sha1(msg).digest())
        names.append(f"random message {k} ({len(msg)} bytes)")
    big = rng.randbytes(1 << 20)                      # 1 MiB: 16,385 blocks in one call
    for misalign, chunk in ((0, 0), (13, 1000)):
        recs.append(Record(IV, pad(big), misalign=misalign, chunk=chunk))
        want.append(hashlib.sha1(big).digest())
        names.append(f"1 MiB message (misalign {misalign}, {chunk or 'one'} call{'s' if chunk else ''})")
    return recs, want, names


def _state_records(seed: int) -> tuple[list[Record], list[tuple[int, ...]], list[str]]:
    """Random states: nblocks 0 (no-op) and 1 (vs the numpy spec)."""
    rng = np.random.default_rng(seed)
    n = 16
    states = rng.integers(0, 1 << 32, (n, 5), dtype=np.uint64).astype(np.uint32)
    blocks = rng.integers(0, 1 << 32, (n, 16), dtype=np.uint64).astype(np.uint32)
    dom = NumpyDomain(n)
    out = compress(dom, [states[:, i].copy() for i in range(5)], [blocks[:, j].copy() for j in range(16)])
    expect = np.stack(out, axis=1)
    recs, want, names = [], [], []
    for i in range(n):
        st = tuple(int(x) for x in states[i])
        recs.append(Record(st, b"", misalign=int(i % 7)))
        want.append(st)
        names.append(f"nblocks=0, random state {i}")
        recs.append(Record(st, blocks[i].astype("<u4").tobytes(), misalign=int(i * 5 % 64)))
        want.append(tuple(int(x) for x in expect[i]))
        names.append(f"one random block from random state {i}")
    return recs, want, names


def run_vectors(harness: BlockHarness, seed: int = 2009) -> tuple[bool, str]:
    m_recs, m_want, m_names = _message_records(seed)
    s_recs, s_want, s_names = _state_records(seed)
    results = harness.run(m_recs + s_recs)
    if isinstance(results, RunFailure):
        names = m_names + s_names
        at = names[results.completed] if results.completed < len(names) else "end"
        return False, f"{results.reason} ({at})"
    for i, (res, want) in enumerate(zip(results, m_want + s_want)):
        name = (m_names + s_names)[i]
        if res.flags:
            why = "; ".join(t for bit, t in FLAG_TEXT.items() if res.flags & bit)
            return False, f"{name}: {why}"
        got = _digest(res.state) if i < len(m_recs) else res.state
        if got != want:
            shown = got.hex() if isinstance(got, bytes) else " ".join(f"{w:08x}" for w in got)
            exp = want.hex() if isinstance(want, bytes) else " ".join(f"{w:08x}" for w in want)
            return False, f"{name}: got {shown}, want {exp}"
    n_fips = sum(1 for n in m_names if not n.startswith(("SHA1", "random", "1 MiB")))
    n_cavp = sum(1 for n in m_names if n.startswith("SHA1"))
    return True, (f"{len(results)} records passed: {n_fips} FIPS 180-4, {n_cavp} CAVP Short/LongMsg, "
                  f"48 random messages + 1 MiB x2 vs hashlib, 16 no-op + 16 random-state blocks; "
                  f"guard pages, canaries and callee-saved registers intact")


def validate(text: str, schedule: Schedule, workdir: Path, native: bool = True) -> Validation:
    """Our own rendering of ``schedule`` (``assembly.function_text``), assembled with GNU as, then checked."""
    v = Validation()

    def do_assemble():
        v.obj = assemble(text, schedule.arch, workdir, "candidate")
        return True, f"{schedule.arch} object assembled"

    if _timed(v, "assemble", do_assemble):
        _check_object(v, schedule.arch, (schedule.inputs, schedule.outputs, schedule.pointers), workdir, native,
                      foreign=False)
    return v


def validate_source(path: str | Path, arch: Arch, workdir: Path, native: bool = True) -> Validation:
    """A user's ``.S`` (what ``bench`` measures): gcc -c through cpp, then every check under the frame contract.

    The source is read once, bounded (``limits.SOURCE_BYTES``, regular files
    only), and copied into ``workdir``; the object checked is the object the
    caller may then run (``v.obj``), never a second build of the file.
    """
    v = Validation()

    def do_assemble():
        src = workdir / "candidate.S"
        src.write_text(read_source(path))
        v.obj = compile_source(src, arch, workdir / "candidate.o", "assembling the candidate")
        return True, f"{arch} object assembled (gcc -c, through cpp)"

    if _timed(v, "assemble", do_assemble):
        _check_object(v, arch, block_bindings(arch), workdir, native, foreign=True)
    return v


def _timed(v: Validation, name: str, fn) -> bool:
    t0 = time.perf_counter()
    try:
        ok, detail = fn()
    except (ToolchainError, Sha1optError) as e:
        ok, detail = False, clip(str(e))
    v.checks.append(Check(name, ok, detail, time.perf_counter() - t0))
    return ok


def _check_object(v: Validation, arch: Arch, contract: tuple[dict, dict, dict], workdir: Path, native: bool,
                  foreign: bool) -> None:
    """The checks after assembly, in order, stopping at the first failure; nothing runs natively before the last.

    ``foreign`` (a user's file) adds ``object`` and ``shape``; our own
    rendering has them by construction (export then compares the written
    file's whole object with the validated one).
    """
    inputs, outputs, pointers = contract
    lifted: dict = {}

    def do_object():
        image = read_object(v.obj)
        why = runnable_problem(image, SYMBOL)
        if why:
            return False, why
        lifted["text"] = image.section(".text").data
        return True, f"only {SYMBOL} in .text ({len(lifted['text'])} bytes), no relocations, no other loaded section"

    def do_lift():
        listing = disassemble(v.obj, arch, SYMBOL)
        loop = listing.loop()
        why = loop_control_ok(loop.control, arch)
        if why:
            return False, why
        lifted["body"] = loop.body
        return True, f"{len(loop.body)} instructions lifted from machine code"

    def do_shape():
        # Only the loop body is proved: everything around it must be our own
        # prologue, loop control and epilogue, byte for byte.
        again = Schedule(arch, "lifted", tuple(lifted["body"]), inputs, outputs, pointers)
        obj = assemble(function_text(again), arch, workdir, "reemitted")
        if read_object(obj).section(".text").data != lifted["text"]:
            return False, (f"the code around the loop body is not sha1opt's prologue, block loop and epilogue "
                           f"({SYMBOL} re-emitted from its lifted body assembles to other bytes)")
        return True, "prologue, block loop and epilogue are sha1opt's, byte for byte"

    def do_prove():
        res = prove_block(lifted["body"], inputs, outputs, pointers)
        v.proof = res
        if not res.ok:
            return False, describe_failure(res, hint=lambda t: f"round {t} should leave its new a in "
                                           f"%{state_regs(t)[4].name} (e's register in that round)")
        return True, (f"machine code = SHA-1 compression (80 rounds, W schedule, feed-forward): "
                      f"{res.cuts} cuts, {res.solver_calls} solver calls")

    steps = [("object", do_object), ("lift", do_lift), ("shape", do_shape), ("prove", do_prove)]
    for name, fn in steps if foreign else [steps[1], steps[3]]:
        if not _timed(v, name, fn):
            return

    if native:
        def do_vectors():
            if not host_is_x86_64():
                return False, "native run needs an x86-64 host (use native=False to skip explicitly)"
            harness = BlockHarness(v.obj, arch, workdir)
            return run_vectors(harness)

        _timed(v, "vectors", do_vectors)
