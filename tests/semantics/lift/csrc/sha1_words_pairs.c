/*
 * A C SHA-1 block function on host-order words, (digest, words) as glib's and
 * libdbus's take them, written for this project's tests. gcc -O2 vectorizes
 * the copy of the 16 words and the schedule loop, and moves two words at a
 * time through 64-bit general registers (movq %xmm2, %rsi; mov 0x10(%rsi),
 * %rcx; movq %rcx, %xmm1) -- values.Lanes.
 *
 * -DSCHED_ROT=2 rotates the schedule by 2 instead of 1 (a mutant); -DWORDS_INLINE makes the function a
 * static always-inline one, for a file that #includes this one to wrap it (tests/cli/test_scan.py).
 */
typedef unsigned int u32;

#ifndef SCHED_ROT
#define SCHED_ROT 1
#endif

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

#ifdef WORDS_INLINE
static inline __attribute__((always_inline))
#endif
void sha1_words_pairs(u32 *state, const u32 *words) {
    u32 w[80], a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int i = 0; i < 16; i++) w[i] = words[i];
    for (int i = 16; i < 80; i++) w[i] = ROL(w[i-3] ^ w[i-8] ^ w[i-14] ^ w[i-16], SCHED_ROT);
    for (int i = 0; i < 80; i++) {
        u32 f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1u; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6u; }
        u32 t = ROL(a, 5) + f + e + k + w[i];
        e = d; d = c; c = ROL(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}
