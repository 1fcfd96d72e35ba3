# rounds 0-79 of best_block('skylake', 'x86_64') from the stop-18 store (/work/stores/stop18_store.sqlite, 2026-12-01): the block the stop-18 table measured below its loop bound
mov (%rsi), %r8d
bswap %r8d
mov %r8d, (%rsp)
mov 4(%rsi), %r9d
bswap %r9d
mov %r9d, 4(%rsp)
lea 0x5a827999(%ebp,%r8d), %ebp
mov 8(%rsi), %r8d
bswap %r8d
mov %r8d, 8(%rsp)
rorx $0x1b, %eax, %r10d
andn %ebx, %ecx, %r11d
mov %edx, %r12d
or %ebx, %r12d
andn %r12d, %r11d, %r11d
add %r11d, %ebp
add %r10d, %ebp
rol $0x1e, %ebx
lea 0x5a827999(%edx,%r9d), %r11d
rorx $0x1b, %ebp, %r9d
andn %eax, %ebx, %edx
mov %ecx, %r10d
or %eax, %r10d
mov 12(%rsi), %r12d
andn %r10d, %edx, %edx
bswap %r12d
add %edx, %r11d
add %r9d, %r11d
mov %r12d, 12(%rsp)
rol $0x1e, %eax
rorx $0x1b, %r11d, %r9d
andn %ebp, %eax, %edx
mov %ebx, %r10d
or %ebp, %r10d
mov 16(%rsi), %r13d
andn %r10d, %edx, %edx
bswap %r13d
mov %r13d, 16(%rsp)
lea 0x5a827999(%ecx,%r8d), %ecx
add %edx, %ecx
add %r9d, %ecx
lea 0x5a827999(%ebx,%r12d), %ebx
rorx $0x1b, %ecx, %r12d
rol $0x1e, %ebp
andn %r11d, %ebp, %r9d
mov %eax, %edx
or %r11d, %edx
mov 20(%rsi), %r8d
andn %edx, %r9d, %r9d
bswap %r8d
add %r9d, %ebx
add %r12d, %ebx
mov %r8d, 20(%rsp)
lea 0x5a827999(%eax,%r13d), %eax
rol $0x1e, %r11d
rorx $0x1b, %ebx, %r13d
andn %ecx, %r11d, %r12d
mov %ebp, %r9d
or %ecx, %r9d
mov 24(%rsi), %edx
andn %r9d, %r12d, %r12d
bswap %edx
add %r12d, %eax
add %r13d, %eax
mov %edx, 24(%rsp)
rol $0x1e, %ecx
lea 0x5a827999(%ebp,%r8d), %ebp
rorx $0x1b, %eax, %r8d
andn %ebx, %ecx, %r13d
mov %r11d, %r12d
or %ebx, %r12d
rol $0x1e, %ebx
mov 28(%rsi), %r9d
andn %r12d, %r13d, %r13d
bswap %r9d
add %ebp, %r13d
add %r8d, %r13d
mov %r9d, 28(%rsp)
lea 0x5a827999(%r11d,%edx), %edx
rorx $0x1b, %r13d, %r11d
andn %eax, %ebx, %ebp
mov %ecx, %r8d
or %eax, %r8d
mov 32(%rsi), %r12d
andn %r8d, %ebp, %ebp
bswap %r12d
add %ebp, %edx
add %r11d, %edx
mov %r12d, 32(%rsp)
rol $0x1e, %eax
lea 0x5a827999(%ecx,%r9d), %ecx
rorx $0x1b, %edx, %r9d
andn %r13d, %eax, %r11d
mov %ebx, %ebp
mov %eax, %r8d
or %r13d, %ebp
or %edx, %r8d
mov 36(%rsi), %r10d
andn %ebp, %r11d, %r11d
bswap %r10d
add %r11d, %ecx
add %r9d, %ecx
mov %r10d, 36(%rsp)
rol $0x1e, %r13d
andn %edx, %r13d, %r9d
andn %r8d, %r9d, %r9d
rorx $0x1b, %ecx, %r8d
mov 40(%rsi), %r11d
bswap %r11d
mov %r11d, 40(%rsp)
lea 0x5a827999(%ebx,%r12d), %ebx
add %r9d, %ebx
add %r8d, %ebx
rorx $0x1b, %ebx, %r8d
rol $0x1e, %edx
lea 0x5a827999(%eax,%r10d), %eax
andn %ecx, %edx, %r10d
mov %r13d, %r9d
or %ecx, %r9d
mov 44(%rsi), %r12d
andn %r9d, %r10d, %r10d
bswap %r12d
add %r10d, %eax
add %r8d, %eax
mov %r12d, 44(%rsp)
mov %edx, %r8d
or %ebx, %r8d
mov 48(%rsi), %r10d
bswap %r10d
mov %r10d, 48(%rsp)
lea 0x5a827999(%r13d,%r11d), %ebp
rorx $0x1b, %eax, %r11d
rol $0x1e, %ecx
andn %ebx, %ecx, %r13d
andn %r8d, %r13d, %r13d
add %r13d, %ebp
add %r11d, %ebp
rol $0x1e, %ebx
mov 52(%rsi), %r11d
bswap %r11d
mov %r11d, 52(%rsp)
lea 0x5a827999(%edx,%r12d), %edx
rorx $0x1b, %ebp, %r12d
andn %eax, %ebx, %r13d
mov %ecx, %r8d
or %eax, %r8d
rol $0x1e, %eax
andn %r8d, %r13d, %r13d
add %r13d, %edx
add %r12d, %edx
lea 0x5a827999(%ecx,%r10d), %ecx
rorx $0x1b, %edx, %r10d
andn %ebp, %eax, %r12d
mov %ebx, %r13d
mov %eax, %r8d
or %ebp, %r13d
rol $0x1e, %ebp
andn %edx, %ebp, %r9d
or %edx, %r8d
mov 56(%rsi), %r14d
andn %r13d, %r12d, %r12d
andn %r8d, %r9d, %r9d
bswap %r14d
add %r12d, %ecx
add %r10d, %ecx
mov %r14d, 56(%rsp)
lea 0x5a827999(%ebx,%r11d), %ebx
add %r9d, %ebx
mov 60(%rsi), %r9d
bswap %r9d
mov %r9d, 60(%rsp)
mov %ebp, %r10d
or %ecx, %r10d
rorx $0x1b, %ecx, %r13d
add %r13d, %ebx
rol $0x1e, %edx
andn %ecx, %edx, %r13d
andn %r10d, %r13d, %r13d
xor 32(%rsp), %r11d
xor 8(%rsp), %r11d
xor (%rsp), %r11d
lea 0x5a827999(%eax,%r14d), %eax
add %r13d, %eax
rorx $0x1b, %ebx, %r13d
rol $1, %r11d
add %r13d, %eax
mov %r11d, (%rsp)
rol $0x1e, %ecx
andn %ebx, %ecx, %r13d
mov %edx, %r10d
or %ebx, %r10d
andn %r10d, %r13d, %r13d
xor 36(%rsp), %r14d
lea 0x5a827999(%ebp,%r9d), %ebp
add %r13d, %ebp
rorx $0x1b, %eax, %r13d
xor 12(%rsp), %r14d
xor 4(%rsp), %r14d
add %r13d, %ebp
rol $1, %r14d
mov %r14d, 4(%rsp)
mov %ecx, %r13d
or %eax, %r13d
rol $0x1e, %ebx
andn %eax, %ebx, %r10d
andn %r13d, %r10d, %r10d
xor 40(%rsp), %r9d
lea 0x5a827999(%edx,%r11d), %edx
add %r10d, %edx
rorx $0x1b, %ebp, %r10d
xor 16(%rsp), %r9d
add %r10d, %edx
xor 8(%rsp), %r9d
rol $0x1e, %eax
andn %ebp, %eax, %r10d
rol $1, %r9d
mov %r9d, 8(%rsp)
mov %ebx, %r13d
or %ebp, %r13d
andn %r13d, %r10d, %r10d
xor 44(%rsp), %r11d
lea 0x5a827999(%ecx,%r14d), %ecx
add %r10d, %ecx
xor 20(%rsp), %r11d
xor 12(%rsp), %r11d
rol $1, %r11d
mov %r11d, 12(%rsp)
mov %eax, %r10d
or %edx, %r10d
rorx $0x1b, %edx, %r13d
add %r13d, %ecx
rol $0x1e, %ebp
andn %edx, %ebp, %r13d
andn %r10d, %r13d, %r13d
rol $0x1e, %edx
rorx $0x1b, %ecx, %r10d
xor 48(%rsp), %r14d
lea 0x5a827999(%ebx,%r9d), %ebx
add %r13d, %ebx
xor 24(%rsp), %r14d
add %r10d, %ebx
xor 16(%rsp), %r14d
rol $1, %r14d
andn %ecx, %edx, %r10d
mov %r14d, 16(%rsp)
mov %ebp, %r13d
or %ecx, %r13d
andn %r13d, %r10d, %r10d
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x5a827999(%eax,%r11d), %eax
add %r10d, %eax
rorx $0x1b, %ebx, %r10d
xor 20(%rsp), %r9d
add %r10d, %eax
rol $1, %r9d
rol $0x1e, %ecx
mov %r9d, 20(%rsp)
mov %ebx, %r10d
xor %edx, %r10d
xor %ecx, %r10d
xor 56(%rsp), %r11d
xor 32(%rsp), %r11d
rorx $0x1b, %eax, %r13d
xor 24(%rsp), %r11d
lea 0x6ed9eba1(%ebp,%r14d), %ebp
add %r10d, %ebp
add %r13d, %ebp
rol $1, %r11d
rol $0x1e, %ebx
mov %r11d, 24(%rsp)
mov %eax, %r13d
xor %ecx, %r13d
xor %ebx, %r13d
xor 60(%rsp), %r14d
xor 36(%rsp), %r14d
xor 28(%rsp), %r14d
lea 0x6ed9eba1(%edx,%r9d), %edx
add %r13d, %edx
rol $1, %r14d
mov %r14d, 28(%rsp)
mov %ebp, %r13d
xor %ebx, %r13d
rorx $0x1b, %ebp, %r10d
add %r10d, %edx
rol $0x1e, %eax
xor %eax, %r13d
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %edx, %r10d
xor 32(%rsp), %r9d
rol $1, %r9d
rol $0x1e, %ebp
mov %r9d, 32(%rsp)
mov %edx, %r12d
xor %eax, %r12d
xor %ebp, %r12d
lea 0x6ed9eba1(%ecx,%r11d), %ecx
add %r13d, %ecx
add %r10d, %ecx
xor 4(%rsp), %r11d
xor 44(%rsp), %r11d
rorx $0x1b, %ecx, %r10d
xor 36(%rsp), %r11d
rol $1, %r11d
rol $0x1e, %edx
mov %r11d, 36(%rsp)
mov %ecx, %r13d
xor %ebp, %r13d
xor %edx, %r13d
lea 0x6ed9eba1(%ebx,%r14d), %ebx
add %r12d, %ebx
add %r10d, %ebx
xor 8(%rsp), %r14d
xor 48(%rsp), %r14d
rorx $0x1b, %ebx, %r10d
xor 40(%rsp), %r14d
lea 0x6ed9eba1(%eax,%r9d), %eax
add %r13d, %eax
add %r10d, %eax
rol $1, %r14d
rol $0x1e, %ecx
mov %r14d, 40(%rsp)
mov %ebx, %r8d
xor %edx, %r8d
xor %ecx, %r8d
xor 12(%rsp), %r9d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
lea 0x6ed9eba1(%ebp,%r11d), %ebp
add %ebp, %r8d
rol $0x1e, %ebx
rol $1, %r9d
mov %r9d, 44(%rsp)
mov %eax, %ebp
xor %ecx, %ebp
xor %ebx, %ebp
rorx $0x1b, %eax, %r10d
add %r10d, %r8d
xor 16(%rsp), %r11d
xor 56(%rsp), %r11d
lea 0x6ed9eba1(%edx,%r14d), %edx
add %ebp, %edx
xor 48(%rsp), %r11d
rol $1, %r11d
rol $0x1e, %eax
mov %r11d, 48(%rsp)
mov %r8d, %ebp
xor %ebx, %ebp
xor %eax, %ebp
xor 20(%rsp), %r14d
rorx $0x1b, %r8d, %r10d
xor 60(%rsp), %r14d
add %r10d, %edx
rorx $0x1b, %edx, %r10d
xor 52(%rsp), %r14d
rol $1, %r14d
lea 0x6ed9eba1(%ecx,%r9d), %ecx
add %ebp, %ecx
add %r10d, %ecx
rol $0x1e, %r8d
mov %r14d, 52(%rsp)
mov %edx, %r10d
xor %eax, %r10d
xor %r8d, %r10d
rol $0x1e, %edx
xor 24(%rsp), %r9d
xor (%rsp), %r9d
rorx $0x1b, %ecx, %ebp
xor 56(%rsp), %r9d
lea 0x6ed9eba1(%ebx,%r11d), %ebx
add %r10d, %ebx
add %ebp, %ebx
rol $1, %r9d
mov %r9d, 56(%rsp)
mov %ecx, %ebp
xor %r8d, %ebp
xor %edx, %ebp
rol $0x1e, %ecx
lea 0x6ed9eba1(%eax,%r14d), %eax
add %ebp, %eax
mov %ebx, %ebp
xor %edx, %ebp
xor 28(%rsp), %r11d
xor %ecx, %ebp
xor 4(%rsp), %r11d
rorx $0x1b, %ebx, %r10d
xor 60(%rsp), %r11d
add %r10d, %eax
rol $1, %r11d
lea 0x6ed9eba1(%r8d,%r9d), %r8d
add %ebp, %r8d
mov %r11d, 60(%rsp)
rol $0x1e, %ebx
xor 32(%rsp), %r14d
xor 8(%rsp), %r14d
xor (%rsp), %r14d
rol $1, %r14d
mov %r14d, (%rsp)
mov %eax, %ebp
xor %ecx, %ebp
xor %ebx, %ebp
rorx $0x1b, %eax, %r10d
add %r10d, %r8d
rol $0x1e, %eax
lea 0x6ed9eba1(%edx,%r11d), %edx
add %ebp, %edx
mov %r8d, %ebp
xor %ebx, %ebp
xor 36(%rsp), %r9d
xor %eax, %ebp
xor 12(%rsp), %r9d
xor 40(%rsp), %r11d
xor 16(%rsp), %r11d
rorx $0x1b, %r8d, %r10d
xor 4(%rsp), %r9d
xor 8(%rsp), %r11d
add %r10d, %edx
rol $1, %r9d
lea 0x6ed9eba1(%ecx,%r14d), %ecx
add %ebp, %ecx
mov %r9d, 4(%rsp)
rol $1, %r11d
mov %r11d, 8(%rsp)
rol $0x1e, %r8d
mov %edx, %ebp
xor %eax, %ebp
xor %r8d, %ebp
xor 44(%rsp), %r14d
rorx $0x1b, %edx, %r10d
xor 20(%rsp), %r14d
add %r10d, %ecx
xor 12(%rsp), %r14d
lea 0x6ed9eba1(%ebx,%r9d), %ebx
add %ebp, %ebx
rol $1, %r14d
rol $0x1e, %edx
mov %r14d, 12(%rsp)
rorx $0x1b, %ecx, %ebp
add %ebp, %ebx
mov %ecx, %ebp
xor %r8d, %ebp
xor %edx, %ebp
xor 48(%rsp), %r9d
xor 24(%rsp), %r9d
xor 16(%rsp), %r9d
lea 0x6ed9eba1(%eax,%r11d), %eax
add %ebp, %eax
rol $1, %r9d
mov %r9d, 16(%rsp)
rorx $0x1b, %ebx, %ebp
add %ebp, %eax
xor 52(%rsp), %r11d
xor 28(%rsp), %r11d
xor 20(%rsp), %r11d
rol $0x1e, %ecx
rol $1, %r11d
mov %ebx, %ebp
mov %r11d, 20(%rsp)
xor %edx, %ebp
xor %ecx, %ebp
rorx $0x1b, %eax, %r10d
lea 0x6ed9eba1(%r8d,%r14d), %r8d
add %ebp, %r8d
add %r10d, %r8d
rol $0x1e, %ebx
mov %eax, %r10d
xor %ecx, %r10d
xor %ebx, %r10d
xor 56(%rsp), %r14d
xor 32(%rsp), %r14d
rorx $0x1b, %r8d, %ebp
xor 24(%rsp), %r14d
lea 0x6ed9eba1(%edx,%r9d), %edx
add %r10d, %edx
add %ebp, %edx
rol $1, %r14d
mov %r14d, 24(%rsp)
rol $0x1e, %eax
mov %r8d, %ebp
xor %ebx, %ebp
xor %eax, %ebp
xor 60(%rsp), %r9d
xor 36(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x6ed9eba1(%ecx,%r11d), %ecx
add %ebp, %ecx
rol $1, %r9d
rorx $0x1b, %edx, %ebp
add %ebp, %ecx
mov %r9d, 28(%rsp)
rorx $0x1b, %ecx, %ebp
rol $0x1e, %r8d
mov %edx, %r10d
xor %eax, %r10d
xor %r8d, %r10d
lea 0x6ed9eba1(%ebx,%r14d), %ebx
add %r10d, %ebx
add %ebp, %ebx
rol $0x1e, %edx
xor (%rsp), %r11d
xor 40(%rsp), %r11d
xor 32(%rsp), %r11d
rol $1, %r11d
lea 0x6ed9eba1(%eax,%r9d), %eax
mov %r11d, 32(%rsp)
mov %ecx, %ebp
xor %r8d, %ebp
xor %edx, %ebp
add %eax, %ebp
rorx $0x1b, %ebx, %eax
add %eax, %ebp
rol $0x1e, %ecx
xor 4(%rsp), %r14d
xor 44(%rsp), %r14d
lea 0x8f1bbcdc(%r8d,%r11d), %r8d
xor 36(%rsp), %r14d
mov %ebx, %eax
rol $1, %r14d
xor %ecx, %eax
mov %r14d, 36(%rsp)
andn %ebx, %eax, %r10d
and %edx, %eax
xor %r10d, %eax
add %eax, %r8d
rorx $0x1b, %ebp, %eax
xor 8(%rsp), %r9d
add %eax, %r8d
xor 48(%rsp), %r9d
rol $0x1e, %ebx
lea 0x8f1bbcdc(%edx,%r14d), %edx
xor 40(%rsp), %r9d
rol $1, %r9d
mov %r9d, 40(%rsp)
mov %ebp, %eax
xor %ebx, %eax
andn %ebp, %eax, %r10d
and %ecx, %eax
xor %r10d, %eax
add %eax, %edx
xor 12(%rsp), %r11d
xor 52(%rsp), %r11d
rol $0x1e, %ebp
xor 44(%rsp), %r11d
rol $1, %r11d
mov %r11d, 44(%rsp)
lea 0x8f1bbcdc(%ecx,%r9d), %ecx
mov %r8d, %eax
xor %ebp, %eax
andn %r8d, %eax, %r10d
rorx $0x1b, %r8d, %r13d
and %ebx, %eax
xor %eax, %r10d
add %r13d, %edx
add %r10d, %ecx
rorx $0x1b, %edx, %r10d
xor 16(%rsp), %r14d
add %r10d, %ecx
xor 56(%rsp), %r14d
xor 48(%rsp), %r14d
rol $1, %r14d
mov %r14d, 48(%rsp)
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
mov %edx, %r10d
rol $0x1e, %r8d
xor %r8d, %r10d
andn %edx, %r10d, %r13d
and %ebp, %r10d
xor %r13d, %r10d
add %r10d, %ebx
rorx $0x1b, %ecx, %r10d
xor 20(%rsp), %r9d
add %r10d, %ebx
xor 60(%rsp), %r9d
xor 52(%rsp), %r9d
rol $1, %r9d
mov %r9d, 52(%rsp)
lea 0x8f1bbcdc(%ebp,%r14d), %ebp
mov %ecx, %r10d
rol $0x1e, %edx
xor %edx, %r10d
andn %ecx, %r10d, %r12d
and %r8d, %r10d
xor %r12d, %r10d
add %r10d, %ebp
rorx $0x1b, %ebx, %r10d
add %r10d, %ebp
xor 24(%rsp), %r11d
xor (%rsp), %r11d
lea 0x8f1bbcdc(%r8d,%r9d), %r8d
xor 56(%rsp), %r11d
mov %ebx, %r10d
rorx $0x1b, %ebp, %r12d
rol $1, %r11d
mov %r11d, 56(%rsp)
rol $0x1e, %ecx
xor %ecx, %r10d
andn %ebx, %r10d, %r13d
and %edx, %r10d
xor %r13d, %r10d
add %r10d, %r8d
add %r12d, %r8d
xor 28(%rsp), %r14d
xor 4(%rsp), %r14d
xor 60(%rsp), %r14d
rol $1, %r14d
mov %r14d, 60(%rsp)
lea 0x8f1bbcdc(%edx,%r11d), %edx
mov %ebp, %r12d
rol $0x1e, %ebx
xor %ebx, %r12d
andn %ebp, %r12d, %r10d
and %ecx, %r12d
xor %r10d, %r12d
add %r12d, %edx
rorx $0x1b, %r8d, %r12d
xor 32(%rsp), %r9d
add %r12d, %edx
xor 8(%rsp), %r9d
xor (%rsp), %r9d
rol $1, %r9d
mov %r9d, (%rsp)
lea 0x8f1bbcdc(%ecx,%r14d), %ecx
mov %r8d, %r12d
rol $0x1e, %ebp
xor %ebp, %r12d
andn %r8d, %r12d, %r10d
and %ebx, %r12d
xor %r10d, %r12d
add %r12d, %ecx
rorx $0x1b, %edx, %r12d
xor 36(%rsp), %r11d
add %r12d, %ecx
xor 12(%rsp), %r11d
xor 4(%rsp), %r11d
rol $1, %r11d
mov %r11d, 4(%rsp)
lea 0x8f1bbcdc(%ebx,%r9d), %ebx
mov %edx, %r12d
rol $0x1e, %r8d
xor %r8d, %r12d
andn %edx, %r12d, %r10d
and %ebp, %r12d
xor %r10d, %r12d
add %r12d, %ebx
rorx $0x1b, %ecx, %r12d
xor 40(%rsp), %r14d
add %r12d, %ebx
xor 16(%rsp), %r14d
lea 0x8f1bbcdc(%ebp,%r11d), %eax
xor 8(%rsp), %r14d
rol $1, %r14d
mov %r14d, 8(%rsp)
mov %ecx, %r10d
rol $0x1e, %edx
xor %edx, %r10d
andn %ecx, %r10d, %ebp
and %r8d, %r10d
xor %ebp, %r10d
add %r10d, %eax
rorx $0x1b, %ebx, %r10d
xor 44(%rsp), %r9d
add %r10d, %eax
xor 20(%rsp), %r9d
xor 12(%rsp), %r9d
rol $1, %r9d
mov %r9d, 12(%rsp)
lea 0x8f1bbcdc(%r8d,%r14d), %ebp
rol $0x1e, %ecx
rorx $0x1b, %eax, %r8d
xor 48(%rsp), %r11d
mov %ebx, %r10d
xor %ecx, %r10d
xor 24(%rsp), %r11d
andn %ebx, %r10d, %r12d
xor 16(%rsp), %r11d
and %edx, %r10d
rol $1, %r11d
xor %r12d, %r10d
mov %r11d, 16(%rsp)
add %r10d, %ebp
add %r8d, %ebp
mov %eax, %r8d
rol $0x1e, %ebx
xor %ebx, %r8d
andn %eax, %r8d, %r10d
and %ecx, %r8d
xor %r10d, %r8d
lea 0x8f1bbcdc(%edx,%r9d), %edx
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
xor 52(%rsp), %r14d
xor 28(%rsp), %r14d
add %r8d, %edx
xor 20(%rsp), %r14d
rol $1, %r14d
mov %r14d, 20(%rsp)
mov %ebp, %r8d
rol $0x1e, %eax
xor %eax, %r8d
andn %ebp, %r8d, %r10d
and %ebx, %r8d
xor %r10d, %r8d
lea 0x8f1bbcdc(%ecx,%r11d), %r12d
add %r8d, %r12d
rorx $0x1b, %edx, %r8d
xor 56(%rsp), %r9d
add %r8d, %r12d
rol $0x1e, %ebp
xor 32(%rsp), %r9d
xor 24(%rsp), %r9d
rol $1, %r9d
mov %r9d, 24(%rsp)
mov %edx, %r8d
xor %ebp, %r8d
andn %edx, %r8d, %ecx
and %eax, %r8d
xor %ecx, %r8d
lea 0x8f1bbcdc(%ebx,%r14d), %ebx
add %r8d, %ebx
rorx $0x1b, %r12d, %r8d
xor 60(%rsp), %r11d
add %r8d, %ebx
xor 36(%rsp), %r11d
rol $0x1e, %edx
xor 28(%rsp), %r11d
rol $1, %r11d
mov %r11d, 28(%rsp)
mov %r12d, %r8d
rorx $0x1b, %ebx, %ecx
xor %edx, %r8d
andn %r12d, %r8d, %r10d
and %ebp, %r8d
xor %r10d, %r8d
lea 0x8f1bbcdc(%eax,%r9d), %eax
add %r8d, %eax
add %ecx, %eax
xor (%rsp), %r14d
xor 40(%rsp), %r14d
rol $0x1e, %r12d
xor 32(%rsp), %r14d
rol $1, %r14d
mov %r14d, 32(%rsp)
mov %ebx, %ecx
xor %r12d, %ecx
andn %ebx, %ecx, %r8d
and %edx, %ecx
xor %r8d, %ecx
lea 0x8f1bbcdc(%ebp,%r11d), %ebp
add %ecx, %ebp
rorx $0x1b, %eax, %ecx
xor 4(%rsp), %r9d
add %ecx, %ebp
xor 44(%rsp), %r9d
rol $0x1e, %ebx
xor 36(%rsp), %r9d
rol $1, %r9d
mov %r9d, 36(%rsp)
mov %eax, %ecx
xor 8(%rsp), %r11d
xor %ebx, %ecx
xor 48(%rsp), %r11d
andn %eax, %ecx, %r8d
xor 40(%rsp), %r11d
and %r12d, %ecx
rol $1, %r11d
xor %r8d, %ecx
mov %r11d, 40(%rsp)
lea 0x8f1bbcdc(%edx,%r14d), %r13d
add %ecx, %r13d
rorx $0x1b, %ebp, %ecx
add %ecx, %r13d
rol $0x1e, %eax
mov %ebp, %ecx
xor %eax, %ecx
andn %ebp, %ecx, %edx
and %ebx, %ecx
xor %edx, %ecx
lea 0x8f1bbcdc(%r12d,%r9d), %r12d
add %ecx, %r12d
rorx $0x1b, %r13d, %ecx
xor 12(%rsp), %r14d
add %ecx, %r12d
xor 52(%rsp), %r14d
rol $0x1e, %ebp
xor 44(%rsp), %r14d
rol $1, %r14d
mov %r14d, 44(%rsp)
mov %r13d, %ecx
rorx $0x1b, %r12d, %edx
xor %ebp, %ecx
andn %r13d, %ecx, %r8d
and %eax, %ecx
xor %r8d, %ecx
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
add %ecx, %ebx
add %edx, %ebx
xor 16(%rsp), %r9d
xor 56(%rsp), %r9d
rol $0x1e, %r13d
xor 48(%rsp), %r9d
rol $1, %r9d
mov %r9d, 48(%rsp)
mov %r12d, %edx
rorx $0x1b, %ebx, %ecx
xor %r13d, %edx
andn %r12d, %edx, %r8d
rol $0x1e, %r12d
and %ebp, %edx
xor %r8d, %edx
lea 0x8f1bbcdc(%eax,%r14d), %eax
add %edx, %eax
add %ecx, %eax
xor 20(%rsp), %r11d
xor 60(%rsp), %r11d
xor 52(%rsp), %r11d
rorx $0x1b, %eax, %ecx
rol $1, %r11d
mov %r11d, 52(%rsp)
mov %ebx, %edx
xor %r13d, %edx
xor %r12d, %edx
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %edx, %ebp
add %ecx, %ebp
rorx $0x1b, %ebp, %ecx
rol $0x1e, %ebx
xor 24(%rsp), %r14d
xor (%rsp), %r14d
xor 56(%rsp), %r14d
rol $1, %r14d
mov %r14d, 56(%rsp)
mov %eax, %edx
xor %r12d, %edx
xor %ebx, %edx
lea 0xca62c1d6(%r13d,%r11d), %r13d
add %edx, %r13d
add %ecx, %r13d
rol $0x1e, %eax
rorx $0x1b, %r13d, %ecx
mov %ebp, %edx
xor %ebx, %edx
xor 28(%rsp), %r9d
xor %eax, %edx
xor 4(%rsp), %r9d
xor 60(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%r12d,%r14d), %r12d
add %edx, %r12d
add %ecx, %r12d
mov %r9d, 60(%rsp)
rol $0x1e, %ebp
xor 32(%rsp), %r11d
xor 8(%rsp), %r11d
xor (%rsp), %r11d
rorx $0x1b, %r12d, %ecx
rol $1, %r11d
mov %r11d, (%rsp)
xor 36(%rsp), %r14d
xor 12(%rsp), %r14d
xor 4(%rsp), %r14d
lea 0xca62c1d6(%ebx,%r9d), %ebx
rol $1, %r14d
mov %r13d, %edx
rol $0x1e, %r13d
mov %r14d, 4(%rsp)
xor %eax, %edx
xor %ebp, %edx
add %edx, %ebx
add %ecx, %ebx
rorx $0x1b, %ebx, %ecx
mov %r12d, %edx
xor %ebp, %edx
xor %r13d, %edx
xor 40(%rsp), %r9d
xor 16(%rsp), %r9d
xor 8(%rsp), %r9d
lea 0xca62c1d6(%eax,%r11d), %eax
add %edx, %eax
add %ecx, %eax
rol $1, %r9d
rol $0x1e, %r12d
mov %r9d, 8(%rsp)
rorx $0x1b, %eax, %ecx
mov %ebx, %edx
xor %r13d, %edx
xor %r12d, %edx
xor 44(%rsp), %r11d
xor 20(%rsp), %r11d
xor 12(%rsp), %r11d
lea 0xca62c1d6(%ebp,%r14d), %ebp
add %edx, %ebp
add %ecx, %ebp
rol $1, %r11d
rol $0x1e, %ebx
mov %r11d, 12(%rsp)
rorx $0x1b, %ebp, %ecx
mov %eax, %edx
rol $0x1e, %eax
xor %r12d, %edx
xor %ebx, %edx
xor 48(%rsp), %r14d
xor 24(%rsp), %r14d
xor 16(%rsp), %r14d
lea 0xca62c1d6(%r13d,%r9d), %r13d
add %edx, %r13d
add %ecx, %r13d
rol $1, %r14d
mov %r14d, 16(%rsp)
rorx $0x1b, %r13d, %ecx
mov %ebp, %edx
xor %ebx, %edx
xor %eax, %edx
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
xor 20(%rsp), %r9d
lea 0xca62c1d6(%r12d,%r11d), %r12d
add %edx, %r12d
add %ecx, %r12d
rol $1, %r9d
rol $0x1e, %ebp
mov %r9d, 20(%rsp)
rorx $0x1b, %r12d, %ecx
mov %r13d, %edx
xor %eax, %edx
xor %ebp, %edx
xor 56(%rsp), %r11d
xor 32(%rsp), %r11d
xor 24(%rsp), %r11d
lea 0xca62c1d6(%ebx,%r14d), %ebx
add %edx, %ebx
add %ecx, %ebx
rorx $0x1b, %ebx, %edx
rol $1, %r11d
lea 0xca62c1d6(%eax,%r9d), %eax
mov %r11d, 24(%rsp)
rol $0x1e, %r13d
mov %r12d, %ecx
xor %ebp, %ecx
xor %r13d, %ecx
xor 60(%rsp), %r14d
add %ecx, %eax
add %edx, %eax
xor 36(%rsp), %r14d
xor 28(%rsp), %r14d
rol $1, %r14d
rol $0x1e, %r12d
mov %r14d, 28(%rsp)
mov %ebx, %edx
xor %r13d, %edx
xor %r12d, %edx
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %eax, %ecx
xor 32(%rsp), %r9d
lea 0xca62c1d6(%ebp,%r11d), %ebp
add %edx, %ebp
add %ecx, %ebp
rol $1, %r9d
rol $0x1e, %ebx
lea 0xca62c1d6(%r13d,%r14d), %edx
mov %eax, %r13d
xor %r12d, %r13d
xor 4(%rsp), %r11d
xor %ebx, %r13d
xor 44(%rsp), %r11d
add %r13d, %edx
xor 36(%rsp), %r11d
rorx $0x1b, %ebp, %r13d
rol $1, %r11d
add %r13d, %edx
rol $0x1e, %eax
mov %ebp, %r13d
xor %ebx, %r13d
xor 8(%rsp), %r14d
xor %eax, %r13d
xor 48(%rsp), %r14d
xor 40(%rsp), %r14d
rol $1, %r14d
lea 0xca62c1d6(%r12d,%r9d), %ecx
add %r13d, %ecx
rol $0x1e, %ebp
mov %edx, %r13d
xor %eax, %r13d
xor 12(%rsp), %r9d
xor %ebp, %r13d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
rorx $0x1b, %edx, %r12d
rol $1, %r9d
add %r12d, %ecx
rorx $0x1b, %ecx, %r12d
lea 0xca62c1d6(%ebx,%r11d), %ebx
add %r13d, %ebx
add %r12d, %ebx
rol $0x1e, %edx
mov %ecx, %r12d
xor %ebp, %r12d
xor %edx, %r12d
rorx $0x1b, %ebx, %r13d
lea 0xca62c1d6(%eax,%r14d), %eax
add %r12d, %eax
add %r13d, %eax
rol $0x1e, %ecx
xor 16(%rsp), %r11d
xor 56(%rsp), %r11d
xor 48(%rsp), %r11d
rol $1, %r11d
mov %ebx, %r13d
xor %edx, %r13d
xor 20(%rsp), %r14d
xor %ecx, %r13d
xor 60(%rsp), %r14d
xor 52(%rsp), %r14d
rorx $0x1b, %eax, %r12d
rol $1, %r14d
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %r13d, %ebp
add %r12d, %ebp
rol $0x1e, %ebx
rorx $0x1b, %ebp, %r12d
mov %eax, %r13d
xor %ecx, %r13d
xor 24(%rsp), %r9d
xor %ebx, %r13d
xor (%rsp), %r9d
xor 56(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%edx,%r11d), %edx
add %r13d, %edx
add %r12d, %edx
rol $0x1e, %eax
mov %ebp, %r12d
xor %ebx, %r12d
xor 28(%rsp), %r11d
xor %eax, %r12d
xor 4(%rsp), %r11d
xor 60(%rsp), %r11d
rorx $0x1b, %edx, %r13d
rol $1, %r11d
lea 0xca62c1d6(%ecx,%r14d), %ecx
add %r12d, %ecx
add %r13d, %ecx
rol $0x1e, %ebp
rorx $0x1b, %ecx, %r13d
mov %edx, %r12d
xor %eax, %r12d
xor %ebp, %r12d
lea 0xca62c1d6(%ebx,%r9d), %ebx
add %r12d, %ebx
add %r13d, %ebx
rol $0x1e, %edx
rorx $0x1b, %ebx, %r13d
lea 0xca62c1d6(%eax,%r11d), %eax
mov %ecx, %r11d
rol $0x1e, %ecx
xor %ebp, %r11d
xor %edx, %r11d
add %r11d, %eax
add %r13d, %eax
