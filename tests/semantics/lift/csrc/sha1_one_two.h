/*
 * The two SHA-1 implementations the tests' C entries choose between (sha1_setcc_index.c, sha1_getenv_bytes.c):
 * sha1_one and sha1_two(state, data), each the 80 rounds of FIPS 180-4 section 6.1.2 over the block's
 * big-endian words (sha1_rounds.h). sha1_two's constant for rounds 40-59 is K3_TWO (-DK3_TWO=0x8f1bbcddu: a
 * wrong implementation beside a right one). Written for sha1opt's tests (not copied from any library).
 */
#include "sha1_rounds.h"

static inline void block(u32 *state, const unsigned char *data, u32 k3) {
    u32 w[16];
    load_words(w, data);
    rounds(state, w, k3);
}

#define NOINLINE __attribute__((noinline, used))

#ifndef K3_TWO
#define K3_TWO 0x8f1bbcdcu
#endif

NOINLINE void sha1_one(u32 *state, const void *data) { block(state, data, 0x8f1bbcdcu); }
NOINLINE void sha1_two(u32 *state, const void *data) { block(state, data, K3_TWO); }
