/* sha1opt_call_checked(state, data, nblocks): call sha1_block_data_order with
 * known values in every callee-saved register (SysV: rbx rbp r12-r15) and
 * return nonzero when any of them, or the stack pointer, differs afterwards. */
	.text
	.globl sha1opt_call_checked
sha1opt_call_checked:
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	sub $8, %rsp                    /* 16-byte alignment at the call */
	movabs $0x1111111111111111, %rbx
	movabs $0x2222222222222222, %rbp
	movabs $0x3333333333333333, %r12
	movabs $0x4444444444444444, %r13
	movabs $0x5555555555555555, %r14
	movabs $0x6666666666666666, %r15
	mov %rsp, saved_rsp(%rip)
	call sha1_block_data_order
	xor %eax, %eax
	movabs $0x1111111111111111, %rcx
	cmp %rcx, %rbx
	setne %al
	movabs $0x2222222222222222, %rcx
	cmp %rcx, %rbp
	setne %cl
	or %cl, %al
	movabs $0x3333333333333333, %rcx
	cmp %rcx, %r12
	setne %cl
	or %cl, %al
	movabs $0x4444444444444444, %rcx
	cmp %rcx, %r13
	setne %cl
	or %cl, %al
	movabs $0x5555555555555555, %rcx
	cmp %rcx, %r14
	setne %cl
	or %cl, %al
	movabs $0x6666666666666666, %rcx
	cmp %rcx, %r15
	setne %cl
	or %cl, %al
	cmp saved_rsp(%rip), %rsp
	setne %cl
	or %cl, %al
	add $8, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	ret

	.globl sha1opt_map              /* sha1opt_map(len): anonymous RW mapping */
sha1opt_map:
	mov %rdi, %rsi
	xor %edi, %edi
	mov $3, %edx                    /* PROT_READ|PROT_WRITE */
	mov $0x22, %r10d                /* MAP_PRIVATE|MAP_ANONYMOUS */
	mov $-1, %r8
	xor %r9d, %r9d
	mov $9, %eax                    /* SYS_mmap */
	syscall
	ret

#ifndef SHA1OPT_HOSTED                  /* (a libc program has its own _start) */
	.globl _start
_start:
	and $-16, %rsp
	call harness_main
	hlt
#endif

	.bss
	.p2align 3
saved_rsp:
	.quad 0
	.section .note.GNU-stack,"",@progbits
