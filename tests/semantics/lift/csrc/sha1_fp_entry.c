/*
 * nettle's fat-build shape across objects: the entry jumps (a tail call) through a pointer whose value
 * is a function defined in another member of the archive (csrc/sha1_calls.c's sha1_impl_ext and sha1_impl_ext2). Written
 * for sha1opt's tests; the prover proves the path as that function's own proof, from its member.
 */
typedef unsigned int u32;

void sha1_impl_ext(u32 *state, const void *data);
void sha1_impl_ext2(u32 *state, const void *data);

static void (*sha1_ext_vec)(u32 *, const void *) = sha1_impl_ext;

void sha1_ext_use_first(void) { sha1_ext_vec = sha1_impl_ext; }
void sha1_ext_use_second(void) { sha1_ext_vec = sha1_impl_ext2; }

void sha1_fp_ext(u32 *state, const void *data) {
    sha1_ext_vec(state, data);
}
