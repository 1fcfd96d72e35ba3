/*
 * One-block SHA-1 in the style of the Linux kernel's lib/sha1.c: no block
 * count, the caller passes a scratch workspace the function may write.
 * Written for sha1opt's tests from FIPS 180-4 section 6.1.2 (not copied
 * from any kernel version); two workspace shapes, as the kernel has had:
 *
 *   sha_transform80(digest, data, W)  -- W[80]: the whole message schedule
 *                                        expanded first, then 80 rounds
 *                                        (the 2007 interface);
 *   sha_transform16(digest, data, W)  -- W[16]: the schedule as a ring,
 *                                        computed round by round.
 *
 * Both leave digest := compress(digest, data[0..63]) and the workspace
 * changed (the caller wipes it). The tests build defects with -D:
 * -DK3=... changes the constant of rounds 40-59, -DREAD_WORKSPACE makes
 * sha_transform16 mix the caller's (unwritten) workspace into W[0..15].
 */
typedef unsigned int u32;

#ifndef K3
#define K3 0x8f1bbcdcu
#endif

static u32 rol32(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

static u32 be32(const unsigned char *p) {
    return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | (u32)p[3];
}

static u32 f_k(int t, u32 b, u32 c, u32 d) {
    if (t < 20) return (d ^ (b & (c ^ d))) + 0x5a827999u;
    if (t < 40) return (b ^ c ^ d) + 0x6ed9eba1u;
    if (t < 60) return ((b & c) | (d & (b | c))) + K3;
    return (b ^ c ^ d) + 0xca62c1d6u;
}

void sha_transform80(u32 *digest, const char *data, u32 *W) {
    const unsigned char *in = (const unsigned char *)data;
    u32 a, b, c, d, e, t, i;
    for (i = 0; i < 16; i++)
        W[i] = be32(in + 4 * i);
    for (i = 16; i < 80; i++)
        W[i] = rol32(W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16], 1);
    a = digest[0]; b = digest[1]; c = digest[2]; d = digest[3]; e = digest[4];
    for (i = 0; i < 80; i++) {
        t = rol32(a, 5) + f_k(i, b, c, d) + e + W[i];
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    digest[0] += a; digest[1] += b; digest[2] += c; digest[3] += d; digest[4] += e;
}

void sha_transform16(u32 *digest, const char *data, u32 *W) {
    const unsigned char *in = (const unsigned char *)data;
    u32 a = digest[0], b = digest[1], c = digest[2], d = digest[3], e = digest[4], t, w;
    int i;
    for (i = 0; i < 80; i++) {
        if (i < 16) {
            w = be32(in + 4 * i);
#ifdef READ_WORKSPACE
            w ^= W[i];
#endif
        } else
            w = rol32(W[(i + 13) & 15] ^ W[(i + 8) & 15] ^ W[(i + 2) & 15] ^ W[i & 15], 1);
        W[i & 15] = w;
        t = rol32(a, 5) + f_k(i, b, c, d) + e + w;
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    digest[0] += a; digest[1] += b; digest[2] += c; digest[3] += d; digest[4] += e;
}

/* SHA1Transform(uint32_t state[5], const unsigned char buffer[64]): one block, its own stack. */
void SHA1Transform(u32 state[5], const unsigned char buffer[64]) {
    u32 W[16];
    sha_transform16(state, (const char *)buffer, W);
}
