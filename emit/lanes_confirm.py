"""Native confirmation of a multi-buffer SHA-1 function: OpenSSL's ``sha1_multi_block``, every lane checked.

``sha1_multi_block(SHA1_MB_CTX *ctx, const HASH_DESC *inp, int num)`` hashes
up to eight messages at once. ``ctx`` holds the eight states transposed --
A[8] at byte 0, B[8] at 32, C[8] at 64, D[8] at 96, E[8] at 128 -- and
``inp`` 4 * num descriptors ``{const unsigned char *ptr; int blocks;}`` (16
bytes each): lane j (j < 4 * num) gets ``blocks`` chained SHA-1 compressions
of ``ptr``'s 64-byte blocks, no padding; a lane with ``blocks <= 0`` and every
lane from 4 * num on are left as they are. ``lanes_finding`` links the
function (renamed ``sha1_block_data_order``) with ``csrc/lanes_run.c`` and
``csrc/callcheck_x86_64.S`` (which checks the callee-saved registers and the
stack pointer across the call) and runs it on records of random contexts
(all eight lanes), random data and per-lane counts from {-1, 0, 1, 2, 3}, for
num = 1 and num = 2, once under each capability word of ``PATHS`` this CPU
runs (``host_cpu.lacking``: a path whose features it lacks is not run). Each
record's 40 context words are compared with ``confirm.expected_many`` (the
numpy SHA-1) for the hashed lanes and with their input for the others; the
8 words on either side of the context, the data and the descriptors must be
left alone. The first disagreement is a ``Finding`` naming the path, num,
lane and word; a CPU that runs none of the paths, or a run that dies on an
instruction the CPU lacks (SIGILL), is ``Unavailable``; a run that dies
otherwise is a ``Finding`` naming the record (each answer is flushed before
the next record is read), and one that does not end within ``RUN_SECONDS``
(records take milliseconds) a ``Finding`` naming the path.

The contract (``within_contract``) -- where every dispatch path of OpenSSL's
code hashes what the paragraph above says and returns: the lanes are hashed
group by group, and a group whose lanes are all inactive ends the call
(``test %edx,%edx; je`` to the epilogue) -- four lanes a group in the SSSE3
and AVX code, two in the SHA-NI code -- while the AVX2 code (num = 2, eight
lanes at once) has no such test: with no lane active its block loop runs
2**32 times. So a record is in the contract when the pairs of lanes (0, 1),
(2, 3), ... that hold an active lane come first (no all-inactive pair before
an active one: that covers the four-lane groups too), and, for num = 2, lane
0 or 1 is active. Records outside it are never drawn: on them the paths
disagree among themselves, and a run's answer says nothing about the code.

The capability word: ``sha1_multi_block`` reads the qword at
``OPENSSL_ia32cap_P + 4`` (its words 1 and 2): bit 61 (word 2 bit 29, SHA)
takes ``sha1_multi_block_shaext``; else word 1 bit 28 (AVX) takes
``sha1_multi_block_avx``, which with num >= 2 and word 2 bit 5 (AVX2) takes
``sha1_multi_block_avx2``; else the SSSE3 code of ``sha1_multi_block``
itself. ``symbols`` pins the capability word instead (a path's witness, as
``confirm``/``cbc_confirm`` take it): then that one word is run.

Example: with the SSSE3 code reading lane 2's count from lane 1's descriptor
(``mov 0x28(%rsi),%ecx`` as ``mov 0x18(%rsi),%ecx``) the finding is "SSSE3
(OPENSSL_ia32cap_P 0x00000000 0x00000000 0x00000000 0x00000000), num=1, lane 2
(blocks 3): word A: the machine gives 0x53f7a93c, SHA-1 gives 0xc3e2c9bf
(record 0 of seed 12)"; a mutant that does not give the caller's %rbp back,
"..., num=1, a callee-saved register or the stack pointer changed (record 0 of
seed 12)".
"""

from __future__ import annotations

import random
import signal
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from sha1opt.semantics.errors import Sha1optError
from sha1opt.emit.confirm import SYMBOL, Finding, Unavailable, driver_input, expected_many, stubs
from sha1opt.emit.harness import FLAG_CALLEE_SAVED, FLAG_DATA_WRITTEN, FLAG_TEXT
from sha1opt.emit.host_cpu import lacking, lacks_text
from sha1opt.emit.objfile import UserObject
from sha1opt.emit.toolchain import NATIVE_LIMITS, ToolchainError, compile_source, csrc, link_hosted, run_child

FUNCTION = "sha1_multi_block"
CAP_SYMBOL = "OPENSSL_ia32cap_P"
LANES = 8                   # the context's lanes; num covers 4 * num of them
NUMS = (1, 2)
WORDS = "ABCDE"
MAX_BLOCKS = 3              # blocks a lane, drawn from -1..MAX_BLOCKS (the driver takes up to 3)
GUARD = 8                   # words on either side of the context the function must leave alone
FLAG_DESCRIPTORS = 8        # lanes_run.c: a descriptor was written
FLAGS = {**{f: FLAG_TEXT[f] for f in (FLAG_CALLEE_SAVED, FLAG_DATA_WRITTEN)},
         FLAG_DESCRIPTORS: "a descriptor was written"}
RUN_SECONDS = 30.0          # a run takes milliseconds: past this the code does not end
ANSWER = 4 * (2 * GUARD + 40 + 1)       # bytes of one record's answer: the words, the flags


@dataclass(frozen=True)
class CapPath:
    """A dispatch path: its name, the first four ``OPENSSL_ia32cap_P`` words that take it, and the features its
    code needs (``x86.isa_set`` of the body's decoded instructions)."""

    name: str
    words: tuple[int, int, int, int]
    needs: frozenset[str]

    def cap(self) -> bytes:
        return struct.pack("<4I", *self.words)

    def label(self) -> str:
        return f"{self.name} ({CAP_SYMBOL} {' '.join(f'{w:#010x}' for w in self.words)})"


PATHS = (
    CapPath("SSSE3", (0, 0, 0, 0), frozenset({"ssse3"})),
    CapPath("AVX", (0, 1 << 28, 0, 0), frozenset({"avx"})),
    CapPath("AVX2", (0, 1 << 28, 1 << 5, 0), frozenset({"avx2"})),     # (num = 1: the AVX code)
    CapPath("SHA-NI", (0, 0, 1 << 29, 0), frozenset({"sha", "ssse3"})),
)


def paths_here() -> list[CapPath]:
    """The paths of ``PATHS`` this CPU runs (``host_cpu.lacking``, so ``SHA1OPT_CPU_LACKS`` removes some)."""
    return [p for p in PATHS if not lacking(p.needs)]


def within_contract(blocks: Sequence[int], num: int) -> bool:
    """Whether every path of OpenSSL's code hashes these counts as the contract says (module docstring): the
    lane pairs holding an active lane come first, and with num = 2 the first pair holds one.
    Example: (0, 0, 1, 1, ...) with num = 1 is not (the SHA-NI code stops at the first pair)."""
    active = [any(b > 0 for b in blocks[2 * p:2 * p + 2]) for p in range(2 * num)]
    return active == sorted(active, reverse=True) and (num == 1 or active[0])


@dataclass(frozen=True)
class Record:
    """One call: num, the context, the eight descriptors' counts and data, and the words around the context.
    ``encode(cap)`` is the driver's input with ``cap`` (16 bytes) for ``OPENSSL_ia32cap_P``."""

    num: int
    ctx: tuple[int, ...]        # the 40 context words: A[8], B[8], C[8], D[8], E[8]
    blocks: tuple[int, ...]     # the 8 descriptors' counts
    data: tuple[bytes, ...]     # each lane's MAX_BLOCKS blocks (only ``blocks`` of them hashed)
    guard: tuple[int, ...]      # GUARD words before the context, GUARD after

    def state(self, lane: int) -> tuple[int, ...]:
        return tuple(self.ctx[8 * w + lane] for w in range(5))

    def hashed(self, lane: int) -> int:
        """Blocks the contract hashes into ``lane`` (0: it is left alone)."""
        return max(self.blocks[lane], 0) if lane < 4 * self.num else 0

    def encode(self, cap: bytes) -> bytes:
        return (struct.pack(f"<5I{2 * GUARD + 40}I8i", self.num, *struct.unpack("<4I", cap), *self.guard[:GUARD],
                            *self.ctx, *self.guard[GUARD:], *self.blocks) + b"".join(self.data))


def draw(rng: random.Random) -> list[Record]:
    """Records within the contract for each num: every lane active; none active (num = 1: with num = 2 the AVX2
    code would not end); then mixed counts from -1..MAX_BLOCKS, lanes beyond 4 * num included."""
    out = []
    for num in NUMS:
        kinds = [range(1, MAX_BLOCKS + 1)] + ([range(-1, 1)] if num == 1 else []) + [range(-1, MAX_BLOCKS + 1)] * 5
        for counts in kinds:
            while True:
                blocks = tuple(rng.choice(counts) for _ in range(LANES))
                if within_contract(blocks, num):
                    break
            out.append(Record(num, tuple(rng.getrandbits(32) for _ in range(40)), blocks,
                              tuple(rng.randbytes(64 * MAX_BLOCKS) for _ in range(LANES)),
                              tuple(rng.getrandbits(32) for _ in range(2 * GUARD))))
    return out


def wants(records: Sequence[Record]) -> list[tuple[int, ...]]:
    """The 40 context words the contract leaves for each record (the hashed lanes by ``expected_many``)."""
    pairs = [(r.state(j), r.data[j][:64 * r.hashed(j)]) for r in records for j in range(LANES)]
    states = iter(expected_many(pairs))
    out = []
    for _ in records:
        lanes = [next(states) for _ in range(LANES)]
        out.append(tuple(lanes[j][w] for w in range(5) for j in range(LANES)))
    return out


def link(uo: UserObject, function: str, workdir: Path,
         symbols: Mapping[str, bytes] | None = None) -> Path | Unavailable:
    """The function, renamed ``sha1_block_data_order``, linked with the driver and the call checker (undefined
    data symbols zero or as ``symbols`` gives them)."""
    renamed = driver_input(uo, function, SYMBOL, workdir, "the lanes check")
    if isinstance(renamed, Unavailable):
        return renamed
    try:
        driver = compile_source(csrc("lanes_run.c"), uo.arch, workdir / "lanes_run.o", "compiling the lanes check",
                                ("-O2",))
        check = compile_source(csrc("callcheck_x86_64.S"), uo.arch, workdir / "callcheck_lanes.o",
                               "assembling the call checker", ("-DSHA1OPT_HOSTED",))
        return link_hosted([driver, check, renamed, *stubs(uo, workdir, symbols)], uo.arch, workdir / "lanes_run",
                           "linking the lanes check")
    except (ToolchainError, Sha1optError) as e:
        return Unavailable(f"cannot link the function into the lanes check: {e}")


def problem(rec: Record, want: tuple[int, ...], answer: bytes) -> tuple[int, str] | None:
    """(the lane it concerns, what is wrong) with one record's answer, or None when it is the contract's."""
    got = struct.unpack(f"<{2 * GUARD + 40}I", answer[:-4])
    ctx = got[GUARD:GUARD + 40]
    for j in range(LANES):
        for w in range(5):
            g, e = ctx[8 * w + j], want[8 * w + j]
            if g != e:
                why = f"SHA-1 gives {e:#010x}" if rec.hashed(j) else \
                    f"the lane is not hashed{' (beyond num)' if j >= 4 * rec.num else ''}: it was {e:#010x}"
                return j, f"lane {j} (blocks {rec.blocks[j]}): word {WORDS[w]}: the machine gives {g:#010x}, {why}"
    guards = got[:GUARD] + got[GUARD + 40:]
    for k, (g, e) in enumerate(zip(guards, rec.guard)):
        if g != e:
            side = f"word {GUARD - k} before" if k < GUARD else f"word {k - GUARD + 1} after"
            return 0, f"a write outside the context ({side} it: {e:#010x} became {g:#010x})"
    flags = struct.unpack("<I", answer[-4:])[0]
    said = [t for bit, t in FLAGS.items() if flags & bit]
    return (0, "; ".join(said)) if said else None


def _finding(rec: Record, lane: int, text: str) -> Finding:
    n = rec.hashed(lane)
    return Finding(rec.state(lane), rec.data[lane][:64 * n], n, None, (), text)


def lanes_finding(uo: UserObject, function: str, workdir: Path, seed: int = 12,
                  symbols: Mapping[str, bytes] | None = None) -> Finding | Unavailable | None:
    """The first record on which the function leaves a lane other than the contract says, under any path this
    CPU runs (or the capability word ``symbols`` pins), or None when every record agrees."""
    exe = link(uo, function, workdir, symbols)
    if isinstance(exe, Unavailable):
        return exe
    if symbols and CAP_SYMBOL in symbols:
        pinned = bytes(symbols[CAP_SYMBOL][:16]).ljust(16, b"\0")
        paths = [CapPath("the given capability words", struct.unpack("<4I", pinned), frozenset())]
    else:
        paths = paths_here()
        if not paths:
            return Unavailable(f"no path of {function} runs here: "
                               f"{lacks_text(lacking(set().union(*(p.needs for p in PATHS))))}")
    records = draw(random.Random(seed))
    want = wants(records)
    limits = NATIVE_LIMITS.with_seconds(RUN_SECONDS)
    for path in paths:
        payload = b"".join(r.encode(path.cap()) for r in records)
        start = time.monotonic()
        try:
            proc = run_child([str(exe)], "the lanes check", limits, input=payload)
        except ToolchainError as e:
            if time.monotonic() - start < RUN_SECONDS:
                return Unavailable(f"{path.label()}: the lanes check did not run: {e}")
            return Finding((), b"", -1, None, (), f"{path.label()}: the records of seed {seed} did not end within "
                                                  f"{RUN_SECONDS:g} s (the function does not return)")
        done = min(len(proc.stdout) // ANSWER, len(records))
        for k in range(done):
            found = problem(records[k], want[k], proc.stdout[ANSWER * k:ANSWER * (k + 1)])
            if found is not None:
                lane, text = found
                return _finding(records[k], lane, f"{path.label()}, num={records[k].num}, {text} "
                                                  f"(record {k} of seed {seed})")
        if proc.returncode == -signal.SIGILL:
            return Unavailable(f"{path.label()}: the function uses an instruction this host lacks (SIGILL)")
        if proc.returncode != 0 or done < len(records):
            k = min(done, len(records) - 1)
            why = f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else \
                f"exit status {proc.returncode}"
            return _finding(records[k], 0, f"{path.label()}, num={records[k].num}: the lanes check died at record "
                                           f"{k} of seed {seed} ({why})")
    return None
