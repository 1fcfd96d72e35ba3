"""Native confirmation of a stitched AES-CBC + SHA-1 function's ciphertext (``cbc``'s contract), beside the hash.

``confirm.confirm`` checks the hash through the interface adapter; the
ciphertext and the iv the function leaves are what ``cbc_finding`` checks:
the function, renamed ``sha1opt_cbc``, is linked with ``csrc/cbc_run.c`` (a
libc program reading records on stdin) and run on records of 1..3 blocks for
each round count of the contract (9, 11, 13 aesenc rounds): random round keys
(AES-NI takes any 128-bit round keys, so the contract's key is any schedule,
not only an expanded key), iv, state, plaintext and data. Each record's
ciphertext, iv and state are compared with AES-CBC computed by the numpy
domain (``cbc.expected``: the same rounds the semantics table gives
``aesenc``/``aesenclast``, checked against the CPU and FIPS-197 by its tests)
and SHA-1 (``confirm.expected``). The first disagreement is a ``Finding``
naming the word; a host without AES-NI, or a run that dies on an instruction
the host lacks, is ``Unavailable``.

Example: OpenSSL's ``aesni_cbc_sha1_enc_ssse3`` with ``aesenclast`` changed to
``aesenc`` gives "ciphertext block 0 word 0: the machine gives 0x..., AES-CBC
(9 aesenc rounds) gives 0x..." on the first record.
"""

from __future__ import annotations

import random
import signal
import struct
from pathlib import Path
from typing import Mapping

import numpy as np

from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift import cbc
from sha1opt.emit.confirm import Finding, Unavailable, driver_input, expected, stubs
from sha1opt.emit.objfile import UserObject
from sha1opt.emit.toolchain import (NATIVE_LIMITS, ToolchainError, compile_source, cpu_flags, csrc, host_is_x86_64,
                                    link_hosted, run_child)

ENTRY = "sha1opt_cbc"
MAX_BLOCKS = 3          # blocks a record, 1..MAX_BLOCKS (the driver takes up to 64)
KEY_WORDS = 60          # an AES_KEY's round-key words; its round count follows


def reference(key: list[int], rounds: int, iv: tuple[int, ...], plain: bytes) -> tuple[list[int], tuple[int, ...]]:
    """AES-CBC of ``plain`` under the round keys ``key`` (words) and ``iv`` (4 words): (ciphertext words, last
    ciphertext block), by the numpy domain's AES rounds."""
    dom = NumpyDomain(1)
    words = struct.unpack(f"<{len(plain) // 4}I", plain)
    chain = tuple(dom.const(w) for w in iv)
    out: list[int] = []
    for blk in range(len(plain) // 64):
        def lookup(region: str, off: int, blk=blk):
            return dom.const(key[off // 4] if region == "key" else words[16 * blk + off // 4])
        for block in cbc.expected(dom, chain, lookup, rounds):
            out += [int(w[0]) for w in block]
            chain = block
    return out, tuple(int(w[0]) for w in chain)


def cbc_finding(uo: UserObject, function: str, workdir: Path, seed: int = 12,
                symbols: Mapping[str, bytes] | None = None) -> Finding | Unavailable | None:
    """The first record on which the function's ciphertext, iv or hash differs from AES-CBC and SHA-1, or None."""
    if host_is_x86_64() and "aes" not in cpu_flags():
        return Unavailable("this host has no AES-NI: the ciphertext is not run natively")
    renamed = driver_input(uo, function, ENTRY, workdir, "the ciphertext check")
    if isinstance(renamed, Unavailable):
        return renamed
    try:
        driver = compile_source(csrc("cbc_run.c"), uo.arch, workdir / "cbc_run.o", "compiling the ciphertext check",
                                ("-O2",))
        exe = link_hosted([driver, renamed, *stubs(uo, workdir, symbols)], uo.arch, workdir / "cbc_run",
                          "linking the ciphertext check")
    except (ToolchainError, Sha1optError) as e:
        return Unavailable(f"cannot link the function into the ciphertext check: {e}")
    rng = random.Random(seed)
    records, wants = [], []
    for rounds in cbc.AES_ROUNDS:
        for nb in range(1, MAX_BLOCKS + 1):
            key = [rng.getrandbits(32) for _ in range(KEY_WORDS)]
            iv = tuple(rng.getrandbits(32) for _ in range(4))
            st = tuple(rng.getrandbits(32) for _ in range(5))
            plain, data = rng.randbytes(64 * nb), rng.randbytes(64 * nb)
            records.append((nb, key, rounds, iv, st, plain, data))
            words, last = reference(key, rounds, iv, plain)
            wants.append((words, last, expected(st, data)))
    payload = b"".join(struct.pack(f"<{1 + KEY_WORDS + 1 + 4 + 5}I", nb, *key, rounds, *iv, *st) + plain + data
                       for nb, key, rounds, iv, st, plain, data in records)
    proc = run_child([str(exe)], "the ciphertext check", NATIVE_LIMITS, input=payload)
    if proc.returncode != 0:
        if proc.returncode == -signal.SIGILL:
            return Unavailable("the function uses an instruction this host lacks (SIGILL)")
        why = f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else \
            f"exit status {proc.returncode}"
        nb, key, rounds, iv, st, plain, data = records[0]
        return Finding(st, data, nb, None, (), f"the ciphertext check died ({why})")
    out = memoryview(proc.stdout)
    if len(out) != sum(4 * (16 * r[0] + 9) for r in records):
        return Unavailable(f"the ciphertext check wrote {len(out)} bytes, not one answer a record")
    pos = 0
    for k, ((nb, key, rounds, iv, st, plain, data), (words, last, hashed)) in enumerate(zip(records, wants)):
        where = f"record {k} of seed {seed}"          # (the records are a function of the seed: replayable)
        size = 4 * (16 * nb + 4 + 5)
        got = struct.unpack(f"<{16 * nb + 9}I", out[pos:pos + size])
        pos += size
        what = [f"ciphertext block {i // 4} word {i % 4}" for i in range(16 * nb)] + \
            [f"iv word {j}" for j in range(4)]
        for w, (g, e) in enumerate(zip(got[:16 * nb + 4], list(words) + list(last))):
            if g != e:
                return Finding(st, data, nb, None, (), f"{what[w]}: the machine gives {g:#010x}, AES-CBC "
                                                       f"({rounds} aesenc rounds) gives {e:#010x} ({where})")
        if tuple(got[16 * nb + 4:]) != hashed:
            return Finding(st, data, nb, tuple(got[16 * nb + 4:]), hashed, where)
    return None
