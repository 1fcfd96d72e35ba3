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
#include "sha1_one_two.h"


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
