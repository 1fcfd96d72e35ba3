/*
 * A SHA-1 block entry whose implementation is chosen by the bytes of an environment variable: the shape of a fat
 * build's override (nettle's NETTLE_FAT_OVERRIDE: `cmpl $0x6e736561, (%r15)` on getenv's string). Written for
 * sha1opt's tests from FIPS 180-4 section 6.1.2 (not copied from any library).
 *
 * sha1_getenv(state, data) jumps through a static function pointer that first holds pick(); pick() reads
 * getenv("SHA1OPT_GETENV_IMPL") and, when it is set and its first 4 bytes are "fast" (one 32-bit compare of the
 * string), stores sha1_two into the pointer and calls it, else the same with sha1_one. Both implementations are
 * SHA-1 unless:
 *   -DK3_TWO=...   sha1_two's constant for rounds 40-59 (a wrong one: only the "fast" path is wrong)
 *
 * Built with gcc -O2 -c (x86-64).
 */
#include <stdlib.h>
#include <string.h>

#include "sha1_one_two.h"

typedef void compress_fn(u32 *state, const void *data);

static compress_fn pick;
static compress_fn *impl = pick;

static NOINLINE void pick(u32 *state, const void *data) {
    const char *v = getenv("SHA1OPT_GETENV_IMPL");
    u32 head = 0;
    if (v != NULL)
        memcpy(&head, v, 4);                  /* the string's first 4 bytes: one 32-bit load */
    if (v != NULL && head == 0x74736166u) {   /* "fast", little-endian */
        impl = sha1_two;
        sha1_two(state, data);
    } else {
        impl = sha1_one;
        sha1_one(state, data);
    }
}

void sha1_getenv(u32 *state, const void *data) { impl(state, data); }
