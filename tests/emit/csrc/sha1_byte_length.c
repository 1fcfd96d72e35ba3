/*
 * A SHA-1 block function taking a byte length, written for sha1opt's tests from
 * FIPS 180-4 section 6.1.2 (no library's code is copied; the shape, a length in
 * bytes of which only whole 64-byte blocks are hashed, is Crypto++'s SHA-NI entry's):
 *
 *   hash_bytes(state, data, len)   -- hashes floor(len / 64) blocks, ignores the rest
 *
 * Defects built with -D, each right for every multiple of 64:
 * NO_MASK (the end pointer is data + len, not data + (len & ~63): a length with a
 * tail runs on past the buffer), PAD_TAIL (a tail is hashed as one more block,
 * zero-padded).
 */
typedef unsigned int u32;
typedef unsigned long size_t;

static u32 rol32(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

static u32 be32(const unsigned char *p) {
    return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | (u32)p[3];
}

static void compress(u32 *state, const unsigned char *block) {
    u32 W[80], a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], t, f;
    int i;
    for (i = 0; i < 16; i++)
        W[i] = be32(block + 4 * i);
    for (; i < 80; i++)
        W[i] = rol32(W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16], 1);
    for (i = 0; i < 80; i++) {
        if (i < 20) f = (d ^ (b & (c ^ d))) + 0x5a827999u;
        else if (i < 40) f = (b ^ c ^ d) + 0x6ed9eba1u;
        else if (i < 60) f = ((b & c) | (d & (b | c))) + 0x8f1bbcdcu;
        else f = (b ^ c ^ d) + 0xca62c1d6u;
        t = rol32(a, 5) + f + e + W[i];
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

void hash_bytes(u32 *state, const unsigned char *data, size_t len) {
#ifdef NO_MASK
    const unsigned char *end = data + len;
#else
    const unsigned char *end = data + (len & ~(size_t)63);
#endif
    for (; data != end; data += 64)
        compress(state, data);
#ifdef PAD_TAIL
    if (len & 63) {
        unsigned char last[64];
        size_t i;
        for (i = 0; i < 64; i++)
            last[i] = i < (len & 63) ? data[i] : 0;
        compress(state, last);
    }
#endif
}
