/*
 * Native run of a multi-buffer SHA-1 function (emit/lanes_confirm.py): OpenSSL's
 * sha1_multi_block(SHA1_MB_CTX *ctx, const HASH_DESC *inp, int num), linked renamed sha1_block_data_order and
 * called through csrc/callcheck_x86_64.S (built -DSHA1OPT_HOSTED): sha1opt_call_checked passes ctx, inp and num
 * on in rdi, rsi and rdx unchanged and reports a callee-saved register or the stack pointer it finds changed.
 * Protocol on stdin / stdout, all words little-endian uint32, records repeated:
 *
 *   in:  num, cap[4], words[GUARD + 40 + GUARD], blocks[8] (signed), data[8][MAX_BLOCKS * 64]
 *   out: words[GUARD + 40 + GUARD], flags
 *
 * cap is written into OPENSSL_ia32cap_P (when the program has one: a weak reference) before the call: the
 * dispatch path. words is the context (A[8], B[8], C[8], D[8], E[8]) with GUARD words on either side that the
 * function must leave alone. Descriptor j is { data[j], blocks[j] } for all 8 lanes, also those num does not
 * cover. flags: 1 a callee-saved register or the stack pointer changed, 4 the data was written, 8 a descriptor
 * was written. Each answer is flushed before the next record is read, so the output's length says which record
 * a run died on.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LANES 8
#define GUARD 8
#define CTX_WORDS 40
#define MAX_BLOCKS 3

struct hash_desc {
    const unsigned char *ptr;
    int blocks;
};

extern int sha1opt_call_checked(void *ctx, const void *inp, long num);
extern unsigned char OPENSSL_ia32cap_P[] __attribute__((weak));

static uint32_t words[GUARD + CTX_WORDS + GUARD] __attribute__((aligned(64)));
static unsigned char data[LANES][MAX_BLOCKS * 64] __attribute__((aligned(64)));
static unsigned char data_copy[LANES][MAX_BLOCKS * 64];
static struct hash_desc desc[LANES] __attribute__((aligned(64)));
static struct hash_desc desc_copy[LANES];

int main(void) {
    uint32_t num, cap[4];
    int32_t blocks[LANES];
    while (fread(&num, 4, 1, stdin) == 1) {
        if (num < 1 || num > LANES / 4) return 2;
        if (fread(cap, 4, 4, stdin) != 4 || fread(words, 4, sizeof words / 4, stdin) != sizeof words / 4 ||
            fread(blocks, 4, LANES, stdin) != LANES || fread(data, sizeof data, 1, stdin) != 1)
            return 3;
        for (int j = 0; j < LANES; j++) {
            if (blocks[j] > MAX_BLOCKS) return 2;
            desc[j].ptr = data[j];
            desc[j].blocks = blocks[j];
        }
        memcpy(data_copy, data, sizeof data);
        memcpy(desc_copy, desc, sizeof desc);
        if (OPENSSL_ia32cap_P) memcpy(OPENSSL_ia32cap_P, cap, sizeof cap);
        uint32_t flags = sha1opt_call_checked(words + GUARD, desc, (long)num) ? 1 : 0;
        if (memcmp(data, data_copy, sizeof data)) flags |= 4;
        for (int j = 0; j < LANES; j++)
            if (desc[j].ptr != desc_copy[j].ptr || desc[j].blocks != desc_copy[j].blocks) flags |= 8;
        if (fwrite(words, 4, sizeof words / 4, stdout) != sizeof words / 4 || fwrite(&flags, 4, 1, stdout) != 1 ||
            fflush(stdout) != 0)
            return 4;
    }
    return 0;
}
