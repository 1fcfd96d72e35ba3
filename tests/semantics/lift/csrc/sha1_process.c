/*
 * A SHA-1 block function in the shape of libiberty's sha1_process_block, written for
 * sha1opt's tests (only the public interface's shape is imitated; the compression is
 * sha1_ifaces.c's, written from FIPS 180-4):
 *
 *   process_block(buffer, len, ctx)  -- hashes the blocks of buffer while the pointer is below
 *                                       buffer + len (a length that is no multiple of 64 would
 *                                       have its partial last block read whole), the state in
 *                                       ctx->state (byte 0), ctx->total[2] at byte 20
 *
 * Built with -D: COUNTER (also adds len to the 64-bit byte counter total with a carry),
 * NO_CARRY (with COUNTER: the low word's carry is dropped), WRITE_BUFLEN (also writes ctx->buflen),
 * GROWING (adds the offset of each block to total[0] in the loop: a step that is no constant),
 * PER_BLOCK (counts 64 bytes, with the carry, after each block instead of len up front: also right),
 * LATE (counts len in the last block's iteration, right, but also 64 more in the second of three or more
 * blocks: wrong from three blocks on, and the first iteration never touches the counter).
 */
#include "sha1_ifaces.c"

struct pctx { u32 state[5]; u32 total[2]; u32 buflen; u32 buffer[32]; };

void process_block(const void *buffer, size_t len, struct pctx *ctx) {
    const unsigned char *p = buffer, *end = p + len;
    u32 W[16];
    int i;
#ifdef COUNTER
    ctx->total[0] += len;
#ifdef NO_CARRY
    ctx->total[1] += len >> 31 >> 1;
#else
    ctx->total[1] += (len >> 31 >> 1) + (ctx->total[0] < len);
#endif
#endif
#ifdef WRITE_BUFLEN
    ctx->buflen = 0;
#endif
    for (; p < end; p += 64) {
        for (i = 0; i < 16; i++)
            W[i] = be32(p + 4 * i);
        compress(ctx->state, W);
#ifdef PER_BLOCK
        ctx->total[0] += 64;
        ctx->total[1] += ctx->total[0] < 64;
#endif
#ifdef LATE
        if (p == (const unsigned char *)buffer + 64 && p + 64 < end)
            ctx->total[0] += 64;
        if (p + 64 >= end) {
            ctx->total[0] += len;
            ctx->total[1] += ctx->total[0] < len;
        }
#endif
#ifdef GROWING
        ctx->total[0] += (u32)(p - (const unsigned char *)buffer);
#endif
    }
}
