/*
 * A C SHA-1 block function that computes the whole message schedule into an
 * 80-word array on its own stack before the rounds -- the textbook layout of
 * FIPS 180-4 section 6.1.2 -- written for this project's tests. The byte-swap
 * of the 16 block words vectorizes (pshufb) and the compiler stores it to the
 * stack array with aligned moves (movaps/movdqa): the alignment precondition
 * the ABI's entry alignment discharges.
 *
 * -DVIA_MEMCPY copies each block into a local array with a call to the C
 * library's memcpy first (with -fno-builtin the call stays); -DK3=... changes
 * the constant of rounds 40-59 (a mutant).
 */
typedef unsigned int u32;
typedef unsigned long usize;
void *memcpy(void *, const void *, usize);

#ifndef K3
#define K3 0x8f1bbcdcu
#endif

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

void sha1_schedule_block_data_order(u32 *state, const void *data, usize nblocks) {
    const u32 *p = data;
    for (; nblocks; nblocks--, p += 16) {
        u32 w[80];
#ifdef VIA_MEMCPY
        u32 blk[16];
        memcpy(blk, p, 64);
#else
        const u32 *blk = p;
#endif
        for (int t = 0; t < 16; t++)
            w[t] = __builtin_bswap32(blk[t]);
        for (int t = 16; t < 80; t++)
            w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
        u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
        for (int t = 0; t < 80; t++) {
            u32 f, k;
            if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
            else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
            else if (t < 60) { f = (b & c) | (d & (b | c)); k = K3; }
            else { f = b ^ c ^ d; k = 0xca62c1d6u; }
            u32 tmp = rol(a, 5) + f + e + k + w[t];
            e = d; d = c; c = rol(b, 30); b = a; a = tmp;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
    }
}
