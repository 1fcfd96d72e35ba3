"""AES-NI's encryption rounds (AESENC, AESENCLAST) over 32-bit lanes, and the AES facts they rest on.

The facts, from FIPS-197 (the AES standard) §5.1, derived here from their
definitions rather than tabulated:

* SubBytes: each byte b becomes ``SBOX[b]`` = the affine map of §5.1.1 (bit i
  of the result is ``b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i``,
  indices mod 8, c = 0x63) applied to b's multiplicative inverse in
  GF(2^8) = GF(2)[x] / (x^8 + x^4 + x^3 + x + 1) (0 maps to 0), §4.2;
* ShiftRows (§5.1.2): ``s'[r, c] = s[r, (c + r) mod 4]``;
* MixColumns (§5.1.3): each column (a0, a1, a2, a3) becomes
  ``a'_r = 2*a_r ^ 3*a_(r+1) ^ a_(r+2) ^ a_(r+3)`` (indices mod 4), products in
  GF(2^8), ``2*a`` being ``xtime`` (§4.2.1).

Byte order (the invariant the rows keep): state byte i is byte i of the xmm
register, i.e. byte ``i % 4`` of lane ``i // 4`` (``vector.py``: lane 0 =
bits 31:0); FIPS-197 §3.4 puts input byte ``r + 4c`` at row r, column c, so
AES column c is lane c and row r is byte r of the lane. Loading the 16 bytes
of a block with ``movdqu`` gives exactly this state.

The IR ops (``ir.AES_OPS``), one per output lane, four lane operands each:
``aesr_j(s0, s1, s2, s3)`` is lane j of MixColumns(ShiftRows(SubBytes(s))) --
the keyless part of AESENC -- and ``aesl_j`` lane j of
ShiftRows(SubBytes(s)), the keyless part of AESENCLAST. The rows are then
(Intel SDM vol. 2A, AESENC/AESENCLAST "Operation"; the round key is the
second source): ``aesenc(state, key)_j = aesr_j(state) ^ key_j`` and
``aesenclast(state, key)_j = aesl_j(state) ^ key_j``.

Domains: numpy computes the ops exactly (``keyless_round``, vectorised over
states: S-box lookups in a 256-entry table, ``xtime`` with shifts and masks);
terms build nodes; Z3 reads them as *uninterpreted* functions
(``domain.Z3Domain``), so a Z3 proof over them holds for every function and
therefore for AES, while a Z3 model is only a candidate until numpy confirms
it (``ir.UNINTERPRETED_IN_Z3``).

Worked example (FIPS-197 Appendix B, round 1): the state after the initial
AddRoundKey, bytes ``19 3d e3 be a0 f4 e2 2b 9a c6 8d 2a e9 f8 48 08``, is
the lanes (0xbee33d19, 0x2be2f4a0, 0x2a8dc69a, 0x0848f8e9); ``keyless_round``
of it gives the bytes ``04 66 81 e5 e0 cb 19 9a 48 f8 d3 7a 28 06 26 4c``
(Appendix B's "After MixColumns" of round 1), and xoring round key 1
(``a0 fa fe 17 88 54 2c b1 23 a3 39 39 2a 6c 76 05``) gives round 2's input
``a4 9c 7f f2 68 9f 35 2b 6b 5b ea 43 02 6a 50 49``.
"""

from __future__ import annotations

import numpy as np

POLY = 0x11B                       # x^8 + x^4 + x^3 + x + 1 (FIPS-197 §4.2)
AFFINE_C = 0x63                    # the constant of SubBytes' affine map (§5.1.1)
ROUND = ("aesr0", "aesr1", "aesr2", "aesr3")    # lane j of MixColumns(ShiftRows(SubBytes(s)))
LAST = ("aesl0", "aesl1", "aesl2", "aesl3")     # lane j of ShiftRows(SubBytes(s))


def xtime(a: int) -> int:
    """Multiplication by x (``{02}``) in GF(2^8), FIPS-197 §4.2.1."""
    a <<= 1
    return a ^ POLY if a & 0x100 else a


def gf_mul(a: int, b: int) -> int:
    """The product in GF(2^8) (§4.2): xtime-and-add over b's bits."""
    p = 0
    while b:
        if b & 1:
            p ^= a
        a, b = xtime(a), b >> 1
    return p


def gf_inverse(a: int) -> int:
    """The multiplicative inverse in GF(2^8), ``a^254`` (the group has order 255); 0 maps to 0 (§5.1.1)."""
    result, power, e = 1, a, 254
    while e:
        if e & 1:
            result = gf_mul(result, power)
        power, e = gf_mul(power, power), e >> 1
    return result if a else 0


def affine(b: int) -> int:
    """SubBytes' affine transformation over GF(2) (§5.1.1, equation 5.1)."""
    out = 0
    for i in range(8):
        bit = (b >> i ^ b >> (i + 4) % 8 ^ b >> (i + 5) % 8 ^ b >> (i + 6) % 8 ^ b >> (i + 7) % 8 ^ AFFINE_C >> i) & 1
        out |= bit << i
    return out


SBOX: tuple[int, ...] = tuple(affine(gf_inverse(x)) for x in range(256))
_SBOX = np.array(SBOX, dtype=np.uint32)
# ShiftRows as a byte permutation of the x86 layout: result byte r + 4c is state byte r + 4((c + r) mod 4).
SHIFT_ROWS: tuple[int, ...] = tuple(i % 4 + 4 * ((i // 4 + i % 4) % 4) for i in range(16))


def _xtime(a: np.ndarray) -> np.ndarray:
    """``xtime`` of byte values held in uint32 arrays."""
    return ((a << np.uint32(1)) & np.uint32(0xFF)) ^ ((a >> np.uint32(7)) * np.uint32(0x1B))


def keyless_round(lanes, mix: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 4 lanes of ShiftRows(SubBytes(s)), then MixColumns when ``mix``: numpy, exact, every state at once.

    ``lanes`` are 4 uint32 arrays of equal length (one entry per state), lane
    0 = state bytes 0-3 (the module docstring's layout).
    """
    sub = [_SBOX[(lanes[i // 4] >> np.uint32(8 * (i % 4))) & np.uint32(0xFF)] for i in range(16)]
    t = [sub[k] for k in SHIFT_ROWS]
    if mix:
        mixed = []
        for c in range(4):
            a = t[4 * c: 4 * c + 4]
            for r in range(4):
                a0, a1, a2, a3 = a[r], a[(r + 1) % 4], a[(r + 2) % 4], a[(r + 3) % 4]
                mixed.append(_xtime(a0) ^ _xtime(a1) ^ a1 ^ a2 ^ a3)
        t = mixed
    return tuple(t[4 * c] | (t[4 * c + 1] << np.uint32(8)) | (t[4 * c + 2] << np.uint32(16))
                 | (t[4 * c + 3] << np.uint32(24)) for c in range(4))  # type: ignore[return-value]


# Column tables (the "T-tables" of FIPS-197's implementation notes, made here from SBOX and gf_mul): input byte
# row r of a column, after SubBytes, adds MixColumns' column r of the circulant (2, 3, 1, 1) times it to every
# output row r': coefficient (2, 1, 1, 3)[(r' - r) mod 4]. ``_LAST[r]`` is the byte alone (no MixColumns).
_MIX = tuple(np.array([sum(gf_mul((2, 1, 1, 3)[(q - r) % 4], SBOX[x]) << 8 * q for q in range(4)) for x in range(256)],
                      dtype=np.uint32) for r in range(4))
_LAST = tuple(np.array([SBOX[x] << 8 * r for x in range(256)], dtype=np.uint32) for r in range(4))


def keyless_lane(lanes, j: int, mix: bool) -> np.ndarray:
    """Lane ``j`` of ``keyless_round(lanes, mix)`` alone (its column: four table reads), numpy, exact."""
    tables = _MIX if mix else _LAST
    out = None
    for r in range(4):
        i = SHIFT_ROWS[4 * j + r]
        t = tables[r][(lanes[i // 4] >> np.uint32(8 * (i % 4))) & np.uint32(0xFF)]
        out = t if out is None else out ^ t
    return out


def _round(ops: tuple[str, ...]):
    def row(d, state, key):
        return tuple(d.apply("xor", d.apply(ops[j], *state[:4]), key[j]) for j in range(4))
    return row


# The vector rows' value functions (``vector.VECTOR_ROWS``): ``aesenc %xmm1, %xmm0`` is
# ``xmm0 = aesenc(d, xmm0, xmm1)``, ``vaesenc %xmm1, %xmm2, %xmm3`` is ``xmm3 = aesenc(d, xmm2, xmm1)``.
aesenc = _round(ROUND)
aesenclast = _round(LAST)
