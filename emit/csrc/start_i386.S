/* _start for the freestanding i386 benchmark. */
	.text
	.globl _start
_start:
	and $-16, %esp
	call bench_main
	hlt
	.section .note.GNU-stack,"",@progbits
