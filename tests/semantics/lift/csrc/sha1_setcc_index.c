/*
 * A SHA-1 block entry whose implementation is chosen by a set<cc> result used as an index: the shape of a
 * fat build's initialisation (a library comparing an environment variable, `sete` of the comparison, the
 * 0/1 doubled into an index of a table of implementations on the stack). Written for sha1opt's tests from
 * FIPS 180-4 section 6.1.2 (not copied from any library).
 *
 * sha1_setcc(state, data): getenv("SHA1OPT_SETCC_IMPL"); absent: index 0; present: index 2 * (strlen > 4)
 * (`seta %r12b; add %r12d, %r12d`), a condition nothing on the path decides. The table on the stack is
 * {sha1_one, 0, sha1_two}; the entry jumps (a tail call) through the chosen slot with the caller's
 * arguments. Both implementations are SHA-1 unless:
 *   -DK3_TWO=...   sha1_two's constant for rounds 40-59 (a wrong one: only the strlen > 4 fork is wrong)
 *
 * Built with gcc -O2 -c (x86-64 only: the entry is SysV assembly).
 */
typedef unsigned int u32;
#define NOINLINE __attribute__((noinline, used))

#ifndef K3_TWO
#define K3_TWO 0x8f1bbcdcu
#endif

static u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }

/* The 80 rounds over a 16-word ring holding the block's big-endian words; k3 is rounds 40-59's constant. */
static inline void block(u32 *state, const unsigned char *data, u32 k3) {
    u32 w[16];
    u32 a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        u32 wt;
        if (t < 16) {
            wt = (u32)data[4 * t] << 24 | (u32)data[4 * t + 1] << 16 | (u32)data[4 * t + 2] << 8 | data[4 * t + 3];
        } else {
            wt = rol(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        }
        w[t & 15] = wt;
        u32 f, k;
        if (t < 20) { f = d ^ (b & (c ^ d)); k = 0x5a827999u; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
        else if (t < 60) { f = (b & c) | (d & (b | c)); k = k3; }
        else { f = b ^ c ^ d; k = 0xca62c1d6u; }
        u32 tmp = rol(a, 5) + f + e + k + wt;
        e = d; d = c; c = rol(b, 30); b = a; a = tmp;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

NOINLINE void sha1_one(u32 *state, const void *data) { block(state, data, 0x8f1bbcdcu); }
NOINLINE void sha1_two(u32 *state, const void *data) { block(state, data, K3_TWO); }

__asm__(
    "	.section .rodata.str1.1,\"aMS\",@progbits,1\n"
    ".Lsetcc_name:\n"
    "	.string \"SHA1OPT_SETCC_IMPL\"\n"
    "	.text\n"
    "	.globl sha1_setcc\n"
    "	.type sha1_setcc, @function\n"
    "sha1_setcc:\n"
    "	push %r12\n"
    "	push %rbx\n"
    "	push %rbp\n"
    "	sub $32, %rsp\n"                      /* 8 + 24 + 32: %rsp is 16-byte aligned at the calls */
    "	mov %rdi, %rbx\n"
    "	mov %rsi, %rbp\n"
    "	xor %r12d, %r12d\n"
    "	lea .Lsetcc_name(%rip), %rdi\n"
    "	call getenv@PLT\n"
    "	test %rax, %rax\n"
    "	je 1f\n"
    "	mov %rax, %rdi\n"
    "	call strlen@PLT\n"
    "	cmp $4, %rax\n"
    "	seta %r12b\n"                         /* 1 when the value is longer than 4 characters */
    "	add %r12d, %r12d\n"                   /* the index: 0 or 2 */
    "1:	lea sha1_one(%rip), %rax\n"
    "	mov %rax, 0(%rsp)\n"
    "	movq $0, 8(%rsp)\n"
    "	lea sha1_two(%rip), %rax\n"
    "	mov %rax, 16(%rsp)\n"
    "	mov %r12d, %edx\n"
    "	mov (%rsp,%rdx,8), %rax\n"
    "	mov %rbx, %rdi\n"
    "	mov %rbp, %rsi\n"
    "	add $32, %rsp\n"
    "	pop %rbp\n"
    "	pop %rbx\n"
    "	pop %r12\n"
    "	jmp *%rax\n"
    "	.size sha1_setcc, .-sha1_setcc\n");
