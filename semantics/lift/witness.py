"""The capability words that take a path: a model of its condition, read back as bytes of the undefined data
symbols it names (``witness``). ``lift.function`` gives each path report its witness; the native
confirmation (``emit.confirm``) runs a path with those bytes in the symbols.

Invariant: only the executor's names of loaded words of an ``ext:SYM`` region, ``SYM+c`` (byte offset c,
8*size bits), are read; bits the condition leaves free come out 0.
"""

from __future__ import annotations

import re

import z3


def witness(cond: list, axioms: list) -> tuple[tuple[str, bytes], ...]:
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
    return tuple((k, bytes(v)) for k, v in sorted(out.items()))
