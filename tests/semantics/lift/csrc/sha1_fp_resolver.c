/*
 * nettle's fat-build shape in one shared object: the exported entry jumps through a static function pointer
 * whose initial value is a resolver stub; the stub chooses one of two exported implementations (by getenv, as
 * nettle's fat_init reads NETTLE_FAT_OVERRIDE), stores it into the pointer and jumps through it again.
 * Written for sha1opt's tests from FIPS 180-4 section 6.1.2 (not copied from any library). Built with
 * gcc -O2 -fno-tree-vectorize -shared -fPIC: the pointer's initial value is an R_X86_64_RELATIVE relocation, the implementations'
 * addresses come from GOT slots (they are exported: another object could interpose them).
 *   -DKB3=...        a wrong constant for rounds 40-59 in sha1_so_bytes only
 *   -DEXPORTED_VEC   the pointer is exported (a .dynsym entry: another object may store to it)
 */
#include "sha1_rounds.h"
char *getenv(const char *name);

#ifndef KB3
#define KB3 0x8f1bbcdcu
#endif

/* Two implementations: the words byte-swapped, or assembled from bytes. */
void sha1_so_swapped(u32 *state, const void *data) {
    u32 w[16];
    __builtin_memcpy(w, data, sizeof w);
    for (int i = 0; i < 16; i++)
        w[i] = __builtin_bswap32(w[i]);
    rounds(state, w, 0x8f1bbcdcu);
}

void sha1_so_bytes(u32 *state, const void *data) {
    u32 w[16];
    load_words(w, data);
    rounds(state, w, KB3);
}

static void sha1_so_resolve(u32 *state, const void *data);
#ifdef EXPORTED_VEC
void (*sha1_so_vec)(u32 *, const void *) = sha1_so_resolve;
#else
static void (*sha1_so_vec)(u32 *, const void *) = sha1_so_resolve;
#endif

static void sha1_so_resolve(u32 *state, const void *data) {
    /* (a different empty asm after each store: the two stores stay two, not one store of either value) */
    if (getenv("SHA1_SO_BYTES")) { sha1_so_vec = sha1_so_bytes; __asm__ volatile("# bytes" ::: "memory"); }
    else { sha1_so_vec = sha1_so_swapped; __asm__ volatile("# swapped" ::: "memory"); }
    sha1_so_vec(state, data);
}

void sha1_so_compress(u32 *state, const void *data) {
    sha1_so_vec(state, data);
}
