"""Which functions of an object may be SHA-1 block functions: for naming one when the caller named none.

``sha1_candidates(obj)`` lists the global functions whose name contains
``sha1`` (any case), and those whose code holds a SHA-1 round constant
(0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6, as little-endian bytes in
the function's extent: an ``lea K(%r1,%r2)`` or an ``add $K``), and those
whose direct jumps or calls enter code holding one (a stripped shared
object's ``SHA1_Transform`` is ``mov $1, %edx; jmp`` into the block
function). Ranked: own constants, a jump into them (a tail call: the same
function), a call into them (a wrapper), the name only.

Invariant: a heuristic for a message only -- nothing is proved or refused
on it. Example: ``libcrypto.so.3`` gives ``SHA1_Transform`` first (its jump
enters the stripped block function, rich in round constants), then
``SHA1_Update``, ``SHA1_Final``, ... .

``compression_candidates(obj)`` is the stricter list ``sha1opt scan``
proves: the functions that may *be* a SHA-1 compression function, each with
its evidence -- all four round constants in its own code or in the data its
instructions reference (``"constants"``: a loop over a K table in
``.rodata``, libgcrypt's SSSE3 transform), SHA-NI's ``sha1rnds4`` and a
``sha1nexte``/``sha1msg1`` in its code (``"sha-ni"``: no constants at all),
a direct ``jmp`` into code holding all four (``"tail jump"``, a stripped
``SHA1_Transform``), or in code no symbol names, the extent an ``.eh_frame``
unwind entry gives, or (no unwind entry: i386 perlasm) the code a function
named for SHA-1 calls or jumps into (``"stripped"``, named ``sub_<address>``). All four
constants, not one: MD4 shares 0x5a827999 and 0x6ed9eba1, RIPEMD-160 three
of the four; SHA-256 none. A name alone is not evidence (an HMAC-SHA1 or
``SHA1_Update`` wrapper only calls the compression function), and a function
another candidate enters by a direct jump is a dispatch path of that one
(OpenSSL's local ``sha1_block_data_order_ssse3``, a stripped block function),
listed in ``entered_by``, not as a function of its own -- unless it is global,
an entry of its own (mbedTLS's ``mbedtls_internal_sha1_process``, which
``mbedtls_sha1_process`` tail-calls). Still a heuristic: the proof decides what is SHA-1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.decode import decode_function, decode_reach
from sha1opt.semantics.lift.elf import ObjectFile, Symbol

ROUND_CONSTANTS = (0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6)
_WINDOW = 8192          # bytes after a jump target searched for a constant (a stripped target has no size)


_PATTERNS = tuple(k.to_bytes(4, "little") for k in ROUND_CONSTANTS)
_SHA_NI_ROUNDS = b"\x0f\x3a\xcc"                               # sha1rnds4
_SHA_NI_OTHERS = (b"\x0f\x38\xc8", b"\x0f\x38\xc9")           # sha1nexte, sha1msg1
_DATA_WINDOW = 1024     # bytes either side of a referenced address searched for the constants (a K table)


def _holds_constant(code: bytes) -> bool:
    return any(k in code for k in _PATTERNS)


def holds_all_constants(data) -> bool:
    """All four SHA-1 round constants as little-endian words somewhere in ``data`` (bytes, or an mmap)."""
    return all(data.find(k) >= 0 for k in _PATTERNS)


def holds_sha_ni(code) -> bool:
    """SHA-NI SHA-1 round code: ``sha1rnds4`` and a ``sha1nexte`` or ``sha1msg1`` opcode (byte patterns)."""
    return code.find(_SHA_NI_ROUNDS) >= 0 and any(code.find(p) >= 0 for p in _SHA_NI_OTHERS)


def _targets(obj: ObjectFile, sym: Symbol, opcode: int) -> list[int]:
    """Section offsets of the direct rel32 targets of ``opcode`` (0xe9 ``jmp``, 0xe8 ``call``) in ``sym``'s
    bytes (byte patterns, not a decode: the opcode, then a displacement landing inside the section)."""
    code = obj.sections[sym.section]
    out = []
    for i in range(sym.value, sym.value + sym.size - 4):
        if code[i] == opcode:
            t = i + 5 + int.from_bytes(code[i + 1:i + 5], "little", signed=True)
            if 0 <= t < len(code):
                out.append(t)
    return out


def sha1_candidates(obj: ObjectFile, limit: int = 6) -> list[str]:
    """Up to ``limit`` names (see the module docstring)."""
    scored = []
    for s in obj.functions():
        if s.bind not in ("STB_GLOBAL", "STB_WEAK") or s.section not in obj.executable:
            continue
        named = "sha1" in s.name.lower()
        sym = obj.sized(s) if named else s
        code = obj.sections[s.section]
        own = _holds_constant(code[sym.value:sym.value + sym.size])
        if not (own or named):
            continue
        jumps, calls = (named and not own and any(_holds_constant(code[t:t + _WINDOW]) for t in _targets(obj, sym, op))
                        for op in (0xE9, 0xE8))
        # rank: its own constants, a jump into them (a tail call: the same function), a call, the name only
        rank = 0 if own else 1 if jumps else 2 if calls else 3
        scored.append((rank, not named, len(s.name), s.name))
    return [name for *_, name in sorted(set(scored))][:limit]


@dataclass(frozen=True)
class Candidate:
    """A function that may be a SHA-1 compression function (see the module docstring)."""

    symbol: Symbol                  # sized; a stripped function's is made up: ``sub_<linked address>``
    evidence: str                   # "constants" | "sha-ni" | "tail jump" | "stripped" | "named"
    entered_by: tuple[str, ...] = ()  # candidates whose direct jumps enter this local one: a dispatch path of theirs

    @property
    def name(self) -> str:
        return self.symbol.name


def _referenced(obj: ObjectFile, sym: Symbol, operands_only: bool = False) -> bytes:
    """The data around every address ``sym``'s instructions reference (relocations, rip-relative operands);
    ``operands_only``: memory operands and address immediates only, not the targets of calls and jumps (a
    function that calls into code next to a K table does not reference the table)."""
    out = []
    for d in decode_function(obj, sym).instructions.values():
        if operands_only and (d.mnemonic == "call" or d.mnemonic.startswith("j")):
            continue
        for ref in (d.mem_ref, d.imm_ref):
            if ref is not None and ref.region.startswith("sec:"):
                data = obj.sections.get(ref.region[4:], b"")
                out.append(data[max(0, ref.offset - _DATA_WINDOW):ref.offset + _DATA_WINDOW])
    return b"".join(out)


def _evidence(obj: ObjectFile, sym: Symbol) -> str | None:
    code = obj.sections[sym.section][sym.value:sym.value + sym.size]
    if holds_all_constants(code):
        return "constants"
    if holds_sha_ni(code):
        return "sha-ni"
    if _holds_constant(code) or "sha1" in sym.name.lower():
        if holds_all_constants(code + _referenced(obj, sym)):
            return "constants"
        if "sha1" in sym.name.lower() and any(_enters_constants(obj, sym.section, d.target)
                                              for d in decode_function(obj, sym).instructions.values()
                                              if d.mnemonic == "jmp" and d.target is not None
                                              and not sym.value <= d.target < sym.value + sym.size):
            return "tail jump"
    return None


def _enters_constants(obj: ObjectFile, section: str, target: int) -> bool:
    """Whether a jump to ``target`` enters a function holding all four constants: the symbol covering it, else
    the unwind extent holding it, else (no extent known) the ``_WINDOW`` bytes from it."""
    code = obj.sections[section]
    held = obj.covering(section, target)
    if held is not None:
        held = obj.sized(held)
        return holds_all_constants(code[held.value:held.value + held.size])
    ext = next(((a, n) for a, n in obj.unwind_extents(section) if a <= target < a + n), None)
    return holds_all_constants(code[ext[0]:ext[0] + ext[1]] if ext else code[target:target + _WINDOW])


def _sized(obj: ObjectFile, s: Symbol) -> Symbol | None:
    """``s`` with its extent: in a linked object a symbol without a size takes its unwind entry's, or is
    skipped (``ObjectFile.sized`` would stretch it to the next symbol, over stripped functions between);
    in a ``.o``, ``ObjectFile.sized``."""
    if s.size or obj.relocatable:
        return obj.sized(s)
    ext = next((n for a, n in obj.unwind_extents(s.section) if a == s.value), None)
    return replace(s, size=ext) if ext else None


def _named_extent(obj: ObjectFile, section: str, offset: int) -> bool:
    """Whether a symbol with an extent of its own (``_sized``) covers ``section + offset``."""
    held = obj.covering(section, offset)
    sized = _sized(obj, held) if held is not None else None
    return sized is not None and sized.value <= offset < sized.value + sized.size


def _stripped(obj: ObjectFile, claimed: set[tuple[str, int]]) -> list[Symbol]:
    """Functions no symbol names whose unwind extent (``ObjectFile.unwind_extents``) holds all four constants."""
    out = []
    for section in sorted(obj.executable):
        code = obj.sections[section]
        if not holds_all_constants(code):
            continue
        sites = sorted({i for k in _PATTERNS for i in _find_all(code, k)})
        extents = obj.unwind_extents(section)
        seen: set[int] = set()
        for site in sites:
            if _named_extent(obj, section, site):
                continue
            ext = next(((a, n) for a, n in extents if a <= site < a + n), None)
            if ext is None or ext[0] in seen or (section, ext[0]) in claimed:
                continue
            seen.add(ext[0])
            if holds_all_constants(code[ext[0]:ext[0] + ext[1]]):
                addr = obj.addresses.get(section, 0) + ext[0]
                out.append(Symbol(f"sub_{addr:x}", section, ext[0], ext[1], "STT_FUNC", "STB_LOCAL"))
        out += _referencing(obj, section, sites, extents, claimed | {(s.section, s.value) for s in out})
    return out + _entered_unnamed(obj, claimed | {(s.section, s.value) for s in out})


def _referencing(obj: ObjectFile, section: str, sites: list[int], extents: list[tuple[int, int]],
                 claimed: set[tuple[str, int]]) -> list[Symbol]:
    """Unwind extents of ``section`` no symbol names that reference, rip-relative, a table of the constants (at
    ``sites``) lying outside every extent: perlasm keeps its K table in ``.text`` after the code (x86-64
    ``libcrypto.so.3``'s stitched AES-CBC + SHA-1 bodies load it with ``lea K_XX_XX(%rip)``). Found from the
    bytes: every 32-bit word read as a displacement whose target lands within ``_DATA_WINDOW`` of such a table
    marks its extent, which is kept when its code and the data it references (decoded) hold all four
    constants."""
    if obj.relocatable or obj.arch != "x86_64" or not extents:
        return []
    extents = sorted(extents)
    starts = np.array([a for a, _ in extents], dtype=np.int64)
    ends = np.array([a + n for a, n in extents], dtype=np.int64)

    def extent_of(x: np.ndarray) -> np.ndarray:
        i = np.searchsorted(starts, x, side="right") - 1
        return np.where((i >= 0) & (x < ends[np.maximum(i, 0)]), i, -1)
    at = np.array(sites, dtype=np.int64)
    loose = at[extent_of(at) < 0]
    if not len(loose):
        return []
    code = obj.sections[section]
    arr = np.frombuffer(bytes(code), dtype=np.uint8).astype(np.int64)
    word = arr[:-3] | arr[1:-2] << 8 | arr[2:-1] << 16 | arr[3:] << 24
    target = np.arange(len(word), dtype=np.int64) + 4 + np.where(word >= 1 << 31, word - (1 << 32), word)
    near = np.zeros(len(word), dtype=bool)
    for lo, hi in _windows(loose):
        near |= (target >= lo - _DATA_WINDOW) & (target < hi + _DATA_WINDOW)
    out = []
    for k in sorted(set(int(i) for i in extent_of(np.nonzero(near)[0]) if i >= 0)):
        a, n = extents[k]
        if (section, a) in claimed or _named_extent(obj, section, a):
            continue
        sym = Symbol(f"sub_{obj.addresses.get(section, 0) + a:x}", section, a, n, "STT_FUNC", "STB_LOCAL")
        if holds_all_constants(code[a:a + n] + _referenced(obj, sym, operands_only=True)):
            out.append(sym)
    return out


def _windows(sites: np.ndarray) -> list[tuple[int, int]]:
    """Sites of the constants grouped into tables: runs no more than ``_DATA_WINDOW`` bytes apart, as [lo, hi)."""
    out: list[tuple[int, int]] = []
    for x in sorted(int(v) for v in sites):
        if out and x - out[-1][1] <= _DATA_WINDOW:
            out[-1] = (out[-1][0], x + 4)
        else:
            out.append((x, x + 4))
    return out


def _entered_unnamed(obj: ObjectFile, claimed: set[tuple[str, int]]) -> list[Symbol]:
    """Code no symbol and no unwind entry names (i386 perlasm has no CFI) that a function named for SHA-1
    calls or jumps into, when the ``_WINDOW`` bytes from there (up to the next symbol) hold all four constants:
    i386 ``libcrypto.so.3``'s ``SHA1_Transform`` calls its stripped block function with nblocks = 1."""
    out: dict[tuple[str, int], Symbol] = {}
    for s in obj.functions():
        if "sha1" not in s.name.lower() or s.section not in obj.executable:
            continue
        sym = _sized(obj, s)
        if sym is None:
            continue
        for d in decode_function(obj, sym).instructions.values():
            t = d.target
            if t is None or sym.value <= t < sym.value + sym.size or (s.section, t) in claimed or \
                    (s.section, t) in out or obj.covering(s.section, t) is not None or \
                    any(a <= t < a + n for a, n in obj.unwind_extents(s.section)):
                continue
            code = obj.sections[s.section]
            later = [v.value for v in obj.symbols if v.section == s.section and v.value > t]
            end = min([t + _WINDOW, len(code), *later])
            if holds_all_constants(code[t:end]):
                addr = obj.addresses.get(s.section, 0) + t
                out[(s.section, t)] = Symbol(f"sub_{addr:x}", s.section, t, end - t, "STT_FUNC", "STB_LOCAL")
    return list(out.values())


def _find_all(data: bytes, pattern: bytes) -> list[int]:
    out, i = [], data.find(pattern)
    while i >= 0:
        out.append(i)
        i = data.find(pattern, i + 1)
    return out


def found_functions(obj: ObjectFile, member: str | None = None) -> tuple[list[Candidate], list[Candidate]]:
    """What ``scan`` finds in ``obj`` (an archive's ``member``): every candidate (``compression_candidates``, the
    interface catalogue's names taken whatever their code holds), and those no other candidate enters -- the
    functions; an entered one is a dispatch path of the one that enters it. ``analyze`` without a function
    takes the only function found (``sha1opt.analyze.sole_function``)."""
    named = frozenset(s.name for s in obj.functions() if lookup(s.name, member) is not None)
    every = compression_candidates(obj, named)
    return every, [c for c in every if not c.entered_by]


def compression_candidates(obj: ObjectFile, named: frozenset[str] = frozenset()) -> list[Candidate]:
    """The functions of ``obj`` that may be SHA-1 compression functions (see the module docstring), in
    address order; ``named``: function names taken whatever their code holds (a catalogue's entries:
    nettle's fat ``nettle_sha1_compress`` jumps through a pointer)."""
    found: dict[tuple[str, int], Candidate] = {}
    for s in obj.functions():
        if s.section not in obj.executable or not s.name or (s.section, s.value) in found:
            continue
        sym = _sized(obj, s)
        if sym is None:
            continue
        why = _evidence(obj, sym) or ("named" if s.name in named else None)
        if why is not None:
            found[(s.section, s.value)] = Candidate(sym, why)
    for sym in _stripped(obj, set(found)):
        found[(sym.section, sym.value)] = Candidate(sym, "stripped")
    # a candidate another one enters by a direct jump is that one's dispatch path, not a function of its own
    entered: dict[tuple[str, int], list[str]] = {}
    for key, c in found.items():
        reach = decode_reach(obj, c.symbol).instructions
        for other in found:
            if other != key and other[0] == key[0] and other[1] in reach and found[other].symbol.bind == "STB_LOCAL":
                entered.setdefault(other, []).append(c.name)
    return [replace(c, entered_by=tuple(entered.get(k, ()))) for k, c in sorted(found.items())]
