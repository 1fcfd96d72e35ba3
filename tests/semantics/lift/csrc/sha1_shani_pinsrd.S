/* sha1_block_data_order(uint32_t state[5], const void *data, size_t nblocks) with SHA-NI,
 * E loaded into lane 3 of an xmm register the way Intel's SHA extensions sample code does
 * (pinsrd $3 into a register whose lanes 0-2 hold whatever the caller left, then pand with a
 * constant mask that keeps lane 3 only). sha1opt's own code, written for the prover's tests
 * (tests/semantics/lift/test_lift_lane_constants.py); the rounds are the usual SHA-NI groups
 * of four (sha1rnds4, sha1nexte, the schedule by sha1msg1 / pxor / sha1msg2).
 *
 * -DLOAD_E=n picks how E's register is made (1: pinsrd + pand, 2: vpinsrd + vpand,
 * 3: pxor + pinsrd, 4: vpxor + vpinsrd); -DMASK_LO / -DMASK_E set the pand mask's lanes 0-2 /
 * lane 3 (correct: 0 / 0xffffffff).
 */
#ifndef LOAD_E
#define LOAD_E 1
#endif
#ifndef MASK_LO
#define MASK_LO 0
#endif
#ifndef MASK_E
#define MASK_E 0xffffffff
#endif

/* group g: rounds 4g..4g+3 with function f; e = this group's E register, e2 = the next one's;
 * m = W of this group, m1/mm1/mm2 = the message registers of groups g+1, g-1, g-2 */
.macro group f, e, e2, m, m1, mm1, mm2, msg2=0, msg1=0, xor=0
	sha1nexte \m, \e
	movdqa %xmm0, \e2
.if \msg2
	sha1msg2 \m, \m1
.endif
	sha1rnds4 $\f, \e, %xmm0
.if \msg1
	sha1msg1 \m, \mm1
.endif
.if \xor
	pxor \m, \mm2
.endif
.endm

.macro load g, m
	movdqu 16*\g(%rsi), \m
	pshufb %xmm7, \m
.endm

	.text
	.globl sha1_block_data_order
	.type sha1_block_data_order, @function
sha1_block_data_order:
	test %rdx, %rdx
	jz .Ldone
	movdqa .Lflip(%rip), %xmm7
	movdqu (%rdi), %xmm0
	pshufd $0x1b, %xmm0, %xmm0             /* A in lane 3 ... D in lane 0 */
#if LOAD_E == 1
	pinsrd $3, 16(%rdi), %xmm1
	pand .Lupper(%rip), %xmm1
#elif LOAD_E == 2
	vpinsrd $3, 16(%rdi), %xmm1, %xmm1
	vpand .Lupper(%rip), %xmm1, %xmm1
#elif LOAD_E == 3
	pxor %xmm1, %xmm1
	pinsrd $3, 16(%rdi), %xmm1
#else
	vpxor %xmm1, %xmm1, %xmm1
	vpinsrd $3, 16(%rdi), %xmm1, %xmm1
#endif
.Lloop:
	movdqa %xmm0, %xmm8
	movdqa %xmm1, %xmm9
	load 0, %xmm3
	paddd %xmm3, %xmm1
	movdqa %xmm0, %xmm2
	sha1rnds4 $0, %xmm1, %xmm0
	load 1, %xmm4
	group 0, %xmm2, %xmm1, %xmm4, %xmm5, %xmm3, %xmm6, 0, 1, 0
	load 2, %xmm5
	group 0, %xmm1, %xmm2, %xmm5, %xmm6, %xmm4, %xmm3, 0, 1, 1
	load 3, %xmm6
	group 0, %xmm2, %xmm1, %xmm6, %xmm3, %xmm5, %xmm4, 1, 1, 1
	group 0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm6, %xmm5, 1, 1, 1   /* rounds 16-19 */
	group 1, %xmm2, %xmm1, %xmm4, %xmm5, %xmm3, %xmm6, 1, 1, 1
	group 1, %xmm1, %xmm2, %xmm5, %xmm6, %xmm4, %xmm3, 1, 1, 1
	group 1, %xmm2, %xmm1, %xmm6, %xmm3, %xmm5, %xmm4, 1, 1, 1
	group 1, %xmm1, %xmm2, %xmm3, %xmm4, %xmm6, %xmm5, 1, 1, 1
	group 1, %xmm2, %xmm1, %xmm4, %xmm5, %xmm3, %xmm6, 1, 1, 1   /* rounds 36-39 */
	group 2, %xmm1, %xmm2, %xmm5, %xmm6, %xmm4, %xmm3, 1, 1, 1
	group 2, %xmm2, %xmm1, %xmm6, %xmm3, %xmm5, %xmm4, 1, 1, 1
	group 2, %xmm1, %xmm2, %xmm3, %xmm4, %xmm6, %xmm5, 1, 1, 1
	group 2, %xmm2, %xmm1, %xmm4, %xmm5, %xmm3, %xmm6, 1, 1, 1
	group 2, %xmm1, %xmm2, %xmm5, %xmm6, %xmm4, %xmm3, 1, 1, 1   /* rounds 56-59 */
	group 3, %xmm2, %xmm1, %xmm6, %xmm3, %xmm5, %xmm4, 1, 1, 1
	group 3, %xmm1, %xmm2, %xmm3, %xmm4, %xmm6, %xmm5, 1, 1, 1   /* rounds 64-67 */
	group 3, %xmm2, %xmm1, %xmm4, %xmm5, %xmm3, %xmm6, 1, 0, 1
	group 3, %xmm1, %xmm2, %xmm5, %xmm6, %xmm4, %xmm3, 1, 0, 0
	group 3, %xmm2, %xmm1, %xmm6, %xmm3, %xmm5, %xmm4, 0, 0, 0   /* rounds 76-79 */
	sha1nexte %xmm9, %xmm1                 /* E += rol(A, 30); lanes 0-2 from the saved E: zero */
	paddd %xmm8, %xmm0
	add $64, %rsi
	dec %rdx
	jnz .Lloop
	pshufd $0x1b, %xmm0, %xmm0
	movdqu %xmm0, (%rdi)
	pextrd $3, %xmm1, 16(%rdi)
.Ldone:
	ret
	.size sha1_block_data_order, .-sha1_block_data_order

	.section .rodata
	.p2align 4
.Lflip:                                    /* pshufb: the 16 bytes reversed (big-endian words, W0 in lane 3) */
	.long 0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203
.Lupper:                                   /* keeps lane 3 (E) */
	.long MASK_LO, MASK_LO, MASK_LO, MASK_E
	.section .note.GNU-stack,"",@progbits
