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
"""

from __future__ import annotations

from sha1opt.semantics.lift.elf import ObjectFile, Symbol

ROUND_CONSTANTS = (0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6)
_WINDOW = 8192          # bytes after a jump target searched for a constant (a stripped target has no size)


def _holds_constant(code: bytes) -> bool:
    return any(k.to_bytes(4, "little") in code for k in ROUND_CONSTANTS)


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
