/*
 * A SHA-1 block function whose one argument is an object holding both the
 * block and the state, in the layout LLVM's SHA1 class keeps them (written
 * for this project's tests from FIPS 180-4): the 16 block words as host
 * words at +0, the 5 state words at +0x40, then fields of the hasher's own
 * (a byte count, a buffer offset) that the block function must not write.
 * The schedule is computed in the block words (W[i & 15]), so the block is
 * clobbered. Under "(state@0x40 + words@0 clobbered)" it is SHA-1.
 *
 * Mutant: -DPAST_STATE also writes the byte at +0x54, one past the state
 * (the tests make their other mutants by patching one instruction).
 */
typedef unsigned int u32;
typedef unsigned char u8;

struct hasher {
    u32 block[16];
    u32 state[5];
    u32 count;
    u8 offset;
};

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

__attribute__((noinline)) void hasher_block(struct hasher *h) {
    u32 *w = h->block;
    u32 a = h->state[0], b = h->state[1], c = h->state[2], d = h->state[3], e = h->state[4];
    for (int i = 0; i < 80; i++) {
        if (i >= 16)
            w[i & 15] = ROL(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1);
        u32 f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1u; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6u; }
        u32 t = ROL(a, 5) + f + e + k + w[i & 15];
        e = d; d = c; c = ROL(b, 30); b = a; a = t;
    }
    h->state[0] += a; h->state[1] += b; h->state[2] += c; h->state[3] += d; h->state[4] += e;
#ifdef PAST_STATE
    *(volatile u8 *)&h->count = 0;
#endif
}
