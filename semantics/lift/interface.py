"""The interface a function is proved under (``Contract``), and declared interfaces (``parse_interface``).

A ``Contract`` says which argument is the state, the data, the block count
(or byte length), a scratch workspace or a fixed constant, the ABI (SysV
x86-64 or cdecl i386: where the arguments are, which registers are
callee-saved) and the least nblocks.

The whole-function proof needs to know what the caller passes. sha1opt's
own exports and OpenSSL's take ``f(uint32_t state[5], const void *data,
size_t nblocks)``; other code ships other interfaces, e.g. Linux's
``sha_transform(__u32 *digest, const char *data, __u32 *array)`` (one
block, ``array`` a scratch workspace of 80 -- later 16 -- words the
function may write), ``SHA1Transform(uint32_t state[5], const unsigned
char buffer[64])``, mbedTLS's ``mbedtls_internal_sha1_process(ctx, data)``
(the state inside a context struct), Crypto++'s
``SHA1_HashMultipleBlocks_SHANI(state, data, length, order)`` (a byte
length, a byte-order constant) and ``SHA1_HashBlock_CXX(state, data)``
(the block as host-order words). The interface is declared, never guessed,
in a small grammar read by ``parse_interface`` (a hand-written scanner;
nothing is evaluated)::

    interface := "blocks" | "one-block" | [NAME] "(" arg ("," arg)* ")"
    arg       := role | state "+" block "@" OFFSET ["clobbered"] | block "@" OFFSET ["clobbered"] "+" state
               | state "+" scratch | scratch "+" state
    role      := state ["counter" "@" OFFSET] | block ["clobbered"]
               | "nblocks" ["even"] | "bytes" ["whole"] | "workspace" "[" WORDS "]" | NUMBER
               | "plain" | "cipher" | "key" | "iv"
    state     := "state" ["[5]"] ["@" OFFSET] ["wide"]
    block     := "data" ["[64]"] | "words" ["[16]"]
    scratch   := "workspace" "@" OFFSET "[" WORDS "]"

Roles are named by what the argument *is*, in argument order; a state and
one data role (``data`` or ``words``) are required, each named role at most
once, at most one count (``nblocks`` or ``bytes``). Numbers are decimal or
``0x`` hex; an OFFSET may be negative (``-0x58``): bytes before the address
the argument holds.

* ``state@OFFSET`` -- the argument points into a context whose 5 state words
  start at byte OFFSET of it (a multiple of 4 within +-``MAX_STATE_OFFSET``,
  relative to the argument: NSS's ``shaCompress(&ctx->H[11], data)`` has
  them 0x58 bytes before it); the function may read the context's other
  bytes (values the proof does not know) but never write them: only the 5
  state words are written.
* ``state@OFFSET wide`` (one block only) -- the 5 state words are the LOW
  halves of five 64-bit slots, 8 bytes apart (NSS's ``SHA_HW_t H[]`` on
  x86-64, loaded and added whole with 64-bit moves): slot i's low half is
  h_i; its upper half is an unknown of its own on entry (a 32-bit read of it
  is a free value, so code whose result depends on it is refuted) and is not
  checked on exit (any write to it is allowed). Invariant: a 64-bit value
  in a register is tracked in its low 32 bits only -- every operation
  modelled on it (mov, add, sub, and, or, xor, lea) has a low half that
  depends on the operands' low halves alone -- and its upper half is never
  read as the state (a shift or rotate of the whole 64 bits is refused).
* ``state@S + workspace@W[N]`` (either order) -- a scratch region of N 32-bit
  words (1..``MAX_CONTEXT_WORKSPACE_WORDS``) at byte W of the state's own context, disjoint from the state
  words: the function may write it (any width, at constant offsets) and
  read back what it wrote, and may leave it changed; a byte of it not yet
  written reads as the caller's (unknown). Every other byte of the context
  is still read-only. NSS keeps its message schedule in the context:
  ``(state@-0x58 wide + workspace@-0x30[32], data)`` -- five 64-bit slots at
  X-0x58..X-0x38, sixteen 64-bit W slots at X-0x30..X+0x48.
* ``data`` -- the block as 64 bytes, W[i] the big-endian word i (FIPS 180-4);
  ``words`` -- the block as 16 host-order (little-endian) 32-bit words the
  caller has already byte-swapped: W[i] is host word i.
  ``clobbered`` after either (one block only) -- the function may overwrite
  the buffer (glib's ``sha1_transform`` computes W in place, pam_timestamp
  wipes the block after use); a read after a write gives what was written.
* ``nblocks`` -- the function hashes that many blocks (the loop proof);
  ``bytes`` -- a byte length: the function hashes its floor(length/64)
  whole blocks; the contract allows any length = 64*nblocks + r with
  0 <= r < 64, and the r trailing bytes are neither read nor hashed.
  Without either, exactly one block (no block loop: nblocks is fixed at 1,
  any inner loop has a constant trip count and is unrolled).
  ``bytes whole`` -- a byte length that is always a multiple of 64 (length =
  64*nblocks, no trailing bytes): code that loops ``while (p < data + len)``
  (libiberty's ``sha1_process_block``) would hash a partial trailing block
  as a whole one, so its contract excludes them.
  ``nblocks even`` -- the caller passes only even counts, never 0 (libgcrypt's
  ``_gcry_sha1_transform_amd64_avx2_bmi2`` hashes pairs of blocks; its C
  wrapper hashes an odd block first with the AVX code).
* ``state counter@OFFSET`` (with ``bytes whole`` only) -- the context also
  holds a 64-bit byte counter, two 32-bit words (low word first) at byte
  OFFSET of it, outside the state words, that the function must increase by
  the byte length modulo 2^64 (libiberty's ``total[0]``/``total[1]``: its
  ``if (total[0] < len) ++total[1]`` compares the 32-bit sum with the size_t
  length, a carry only for lengths below 2^32, so the contract restricts the
  length to below 2^32: at 2^32 and above it adds one too many). Every exit's
  proof proves the counter's final value (``counter.counted``); nothing
  else of the context is written.
* ``workspace[N]`` -- a caller-owned region of N 32-bit words (1..80),
  disjoint from the state, the data and the stack, that the function may
  read back after writing and may leave changed.
* NUMBER -- the caller always passes this constant (0 .. 2^32-1), e.g.
  Crypto++'s byte order argument.
* ``state@S + words@D`` (or ``data@D``; either order) -- one argument points
  to a context holding both the 5 state words at byte S and the one block
  at byte D, two disjoint regions (LLVM's ``SHA1::hashBlock()``: ``this``
  with the block words at +0 and the state at +0x40, declared
  ``(state@0x40 + words@0 clobbered)``). One block only (no count); the
  context's other bytes may be read, never written, as for ``state@S``.

* ``plain``, ``cipher``, ``key``, ``iv`` (all four, with ``nblocks``) -- an AES-CBC stream encrypted beside
  the hash, 64 bytes a block (OpenSSL's ``aesni_cbc_sha1_enc(inp, out, blocks, key, iv, ctx, in0)`` is
  ``(plain, cipher, nblocks, key, iv, state, data)``): ``cbc`` says what each is and what is proved of it.
  SysV passes a seventh argument on the stack, at entry + 8.

The state, data and workspace arguments point to objects: they are never
null, so a ``test %rdi,%rdi; je`` to an error return is a path no caller
under the contract takes (``control``'s non-null fact), not a refusal.
``blocks`` is ``(state, data, nblocks)``; ``one-block`` is ``(state, data)``.
NAME, when given, is the function to prove.

Example: ``parse_interface("sha_transform(state, data, workspace[16])")``
is ``Interface(name="sha_transform", roles=("state", "data", "workspace"),
workspace_words=16)``; its ``contract("sysv")`` is a ``Contract`` with the
state in %rdi, the data in %rsi, the workspace pointer in %rdx, one block.
``parse_interface("f(state, words, bytes, 1)")`` has ``roles == ("state",
"words", "bytes", "const")`` and ``constants == ((3, 1),)``;
``parse_interface("sha1_process_block(data, bytes whole, state counter@20)")``
has ``roles == ("data", "bytes", "state")``, ``whole_bytes`` and
``counter_offset == 20``; ``parse_interface("(state@0x40 + words@0 clobbered)")``
has ``roles == ("state",)``, ``shared_data == "words"``, ``data_offset == 0``,
``state_offset == 0x40`` and ``data_clobbered``;
``parse_interface("(state@-0x58 wide + workspace@-0x30[32], data)")`` has
``roles == ("state", "data")``, ``state_offset == -0x58``, ``state_wide`` and
``context_workspace == (-0x30, 32)``: its contract reads h_i from the low
half of the 8 bytes at X-0x58+8i (X the first argument), allows writes to
those 40 bytes and to X-0x30..X+0x4f, and refuses a write to X-0x60 as a
violation "(byte -0x60 of the context)".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.lift import cbc, lanes
from sha1opt.semantics.lift.arguments import (CONST, CONTEXT_BLOCK, COUNT_ROLES, DATA_ROLES, MAX_CONSTANT,  # noqa: F401
                                            MAX_STATE_OFFSET, MAX_TEXT, MAX_WORKSPACE_WORDS, ROLES, joined_workspace,
                                            number, read_counter, read_role, tokens)
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
    not alias, none is null) and ``64 * nblocks`` fits the address space; the
    entry stack pointer is aligned as the ABI says (``ENTRY_ALIGNMENT``).
    ``args`` are the arguments' roles in order (``parse_interface`` declares
    others, the module docstring says what each means): without a count
    (``"nblocks"`` or ``"bytes"``) the function hashes exactly one block (no
    block loop); ``"workspace"`` is a caller-owned scratch region of
    ``workspace_words`` 32-bit words the function may write (modelled at
    ``WORKSPACE_AT``); ``state_offset`` where the state words start in the
    context the state argument points to; ``constants`` the fixed arguments
    as (argument index, value); ``block_multiple`` (1 or 2): nblocks is a
    multiple of it (``nblocks even``); ``state_wide`` the state words are the low halves of five 64-bit slots
    (``state_stride`` 8), ``context_workspace`` a scratch region (byte, words) in the state's context
    (``scratch_in_context``: its bytes relative to the state words).
    """

    abi: Abi
    min_blocks: int = 0
    args: tuple[str, ...] = ("state", "data", "nblocks")
    workspace_words: int = 0
    state_offset: int = 0
    constants: tuple[tuple[int, int], ...] = ()
    block_multiple: int = 1
    data_clobbered: bool = False     # ``data clobbered``: the one block's buffer may be overwritten
    shared_data: str = ""            # ``state@S + words@D``: the data role inside the state's context ("" if none)
    data_offset: int = 0             # ... and the block's byte in that context
    whole_bytes: bool = False        # ``bytes whole``: the byte length is 64*nblocks, no trailing bytes
    counter_offset: int | None = None    # ``state counter@OFFSET``: the 64-bit byte counter's byte in the context
    state_wide: bool = False         # ``state@S wide``: the state words are the low halves of 64-bit slots
    context_workspace: tuple[int, int] | None = None    # ``state@S + workspace@W[N]``: (W, N) in the context

    @property
    def one_block(self) -> bool:
        return not any(a in COUNT_ROLES for a in self.args)

    @property
    def cbc(self) -> bool:
        """An AES-CBC stream is encrypted beside the hash (``cbc``)."""
        return "cipher" in self.args

    @property
    def multi_buffer(self) -> bool:
        """Independent messages hashed in vector lanes, each with its own count (``lanes``, ``streams``)."""
        return "lanes" in self.args

    @property
    def claim(self) -> str:
        """What a proof under this contract proves the function computes: ``SHA-1``, or ``SHA-1 and AES-CBC``."""
        return "SHA-1 and AES-CBC" if self.cbc else "SHA-1"

    @property
    def state_stride(self) -> int:
        """Bytes from one state word to the next: 8 for ``wide`` slots, else 4."""
        return 8 if self.state_wide else 4

    @property
    def scratch_in_context(self) -> tuple[int, int] | None:
        """The context's workspace as bytes [lo, hi) relative to the state words (``+ workspace@-0x30[32]``
        after ``state@-0x58``: (0x28, 0xa8)), else None."""
        if self.context_workspace is None:
            return None
        lo = self.context_workspace[0] - self.state_offset
        return lo, lo + 4 * self.context_workspace[1]

    @property
    def host_words(self) -> bool:
        """The data is 16 host-order words a block (role ``words``), not 64 big-endian bytes."""
        return "words" in self.args or self.shared_data == "words"

    @property
    def block_in_context(self) -> int | None:
        """Where the block starts relative to the state words when both are in one context (``state@0x40 +
        words@0``: -0x40), else None."""
        return self.data_offset - self.state_offset if self.shared_data else None

    def covers(self) -> str:
        """The inputs a proof under this contract covers, in words: ``one block``, ``every nblocks >= 0``."""
        if self.multi_buffer:
            return "1 and 2 groups, every block count"
        if self.one_block:
            return "one block"
        if "bytes" in self.args and self.whole_bytes:
            return f"every byte length 64*nblocks with nblocks >= {self.min_blocks}" + (
                " and length < 2^32" if self.counter_offset is not None else "")
        if "bytes" in self.args:
            return f"every byte length with floor(length/64) >= {self.min_blocks}"
        return f"every {self.counts()}"

    def counts(self) -> str:
        """The block counts the contract covers: ``nblocks >= 1``, ``even nblocks >= 2``."""
        if self.block_multiple == 1:
            return f"nblocks >= {self.min_blocks}"
        least = max(-(-self.min_blocks // self.block_multiple) * self.block_multiple, self.block_multiple)
        return f"even nblocks >= {least}"

    def arg_names(self) -> list[str]:
        """Each argument as the grammar writes it (``state@0x4c``, ``workspace[16]``, ``1``)."""
        consts = dict(self.constants)
        if self.state_wide or self.context_workspace is not None:
            state = f"state@{_hex(self.state_offset)}" + (" wide" if self.state_wide else "")
            if self.context_workspace is not None:
                off, words = self.context_workspace
                state += f" + workspace@{_hex(off)}[{words}]"
            return [state if a == "state" else str(consts[i]) if a == CONST else a for i, a in enumerate(self.args)]
        if self.shared_data:
            block = f"{self.shared_data}@{_hex(self.data_offset)}" + (" clobbered" if self.data_clobbered else "")
            return [f"state@{_hex(self.state_offset)} + {block}" if a == "state" else
                    str(consts[i]) if a == CONST else a for i, a in enumerate(self.args)]
        counter = f" counter@{self.counter_offset:#x}" if self.counter_offset is not None else ""
        return [f"workspace[{self.workspace_words}]" if a == "workspace" else
                f"state@{self.state_offset:#x}{counter}" if a == "state" and self.state_offset else
                f"state{counter}" if a == "state" else
                "bytes whole" if a == "bytes" and self.whole_bytes else
                "nblocks even" if a == "nblocks" and self.block_multiple == 2 else
                f"{a} clobbered" if a in DATA_ROLES and self.data_clobbered else
                str(consts[i]) if a == CONST else a for i, a in enumerate(self.args)]

    def arg_text(self) -> str:
        names = self.arg_names()
        if self.abi == "sysv":
            regs = [f"%{R32_TO_R64[r]}" for r in ARG_REGS["sysv"]]
            regs += [f"{8 * i}(%rsp)" for i in range(1, len(names) - len(regs) + 1)]
            return ", ".join(f"{r} {a}" for r, a in zip(regs, names))
        return ", ".join(names) + " on the stack"

    def describe(self) -> str:
        saved = ", ".join("%" + r for r in SAVED[self.abi])
        if self.multi_buffer:
            return (f"SysV x86-64 ({self.arg_text()}); lanes: {lanes.LANES} transposed states (word i of lane j at "
                    "byte 32*i + 4*j); messages: 4*groups descriptors (a pointer, a signed 32-bit block count: 0 or "
                    "less hashes nothing); groups 1 or 2, each proved; the messages with blocks come first by pairs "
                    "(and, with 2 groups, message 0 or 1 has blocks); lanes, messages, each message and stack "
                    "disjoint, none null; lane j := the chained compression of message j's blocks, the other lanes "
                    f"unchanged; callee-saved {saved} and the stack pointer checked")
        if self.one_block:
            count = "one block (no nblocks argument)"
        elif "bytes" in self.args and self.whole_bytes:
            count = (f"bytes = 64*nblocks (a multiple of 64); nblocks >= {self.min_blocks}, "
                     f"64*nblocks < 2^{32 if self.counter_offset is not None else 58 if self.abi == 'sysv' else 26}")
        elif "bytes" in self.args:
            count = (f"bytes = 64*nblocks + r, any 0 <= r < 64: floor(bytes/64) blocks hashed, the r trailing bytes "
                     f"neither read nor hashed; nblocks >= {self.min_blocks}, "
                     f"64*nblocks < 2^{58 if self.abi == 'sysv' else 26}")
        else:
            count = f"{self.counts()}, 64*nblocks < 2^{58 if self.abi == 'sysv' else 26}"
        disjoint = ("state, data, " + ("workspace, " if self.workspace_words else "") +
                    ("plain, cipher, key, iv, " if self.cbc else "")).rstrip(", ") + " and stack"
        align = ENTRY_ALIGNMENT[self.abi]
        sp = "%rsp" if self.abi == "sysv" else "%esp"
        entry = f"; entry {sp} = {align[1]} mod {align[0]}" if align else ""
        more = ""
        if self.state_offset and not self.state_wide:
            more += (f"; the state is the 5 words at byte {self.state_offset:#x} of the context the state argument "
                     "points to: its other bytes may be read, never written")
        if self.state_wide:
            more += (f"; each state word is the low 32 bits of a 64-bit slot (slots {self.state_offset:#x}, "
                     f"{self.state_offset + 8:#x}, ... {self.state_offset + 32:#x} from the state argument): the "
                     "slots' upper halves are unknown on entry and not checked on exit")
        if self.context_workspace is not None:
            off, words = self.context_workspace
            more += (f"; the {4 * words} bytes at {off:#x} of the same context are a workspace the function may "
                     "write and leave changed; its other bytes may be read, never written")
        if self.counter_offset is not None:
            more += (f"; the 64-bit byte counter at byte {self.counter_offset:#x} of the context (low word first) "
                     "ends increased by bytes mod 2^64")
        if self.shared_data:
            more += (f"; the block is the 64 bytes at byte {self.data_offset:#x} of the same context, disjoint from "
                     "the state words")
        if self.host_words:
            more += "; data: 16 host-order (little-endian) words a block, already byte-swapped (W[i] = word i)"
        if self.data_clobbered:
            more += "; the data buffer may be overwritten (its 64 bytes after the call are not specified)"
        if self.cbc:
            more += ("; plain and cipher: 64*nblocks bytes each, cipher := AES-CBC encryption of plain under key and "
                     "iv, iv := the last ciphertext block; key: an AES-NI key schedule (round keys at 16*r, the "
                     f"aesenc round count at {cbc.ROUNDS_AT}: {', '.join(map(str, cbc.AES_ROUNDS))}); not covered: "
                     "an in-place call (cipher == plain)")
        return (f"{'SysV x86-64' if self.abi == 'sysv' else 'cdecl i386'} ({self.arg_text()}); {count}; "
                f"{disjoint} disjoint, none null{entry}{more}; callee-saved {saved} and the stack pointer checked")

    def named(self, reason: str) -> str:
        """A refusal said as what it is: a write at or above ``WORKSPACE_AT`` past the declared workspace, a
        write into the state's context outside the state words by its byte in the context."""
        def name(m: re.Match) -> str:
            off = int(m.group(1)) - WORKSPACE_AT
            return f"past the declared workspace (byte {off} of workspace[{self.workspace_words}])" if off >= 0 \
                else m.group(0)

        def context(m: re.Match) -> str:
            return f"(byte {int(m.group(1)) + self.state_offset:#x} of the context)"
        reason = re.sub(r"the caller's stack frame \(entry stack pointer \+(\d+)\)", name, reason)
        if self.state_offset or self.shared_data or self.state_wide or self.context_workspace is not None:
            reason = re.sub(r"\(state([+-]\d+)\)", context, reason)
        return reason


def _hex(v: int) -> str:
    return f"{v:#x}" if v else "0"


@dataclass(frozen=True)
class Interface:
    """A declared interface: argument roles in order (``CONST`` for a literal), the workspace size, the state's
    offset in its context, the fixed arguments as (index, value), the function name if given."""

    roles: tuple[str, ...]
    workspace_words: int = 0
    name: str | None = None
    state_offset: int = 0
    constants: tuple[tuple[int, int], ...] = ()
    block_multiple: int = 1          # 2: ``nblocks even``
    data_clobbered: bool = False     # ``data clobbered`` / ``words clobbered`` (one block only)
    shared_data: str = ""            # ``state@S + words@D``: the data role inside the state's context
    data_offset: int = 0             # ... at this byte of it
    whole_bytes: bool = False        # ``bytes whole``
    counter_offset: int | None = None    # ``state counter@OFFSET``
    state_wide: bool = False         # ``state@S wide``
    context_workspace: tuple[int, int] | None = None    # ``state@S + workspace@W[N]``: (W, N)

    @property
    def one_block(self) -> bool:
        return not any(r in COUNT_ROLES for r in self.roles)

    def contract(self, abi: Abi, min_blocks: int = 0) -> Contract:
        """The ``Contract`` the proof runs under (one block: nblocks fixed at 1)."""
        least = 1 if self.one_block else max(min_blocks, 1 if self.block_multiple > 1 else 0)
        return Contract(abi, least, self.roles, self.workspace_words, self.state_offset, self.constants,
                        self.block_multiple, self.data_clobbered, self.shared_data, self.data_offset,
                        self.whole_bytes, self.counter_offset, self.state_wide, self.context_workspace)

    def __str__(self) -> str:
        return f"{self.name or ''}({', '.join(self.contract('sysv').arg_names())})"


DEFAULT = Interface(("state", "data", "nblocks"))
KEYWORDS = {"blocks": DEFAULT, "one-block": Interface(("state", "data"))}


def parse_interface(text: str) -> Interface:
    """Read a declared interface (see the module docstring); a ParseError is one line naming the problem."""
    if len(text) > MAX_TEXT:
        raise ParseError(f"--interface: longer than {MAX_TEXT} characters")
    keyword = KEYWORDS.get(text.strip())
    if keyword is not None:
        return keyword
    toks = tokens(text)
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

    def role_of() -> tuple[str, int, int | None]:
        """One role, its number and the column of its ``@`` (None: no offset); ``clobbered`` after a block,
        ``wide`` after the state."""
        nonlocal clobbered, wide_col
        role, num, at = read_role(expect("name"), expect, peek, roles + [r for r in (shared, pending) if r] +
                              (["workspace"] if scratch is not None else []))
        if role in DATA_ROLES and peek()[:2] == ("name", "clobbered"):
            expect("name")
            clobbered = True
        if role == "state" and peek()[:2] == ("name", "wide"):
            wide_col = expect("name")[2]
        return role, num, at

    name = None
    if peek()[0] == "name":
        name = expect("name")[1]
    expect("punct", "(")
    roles: list[str] = []
    constants: list[tuple[int, int]] = []
    words = offset = data_offset = 0
    multiple = 1
    clobbered = whole = False
    wide_col = scratch_col = 0                  # the columns of ``wide`` and of the '+' joining a workspace
    counter = None
    scratch: tuple[int, int] | None = None      # ``state@S + workspace@W[N]``: (W, N)
    shared = ""
    pending = ""                        # the first role of a joined pair, while its second is read
    while True:
        if peek()[0] == "num":
            _, num, col = expect("num")
            value = number(num)
            if not 0 <= value <= MAX_CONSTANT:
                raise ParseError(f"--interface: column {col}: constant {num} is not within 0..{MAX_CONSTANT:#x}")
            constants.append((len(roles), value))
            roles.append(CONST)
        else:
            role, num, at = role_of()
            if peek()[1] == "+":
                # one argument, two regions: the state words and the block of one context
                _, _, pcol = expect("punct", "+")
                pending = role
                other, other_num, other_at = role_of()
                pending = ""
                pair = {role: (num, at), other: (other_num, other_at)}
                block = next((r for r in pair if r in DATA_ROLES), "")
                if "state" in pair and "workspace" in pair:
                    # the state's context holds a scratch region too (NSS's message schedule)
                    offset = pair["state"][0]
                    scratch = joined_workspace(pair["workspace"], pcol, offset, 8 if wide_col else 4)
                    scratch_col = pcol
                    roles.append("state")
                elif "state" not in pair or not block:
                    raise ParseError(f"--interface: column {pcol}: '+' joins the state and the block of one "
                                     "context (state@S + words@D, or data@D), or a workspace in it "
                                     "(state@S + workspace@W[N])")
                elif pair[block][1] is None:
                    raise ParseError(f"--interface: column {pcol}: the block joined to the state needs its byte "
                                     f"in the context ({block}@OFFSET)")
                else:
                    offset, data_offset, shared = pair["state"][0], pair[block][0], block
                    if data_offset < offset + 20 and offset < data_offset + CONTEXT_BLOCK:
                        raise ParseError(f"--interface: column {pcol}: the block (bytes {data_offset:#x}.."
                                         f"{data_offset + CONTEXT_BLOCK - 1:#x}) overlaps the state words (bytes "
                                         f"{offset:#x}..{offset + 19:#x})")
                    roles.append("state")       # (the block is no argument of its own)
            else:
                if role in DATA_ROLES and at is not None:
                    raise ParseError(f"--interface: column {at}: only the state has an offset (state@OFFSET), "
                                     "or a block joined to it (state@S + words@D)")
                if role == "workspace" and at is not None:
                    raise ParseError(f"--interface: column {at}: a workspace at an offset is in the state's "
                                     "context: join it to the state (state@S + workspace@W[N])")
                if role == "workspace":
                    words = num
                elif role == "state":
                    offset = num
                    if peek()[:2] == ("name", "counter"):
                        counter = read_counter(expect, offset)
                elif role == "bytes" and peek()[:2] == ("name", "whole"):
                    expect("name")
                    whole = True
                elif role == "nblocks" and peek()[:2] == ("name", "even"):
                    expect("name")
                    multiple = 2
                roles.append(role)
        if peek()[1] == ",":
            expect("punct", ",")
            continue
        expect("punct", ")")
        break
    if i != len(toks):
        t = peek()
        raise ParseError(clip(f"--interface: column {t[2]}: unexpected {t[1]!r} after the closing parenthesis"))
    if lanes.check_roles(roles):
        return Interface(tuple(roles), 0, name, 0, tuple(constants))
    if "state" not in roles:
        raise ParseError("--interface: no state argument (state and data are required)")
    cbc.check_roles(roles)
    if not shared and not any(r in DATA_ROLES for r in roles):
        raise ParseError("--interface: no data argument (state and data are required; words: host-order data)")
    if clobbered and any(r in COUNT_ROLES for r in roles):
        raise ParseError("--interface: a clobbered data buffer is modelled for one block only (no nblocks or "
                         "bytes argument)")
    if shared and any(r in COUNT_ROLES for r in roles):
        raise ParseError("--interface: a block inside the state's context is one block (no nblocks or bytes "
                         "argument)")
    if counter is not None and not whole:
        raise ParseError("--interface: a byte counter (state counter@OFFSET) is increased by a byte length: it needs "
                         "a 'bytes whole' argument")
    for what, col in (("a wide state (state@S wide)", wide_col), ("a workspace in the state's context",
                                                                  scratch_col)):
        if col and any(r in COUNT_ROLES for r in roles):
            raise ParseError(f"--interface: column {col}: {what} is modelled for one block only (no nblocks or bytes "
                             "argument)")
    if wide_col and shared:
        raise ParseError(f"--interface: column {wide_col}: a wide state beside a block in its context (state@S wide "
                         "+ words@D) is not modelled")
    return Interface(tuple(roles), words, name, offset, tuple(constants), multiple, clobbered, shared, data_offset,
                     whole, counter, bool(wide_col), scratch)
