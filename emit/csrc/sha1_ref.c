/*
 * A plain C SHA-1 block function: the "what gcc makes of ordinary C" peer
 * in `sha1opt bench`, and the gcc baseline the search is compared with.
 * Written for this project from FIPS 180-4 section 6.1.2 in the usual
 * portable style -- 80 rounds unrolled by the preprocessor, the message
 * schedule in a 16-word ring computed just in time, register names
 * rotated by macro arguments -- so gcc sees straight-line code it can
 * schedule, as in the C implementations people actually ship. No libc, so
 * the same file builds hosted (-m64) and freestanding (-m32).
 */
typedef unsigned int u32;
typedef unsigned long usize;

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define LOAD(p, i) (((u32)(p)[4 * (i)] << 24) | ((u32)(p)[4 * (i) + 1] << 16) | \
                    ((u32)(p)[4 * (i) + 2] << 8) | (u32)(p)[4 * (i) + 3])
#define W(t) (w[(t) & 15] = ROL(w[((t) - 3) & 15] ^ w[((t) - 8) & 15] ^ w[((t) - 14) & 15] ^ w[(t) & 15], 1))

#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))

#define R(a, b, c, d, e, f, k, wt) do { \
        (e) += ROL(a, 5) + f(b, c, d) + (k) + (wt); (b) = ROL(b, 30); } while (0)

/* Five rounds with the names rotated, so the values never move. */
#define R5(t, f, k, wexpr) do { \
        R(a, b, c, d, e, f, k, wexpr(t));     R(e, a, b, c, d, f, k, wexpr((t) + 1)); \
        R(d, e, a, b, c, f, k, wexpr((t) + 2)); R(c, d, e, a, b, f, k, wexpr((t) + 3)); \
        R(b, c, d, e, a, f, k, wexpr((t) + 4)); } while (0)

#define WL(t) (w[t] = LOAD(p, t))

void sha1_ref_block_data_order(u32 *state, const void *data, usize nblocks) {
    const unsigned char *p = data;
    while (nblocks--) {
        u32 w[16];
        u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
        R5(0, F1, 0x5a827999u, WL);  R5(5, F1, 0x5a827999u, WL);
        R5(10, F1, 0x5a827999u, WL);
        R(a, b, c, d, e, F1, 0x5a827999u, WL(15));
        /* rounds 16-19 continue with the schedule; names rotated by one */
        R(e, a, b, c, d, F1, 0x5a827999u, W(16)); R(d, e, a, b, c, F1, 0x5a827999u, W(17));
        R(c, d, e, a, b, F1, 0x5a827999u, W(18)); R(b, c, d, e, a, F1, 0x5a827999u, W(19));
        R5(20, F2, 0x6ed9eba1u, W);  R5(25, F2, 0x6ed9eba1u, W);
        R5(30, F2, 0x6ed9eba1u, W);  R5(35, F2, 0x6ed9eba1u, W);
        R5(40, F3, 0x8f1bbcdcu, W);  R5(45, F3, 0x8f1bbcdcu, W);
        R5(50, F3, 0x8f1bbcdcu, W);  R5(55, F3, 0x8f1bbcdcu, W);
        R5(60, F2, 0xca62c1d6u, W);  R5(65, F2, 0xca62c1d6u, W);
        R5(70, F2, 0xca62c1d6u, W);  R5(75, F2, 0xca62c1d6u, W);
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
        p += 64;
    }
}
