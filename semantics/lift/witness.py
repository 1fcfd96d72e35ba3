"""The capability words that take a path: a model of its condition, read back as bytes of the undefined data
symbols it names (``witness``). ``lift.function`` gives each path report its witness; the native
confirmation (``emit.confirm``) runs a path with those bytes in the symbols.

Invariant: only the executor's names of loaded words of an ``ext:SYM`` region, ``SYM+c`` (byte offset c,
8*size bits), are read; bits the condition leaves free come out 0.

A path that read environment variables by a constant name (``paths.State.environment``: getenv's) also gets
``("env:NAME", value)`` for each the model makes non-NULL: the string's bytes from the model, up to the first NUL
(at most ``MAX_VALUE``; free bytes 0, so a free string is empty). ``env:`` cannot begin a symbol's name; a native
run (``emit.native_check``) sets those variables, and no other, to take the path. Example: nettle's
``NETTLE_FAT_VERBOSE`` path gives ``(("env:NETTLE_FAT_VERBOSE", b""),)``.
"""

from __future__ import annotations

import re

import z3


ENV = "env:"
MAX_VALUE = 256


def witness(cond: list, axioms: list, environment=()) -> tuple[tuple[str, bytes], ...]:
    """The first bytes of each undefined data symbol a path condition reads, from a model of it.

    The executor names a loaded word of ``ext:SYM`` at byte offset c ``SYM+c`` (8*size bits);
    unconstrained bits come out 0. Example: the SSSE3 dispatch condition of OpenSSL's x86-64
    code gives ``(("OPENSSL_ia32cap_P", b"\\x00...\\x02..."),)`` with bit 9 of word 1 set.
    """
    s = z3.Solver()
    s.set("timeout", 5000)
    s.add(*axioms, *cond)
    if s.check() != z3.sat:
        return ()
    m = s.model()
    out: dict[str, bytearray] = {}
    for d in m.decls():
        hit = re.fullmatch(r"([A-Za-z_][\w.]*)\+(\d+)", d.name())
        if not hit or d.arity() != 0 or not z3.is_bv_sort(d.range()):
            continue
        name, off = hit[1], int(hit[2])
        width = d.range().size() // 8
        buf = out.setdefault(name, bytearray())
        if len(buf) < off + width:
            buf.extend(b"\0" * (off + width - len(buf)))
        buf[off:off + width] = m[d].as_long().to_bytes(width, "little")
    for name, null, prefix in environment:
        if z3.is_false(m.eval(null, model_completion=True)):
            value = bytearray()
            while len(value) < MAX_VALUE and (c := m.eval(z3.BitVec(f"{prefix}[{len(value)}]", 8),
                                                          model_completion=True).as_long()):
                value.append(c)
            out[ENV + name] = value
    return tuple((k, bytes(v)) for k, v in sorted(out.items()))
