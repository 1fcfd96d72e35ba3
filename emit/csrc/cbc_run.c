/*
 * Native run of a stitched AES-CBC + SHA-1 function (emit/cbc_confirm.py), linked with the function renamed
 * sha1opt_cbc: aesni_cbc_sha1_enc(inp, out, blocks, key, iv, ctx, in0). Protocol on stdin / stdout, all words
 * little-endian uint32, records repeated:
 *
 *   in:  nblocks, key[61] (60 round-key words, then the aesenc round count: an AES_KEY), iv[4], state[5],
 *        plain[16 * nblocks], data[16 * nblocks]
 *   out: cipher[16 * nblocks], iv[4], state[5]
 *
 * Hosted (a libc program): the buffers are static, at most MAX_BLOCKS blocks a record.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_BLOCKS 64

extern void sha1opt_cbc(const void *inp, void *out, size_t blocks, const void *key, unsigned char *iv,
                        uint32_t *state, const void *in0);

static uint32_t key[64] __attribute__((aligned(16)));
static uint32_t iv[4] __attribute__((aligned(16)));
static uint32_t state[8] __attribute__((aligned(16)));
static uint32_t plain[16 * MAX_BLOCKS] __attribute__((aligned(64)));
static uint32_t cipher[16 * MAX_BLOCKS] __attribute__((aligned(64)));
static uint32_t data[16 * MAX_BLOCKS] __attribute__((aligned(64)));

int main(void) {
    uint32_t n;
    while (fread(&n, 4, 1, stdin) == 1) {
        if (n == 0 || n > MAX_BLOCKS) return 2;
        if (fread(key, 4, 61, stdin) != 61 || fread(iv, 4, 4, stdin) != 4 || fread(state, 4, 5, stdin) != 5 ||
            fread(plain, 64, n, stdin) != n || fread(data, 64, n, stdin) != n)
            return 3;
        sha1opt_cbc(plain, cipher, n, key, (unsigned char *)iv, state, data);
        if (fwrite(cipher, 64, n, stdout) != n || fwrite(iv, 4, 4, stdout) != 4 || fwrite(state, 4, 5, stdout) != 5)
            return 4;
    }
    return fflush(stdout) != 0;
}
