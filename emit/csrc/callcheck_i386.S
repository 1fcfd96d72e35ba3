/* sha1opt_call_checked(state, data, nblocks), cdecl: call sha1_block_data_order
 * with known values in every callee-saved register (ebx esi edi ebp) and
 * return nonzero when any of them, or the stack pointer, differs afterwards. */
	.text
	.globl sha1opt_call_checked
sha1opt_call_checked:
	push %ebp
	push %ebx
	push %esi
	push %edi
	pushl 28(%esp)                  /* nblocks (4 saves + return address + 2 args above) */
	pushl 28(%esp)                  /* data */
	pushl 28(%esp)                  /* state */
	mov $0x11111111, %ebx
	mov $0x22222222, %esi
	mov $0x33333333, %edi
	mov $0x44444444, %ebp
	mov %esp, saved_esp
	call sha1_block_data_order
	xor %eax, %eax
	cmp $0x11111111, %ebx
	setne %al
	cmp $0x22222222, %esi
	setne %cl
	or %cl, %al
	cmp $0x33333333, %edi
	setne %cl
	or %cl, %al
	cmp $0x44444444, %ebp
	setne %cl
	or %cl, %al
	cmp saved_esp, %esp
	setne %cl
	or %cl, %al
	add $12, %esp
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

	.globl sha1opt_map              /* sha1opt_map(len): anonymous RW mapping */
sha1opt_map:
	push %ebp
	push %ebx
	push %esi
	push %edi
	mov 20(%esp), %ecx              /* len */
	xor %ebx, %ebx
	mov $3, %edx                    /* PROT_READ|PROT_WRITE */
	mov $0x22, %esi                 /* MAP_PRIVATE|MAP_ANONYMOUS */
	mov $-1, %edi
	xor %ebp, %ebp
	mov $192, %eax                  /* SYS_mmap2 */
	int $0x80
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

#ifndef SHA1OPT_HOSTED                  /* (a libc program has its own _start) */
	.globl _start
_start:
	and $-16, %esp
	call harness_main
	hlt
#endif

	.bss
	.p2align 2
saved_esp:
	.long 0
	.section .note.GNU-stack,"",@progbits
