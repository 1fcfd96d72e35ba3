/*
 * A shared object's SHA-1, written for this project's tests, reaching what
 * a linked object reaches only through its PLT and GOT (gcc -O2 -fPIC
 * -shared): sha1_block wipes its schedule with memset@PLT (-fno-builtin);
 * sha1_wrap tail-jumps through the PLT to sha1_block, a global function of
 * the same object; sha1_flagged reads the global flag use_second through
 * its GOT slot and calls one of two copies of the block function.
 *
 * -DWRONG_K4 changes the constant of rounds 60-79 in sha1_second (a mutant
 * on one side of the flag).
 */
typedef unsigned int u32;
typedef unsigned char u8;
typedef unsigned long usize;
void *memset(void *, int, usize);

int use_second;

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

#define BLOCK(NAME, K4)                                                                           \
    void NAME(u32 *state, const u8 *data) {                                                      \
        u32 w[80], a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];           \
        for (int i = 0; i < 16; i++)                                                              \
            w[i] = (u32)data[4*i] << 24 | (u32)data[4*i+1] << 16 | (u32)data[4*i+2] << 8 | data[4*i+3]; \
        for (int i = 16; i < 80; i++) w[i] = ROL(w[i-3] ^ w[i-8] ^ w[i-14] ^ w[i-16], 1);         \
        for (int i = 0; i < 80; i++) {                                                            \
            u32 f, k;                                                                             \
            if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }                              \
            else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1u; }                                  \
            else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }                \
            else { f = b ^ c ^ d; k = K4; }                                                       \
            u32 t = ROL(a, 5) + f + e + k + w[i];                                                 \
            e = d; d = c; c = ROL(b, 30); b = a; a = t;                                           \
        }                                                                                         \
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;                \
        memset(w, 0, sizeof w);                                                                   \
        __asm__ volatile("" : : "r"(w) : "memory");                                               \
    }

BLOCK(sha1_block, 0xCA62C1D6u)
#ifdef WRONG_K4
BLOCK(sha1_second, 0xCA62C1D7u)
#else
BLOCK(sha1_second, 0xCA62C1D6u)
#endif

void sha1_wrap(u32 *state, const u8 *data) { sha1_block(state, data); }

void sha1_flagged(u32 *state, const u8 *data) {
    if (use_second)
        sha1_second(state, data);
    else
        sha1_block(state, data);
}
