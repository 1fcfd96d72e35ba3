"""Validate an emitted transform: trust neither the emitter nor the assembler.

``validate(text, schedule, workdir)`` (export: our own text) and
``validate_source(path, arch, workdir)`` (bench: a user's ``.S``) run, in
order, stopping at the first failure; only code that passed the checks
before ``vectors`` is ever run (``vectors``, and bench's timing runs after
it, natively only where ``host_cpu.lacking`` of its features is empty):

1. ``assemble``   -- GNU as (``--32`` for i386; bench: gcc -c through cpp),
                     under ``toolchain.TOOL_LIMITS``; its error is the message.
2. ``object``     -- (bench) ``image.runnable_problem``: only the function in
                     ``.text`` (no other loaded section such as
                     ``.init_array``, no relocation such as ``call system``,
                     no other global symbol).
3. ``lift``       -- the object's machine code read back with the one front
                     end every proof uses (``semantics.lift``: pyelftools,
                     capstone): the function ``sha1_block_data_order`` found and
                     decoded, no undecodable byte. ``object``, ``lift`` and
                     ``prove`` share one read of the object (``image.read_object``,
                     the ELF reader of ``semantics.lift.elf``).
4. ``prove``      -- the whole function proved from that machine code
                     (``lift.function.prove_function`` under sha1opt's contract
                     ``f(state[5], data, nblocks)``, nblocks >= 0): nblocks = 0 is
                     a no-op, the loop computes the SHA-1 compression function
                     block after block (80 rounds, W schedule, feed-forward),
                     the loop control, every exit, the callee-saved registers
                     and the stack pointer are checked. Nothing outside the
                     proof is trusted, so no check of the code's "shape" is needed.
5. ``vectors``    -- run in the freestanding harness: FIPS 180-4
                     and NIST CAVP SHA1ShortMsg/LongMsg, random messages vs
                     hashlib, nblocks 0 / 1 / many, misaligned data ending
                     at a guard page, random states vs the numpy spec, a
                     state array followed by a guard page and preceded by
                     canaries, callee-saved registers checked after each call
                     (the net for a semantics table that disagrees with the CPU).
                     Where it runs is ``execution.execution_for`` of the
                     features the decoded machine code needs
                     (``Validation.features``, from ``lift``): natively where
                     this CPU has them, else under a qualified emulator
                     (``corpus/emulators.toml``), else not run -- recorded as
                     ``Check.execution.mode == NOT_RUN`` with what this CPU
                     lacks, an ok check (the proof is what "proved" means),
                     stated as ``"vectors not run here: this CPU lacks avx512vl"``.

The outcome is a ``Validation`` value listing every check with its figures
(``Validation.run_check`` records one; ``dispatch_export`` adds its own checks with it).
Example: the textbook x86-64 export gives ``assemble``, ``lift`` ("1279
instructions decoded"), ``prove`` ("machine code = SHA-1 compression for
every nblocks >= 0: ...") and ``vectors``, all ok; the same export with
``add $32, %rsi`` as the block advance fails ``prove`` (the loop does not
re-establish its invariant) and is never run.
"""

from __future__ import annotations

import hashlib
import random
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from sha1opt.search.space.frame import Schedule
from sha1opt.semantics.att import read_source
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.decode import Function, decode_function, line_table
from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import Contract, FunctionProof, prove_function
from sha1opt.semantics.lift.interface import ABI_OF
from sha1opt.semantics.limits import clip
from sha1opt.semantics.sha1 import IV, compress, pad
from sha1opt.semantics.x86 import SEMANTICS, Arch, isa_set
from sha1opt.emit.assembly import SYMBOL
from sha1opt.emit.execution import NATIVE, NOT_RUN, Execution, execution_for
from sha1opt.emit.harness import FLAG_TEXT, BlockHarness, Record, RunFailure
from sha1opt.emit.image import read_object, runnable_problem
from sha1opt.emit.proof_memo import remembered
from sha1opt.emit.toolchain import Preprocessor, ToolchainError, assemble, compile_source, host_is_x86_64
from sha1opt.emit.vectors import all_vectors


@dataclass(frozen=True)
class Check:
    """One check's outcome; a check that runs code says where in ``execution`` (None: it runs nothing)."""

    name: str
    ok: bool
    detail: str
    seconds: float
    execution: Execution | None = None

    @property
    def not_run(self) -> bool:
        return self.execution is not None and self.execution.mode == NOT_RUN

    @property
    def statement(self) -> str:
        """The check in one phrase for headers and output: ``"prove: machine code = ..."``, or for a run
        not done ``"vectors not run here: this CPU lacks avx512vl (...)"``."""
        return f"{self.name} {self.detail}" if self.not_run else f"{self.name}: {self.detail}"


@dataclass
class Validation:
    checks: list[Check] = field(default_factory=list)
    proof: FunctionProof | None = None
    obj: Path | None = None
    features: frozenset[str] | None = None     # what the decoded machine code needs (``x86.isa_set``), from lift

    @property
    def not_run(self) -> list[Check]:
        """The run checks recorded as not run here (what this CPU lacks, no qualified emulator)."""
        return [c for c in self.checks if c.not_run]

    def summary(self, names=("prove", "vectors")) -> str:
        """The ``names`` checks' statements joined for a file header (``Check.statement``)."""
        return "; ".join(c.statement for c in self.checks if c.name in names)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.checks)

    def run_check(self, name: str, fn) -> bool:
        """Run ``fn`` as check ``name`` and record it (with its wall time) in ``checks``; whether it passed.

        ``fn`` returns ``(ok, detail)``, or ``(ok, detail, execution)`` for a
        check that runs code; a ``ToolchainError`` or ``Sha1optError`` it
        raises is the check failing with that message (clipped).
        """
        t0 = time.perf_counter()
        execution = None
        try:
            ok, detail, *rest = fn()
            execution = rest[0] if rest else None
        except (ToolchainError, Sha1optError) as e:
            ok, detail = False, clip(str(e))
        self.checks.append(Check(name, ok, detail, time.perf_counter() - t0, execution))
        return ok


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

    if v.run_check("assemble", do_assemble):
        _check_object(v, schedule.arch, workdir, native, foreign=False)
    return v


def validate_source(path: str | Path, arch: Arch, workdir: Path, native: bool = True,
                    cpp: Preprocessor = Preprocessor()) -> Validation:
    """A user's ``.S`` (what ``bench`` measures): gcc -c through cpp, then every check.

    The source is read once, bounded (``limits.SOURCE_BYTES``, regular files
    only), and copied into ``workdir``; the object checked is the object the
    caller may then run (``v.obj``), never a second build of the file.
    """
    v = Validation()

    def do_assemble():
        src = workdir / "candidate.S"
        src.write_text(read_source(path))
        v.obj = compile_source(src, arch, workdir / "candidate.o", "assembling the candidate", cpp.flags(Path(path)))
        return True, f"{arch} object assembled (gcc -c, through cpp)"

    if v.run_check("assemble", do_assemble):
        _check_object(v, arch, workdir, native, foreign=True)
    return v


def machine_features(instructions) -> frozenset[str]:
    """The features decoded machine code needs: ``x86.isa_set`` of its data instructions (the control
    and stack rows the lifter executes -- push, jne, ret... -- are base x86)."""
    return isa_set([d.ins for d in instructions if d.ins.mnemonic in SEMANTICS])


def run_vectors_here(v: Validation, arch: Arch, workdir: Path) -> tuple[bool, str, Execution]:
    """The ``vectors`` check of ``v.obj`` where ``execution_for(v.features)`` says: natively, under an
    emulator (its name in the detail), or not run (ok, with what this CPU lacks)."""
    execution = execution_for(v.features or (), arch)
    if not execution.ran:
        return True, execution.text(), execution
    ok, detail = run_vectors(BlockHarness(v.obj, arch, workdir, prefix=execution.prefix))
    if execution.mode != NATIVE:
        detail = f"{detail}; run {execution.text()}"
    return ok, detail, execution


def lift_functions(obj: ObjectFile, names: Sequence[str]) -> list[Function] | str:
    """The functions ``names`` of ``obj`` decoded from their machine code (``semantics.lift``), or the first
    undecodable byte as ``"<problem> at <name>+0x<offset>"``: the ``lift`` check of every export."""
    lines = line_table(obj)
    out = []
    for name in names:
        fn = decode_function(obj, obj.find_function(name), lines)
        bad = next((d for d in fn.instructions.values() if d.mnemonic == "(bad)"), None)
        if bad is not None:
            return f"{bad.problem} at {name}+0x{bad.address - fn.entry:x}"
        out.append(fn)
    return out


def prove_export(v: Validation, obj: ObjectFile, arch: Arch) -> tuple[bool, str]:
    """The ``prove`` check of every export: ``SYMBOL`` of ``obj`` proved whole under sha1opt's contract
    (the arch's ABI, nblocks >= 0; ``lift.function.prove_function``), recorded in ``v.proof``;
    ``proof_detail`` of it. An object this process already proved so (the same bytes, contract, semantics
    table and prover) is not proved again (``proof_memo``)."""
    v.proof = remembered(prove_function, obj, SYMBOL, Contract(ABI_OF[arch], 0))
    return proof_detail(v.proof)


def proof_detail(proof: FunctionProof) -> tuple[bool, str]:
    """(proved, one line): every path and what it proved, or the first path that did not prove and why."""
    if proof.proved:
        cuts = sum(p.cuts for p in proof.paths)
        return True, (f"machine code = SHA-1 compression for every nblocks >= {proof.contract.min_blocks} "
                      f"(whole function: {', '.join(p.name for p in proof.paths)}; loop invariant, exits, "
                      f"callee-saved registers and stack pointer; {cuts} cuts)")
    bad = next((p for p in proof.paths if p.outcome != "proved"), None)
    if bad is None:
        return False, "no path of the function was found (not a proof)"
    return False, clip(f"{bad.name} [{bad.condition}]: {bad.outcome}: {bad.detail}")


def _check_object(v: Validation, arch: Arch, workdir: Path, native: bool, foreign: bool) -> None:
    """The checks after assembly, in order, stopping at the first failure; nothing runs natively before the last.

    The object is read once (``image.read_object``: the one ELF reader,
    ``semantics.lift.elf.ObjectFile``) and that value serves ``object``,
    ``lift`` and ``prove``.

    ``foreign`` (a user's file) adds ``object``; our own rendering has it by
    construction (export then compares the written file's whole object with
    the validated one).
    """
    lifted: dict = {}

    def parsed() -> ObjectFile:          # the one read of the object: object, lift and prove share it
        if "obj" not in lifted:
            lifted["obj"] = read_object(v.obj)
        return lifted["obj"]

    def do_object():
        obj = parsed()
        why = runnable_problem(obj, SYMBOL)
        if why:
            return False, why
        return True, f"only {SYMBOL} in .text ({len(obj.sections['.text'])} bytes), no relocations, " \
                     "no other loaded section"

    def do_lift():
        obj = parsed()
        if obj.arch != arch:
            return False, f"the object is {obj.arch}, not {arch}"
        fns = lift_functions(obj, [SYMBOL])
        if isinstance(fns, str):
            return False, fns
        v.features = machine_features(fns[0].instructions.values())
        needs = ", ".join(sorted(v.features)) or "base x86 only"
        return True, f"{len(fns[0].instructions)} instructions decoded from machine code (needs {needs})"

    def do_prove():
        return prove_export(v, parsed(), arch)

    steps = [("object", do_object), ("lift", do_lift), ("prove", do_prove)]
    for name, fn in steps if foreign else steps[1:]:
        if not v.run_check(name, fn):
            return

    if native:
        def do_vectors():
            if not host_is_x86_64():
                return False, "native run needs an x86-64 host (use native=False to skip explicitly)"
            return run_vectors_here(v, arch, workdir)

        v.run_check("vectors", do_vectors)
