"""The SHA-NI rows' value functions (SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2), over 32-bit lanes.

Each transcribes the "Operation" section of its instruction in the Intel SDM
vol. 2B §4.3 line by line, with ``vector.py``'s representation: an xmm value
is four 32-bit lanes, lane 0 holding bits 31:0, each lane a value of any
domain (``d.apply`` of the IR ops), immediates Python ints. The rows that use
them are ``vector.VECTOR_ROWS``'s ``sha1*`` entries (legacy encoding, xmm only).

Example: ``sha1nexte(d, src1, src2)`` is ``src2`` with ``rol30(src1[3])``
added to lane 3 (the next E, added to W0).
"""

from __future__ import annotations

K = (0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6)


def _f(d, i, b, c, e):
    if i == 0:   # f0: (B AND C) XOR ((NOT B) AND D)
        return d.apply("xor", d.apply("and", b, c), d.apply("and", d.apply("not", b), e))
    if i == 2:   # f2: (B AND C) XOR (B AND D) XOR (C AND D)
        return d.apply("xor", d.apply("xor", d.apply("and", b, c), d.apply("and", b, e)), d.apply("and", c, e))
    return d.apply("xor", d.apply("xor", b, c), e)      # f1 = f3: B XOR C XOR D


def sha1rnds4(d, src1, src2, n):
    """SHA1RNDS4: four rounds with f and K chosen by imm8[1:0]; E of the first round is folded into W0."""
    i = n & 3
    k = d.const(K[i])
    a, b, c, dd = src1[3], src1[2], src1[1], src1[0]
    w = (src2[3], src2[2], src2[1], src2[0])          # W0E, W1, W2, W3
    e = None
    for r in range(4):
        t = d.apply("add", d.apply("add", _f(d, i, b, c, dd), d.apply("rol", a, d.const(5))), w[r])
        if e is not None:
            t = d.apply("add", t, e)
        t = d.apply("add", t, k)
        a, b, c, dd, e = t, a, d.apply("rol", b, d.const(30)), c, dd
    return (dd, c, b, a)


def sha1nexte(d, src1, src2):
    tmp = d.apply("rol", src1[3], d.const(30))
    return (src2[0], src2[1], src2[2], d.apply("add", src2[3], tmp))


def sha1msg1(d, src1, src2):
    w0, w1, w2, w3 = src1[3], src1[2], src1[1], src1[0]
    w4, w5 = src2[3], src2[2]
    return (d.apply("xor", w5, w3), d.apply("xor", w4, w2), d.apply("xor", w3, w1), d.apply("xor", w2, w0))


def sha1msg2(d, src1, src2):
    w13, w14, w15 = src2[2], src2[1], src2[0]
    one = d.const(1)
    w16 = d.apply("rol", d.apply("xor", src1[3], w13), one)
    w17 = d.apply("rol", d.apply("xor", src1[2], w14), one)
    w18 = d.apply("rol", d.apply("xor", src1[1], w15), one)
    w19 = d.apply("rol", d.apply("xor", src1[0], w16), one)
    return (w19, w18, w17, w16)
