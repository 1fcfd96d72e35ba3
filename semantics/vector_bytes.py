"""Byte and 16-bit-word value functions of the vector rows, over 32-bit lanes (``vector.py``'s representation).

A vector value is a tuple of 32-bit lanes (lane 0 = bits 31:0), each a value
of one of the 32-bit domains, and every function here is written with
``d.apply`` of the IR ops and constants only, so the Z3, numpy and term
interpreters share it. Byte k of lane j is ``(x_j >> 8k) & 0xff``: a result
lane made of bytes of other lanes is a *pick list* (``gather``: per result
byte, ``(source lane, byte)`` or None for zero), built with one shift and
one mask per run of bytes that move together. A 16-bit word operation
shifts the lane as 32 bits and masks the bits that crossed between its two
words. On ymm, all of these work in each 128-bit half on its own
(``halves``, AVX2's in-lane rule).

Worked example: ``punpcklbw %xmm1, %xmm0`` interleaves the low 8 bytes of
xmm0 and xmm1 (dst0, src0, dst1, src1, ...), so result lane 0 is
``(x0 & 0xff) | ((y0 & 0xff) << 8) | ((x0 & 0xff00) << 8) | ((y0 & 0xff00) << 16)``
for xmm0 = (x0..x3), xmm1 = (y0..y3); ``packuswb`` then saturates each
signed word to an unsigned byte with the same ops (``saturate_words``), so
gcc's vectorized big-endian byte loads (``pand``/``psrlw $8``/``packuswb``,
``punpck{l,h}{bw,wd}`` with a zeroed register, ``pslld``/``psllw``/``por``)
are computed exactly for every input.

Refused by name: a ``pshufb`` mask that is not a known constant.

Sources: Intel SDM vol. 2 (order no. 325383), the "Operation" sections of
PSHUFB, PALIGNR, PSRLDQ/PSLLDQ, PSRLW/PSLLW, PACKUSWB and
PUNPCKLBW/PUNPCKHBW/PUNPCKLWD/PUNPCKHWD.
"""

from __future__ import annotations

from sha1opt.semantics.errors import UnsupportedError


def apply(d, name, *args):
    return d.apply(name, *args)


def is_zero(d, x) -> bool:
    return d.constant(x) == 0


def gather(d, sources, picks):
    """One lane from bytes: ``picks[k]`` is ``(source lane, byte)`` or None (zero) for result byte k.

    Runs of bytes that come from one source lane at one distance become one
    shift and (when the shift leaves other bytes) one mask; a whole lane is
    that lane, a reversed whole lane is ``bswap``.
    """
    if all(p is not None for p in picks) and len({p[0] for p in picks}) == 1:
        lane = picks[0][0]
        if [p[1] for p in picks] == [0, 1, 2, 3]:
            return sources[lane]
        if [p[1] for p in picks] == [3, 2, 1, 0]:
            return apply(d, "bswap", sources[lane])
    groups: dict[tuple[int, int], list[int]] = {}
    for k, p in enumerate(picks):
        if p is not None and not is_zero(d, sources[p[0]]):
            groups.setdefault((p[0], k - p[1]), []).append(k)
    parts = []
    for (lane, delta), ks in groups.items():
        x = sources[lane]
        if delta > 0:
            x = apply(d, "shl", x, d.const(8 * delta))
            live = set(range(delta, 4))
        elif delta < 0:
            x = apply(d, "shr", x, d.const(-8 * delta))
            live = set(range(0, 4 + delta))
        else:
            live = set(range(4))
        if not live <= set(ks):
            x = apply(d, "and", x, d.const(sum(0xFF << (8 * k) for k in ks)))
        parts.append(x)
    if not parts:
        return d.const(0)
    out = parts[0]
    for p in parts[1:]:
        out = apply(d, "or", out, p)
    return out


def bytes_to_lanes(d, sources, picks):
    """Lanes from a byte pick list (4 picks per result lane)."""
    return tuple(gather(d, sources, picks[4 * j:4 * j + 4]) for j in range(len(picks) // 4))


def halves(fn):
    """Apply a 4-lane function to each 128-bit half (AVX2 in-lane semantics)."""
    def run(d, *args):
        vecs = [a for a in args if isinstance(a, tuple)]
        n = len(vecs[0])
        out = ()
        for h in range(0, n, 4):
            out += fn(d, *((a[h:h + 4] if isinstance(a, tuple) else a) for a in args))
        return out
    return run


def word_shift(shift: str):
    """``psrlw``/``psllw``: every 16-bit word shifted on its own, a count above 15 clearing it.

    A lane holds two words, so the lane is shifted as 32 bits and the bits
    that crossed from one word into the other are masked off: ``psrlw $8``
    of lane ``0x12345678`` is ``(0x12345678 >> 8) & 0x00ff00ff`` =
    ``0x00120056``, ``psllw $8`` of it ``(0x12345678 << 8) & 0xff00ff00`` =
    ``0x34007800``.
    """
    def run(d, x, n):
        if n > 15:
            return tuple(d.const(0) for _ in x)
        if n == 0:
            return x
        word = (0xFFFF >> n) if shift == "shr" else (0xFFFF << n) & 0xFFFF
        keep = d.const(word * 0x10001)
        return tuple(apply(d, "and", apply(d, shift, a, d.const(n)), keep) for a in x)
    return run


def spread(d, bits):
    """Bits 0 and 16 of ``bits`` (the others zero) copied to bits 0-7 and 16-23: a byte mask per word."""
    for k in (1, 2, 4):
        bits = apply(d, "or", bits, apply(d, "shl", bits, d.const(k)))
    return bits


def saturate_words(d, x):
    """Each signed 16-bit word of lane ``x`` saturated to an unsigned byte, kept in its word's low byte.

    A negative word gives 0, a word above 255 gives 0xff, the others
    themselves: ``big`` ors bits 8-14 of each word down to its bit 8 (shifts
    of 4, 2, 1 stay inside the word), ``neg`` is bit 15. Example: lane
    ``0x8000017f`` (words 0x017f and 0x8000) gives ``0x000000ff``.
    """
    t = apply(d, "and", x, d.const(0x7F007F00))
    for k in (4, 2, 1):
        t = apply(d, "or", t, apply(d, "shr", t, d.const(k)))
    big = spread(d, apply(d, "and", apply(d, "shr", t, d.const(8)), d.const(0x00010001)))
    neg = spread(d, apply(d, "and", apply(d, "shr", x, d.const(15)), d.const(0x00010001)))
    low = apply(d, "or", apply(d, "and", x, d.const(0x00FF00FF)), big)
    return apply(d, "and", low, apply(d, "not", neg))


@halves
def packuswb(d, dst, src):
    """Bytes 0-7 the saturated words of ``dst``, bytes 8-15 those of ``src`` (SDM PACKUSWB)."""
    words = tuple(saturate_words(d, a) for a in dst + src)
    return bytes_to_lanes(d, words, [(k // 2, 2 * (k % 2)) for k in range(16)])


def unpack(size: int, high: bool):
    """``punpck{l,h}{bw,wd}``: elements of ``size`` bytes from the low (high) half of dst and src, interleaved.

    Result element 2i is dst's element i (i + 8/size for the high form),
    element 2i+1 src's: ``punpcklbw`` gives bytes (dst0, src0, dst1, src1 ..
    dst7, src7). Picks index ``dst + src`` (lanes 0-3 dst, 4-7 src).
    """
    half = 8 // size

    @halves
    def run(d, dst, src):
        picks = []
        for e in range(16 // size):
            base = 16 * (e % 2) + size * (e // 2 + half * high)
            picks += [((base + b) // 4, (base + b) % 4) for b in range(size)]
        return bytes_to_lanes(d, dst + src, picks)
    return run


def byte_shift(right: bool):
    @halves
    def run(d, x, n):
        picks = []
        for k in range(16):
            s = k + n if right else k - n
            picks.append((s // 4, s % 4) if 0 <= s < 16 else None)
        return bytes_to_lanes(d, x, picks)
    return run


@halves
def palignr(d, dst, src, n):
    cat = src + dst            # bytes 0-15 from src, 16-31 from dst
    picks = [((k + n) // 4, (k + n) % 4) if k + n < 32 else None for k in range(16)]
    return bytes_to_lanes(d, cat, picks)


@halves
def pshufb(d, x, mask):
    picks = []
    for lane in mask:
        m = d.constant(lane)
        if m is None:
            raise UnsupportedError("pshufb with a mask that is not a constant is not modelled")
        for k in range(4):
            b = (m >> (8 * k)) & 0xFF
            picks.append(None if b & 0x80 else ((b & 15) // 4, b % 4))
    return bytes_to_lanes(d, x, picks)
