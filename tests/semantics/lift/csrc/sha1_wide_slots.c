/*
 * A one-block SHA-1 function in the shape of a context whose words are 64-bit
 * slots (written for sha1opt's tests from FIPS 180-4, not from any library):
 * the caller passes a pointer X into the MIDDLE of its context; the 5 state
 * words are the low halves of the 64-bit slots X[-11..-7] (their upper halves
 * hold whatever the caller left there), the message schedule lives in the
 * 16 slots X[-6..9] of the same context, and the block is 64 big-endian bytes.
 * The working variables are 64-bit, so their upper halves carry garbage that
 * only the low 32 bits of each result may ignore. Under
 * "(state@-0x58 wide + workspace@-0x30[32], data)" it is SHA-1. The tests
 * make its mutants by patching one instruction of the compiled object.
 */
typedef unsigned int u32;
typedef unsigned long long u64;

struct context {
    union { u32 w[16]; unsigned char b[64]; } u;
    u64 size;
    u64 slots[22];
};

#define ROL32(x, n) ((u32)(((u32)(x) << (n)) | ((u32)(x) >> (32 - (n)))))

__attribute__((noinline)) void wide_compress(u64 *X, const unsigned char *block) {
    u64 a = X[-11], b = X[-10], c = X[-9], d = X[-8], e = X[-7];
    _Pragma("GCC unroll 80") for (int t = 0; t < 80; t++) {
        u64 *w = &X[-6 + (t & 15)];
        if (t < 16) {
            const unsigned char *p = block + 4 * t;
            *w = (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
        } else {
            *w = ROL32(X[-6 + ((t - 3) & 15)] ^ X[-6 + ((t - 8) & 15)] ^ X[-6 + ((t - 14) & 15)] ^ *w, 1);
        }
        u64 f, k;
        if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
        else if (t < 60) { f = (b & c) | (d & (b | c)); k = 0x8f1bbcdcu; }
        else { f = b ^ c ^ d; k = 0xca62c1d6u; }
        u64 tmp = ROL32(a, 5) + f + e + k + *w;
        e = d; d = c; c = ROL32(b, 30); b = a; a = tmp;
    }
    X[-11] += a; X[-10] += b; X[-9] += c; X[-8] += d; X[-7] += e;
}

/* The caller's view: NSS-like, the pointer is &slots[11]. */
void context_compress(struct context *ctx, const unsigned char *block) { wide_compress(&ctx->slots[11], block); }
