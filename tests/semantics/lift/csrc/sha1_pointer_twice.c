/*
 * A wrapper that tail-jumps through a function pointer, called twice on one
 * path (as a padding routine calls a compression twice): the pointer's value
 * is code of this object, so the path jumps to it once in each call.
 * Written for sha1opt's tests (not copied from any library).
 */
#include "sha1_rounds.h"

static void impl(u32 *state, const void *data) {
    u32 w[16];
    load_words(w, data);
    rounds(state, w, 0x8f1bbcdcu);
}

static void (*volatile vec)(u32 *, const void *) = impl;

__attribute__((noinline)) static void wrapper(u32 *state, const void *data) { vec(state, data); }

void twice(u32 *state, const void *data) {
    wrapper(state, data);
    wrapper(state, (const unsigned char *)data + 64);
}
