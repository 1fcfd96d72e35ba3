/*
 * A shared object shaped like libcrypto.so.3's SHA-1, written for sha1opt's tests
 * from FIPS 180-4 section 6.1.2 (no library's code is copied; only the shape:
 * an exported one-block entry that tail-jumps, on a hidden capability word set by a
 * constructor, into one of two block functions; built stripped, so those two have
 * no symbol and are found by address):
 *
 *   sha1_shared_compress(state, data)   -- one block: block_ring when bit 1 of
 *                                          sha1_shared_caps is set, else block_w80
 *
 * The constructor sets the bit (a run that does not write the path's word takes
 * block_ring). Defects built with -D: RING_K3=... (block_ring's constant of rounds
 * 40-59), W80_K3=... (block_w80's).
 */
typedef unsigned int u32;

#ifndef RING_K3
#define RING_K3 0x8f1bbcdcu
#endif
#ifndef W80_K3
#define W80_K3 0x8f1bbcdcu
#endif

__attribute__((visibility("hidden"))) u32 sha1_shared_caps;

__attribute__((constructor)) static void detect(void) { sha1_shared_caps = 2; }

static u32 rol32(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

static u32 be32(const unsigned char *p) {
    return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | (u32)p[3];
}

static u32 f_k(int t, u32 b, u32 c, u32 d, u32 k3) {
    if (t < 20) return (d ^ (b & (c ^ d))) + 0x5a827999u;
    if (t < 40) return (b ^ c ^ d) + 0x6ed9eba1u;
    if (t < 60) return ((b & c) | (d & (b | c))) + k3;
    return (b ^ c ^ d) + 0xca62c1d6u;
}

static __attribute__((noinline)) void block_w80(u32 *state, const unsigned char *in) {
    u32 W[80], a, b, c, d, e, t;
    int i;
    for (i = 0; i < 16; i++)
        W[i] = be32(in + 4 * i);
    for (i = 16; i < 80; i++)
        W[i] = rol32(W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16], 1);
    a = state[0]; b = state[1]; c = state[2]; d = state[3]; e = state[4];
    for (i = 0; i < 80; i++) {
        t = rol32(a, 5) + f_k(i, b, c, d, W80_K3) + e + W[i];
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

static __attribute__((noinline)) void block_ring(u32 *state, const unsigned char *in) {
    u32 W[16], a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], t, w;
    int i;
    for (i = 0; i < 80; i++) {
        if (i < 16)
            w = be32(in + 4 * i);
        else
            w = rol32(W[(i + 13) & 15] ^ W[(i + 8) & 15] ^ W[(i + 2) & 15] ^ W[i & 15], 1);
        W[i & 15] = w;
        t = rol32(a, 5) + f_k(i, b, c, d, RING_K3) + e + w;
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

void sha1_shared_compress(u32 *state, const unsigned char *data) {
    if (sha1_shared_caps & 2)
        block_ring(state, data);
    else
        block_w80(state, data);
}
