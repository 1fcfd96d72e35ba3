/*
 * The two SHA-1 implementations the tests' C entries choose between (sha1_setcc_index.c, sha1_getenv_bytes.c):
 * sha1_one and sha1_two(state, data), each the 80 rounds of FIPS 180-4 section 6.1.2 over a 16-word ring holding
 * the block's big-endian words (block()). sha1_two's constant for rounds 40-59 is K3_TWO (-DK3_TWO=0x8f1bbcddu: a
 * wrong implementation beside a right one). Written for sha1opt's tests (not copied from any library).
 */
typedef unsigned int u32;

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

static inline void block(u32 *state, const unsigned char *data, u32 k3) {
    u32 w[16];
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        u32 wt;
        if (t < 16) {
            wt = (u32)data[4 * t] << 24 | (u32)data[4 * t + 1] << 16 | (u32)data[4 * t + 2] << 8 | data[4 * t + 3];
        } else {
            wt = rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        }
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

#define NOINLINE __attribute__((noinline, used))

#ifndef K3_TWO
#define K3_TWO 0x8f1bbcdcu
#endif

NOINLINE void sha1_one(u32 *state, const void *data) { block(state, data, 0x8f1bbcdcu); }
NOINLINE void sha1_two(u32 *state, const void *data) { block(state, data, K3_TWO); }
