/*
 * A one-block SHA-1 whose byte order is tested at run time, the idiom of Berkeley DB's hmac/sha1.c: the block
 * copied to a 64-byte workspace on the stack, then an is-big-endian function (a long written 1 through a union,
 * its last byte read back) decides per round 0-15 whether a word is used as loaded or byte-swapped first.
 * Written for sha1opt's tests from FIPS 180-4 section 6.1.2 (not copied from any library).
 *
 * sha1_runtime_order(state, data) is SHA-1 unless:
 *   -DDB_PRECEDENCE   the byte-order choice is written as a macro without outer parentheses, as Berkeley DB
 *                     5.3 writes its blk0: in `e += f + BLK0(t) + K + rol(a, 5)` the `?:` then takes
 *                     `f + is_big` as its condition, so on a little-endian machine a round whose f is not 0
 *                     adds the unswapped word alone -- gcc compiles a branch on the sum (add; jne): not SHA-1
 *   -DSHORT_COPY      only 60 bytes are copied to the workspace: round 15 reads a word nothing wrote
 *   -DPAST_END        a zero is written one word past the workspace's end
 * and, on any of these,
 *   -DSTATIC_WORKSPACE   the workspace is a static buffer (in .bss), not on the stack, as in other copies of
 *                        the same public-domain code (Berkeley DB 5.3 keeps it on the stack)
 * and with
 *   -DLAZY_STATIC     the byte order is kept in a static set on first use (`static int is_reverse = -1`), as
 *                     other copies of the same public-domain code do: still SHA-1 (the static holds -1 or 0)
 * unless also
 *   -DLAZY_WRONG      the static is set to the negated test (1 on a little-endian machine): words unswapped
 *   -DSHARED_FLAG     the static is at file scope and sha1opt_set_order(v) stores any v there
 *
 * Built with gcc -O2 -c for x86-64.
 */
#include <string.h>

typedef unsigned int u32;

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

/* A value the code computes from constants, in its own function (noipa: the call stays a call). */
__attribute__((noipa, used)) int sha1opt_isbigendian(void) {
    union { long l; char c[sizeof(long)]; } u;
    u.l = 1;
    return u.c[sizeof(long) - 1] == 1;
}

#ifdef SHARED_FLAG
/* the static at file scope, which another function sets to any value: not the block function's own */
static int is_reverse = -1;
__attribute__((noipa, used)) void sha1opt_set_order(int v) { is_reverse = v; }
#endif

#define SWAP(x) ((rol((x), 24) & 0xFF00FF00u) | (rol((x), 8) & 0x00FF00FFu))
#ifdef DB_PRECEDENCE
#define BLK0(i) is_big ? w[i] : (w[i] = SWAP(w[i]))
#else
#define BLK0(i) (is_big ? w[i] : (w[i] = SWAP(w[i])))
#endif
#ifdef SHORT_COPY
#define COPIED 60
#else
#define COPIED 64
#endif

void sha1_runtime_order(u32 *state, const unsigned char *data) {
#ifdef STATIC_WORKSPACE
    static u32 w[16];
#else
    u32 w[16];
#endif
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], t;
    int is_big;
    memcpy(w, data, COPIED);
#ifdef PAST_END
    ((volatile u32 *)w)[16] = 0;
#endif
#ifdef LAZY_STATIC
#ifndef SHARED_FLAG
    static int is_reverse = -1;
#endif
    if (is_reverse == -1)
#ifdef LAZY_WRONG
        is_reverse = !sha1opt_isbigendian();
#else
        is_reverse = sha1opt_isbigendian();
#endif
    is_big = is_reverse;
#else
    is_big = sha1opt_isbigendian();
#endif
    for (int i = 0; i < 80; i++) {
        u32 f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        if (i < 16) {
            t = e + f + BLK0(i) + k + rol(a, 5);
        } else {
            w[i & 15] = rol(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1);
            t = e + f + w[i & 15] + k + rol(a, 5);
        }
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}
