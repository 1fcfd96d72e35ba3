/*
 * A resolver-style entry in an archive, as nettle's fat build has: entry() jumps through a
 * function pointer whose initial value is the resolver init(); init() stores
 * the implementation (sha1_ref_block_data_order, another archive member: the
 * project's emit/csrc/sha1_ref.c) and calls it; a constructor stores it
 * first, so a program only reaches init() when called before constructors.
 * -DEXTRA=+1 makes init() hash one block too many (the wrong variant);
 * -DSTORE= leaves the pointer unchanged, so init() jumps through it to itself.
 * Written for sha1opt's tests (not copied from any library).
 */
typedef unsigned int u32;
typedef unsigned long usize;

#ifndef EXTRA
#define EXTRA
#endif
#ifndef STORE
#define STORE vec = sha1_ref_block_data_order;
#endif

extern void sha1_ref_block_data_order(u32 *state, const void *data, usize nblocks);
static void init(u32 *s, const void *d, usize n);
static void (*vec)(u32 *, const void *, usize) = init;

static void init(u32 *s, const void *d, usize n) {
    STORE
    vec(s, d, n EXTRA);
}

__attribute__((constructor)) static void setup(void) { vec = sha1_ref_block_data_order; }

void entry(u32 *s, const void *d, usize n) { vec(s, d, n); }
