/*
 * One-block SHA-1 functions that overwrite the caller's block, written for
 * this project's tests: sha1_in_place computes the schedule in the caller's
 * 16 host-order words (W[i & 15], as glib's sha1_transform does), and
 * sha1_wipe reads the 64 big-endian bytes and then zeroes them (as
 * pam_timestamp's does). Under "data clobbered" / "words clobbered" both
 * are SHA-1; under the plain roles the writes are violations.
 *
 * -DWRONG_K2 changes the constant of rounds 20-39 (a mutant); -DTAIL_JUMP adds
 * flip_then_jump (below).
 */
typedef unsigned int u32;
typedef unsigned char u8;

#ifndef WRONG_K2
#define K2 0x6ED9EBA1u
#else
#define K2 0x6ED9EBA0u
#endif

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void rounds(u32 *state, u32 *w) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int i = 0; i < 80; i++) {
        if (i >= 16)
            w[i & 15] = ROL(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1);
        u32 f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }
        else if (i < 40) { f = b ^ c ^ d; k = K2; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6u; }
        u32 t = ROL(a, 5) + f + e + k + w[i & 15];
        e = d; d = c; c = ROL(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

__attribute__((noinline)) void sha1_in_place(u32 *state, u32 *words) {
    rounds(state, words);
}

__attribute__((noinline, optimize("no-tree-vectorize"))) void sha1_wipe(u32 *state, u8 *data) {
    u32 w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (u32)data[4 * i] << 24 | (u32)data[4 * i + 1] << 16 | (u32)data[4 * i + 2] << 8 | data[4 * i + 3];
    rounds(state, w);
    for (int i = 0; i < 16; i++)
        ((volatile u32 *)data)[i] = 0;
}

#ifdef TAIL_JUMP
/* -DTAIL_JUMP: a wrapper that changes the block, then tail-jumps to a block function of another object. */
void external_block(u32 *state, u32 *words);

void flip_then_jump(u32 *state, u32 *words) {
    words[0] ^= 1;
    external_block(state, words);
}
#endif
