"""The SHA-1 specification (FIPS 180-4 section 6.1), written once over any domain.

Per round t (0..79), with state (a, b, c, d, e)::

    T = rol(a, 5) + f_t(b, c, d) + e + K_t + W_t
    (a, b, c, d, e) <- (T, a, rol(b, 30), c, d)

f_t is choose (f1, rounds 0-19), parity (f2, 20-39 and 60-79) or majority
(f3, 40-59); ``F_FORMS`` lists known equal forms of each as user-grammar
text (the corpus proves they are equal). ``W_t`` for t < 16 is the block's
t-th big-endian word -- ``bswap`` of the little-endian 32-bit load x86 does --
and ``rol(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1)`` after.

``range_spec`` states a round range as a sequence of *cut points*: each new
a (``A{t+1}``, the T of round t) and each message word (``W{t}``) is a
definition over inputs and earlier cut symbols. Proving code against the
spec one definition at a time is what makes 80 rounds take under a second
instead of timing out (``composition.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.ir import Builder, Term

K = (0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6)
IV = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)

# Round function kinds by round; "f2" serves both parity ranges.
KIND_BY_QUARTER = ("f1", "f2", "f3", "f2")

# Known forms of each round function, in the user grammar over b, c, d.
F_FORMS: dict[str, dict[str, str]] = {
    "f1": {
        "select": "d ^ (b & (c ^ d))",
        "or-of-ands": "(b & c) | (~b & d)",
        "sum-of-ands": "(b & c) + (~b & d)",
        "xor-of-ands": "(b & c) ^ (~b & d)",
    },
    "f2": {"parity": "b ^ c ^ d"},
    "f3": {
        "sum": "(b & c) + (d & (b ^ c))",
        "or-of-three": "(b & c) | (b & d) | (c & d)",
        "or-form": "(b & c) | (d & (b | c))",
        "xor-form": "(b & c) ^ (d & (b ^ c))",
    },
}


def kind(t: int) -> str:
    if not 0 <= t < 80:
        raise Sha1optError(f"round {t} is outside 0-79")
    return KIND_BY_QUARTER[t // 20]


def k_const(t: int) -> int:
    kind(t)
    return K[t // 20]


def f(dom, t: int, b, c, d):
    """The textbook round function of round t over ``dom``."""
    A = dom.apply
    k = kind(t)
    if k == "f1":
        return A("xor", d, A("and", b, A("xor", c, d)))
    if k == "f2":
        return A("xor", A("xor", b, c), d)
    return A("or", A("and", b, c), A("and", d, A("or", b, c)))


def round_value(dom, t: int, a, b, c, d, e, w):
    """T of round t: the new a."""
    A = dom.apply
    acc = A("add", A("rol", a, dom.const(5)), f(dom, t, b, c, d))
    acc = A("add", acc, e)
    acc = A("add", acc, dom.const(k_const(t)))
    return A("add", acc, w)


def next_word(dom, w3, w8, w14, w16):
    A = dom.apply
    return A("rol", A("xor", A("xor", A("xor", w3, w8), w14), w16), dom.const(1))


def compress(dom, h, m):
    """The compression function: 5 state words, 16 loaded (little-endian) words -> 5 words."""
    if len(h) != 5 or len(m) != 16:
        raise Sha1optError("compress takes 5 state words and 16 message words")
    A = dom.apply
    w = [A("bswap", x) for x in m]
    for t in range(16, 80):
        w.append(next_word(dom, w[t - 3], w[t - 8], w[t - 14], w[t - 16]))
    a, b, c, d, e = h
    thirty = dom.const(30)
    for t in range(80):
        a, b, c, d, e = round_value(dom, t, a, b, c, d, e, w[t]), a, A("rol", b, thirty), c, d
    return [A("add", x, y) for x, y in zip(h, (a, b, c, d, e))]


def pad(message: bytes) -> bytes:
    """FIPS 180-4 5.1.1: 0x80, zeros, 64-bit big-endian bit length."""
    bitlen = 8 * len(message)
    tail = b"\x80" + b"\x00" * ((55 - len(message)) % 64) + bitlen.to_bytes(8, "big")
    return message + tail


def digest_numpy(messages: list[bytes]) -> list[bytes]:
    """SHA-1 of many messages at once (lanes = messages), through ``compress``.

    Messages are padded to a common number of blocks when their padded
    lengths agree; otherwise they are grouped by block count.
    """
    groups: dict[int, list[int]] = {}
    padded = [pad(m) for m in messages]
    for i, p in enumerate(padded):
        groups.setdefault(len(p) // 64, []).append(i)
    out: list[bytes] = [b""] * len(messages)
    for nblocks, idx in groups.items():
        dom = NumpyDomain(len(idx))
        h = [np.full(len(idx), v, dtype=np.uint32) for v in IV]
        raw = np.frombuffer(b"".join(padded[i] for i in idx), dtype="<u4").reshape(len(idx), nblocks, 16)
        for blk in range(nblocks):
            h = compress(dom, h, [raw[:, blk, j].copy() for j in range(16)])
        words = np.stack(h, axis=1).astype(">u4")
        for lane, i in enumerate(idx):
            out[i] = words[lane].tobytes()
    return out


def check_against_hashlib(messages: list[bytes]) -> list[int]:
    """Indices of messages where ``digest_numpy`` and hashlib disagree (empty = agree)."""
    ours = digest_numpy(messages)
    return [i for i, (m, d) in enumerate(zip(messages, ours)) if hashlib.sha1(m).digest() != d]


# --- the spec as cut points ---------------------------------------------------


@dataclass
class Definition:
    name: str     # the cut symbol, e.g. "A17" or "W20"
    term: Term    # over inputs and earlier cut symbols
    what: str     # human description, e.g. "new a of round 16"
    round: int


@dataclass
class Spec:
    builder: Builder
    first: int
    last: int
    inputs: list[str]
    definitions: list[Definition] = field(default_factory=list)
    outputs: dict[str, Term] = field(default_factory=dict)


def range_spec(builder: Builder, first: int = 0, last: int = 79, feed_forward: bool | None = None) -> Spec:
    """Rounds ``first..last`` as cut-point definitions.

    Inputs: the state at round ``first`` (``a b c d e``, or ``h0..h4`` for a
    whole block, where a..e start equal to h), and the message: raw loaded
    words ``m0..m15`` when ``first < 16``, else the ring ``W{first-16}`` ..
    ``W{first-1}``. Outputs: the state after round ``last`` (``a b c d e``),
    plus the feed-forward sums ``h0..h4`` when the range is the whole block
    (or ``feed_forward`` says so), plus the W ring when ``last < 79``.
    """
    if not (0 <= first <= last <= 79):
        raise Sha1optError(f"round range {first}-{last} is not within 0-79")
    whole = first == 0 and last == 79
    ff = whole if feed_forward is None else feed_forward
    b = builder
    names = ["h0", "h1", "h2", "h3", "h4"] if ff else ["a", "b", "c", "d", "e"]
    state = [b.var(n) for n in names]
    spec = Spec(b, first, last, list(names))
    w: dict[int, Term] = {}
    if first < 16:
        spec.inputs += [f"m{j}" for j in range(16)]
        for j in range(16):
            spec.definitions.append(Definition(f"W{j}", b.var(f"m{j}").bswap(), f"message word {j}", j))
            w[j] = b.var(f"W{j}")
    else:
        spec.inputs += [f"W{j}" for j in range(first - 16, first)]
        for j in range(first - 16, first):
            w[j] = b.var(f"W{j}")
    a, bb, c, d, e = state
    for t in range(first, last + 1):
        if t >= 16:
            spec.definitions.append(
                Definition(f"W{t}", next_word(_TD(b), w[t - 3], w[t - 8], w[t - 14], w[t - 16]), f"message word {t}", t)
            )
            w[t] = b.var(f"W{t}")
        spec.definitions.append(
            Definition(f"A{t + 1}", round_value(_TD(b), t, a, bb, c, d, e, w[t]), f"new a of round {t}", t)
        )
        a, bb, c, d, e = b.var(f"A{t + 1}"), a, bb.rol(30), c, d
    final = {"a": a, "b": bb, "c": c, "d": d, "e": e}
    if ff:
        for i, x in enumerate((a, bb, c, d, e)):
            spec.outputs[f"h{i}"] = state[i] + x
    else:
        spec.outputs.update(final)
    if last < 79:
        for j in range(last + 1 - 16, last + 1):
            if j in w:
                spec.outputs[f"W{j}"] = w[j]
    return spec


def _TD(builder: Builder):
    return TermDomain(builder)
