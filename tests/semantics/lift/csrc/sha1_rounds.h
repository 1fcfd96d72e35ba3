/*
 * SHA-1's compression (FIPS 180-4 section 6.1.2) over a 16-word ring w already holding the block's words
 * (host order: big-endian decoded), rounds 40-59 with the constant k3 (a wrong one makes a wrong
 * implementation beside a right one). Shared by the tests' C sources (sha1_one_two.h, sha1_fp_resolver.c).
 * Written for sha1opt's tests (not copied from any library).
 */
#ifndef SHA1_ROUNDS_H
#define SHA1_ROUNDS_H

typedef unsigned int u32;

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

static inline void rounds(u32 *state, u32 *w, u32 k3) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    _Pragma("GCC unroll 80") for (int t = 0; t < 80; t++) {     /* (straight code: the cheaper proof) */
        u32 wt = t < 16 ? w[t] : rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        w[t & 15] = wt;
        u32 f, k;
        if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
        else if (t < 60) { f = (b & c) | (d & (b | c)); k = k3; }
        else { f = b ^ c ^ d; k = 0xca62c1d6u; }
        u32 tmp = rol(a, 5) + f + e + k + wt;
        e = d; d = c; c = rol(b, 30); b = a; a = tmp;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

/* The block's 16 words from its bytes, big-endian. */
static inline void load_words(u32 *w, const unsigned char *p) {
    for (int i = 0; i < 16; i++)
        w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 | (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
}

#endif
