"""The interface a function is proved under (``Contract``), and declared interfaces (``parse_interface``).

A ``Contract`` says which argument is the state, the data, the block count
or a scratch workspace, the ABI (SysV x86-64 or cdecl i386: where the
arguments are, which registers are callee-saved) and the least nblocks.

The whole-function proof needs to know what the caller passes. sha1opt's
own exports and OpenSSL's take ``f(uint32_t state[5], const void *data,
size_t nblocks)``; other code ships one-block interfaces, e.g. Linux's
``sha_transform(__u32 *digest, const char *data, __u32 *array)`` (one
block, ``array`` a scratch workspace of 80 -- later 16 -- words the
function may write) or ``SHA1Transform(uint32_t state[5], const unsigned
char buffer[64])``. The interface is declared, never guessed, in a small
grammar read by ``parse_interface`` (a hand-written scanner; nothing is
evaluated)::

    interface := "blocks" | "one-block" | [NAME] "(" role ("," role)* ")"
    role      := "state" ["[5]"] | "data" ["[64]"] | "nblocks" ["even"] | "workspace" "[" WORDS "]"

Roles are named by what the argument *is*, in argument order; ``state``
and ``data`` are required, each role at most once. With ``nblocks`` the
function hashes that many blocks (the loop proof); without it, exactly one
block (no block loop: nblocks is fixed at 1, any inner loop has a constant
trip count and is unrolled); ``nblocks even``: the caller passes only even
counts (libgcrypt's ``_gcry_sha1_transform_amd64_avx2_bmi2`` hashes pairs of
blocks; its C wrapper hashes an odd block first with the AVX code).
``workspace[N]`` is a caller-owned region of N
32-bit words (1..80), disjoint from the state, the data and the stack, that
the function may read back after writing and may leave changed.
``blocks`` is ``(state, data, nblocks)``; ``one-block`` is ``(state, data)``.
NAME, when given, is the function to prove.

Example: ``parse_interface("sha_transform(state, data, workspace[16])")``
is ``Interface(name="sha_transform", roles=("state", "data", "workspace"),
workspace_words=16)``; its ``contract("sysv")`` is a ``Contract`` with the
state in %rdi, the data in %rsi, the workspace pointer in %rdx, one block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.limits import clip
from sha1opt.semantics.x86 import R32_TO_R64, Arch

Abi = Literal["sysv", "cdecl"]

ABI_OF: dict[Arch, Abi] = {"x86_64": "sysv", "i386": "cdecl"}   # the arch's own calling convention

SAVED = {"sysv": ("ebx", "ebp", "r12d", "r13d", "r14d", "r15d"), "cdecl": ("ebx", "esi", "edi", "ebp")}

# The entry stack pointer's address modulo the ABI's stack alignment, (modulus, residue): SysV x86-64
# calls with %rsp a multiple of 16, so the callee sees %rsp + 8 = 0 mod 16 (psABI 3.2.2); the i386
# psABI (1.1, what gcc and clang compile Linux code against: -mincoming-stack-boundary=4) calls with
# %esp a multiple of 16 too, so the callee sees %esp + 4 = 0 mod 16. Code that realigns (OpenSSL,
# sha1opt's exports) needs neither; compiled C's aligned spills (gcc -m32 -march=core2) do.
ENTRY_ALIGNMENT: dict[str, tuple[int, int] | None] = {"sysv": (16, 8), "cdecl": (16, 12)}

ARG_REGS = {"sysv": ("edi", "esi", "edx", "ecx", "r8d", "r9d")}   # cdecl: the stack slots 4, 8, 12, ...
# A declared workspace is modelled as the caller's memory this far above the
# entry stack pointer: a separate object from the callee's frame, the return address and the arguments.
WORKSPACE_AT = 1 << 20


@dataclass(frozen=True)
class Contract:
    """The interface proved under: by default ``f(uint32_t state[5], const void *data, size_t nblocks)``.

    ``min_blocks`` is 0 for sha1opt's exports (nblocks = 0 is a no-op, proved)
    and 1 for OpenSSL's. Buffers are separate objects (state, data, stack do
    not alias) and ``64 * nblocks`` fits the address space; the entry stack
    pointer is aligned as the ABI says (``ENTRY_ALIGNMENT``). ``args`` are the
    arguments' roles in order (``parse_interface`` declares others): without
    ``"nblocks"`` the function hashes exactly one block (no block loop);
    ``"workspace"`` is a caller-owned scratch region of ``workspace_words``
    32-bit words the function may write (modelled at ``WORKSPACE_AT``).
    ``block_multiple`` (1 or 2): nblocks is a multiple of it (``nblocks even``).
    """

    abi: Abi
    min_blocks: int = 0
    args: tuple[str, ...] = ("state", "data", "nblocks")
    workspace_words: int = 0
    block_multiple: int = 1
    block_multiple: int = 1

    @property
    def one_block(self) -> bool:
        return "nblocks" not in self.args

    def arg_text(self) -> str:
        names = [f"workspace[{self.workspace_words}]" if a == "workspace" else a for a in self.args]
        if self.abi == "sysv":
            return ", ".join(f"%{R32_TO_R64[r]} {a}" for r, a in zip(ARG_REGS["sysv"], names))
        return ", ".join(names) + " on the stack"

    def describe(self) -> str:
        saved = ", ".join("%" + r for r in SAVED[self.abi])
        if self.one_block:
            count = "one block (no nblocks argument)"
        else:
            count = f"{self.counts()}, 64*nblocks < 2^{58 if self.abi == 'sysv' else 26}"
        disjoint = "state, data, workspace and stack" if self.workspace_words else "state, data and stack"
        align = ENTRY_ALIGNMENT[self.abi]
        sp = "%rsp" if self.abi == "sysv" else "%esp"
        entry = f"; entry {sp} = {align[1]} mod {align[0]}" if align else ""
        return (f"{'SysV x86-64' if self.abi == 'sysv' else 'cdecl i386'} ({self.arg_text()}); {count}; "
                f"{disjoint} disjoint{entry}; callee-saved {saved} and the stack pointer checked")

    def counts(self) -> str:
        """The block counts the contract covers: ``nblocks >= 1``, ``even nblocks >= 2``."""
        if self.block_multiple == 1:
            return f"nblocks >= {self.min_blocks}"
        least = -(-self.min_blocks // self.block_multiple) * self.block_multiple
        return f"even nblocks >= {least}"

    def named(self, reason: str) -> str:
        """A refusal with a write at or above ``WORKSPACE_AT`` said as what it is: past the declared workspace."""
        def name(m: re.Match) -> str:
            off = int(m.group(1)) - WORKSPACE_AT
            return f"past the declared workspace (byte {off} of workspace[{self.workspace_words}])" if off >= 0 \
                else m.group(0)
        return re.sub(r"the caller's stack frame \(entry stack pointer \+(\d+)\)", name, reason)


ROLES = ("state", "data", "nblocks", "workspace")
MAX_WORKSPACE_WORDS = 80
MAX_TEXT = 200
_FIXED_SIZE = {"state": 5, "data": 64}
_TOKEN = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>[0-9]+)|(?P<punct>[(),\[\]])")


@dataclass(frozen=True)
class Interface:
    """A declared interface: argument roles in order, the workspace size, the function name if given."""

    roles: tuple[str, ...]
    workspace_words: int = 0
    name: str | None = None
    block_multiple: int = 1          # 2: ``nblocks even``

    @property
    def one_block(self) -> bool:
        return "nblocks" not in self.roles

    def contract(self, abi: Abi, min_blocks: int = 0) -> Contract:
        """The ``Contract`` the proof runs under (one block: nblocks fixed at 1)."""
        return Contract(abi, 1 if self.one_block else min_blocks, self.roles, self.workspace_words,
                        self.block_multiple)

    def __str__(self) -> str:
        parts = [f"workspace[{self.workspace_words}]" if r == "workspace" else
                 "nblocks even" if r == "nblocks" and self.block_multiple == 2 else r for r in self.roles]
        return f"{self.name or ''}({', '.join(parts)})"


DEFAULT = Interface(("state", "data", "nblocks"))
KEYWORDS = {"blocks": DEFAULT, "one-block": Interface(("state", "data"))}


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, column) of each token; anything else is a ParseError naming the column."""
    out, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return out
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(clip(f"--interface: column {pos + 1}: unexpected character {text[pos]!r}"))
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()


def parse_interface(text: str) -> Interface:
    """Read a declared interface (see the module docstring); a ParseError is one line naming the problem."""
    if len(text) > MAX_TEXT:
        raise ParseError(f"--interface: longer than {MAX_TEXT} characters")
    keyword = KEYWORDS.get(text.strip())
    if keyword is not None:
        return keyword
    toks = _tokens(text)
    i = 0

    def peek() -> tuple[str, str, int]:
        return toks[i] if i < len(toks) else ("end", "end of text", len(text) + 1)

    def expect(kind: str, value: str | None = None) -> tuple[str, str, int]:
        nonlocal i
        t = peek()
        if t[0] != kind or (value is not None and t[1] != value):
            want = repr(value) if value is not None else {"name": "a role", "num": "a number"}[kind]
            raise ParseError(clip(f"--interface: column {t[2]}: expected {want}, found {t[1]!r}"))
        i += 1
        return t

    name = None
    if peek()[0] == "name":
        name = expect("name")[1]
    expect("punct", "(")
    roles: list[str] = []
    words = 0
    multiple = 1
    while True:
        kind, role, col = expect("name")
        if role not in ROLES:
            raise ParseError(clip(f"--interface: column {col}: unknown role {role!r} (roles: state, data, nblocks, "
                                  "workspace[N]; or the keywords blocks, one-block)"))
        if role in roles:
            raise ParseError(f"--interface: column {col}: {role} given twice")
        size = None
        if peek()[1] == "[":
            expect("punct", "[")
            _, num, ncol = expect("num")
            size = int(num, 10)
            expect("punct", "]")
            if role == "nblocks":
                raise ParseError(f"--interface: column {ncol}: nblocks is a count, not an array")
            if role in _FIXED_SIZE and size != _FIXED_SIZE[role]:
                unit = "words" if role == "state" else "bytes"
                raise ParseError(f"--interface: column {ncol}: {role} is {_FIXED_SIZE[role]} {unit}, not {size}")
            if role == "workspace" and not 1 <= size <= MAX_WORKSPACE_WORDS:
                raise ParseError(f"--interface: column {ncol}: workspace of {size} words is not within "
                                 f"1..{MAX_WORKSPACE_WORDS}")
        if role == "nblocks" and peek()[:2] == ("name", "even"):
            expect("name")
            multiple = 2
        if role == "workspace":
            if size is None:
                raise ParseError(f"--interface: column {col}: workspace needs its size in 32-bit words, "
                                 "e.g. workspace[16]")
            words = size
        roles.append(role)
        if peek()[1] == ",":
            expect("punct", ",")
            continue
        expect("punct", ")")
        break
    if i != len(toks):
        t = peek()
        raise ParseError(clip(f"--interface: column {t[2]}: unexpected {t[1]!r} after the closing parenthesis"))
    for need in ("state", "data"):
        if need not in roles:
            raise ParseError(f"--interface: no {need} argument (state and data are required)")
    return Interface(tuple(roles), words, name, multiple)
