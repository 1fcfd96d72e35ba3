/*
 * SHA-1 block functions that leave their own code: calls to the C library's
 * memcpy / memset / explicit_bzero, calls to static functions, a jump through
 * a function pointer, and a cmov choosing a constant table as the loop's
 * end-of-data sentinel. Written for sha1opt's tests from FIPS 180-4 section
 * 6.1.2 (not copied from any library); the shapes are those of mbedTLS
 * (memcpy into a local block, a zeroize call before return, the stack
 * protector), wolfSSL (a static Transform), nettle's fat build (a pointer
 * the library sets to one of its implementations) and libgcrypt/nettle
 * assembly (a pointer past the last block replaced by a table's address).
 *
 * Built with -fno-builtin (memcpy/memset stay calls) and
 * -fno-optimize-sibling-calls (calls stay calls). Defects for the tests:
 *   -DMUTANT_COPY      clears word 8 of the copied block (sha1_copy_transform, impl_copy)
 *   -DK3=...           a wrong constant for rounds 40-59 (the static f_k)
 *   -DGLOBAL_VEC       the function pointer is a global symbol (targets not bounded)
 *   -DMUTANT_SENTINEL  cmovb for cmovae: the loop stops after the first block
 *   -DUNKNOWN_CALL     sha1_copy_transform calls an external function with no contract
 *   -DZEROIZE          mbedTLS's mbedtls_platform_zeroize wipes the block instead of explicit_bzero
 */
/* The C library's declarations, written out (no headers: builds for -m32 without the i386 libc headers). */
void *memcpy(void *dst, const void *src, __SIZE_TYPE__ len);
void *memset(void *dst, int c, __SIZE_TYPE__ len);
void explicit_bzero(void *dst, __SIZE_TYPE__ len);

typedef unsigned int u32;
#define NOINLINE __attribute__((noinline))

#ifndef K3
#define K3 0x8f1bbcdcu
#endif

static const u32 K[4] = {0x5a827999u, 0x6ed9eba1u, K3, 0xca62c1d6u};

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

/* The 80 rounds over a 16-word ring w holding the block's words as loaded (little-endian). */
static inline void rounds(u32 *state, u32 *w) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        u32 wt;
        if (t < 16) {
            wt = __builtin_bswap32(w[t]);
        } else {
            wt = rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        }
        w[t & 15] = wt;
        u32 f, k;
        if (t < 20) { f = d ^ (b & (c ^ d)); k = K[0]; }
        else if (t < 40) { f = b ^ c ^ d; k = K[1]; }
        else if (t < 60) { f = (b & c) | (d & (b | c)); k = K[2]; }
        else { f = b ^ c ^ d; k = K[3]; }
        u32 tmp = rol(a, 5) + f + e + k + wt;
        e = d; d = c; c = rol(b, 30); b = a; a = tmp;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

#ifdef UNKNOWN_CALL
extern void sha1_hook(u32 *state);
#endif
#ifdef ZEROIZE
void mbedtls_platform_zeroize(void *buf, __SIZE_TYPE__ len);
#endif

/* memcpy the block into a local buffer, wipe it before returning (mbedTLS's shape). */
void sha1_copy_transform(u32 *state, const void *data) {
    u32 w[16];
    memset(w, 0, sizeof w);
    memcpy(w, data, sizeof w);
#ifdef MUTANT_COPY
    memset(w + 8, 0, 4);
#endif
#ifdef UNKNOWN_CALL
    sha1_hook(state);
#endif
    rounds(state, w);
#ifdef ZEROIZE
    mbedtls_platform_zeroize(w, sizeof w);
#else
    explicit_bzero(w, sizeof w);
#endif
}

/* The round function and constant as a static function, called 80 times (two calls deep). */
static NOINLINE u32 f_k(unsigned long t, u32 b, u32 c, u32 d) {
    if (t < 20) return (d ^ (b & (c ^ d))) + 0x5a827999u;
    if (t < 40) return (b ^ c ^ d) + 0x6ed9eba1u;
    if (t < 60) return ((b & c) | (d & (b | c))) + K3;
    return (b ^ c ^ d) + 0xca62c1d6u;
}

static NOINLINE void transform(u32 *state, const unsigned char *p) {
    u32 w[16];
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (unsigned long t = 0; t < 80; t++) {
        u32 wt;
        if (t < 16) {
            u32 x;
            __builtin_memcpy(&x, p + 4 * t, 4);
            wt = __builtin_bswap32(x);
        } else {
            wt = rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        }
        w[t & 15] = wt;
        u32 tmp = rol(a, 5) + f_k(t, b, c, d) + e + wt;
        e = d; d = c; c = rol(b, 30); b = a; a = tmp;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

/* wolfSSL's shape: the exported function calls its static Transform. */
int sha1_local_transform(u32 *state, const void *data) {
    if (state == 0 || data == 0)
        return -1;
    transform(state, data);
    return 0;
}

/* nettle's fat shape: the entry jumps through a pointer the library sets to one of its implementations. */
static NOINLINE void impl_rolled(u32 *state, const void *data) {
    transform(state, data);
}

static NOINLINE void impl_copy(u32 *state, const void *data) {
    sha1_copy_transform(state, data);
}

#ifdef GLOBAL_VEC
void (*sha1_vec)(u32 *, const void *) = impl_rolled;
#else
static void (*sha1_vec)(u32 *, const void *) = impl_rolled;
#endif

void sha1_use_rolled(void) { sha1_vec = impl_rolled; }
void sha1_use_copy(void) { sha1_vec = impl_copy; }

void sha1_fp_transform(u32 *state, const void *data) {
    sha1_vec(state, data);
}

/* The block loop ends when the pointer to the next block, past the data, has been replaced by K's address. */
void sha1_sentinel_blocks(u32 *state, const void *data, unsigned long nblocks) {
    const unsigned char *p = data, *end = p + 64 * nblocks;
    if (nblocks == 0)
        return;
    for (;;) {
        u32 w[16];
        __builtin_memcpy(w, p, sizeof w);
        rounds(state, w);
        const unsigned char *next = p + 64;
#ifdef MUTANT_SENTINEL
        __asm__("cmp %[end], %[next]\n\tcmovb %[tab], %[next]" : [next] "+r"(next)
                : [end] "r"(end), [tab] "r"((const unsigned char *)K) : "cc");
#else
        __asm__("cmp %[end], %[next]\n\tcmovae %[tab], %[next]" : [next] "+r"(next)
                : [end] "r"(end), [tab] "r"((const unsigned char *)K) : "cc");
#endif
        if (next == (const unsigned char *)K)
            break;
        p = next;
    }
}

/* The block loop calls the static transform once per block (its own round loop is not a block loop). */
void sha1_local_blocks(u32 *state, const void *data, unsigned long nblocks) {
    const unsigned char *p = data;
    for (; nblocks; nblocks--, p += 64)
        transform(state, p);
}

/* An implementation another object's function pointer holds (csrc/sha1_fp_entry.c, linked from an archive). */
void sha1_impl_ext(u32 *state, const void *data) {
    transform(state, data);
}

void sha1_impl_ext2(u32 *state, const void *data) {
    u32 w[16];
    memcpy(w, data, sizeof w);
    rounds(state, w);
}
