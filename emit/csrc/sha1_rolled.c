/*
 * A rolled C SHA-1 block function: one loop over the 80 rounds with the
 * round function and constant chosen by the round number, and the message
 * schedule in a 16-word ring -- the other shape of portable C people ship
 * (small code, no macros). Written for this project from FIPS 180-4
 * section 6.1.2; the whole-function prover must handle it as compilers
 * leave it (the inner loop unrolled or not, the round selection as branches).
 */
typedef unsigned int u32;
typedef unsigned long usize;

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

void sha1_rolled_block_data_order(u32 *state, const void *data, usize nblocks) {
    const unsigned char *p = data;
    for (; nblocks; nblocks--, p += 64) {
        u32 w[16];
        u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
        for (int t = 0; t < 80; t++) {
            u32 wt;
            if (t < 16) {
                wt = (u32)p[4 * t] << 24 | (u32)p[4 * t + 1] << 16 | (u32)p[4 * t + 2] << 8 | (u32)p[4 * t + 3];
            } else {
                wt = rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
            }
            w[t & 15] = wt;
            u32 f, k;
            if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
            else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
            else if (t < 60) { f = (b & c) | (d & (b | c)); k = 0x8f1bbcdcu; }
            else { f = b ^ c ^ d; k = 0xca62c1d6u; }
            u32 tmp = rol(a, 5) + f + e + k + wt;
            e = d; d = c; c = rol(b, 30); b = a; a = tmp;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
    }
}
