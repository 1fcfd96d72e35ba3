/*
 * A C SHA-1 block function that copies each block into a local array with
 * memcpy before reading it (FIPS 180-4 section 6.1.2; written for sha1opt's
 * tests). Built with -fno-builtin the copy stays a call to the C library's
 * memcpy; -fstack-protector-all adds the %fs:0x28 guard and a call to
 * __stack_chk_fail. -DK3=... changes the constant of rounds 40-59 (a mutant).
 */
typedef unsigned int u32;
typedef unsigned long usize;
void *memcpy(void *, const void *, usize);

#ifndef K3
#define K3 0x8f1bbcdcu
#endif

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

void sha1_memcpy_block_data_order(u32 *state, const void *data, usize nblocks) {
    const unsigned char *p = data;
    for (; nblocks; nblocks--, p += 64) {
        u32 blk[16], w[80];
        memcpy(blk, p, 64);
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
