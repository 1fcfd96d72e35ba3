/*
 * SHA-1 block functions in the interface shapes other libraries ship, written
 * for sha1opt's tests from FIPS 180-4 section 6.1.2 (no library's code is
 * copied; only the shapes of their public interfaces are imitated):
 *
 *   ctx_process(ctx, data)              -- the state inside a context struct
 *                                          {u32 total[2]; u32 state[5]; u8 buffer[64]}:
 *                                          state@8 (mbedTLS's struct layout)
 *   checked_transform(ctx, words)       -- NULL checks on both pointers, the state at
 *                                          byte 0x4c of its context, the block as 16
 *                                          host-order words (wolfSSL's shape)
 *   hash_multiple(state, in, len, order)-- a byte length, floor(len/64) blocks; order 1:
 *                                          big-endian bytes, else host-order words
 *                                          (Crypto++'s SHA-NI entry's shape)
 *   hash_block_words(state, words)      -- one block of host-order words (Crypto++'s
 *                                          SHA1_HashBlock_CXX shape)
 *   kind_process(ctx, data)             -- reads a 64-bit field of its context (state@8) and
 *                                          loads the block one of two equal ways by it
 *
 * Defects built with -D: WRITE_TOTAL (ctx_process also counts bytes in ctx->total),
 * NULL_INVERTED (checked_transform returns early when ctx is NOT null),
 * SHORT_LOOP (hash_multiple loops while len > 64: the last whole block is skipped),
 * SELECT_BY_CMOV (hash_multiple picks each word's load by the order inside the loop: gcc -O2 selects
 * the two loaded values with a cmov on the constant),
 * KIND_RETURNS (kind_process returns early for one value of the caller's field),
 * K3=... (the constant of rounds 40-59).
 */
typedef unsigned int u32;
typedef unsigned long size_t;

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

/* compress(state, W[0..15]): the W ring in the caller's frame */
static inline __attribute__((always_inline)) void compress(u32 *state, u32 *W) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], t, w;
    int i;
    for (i = 0; i < 80; i++) {
        if (i < 16)
            w = W[i];
        else
            w = W[i & 15] = rol32(W[(i + 13) & 15] ^ W[(i + 8) & 15] ^ W[(i + 2) & 15] ^ W[i & 15], 1);
        t = rol32(a, 5) + f_k(i, b, c, d) + e + w;
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

struct ctx { u32 total[2]; u32 state[5]; unsigned char buffer[64]; };

int ctx_process(struct ctx *ctx, const unsigned char data[64]) {
    u32 W[16];
    int i;
    for (i = 0; i < 16; i++)
        W[i] = be32(data + 4 * i);
    compress(ctx->state, W);
#ifdef WRITE_TOTAL
    ctx->total[0] += 64;
#endif
    return 0;
}

struct wctx { u32 buffer[16]; u32 buffLen; u32 loLen; u32 hiLen; u32 digest[5]; u32 heap; };

int checked_transform(struct wctx *sha, const u32 *data) {
    u32 W[16];
    int i;
#ifdef NULL_INVERTED
    if (sha != 0 || data == 0)
#else
    if (sha == 0 || data == 0)
#endif
        return -173;
    for (i = 0; i < 16; i++)
        W[i] = data[i];
    compress(sha->digest, W);
    return 0;
}

void hash_multiple(u32 *state, const u32 *data, size_t len, int order) {
    u32 W[16];
    int i;
#ifdef SHORT_LOOP
    for (; len > 64; len -= 64, data += 16) {
#else
    for (; len >= 64; len -= 64, data += 16) {
#endif
#ifdef SELECT_BY_CMOV
        for (i = 0; i < 16; i++)
            W[i] = order == 1 ? be32((const unsigned char *)(data + i)) : data[i];
#else
        if (order == 1)
            for (i = 0; i < 16; i++)
                W[i] = be32((const unsigned char *)(data + i));
        else
            for (i = 0; i < 16; i++)
                W[i] = data[i];
#endif
        compress(state, W);
    }
}

void hash_block_words(u32 *state, const u32 *data) {
    u32 W[16];
    int i;
    for (i = 0; i < 16; i++)
        W[i] = data[i];
    compress(state, W);
}

struct kctx { unsigned long kind; u32 state[5]; };

int kind_process(struct kctx *ctx, const unsigned char data[64]) {
    u32 W[16];
    int i;
#ifdef KIND_RETURNS
    if (ctx->kind == 7)
        return -1;
#endif
    if (ctx->kind == 1)
        for (i = 0; i < 16; i++)
            W[i] = be32(data + 4 * i);
    else
        for (i = 0; i < 16; i++)
            W[i] = __builtin_bswap32(((const u32 *)data)[i]);
    compress(ctx->state, W);
    return 0;
}
