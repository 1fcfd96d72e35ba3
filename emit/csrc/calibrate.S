/* A do-nothing sha1_block_data_order: links bench.c into a pure TSC-rate probe. */
	.text
	.globl sha1_block_data_order
sha1_block_data_order:
	ret
	.section .note.GNU-stack,"",@progbits
