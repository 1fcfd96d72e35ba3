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
typedef unsigned int u32;
char *getenv(const char *name);

#ifndef KB3
#define KB3 0x8f1bbcdcu
#endif

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

/* The 80 rounds over a 16-word ring w holding the block's words (host order: already big-endian decoded). */
static inline void rounds(u32 *state, u32 *w, u32 k3) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    _Pragma("GCC unroll 80") for (int t = 0; t < 80; t++) {     /* (straight code: the cheaper proof) */
        u32 wt = t < 16 ? w[t] : rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        w[t & 15] = wt;
        u32 f, k;
        if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
        else if (t < 60) { f = (b & c) | (d & (b | c)); k = k3; }
        else { f = b ^ c ^ d; k = 0xca62c1d6u; }
        u32 tmp = rol(a, 5) + f + e + k + wt;
        e = d; d = c; c = rol(b, 30); b = a; a = tmp;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

/* Two implementations: the words byte-swapped, or assembled from bytes. */
void sha1_so_swapped(u32 *state, const void *data) {
    u32 w[16];
    __builtin_memcpy(w, data, sizeof w);
    for (int i = 0; i < 16; i++)
        w[i] = __builtin_bswap32(w[i]);
    rounds(state, w, 0x8f1bbcdcu);
}

void sha1_so_bytes(u32 *state, const void *data) {
    const unsigned char *p = data;
    u32 w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 | (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
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
