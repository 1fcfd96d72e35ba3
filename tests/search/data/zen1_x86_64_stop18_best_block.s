# rounds 0-79 of best_block('zen1', 'x86_64') from the stop-18 store (/work/stores/stop18_store.sqlite, 2026-12-01): the block the stop-18 table measured below its loop bound
mov (%rsi), %r8d
bswap %r8d
mov %r8d, (%rsp)
rorx $0x1b, %eax, %r9d
mov %ecx, %r10d
xor %edx, %r10d
and %ebx, %r10d
xor %edx, %r10d
lea 0x5a827999(%ebp,%r8d), %ebp
add %r10d, %ebp
add %r9d, %ebp
mov 4(%rsi), %r9d
bswap %r9d
mov %r9d, 4(%rsp)
rorx $0x1b, %ebp, %r10d
rol $0x1e, %ebx
mov %ebx, %r8d
xor %ecx, %r8d
and %eax, %r8d
xor %ecx, %r8d
rol $0x1e, %eax
mov 8(%rsi), %r11d
bswap %r11d
mov %r11d, 8(%rsp)
lea 0x5a827999(%edx,%r9d), %edx
add %r8d, %edx
add %r10d, %edx
rorx $0x1b, %edx, %r10d
mov %eax, %r8d
xor %ebx, %r8d
and %ebp, %r8d
xor %ebx, %r8d
rol $0x1e, %ebp
mov 12(%rsi), %r9d
bswap %r9d
mov %r9d, 12(%rsp)
mov %ebp, %r12d
xor %eax, %r12d
and %edx, %r12d
xor %eax, %r12d
lea 0x5a827999(%ecx,%r11d), %ecx
add %r8d, %ecx
add %r10d, %ecx
rorx $0x1b, %ecx, %r10d
rol $0x1e, %edx
mov %edx, %r8d
xor %ebp, %r8d
mov 16(%rsi), %r11d
and %ecx, %r8d
bswap %r11d
xor %ebp, %r8d
mov %r11d, 16(%rsp)
lea 0x5a827999(%ebx,%r9d), %ebx
add %r12d, %ebx
add %r10d, %ebx
rorx $0x1b, %ebx, %r10d
rol $0x1e, %ecx
mov %ecx, %r12d
xor %edx, %r12d
mov 20(%rsi), %r9d
and %ebx, %r12d
bswap %r9d
xor %edx, %r12d
mov %r9d, 20(%rsp)
lea 0x5a827999(%eax,%r11d), %eax
add %r8d, %eax
add %r10d, %eax
rorx $0x1b, %eax, %r10d
rol $0x1e, %ebx
mov %ebx, %r8d
xor %ecx, %r8d
and %eax, %r8d
xor %ecx, %r8d
lea 0x5a827999(%ebp,%r9d), %ebp
add %r12d, %ebp
add %r10d, %ebp
rorx $0x1b, %ebp, %r10d
mov 24(%rsi), %r12d
bswap %r12d
mov %r12d, 24(%rsp)
rol $0x1e, %eax
mov %eax, %r9d
xor %ebx, %r9d
mov 28(%rsi), %r11d
and %ebp, %r9d
bswap %r11d
xor %ebx, %r9d
mov %r11d, 28(%rsp)
lea 0x5a827999(%edx,%r12d), %edx
add %r8d, %edx
add %r10d, %edx
rorx $0x1b, %edx, %r10d
rol $0x1e, %ebp
mov %ebp, %r8d
xor %eax, %r8d
and %edx, %r8d
xor %eax, %r8d
mov 32(%rsi), %r12d
bswap %r12d
mov %r12d, 32(%rsp)
lea 0x5a827999(%ecx,%r11d), %ecx
add %r9d, %ecx
add %r10d, %ecx
rorx $0x1b, %ecx, %r10d
rol $0x1e, %edx
mov %edx, %r9d
xor %ebp, %r9d
mov 36(%rsi), %r11d
and %ecx, %r9d
bswap %r11d
xor %ebp, %r9d
mov %r11d, 36(%rsp)
lea 0x5a827999(%ebx,%r12d), %ebx
add %r8d, %ebx
add %r10d, %ebx
rorx $0x1b, %ebx, %r10d
rol $0x1e, %ecx
mov %ecx, %r8d
xor %edx, %r8d
and %ebx, %r8d
xor %edx, %r8d
mov 40(%rsi), %r12d
bswap %r12d
mov %r12d, 40(%rsp)
lea 0x5a827999(%eax,%r11d), %eax
add %r9d, %eax
add %r10d, %eax
lea 0x5a827999(%ebp,%r12d), %ebp
add %r8d, %ebp
rorx $0x1b, %eax, %r8d
add %r8d, %ebp
rol $0x1e, %ebx
mov %ebx, %r8d
xor %ecx, %r8d
mov 44(%rsi), %r9d
and %eax, %r8d
bswap %r9d
xor %ecx, %r8d
mov %r9d, 44(%rsp)
lea 0x5a827999(%edx,%r9d), %edx
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
add %r8d, %edx
rol $0x1e, %eax
mov 48(%rsi), %r8d
bswap %r8d
mov %r8d, 48(%rsp)
mov %eax, %r10d
xor %ebx, %r10d
and %ebp, %r10d
xor %ebx, %r10d
rorx $0x1b, %edx, %r9d
rol $0x1e, %ebp
mov %ebp, %r12d
xor %eax, %r12d
and %edx, %r12d
xor %eax, %r12d
mov 52(%rsi), %r11d
bswap %r11d
mov %r11d, 52(%rsp)
lea 0x5a827999(%ecx,%r8d), %ecx
add %r10d, %ecx
add %r9d, %ecx
lea 0x5a827999(%ebx,%r11d), %ebx
add %r12d, %ebx
rorx $0x1b, %ecx, %r12d
add %r12d, %ebx
rol $0x1e, %edx
mov %edx, %r12d
xor %ebp, %r12d
and %ecx, %r12d
xor %ebp, %r12d
mov 56(%rsi), %r9d
bswap %r9d
mov %r9d, 56(%rsp)
lea 0x5a827999(%eax,%r9d), %eax
add %r12d, %eax
rorx $0x1b, %ebx, %r12d
add %r12d, %eax
rol $0x1e, %ecx
mov %ecx, %r12d
xor %edx, %r12d
mov 60(%rsi), %r10d
and %ebx, %r12d
bswap %r10d
xor %edx, %r12d
mov %r10d, 60(%rsp)
lea 0x5a827999(%ebp,%r10d), %ebp
add %r12d, %ebp
rorx $0x1b, %eax, %r12d
add %r12d, %ebp
xor 32(%rsp), %r11d
xor 8(%rsp), %r11d
xor (%rsp), %r11d
rol $1, %r11d
mov %r11d, (%rsp)
rol $0x1e, %ebx
mov %ebx, %r12d
xor %ecx, %r12d
and %eax, %r12d
xor %ecx, %r12d
lea 0x5a827999(%edx,%r11d), %edx
add %r12d, %edx
xor 36(%rsp), %r9d
xor 12(%rsp), %r9d
xor 4(%rsp), %r9d
rorx $0x1b, %ebp, %r12d
rol $1, %r9d
add %r12d, %edx
mov %r9d, 4(%rsp)
rol $0x1e, %eax
mov %eax, %r12d
xor %ebx, %r12d
and %ebp, %r12d
xor %ebx, %r12d
lea 0x5a827999(%ecx,%r9d), %ecx
add %r12d, %ecx
rorx $0x1b, %edx, %r12d
add %r12d, %ecx
rol $0x1e, %ebp
xor 40(%rsp), %r10d
mov %ebp, %r12d
xor 16(%rsp), %r10d
xor %eax, %r12d
xor 8(%rsp), %r10d
and %edx, %r12d
rol $1, %r10d
xor %eax, %r12d
mov %r10d, 8(%rsp)
lea 0x5a827999(%ebx,%r10d), %ebx
add %r12d, %ebx
rorx $0x1b, %ecx, %r12d
add %r12d, %ebx
rol $0x1e, %edx
xor 44(%rsp), %r11d
mov %edx, %r12d
xor 20(%rsp), %r11d
xor %ebp, %r12d
xor 12(%rsp), %r11d
and %ecx, %r12d
rol $1, %r11d
xor %ebp, %r12d
mov %r11d, 12(%rsp)
lea 0x5a827999(%eax,%r11d), %eax
add %r12d, %eax
rorx $0x1b, %ebx, %r12d
add %r12d, %eax
rol $0x1e, %ecx
xor 48(%rsp), %r9d
mov %ebx, %r12d
xor 24(%rsp), %r9d
xor %ecx, %r12d
xor 16(%rsp), %r9d
xor %edx, %r12d
rol $1, %r9d
mov %r9d, 16(%rsp)
rorx $0x1b, %eax, %r8d
lea 0x6ed9eba1(%ebp,%r9d), %ebp
add %r12d, %ebp
add %r8d, %ebp
rol $0x1e, %ebx
xor 52(%rsp), %r10d
mov %eax, %r8d
xor 28(%rsp), %r10d
xor %ebx, %r8d
xor 20(%rsp), %r10d
xor %ecx, %r8d
rol $1, %r10d
mov %r10d, 20(%rsp)
rorx $0x1b, %ebp, %r12d
lea 0x6ed9eba1(%edx,%r10d), %edx
add %r8d, %edx
add %r12d, %edx
rol $0x1e, %eax
xor 56(%rsp), %r11d
mov %ebp, %r12d
xor 32(%rsp), %r11d
xor %eax, %r12d
xor 24(%rsp), %r11d
xor %ebx, %r12d
rol $1, %r11d
mov %r11d, 24(%rsp)
rorx $0x1b, %edx, %r8d
lea 0x6ed9eba1(%ecx,%r11d), %ecx
add %r12d, %ecx
add %r8d, %ecx
rol $0x1e, %ebp
xor 60(%rsp), %r9d
mov %edx, %r8d
xor 36(%rsp), %r9d
xor %ebp, %r8d
xor 28(%rsp), %r9d
xor %eax, %r8d
rol $1, %r9d
mov %r9d, 28(%rsp)
rorx $0x1b, %ecx, %r12d
rol $0x1e, %edx
xor (%rsp), %r10d
mov %ecx, %r13d
xor 40(%rsp), %r10d
xor %edx, %r13d
xor 32(%rsp), %r10d
xor %ebp, %r13d
rol $1, %r10d
lea 0x6ed9eba1(%ebx,%r9d), %ebx
add %r8d, %ebx
add %r12d, %ebx
mov %r10d, 32(%rsp)
lea 0x6ed9eba1(%eax,%r10d), %eax
add %r13d, %eax
rorx $0x1b, %ebx, %r13d
add %r13d, %eax
rol $0x1e, %ecx
xor 4(%rsp), %r11d
mov %ebx, %r13d
xor 44(%rsp), %r11d
xor %ecx, %r13d
xor 36(%rsp), %r11d
xor %edx, %r13d
rol $1, %r11d
mov %r11d, 36(%rsp)
lea 0x6ed9eba1(%ebp,%r11d), %ebp
add %r13d, %ebp
rorx $0x1b, %eax, %r13d
add %r13d, %ebp
rol $0x1e, %ebx
xor 8(%rsp), %r9d
mov %eax, %r13d
xor 48(%rsp), %r9d
xor %ebx, %r13d
xor 40(%rsp), %r9d
xor %ecx, %r13d
rol $1, %r9d
mov %r9d, 40(%rsp)
lea 0x6ed9eba1(%edx,%r9d), %edx
add %r13d, %edx
rol $0x1e, %eax
xor 12(%rsp), %r10d
xor 52(%rsp), %r10d
mov %ebp, %r13d
xor %eax, %r13d
xor 44(%rsp), %r10d
xor %ebx, %r13d
rorx $0x1b, %ebp, %r12d
rol $1, %r10d
add %r12d, %edx
mov %r10d, 44(%rsp)
rorx $0x1b, %edx, %r12d
lea 0x6ed9eba1(%ecx,%r10d), %ecx
add %r13d, %ecx
add %r12d, %ecx
rol $0x1e, %ebp
xor 16(%rsp), %r11d
mov %edx, %r12d
xor %ebp, %r12d
xor 56(%rsp), %r11d
xor 48(%rsp), %r11d
xor %eax, %r12d
rol $1, %r11d
mov %r11d, 48(%rsp)
lea 0x6ed9eba1(%ebx,%r11d), %ebx
add %r12d, %ebx
rorx $0x1b, %ecx, %r12d
add %r12d, %ebx
rol $0x1e, %edx
xor 20(%rsp), %r9d
mov %ecx, %r12d
xor 60(%rsp), %r9d
xor %edx, %r12d
xor 52(%rsp), %r9d
xor %ebp, %r12d
rol $1, %r9d
lea 0x6ed9eba1(%eax,%r9d), %eax
add %r12d, %eax
mov %r9d, 52(%rsp)
rorx $0x1b, %ebx, %r8d
add %r8d, %eax
rol $0x1e, %ecx
xor 24(%rsp), %r10d
mov %ebx, %r8d
xor (%rsp), %r10d
xor %ecx, %r8d
xor 56(%rsp), %r10d
xor %edx, %r8d
rol $1, %r10d
lea 0x6ed9eba1(%ebp,%r10d), %r13d
add %r8d, %r13d
mov %r10d, 56(%rsp)
xor 28(%rsp), %r11d
xor 4(%rsp), %r11d
xor 60(%rsp), %r11d
rorx $0x1b, %eax, %r8d
rol $1, %r11d
add %r8d, %r13d
mov %r11d, 60(%rsp)
rol $0x1e, %ebx
lea 0x6ed9eba1(%edx,%r11d), %edx
mov %eax, %r8d
xor %ebx, %r8d
xor %ecx, %r8d
add %r8d, %edx
xor 32(%rsp), %r9d
xor 8(%rsp), %r9d
xor (%rsp), %r9d
rol $1, %r9d
mov %r9d, (%rsp)
rol $0x1e, %eax
lea 0x6ed9eba1(%ecx,%r9d), %ecx
mov %r13d, %r8d
xor %eax, %r8d
xor %ebx, %r8d
rorx $0x1b, %r13d, %ebp
add %ecx, %r8d
add %ebp, %edx
rorx $0x1b, %edx, %ebp
add %ebp, %r8d
rol $0x1e, %r13d
xor 36(%rsp), %r10d
xor 12(%rsp), %r10d
xor 4(%rsp), %r10d
rol $1, %r10d
lea 0x6ed9eba1(%ebx,%r10d), %ebx
mov %r10d, 4(%rsp)
mov %edx, %ebp
rol $0x1e, %edx
xor %r13d, %ebp
xor 40(%rsp), %r11d
xor %eax, %ebp
xor 16(%rsp), %r11d
add %ebp, %ebx
xor 8(%rsp), %r11d
rorx $0x1b, %r8d, %ebp
rol $1, %r11d
add %ebp, %ebx
mov %r11d, 8(%rsp)
lea 0x6ed9eba1(%eax,%r11d), %eax
mov %r8d, %ebp
xor %edx, %ebp
xor 44(%rsp), %r9d
xor %r13d, %ebp
xor 20(%rsp), %r9d
add %ebp, %eax
xor 12(%rsp), %r9d
rorx $0x1b, %ebx, %ebp
rol $1, %r9d
add %ebp, %eax
mov %r9d, 12(%rsp)
rol $0x1e, %r8d
lea 0x6ed9eba1(%r13d,%r9d), %ebp
mov %ebx, %r13d
xor %r8d, %r13d
xor 48(%rsp), %r10d
xor %edx, %r13d
xor 24(%rsp), %r10d
add %r13d, %ebp
xor 16(%rsp), %r10d
rorx $0x1b, %eax, %r13d
rol $1, %r10d
add %r13d, %ebp
mov %r10d, 16(%rsp)
rol $0x1e, %ebx
mov %eax, %r13d
xor %ebx, %r13d
xor 52(%rsp), %r11d
xor %r8d, %r13d
xor 28(%rsp), %r11d
xor 20(%rsp), %r11d
rorx $0x1b, %ebp, %ecx
rol $1, %r11d
lea 0x6ed9eba1(%edx,%r10d), %edx
add %r13d, %edx
add %ecx, %edx
mov %r11d, 20(%rsp)
rol $0x1e, %eax
lea 0x6ed9eba1(%r8d,%r11d), %ecx
mov %ebp, %r8d
xor %eax, %r8d
xor 56(%rsp), %r9d
xor %ebx, %r8d
xor 32(%rsp), %r9d
add %r8d, %ecx
xor 24(%rsp), %r9d
rorx $0x1b, %edx, %r8d
rol $1, %r9d
add %r8d, %ecx
mov %r9d, 24(%rsp)
rol $0x1e, %ebp
rorx $0x1b, %ecx, %r8d
lea 0x6ed9eba1(%ebx,%r9d), %ebx
mov %edx, %r13d
xor %ebp, %r13d
xor 60(%rsp), %r10d
xor %eax, %r13d
xor 36(%rsp), %r10d
add %r13d, %ebx
add %r8d, %ebx
xor 28(%rsp), %r10d
rol $1, %r10d
mov %r10d, 28(%rsp)
rol $0x1e, %edx
lea 0x6ed9eba1(%eax,%r10d), %eax
mov %ecx, %r8d
xor %edx, %r8d
xor (%rsp), %r11d
xor %ebp, %r8d
xor 40(%rsp), %r11d
add %r8d, %eax
xor 32(%rsp), %r11d
rorx $0x1b, %ebx, %r8d
rol $1, %r11d
add %r8d, %eax
mov %r11d, 32(%rsp)
rol $0x1e, %ecx
lea 0x8f1bbcdc(%ebp,%r11d), %ebp
mov %ebx, %r8d
xor %ecx, %r8d
andn %ebx, %r8d, %r13d
and %edx, %r8d
xor 4(%rsp), %r9d
xor %r13d, %r8d
xor 44(%rsp), %r9d
add %r8d, %ebp
xor 36(%rsp), %r9d
rorx $0x1b, %eax, %r8d
rol $1, %r9d
add %r8d, %ebp
mov %r9d, 36(%rsp)
rol $0x1e, %ebx
lea 0x8f1bbcdc(%edx,%r9d), %edx
xor 8(%rsp), %r10d
xor 48(%rsp), %r10d
xor 40(%rsp), %r10d
rol $1, %r10d
mov %eax, %r8d
xor %ebx, %r8d
mov %r10d, 40(%rsp)
andn %eax, %r8d, %r13d
and %ecx, %r8d
xor %r13d, %r8d
add %r8d, %edx
rol $0x1e, %eax
lea 0x8f1bbcdc(%ecx,%r10d), %ecx
rorx $0x1b, %ebp, %r8d
add %r8d, %edx
mov %ebp, %r8d
xor %eax, %r8d
andn %ebp, %r8d, %r13d
and %ebx, %r8d
xor 12(%rsp), %r11d
xor %r13d, %r8d
xor 52(%rsp), %r11d
add %r8d, %ecx
xor 44(%rsp), %r11d
rorx $0x1b, %edx, %r8d
rol $1, %r11d
add %r8d, %ecx
mov %r11d, 44(%rsp)
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
rol $0x1e, %ebp
mov %edx, %r8d
xor %ebp, %r8d
andn %edx, %r8d, %r13d
and %eax, %r8d
xor 16(%rsp), %r9d
xor %r13d, %r8d
xor 56(%rsp), %r9d
add %r8d, %ebx
xor 48(%rsp), %r9d
rorx $0x1b, %ecx, %r8d
rol $1, %r9d
add %r8d, %ebx
mov %r9d, 48(%rsp)
rol $0x1e, %edx
lea 0x8f1bbcdc(%eax,%r9d), %eax
mov %ecx, %r8d
xor %edx, %r8d
andn %ecx, %r8d, %r13d
xor 20(%rsp), %r10d
and %ebp, %r8d
xor %r13d, %r8d
xor 60(%rsp), %r10d
add %r8d, %eax
xor 52(%rsp), %r10d
rorx $0x1b, %ebx, %r8d
add %r8d, %eax
rol $1, %r10d
mov %r10d, 52(%rsp)
rol $0x1e, %ecx
lea 0x8f1bbcdc(%ebp,%r10d), %ebp
mov %ebx, %r8d
rorx $0x1b, %eax, %r13d
xor %ecx, %r8d
andn %ebx, %r8d, %r12d
and %edx, %r8d
xor 24(%rsp), %r11d
xor %r12d, %r8d
xor (%rsp), %r11d
add %r8d, %ebp
add %r13d, %ebp
xor 56(%rsp), %r11d
rol $1, %r11d
mov %r11d, 56(%rsp)
rol $0x1e, %ebx
lea 0x8f1bbcdc(%edx,%r11d), %edx
mov %eax, %r13d
xor %ebx, %r13d
andn %eax, %r13d, %r8d
and %ecx, %r13d
xor 28(%rsp), %r9d
xor %r8d, %r13d
xor 4(%rsp), %r9d
add %r13d, %edx
xor 60(%rsp), %r9d
rorx $0x1b, %ebp, %r13d
rol $1, %r9d
add %r13d, %edx
mov %r9d, 60(%rsp)
rol $0x1e, %eax
lea 0x8f1bbcdc(%ecx,%r9d), %ecx
mov %ebp, %r13d
xor %eax, %r13d
andn %ebp, %r13d, %r8d
and %ebx, %r13d
xor 32(%rsp), %r10d
xor %r8d, %r13d
xor 8(%rsp), %r10d
add %r13d, %ecx
xor (%rsp), %r10d
rol $1, %r10d
mov %r10d, (%rsp)
rorx $0x1b, %edx, %r13d
add %r13d, %ecx
rol $0x1e, %ebp
lea 0x8f1bbcdc(%ebx,%r10d), %ebx
mov %edx, %r13d
xor %ebp, %r13d
andn %edx, %r13d, %r8d
and %eax, %r13d
xor 36(%rsp), %r11d
xor %r8d, %r13d
xor 12(%rsp), %r11d
add %r13d, %ebx
xor 4(%rsp), %r11d
rorx $0x1b, %ecx, %r13d
rol $1, %r11d
add %r13d, %ebx
mov %r11d, 4(%rsp)
rol $0x1e, %edx
lea 0x8f1bbcdc(%eax,%r11d), %eax
mov %ecx, %r13d
rorx $0x1b, %ebx, %r8d
xor %edx, %r13d
andn %ecx, %r13d, %r12d
and %ebp, %r13d
xor 40(%rsp), %r9d
xor %r12d, %r13d
xor 16(%rsp), %r9d
add %r13d, %eax
add %r8d, %eax
xor 8(%rsp), %r9d
rol $1, %r9d
mov %r9d, 8(%rsp)
rol $0x1e, %ecx
mov %ebx, %r8d
xor %ecx, %r8d
andn %ebx, %r8d, %r13d
and %edx, %r8d
xor %r13d, %r8d
lea 0x8f1bbcdc(%ebp,%r9d), %ebp
add %r8d, %ebp
rorx $0x1b, %eax, %r8d
add %r8d, %ebp
xor 44(%rsp), %r10d
xor 20(%rsp), %r10d
xor 12(%rsp), %r10d
rol $1, %r10d
mov %r10d, 12(%rsp)
rol $0x1e, %ebx
mov %eax, %r8d
xor %ebx, %r8d
andn %eax, %r8d, %r13d
and %ecx, %r8d
xor %r13d, %r8d
lea 0x8f1bbcdc(%edx,%r10d), %edx
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
add %r8d, %edx
xor 48(%rsp), %r11d
xor 24(%rsp), %r11d
xor 16(%rsp), %r11d
rol $1, %r11d
mov %r11d, 16(%rsp)
rol $0x1e, %eax
mov %ebp, %r8d
xor %eax, %r8d
andn %ebp, %r8d, %r13d
and %ebx, %r8d
xor %r13d, %r8d
lea 0x8f1bbcdc(%ecx,%r11d), %ecx
add %r8d, %ecx
rorx $0x1b, %edx, %r8d
add %r8d, %ecx
rol $0x1e, %ebp
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
xor 20(%rsp), %r9d
rol $1, %r9d
mov %r9d, 20(%rsp)
mov %edx, %r8d
xor %ebp, %r8d
andn %edx, %r8d, %r13d
and %eax, %r8d
xor %r13d, %r8d
lea 0x8f1bbcdc(%ebx,%r9d), %ebx
add %r8d, %ebx
rorx $0x1b, %ecx, %r8d
add %r8d, %ebx
rol $0x1e, %edx
xor 56(%rsp), %r10d
xor 32(%rsp), %r10d
xor 24(%rsp), %r10d
rol $1, %r10d
mov %r10d, 24(%rsp)
mov %ecx, %r8d
xor %edx, %r8d
andn %ecx, %r8d, %r13d
and %ebp, %r8d
xor 60(%rsp), %r11d
xor %r13d, %r8d
xor 36(%rsp), %r11d
lea 0x8f1bbcdc(%eax,%r10d), %eax
add %r8d, %eax
xor 28(%rsp), %r11d
rorx $0x1b, %ebx, %r8d
rol $1, %r11d
add %r8d, %eax
mov %r11d, 28(%rsp)
rol $0x1e, %ecx
mov %ebx, %r8d
xor %ecx, %r8d
andn %ebx, %r8d, %r13d
and %edx, %r8d
xor %r8d, %r13d
lea 0x8f1bbcdc(%ebp,%r11d), %ebp
add %r13d, %ebp
rorx $0x1b, %eax, %r13d
add %r13d, %ebp
rol $0x1e, %ebx
xor (%rsp), %r9d
xor 40(%rsp), %r9d
xor 32(%rsp), %r9d
rol $1, %r9d
mov %r9d, 32(%rsp)
mov %eax, %r13d
xor %ebx, %r13d
andn %eax, %r13d, %r8d
rol $0x1e, %eax
and %ecx, %r13d
xor %r8d, %r13d
lea 0x8f1bbcdc(%edx,%r9d), %edx
add %r13d, %edx
rorx $0x1b, %ebp, %r13d
add %r13d, %edx
xor 4(%rsp), %r10d
xor 44(%rsp), %r10d
xor 36(%rsp), %r10d
rol $1, %r10d
mov %r10d, 36(%rsp)
mov %ebp, %r13d
xor %eax, %r13d
andn %ebp, %r13d, %r8d
and %ebx, %r13d
xor %r8d, %r13d
lea 0x8f1bbcdc(%ecx,%r10d), %ecx
add %r13d, %ecx
rorx $0x1b, %edx, %r13d
add %r13d, %ecx
rol $0x1e, %ebp
xor 8(%rsp), %r11d
xor 48(%rsp), %r11d
xor 40(%rsp), %r11d
rol $1, %r11d
mov %r11d, 40(%rsp)
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
mov %edx, %r13d
rorx $0x1b, %ecx, %r8d
xor %ebp, %r13d
andn %edx, %r13d, %r12d
rol $0x1e, %edx
and %eax, %r13d
xor %r12d, %r13d
add %r13d, %ebx
add %r8d, %ebx
xor 12(%rsp), %r9d
mov %ecx, %r8d
xor 52(%rsp), %r9d
xor %edx, %r8d
xor 44(%rsp), %r9d
andn %ecx, %r8d, %r13d
rol $1, %r9d
and %ebp, %r8d
mov %r9d, 44(%rsp)
xor %r13d, %r8d
lea 0x8f1bbcdc(%eax,%r9d), %eax
add %r8d, %eax
rorx $0x1b, %ebx, %r8d
add %r8d, %eax
rol $0x1e, %ecx
xor 16(%rsp), %r10d
xor 56(%rsp), %r10d
xor 48(%rsp), %r10d
rol $1, %r10d
mov %r10d, 48(%rsp)
mov %ebx, %r8d
xor %ecx, %r8d
xor %edx, %r8d
rorx $0x1b, %eax, %r15d
lea 0xca62c1d6(%ebp,%r10d), %ebp
add %r8d, %ebp
add %r15d, %ebp
rol $0x1e, %ebx
xor 20(%rsp), %r11d
xor 60(%rsp), %r11d
xor 52(%rsp), %r11d
rol $1, %r11d
mov %r11d, 52(%rsp)
mov %eax, %r15d
xor %ebx, %r15d
xor %ecx, %r15d
rorx $0x1b, %ebp, %r8d
lea 0xca62c1d6(%edx,%r11d), %edx
add %r15d, %edx
add %r8d, %edx
rol $0x1e, %eax
xor 24(%rsp), %r9d
xor (%rsp), %r9d
xor 56(%rsp), %r9d
rol $1, %r9d
mov %r9d, 56(%rsp)
lea 0xca62c1d6(%ecx,%r9d), %ecx
mov %ebp, %r8d
xor %eax, %r8d
xor %ebx, %r8d
add %r8d, %ecx
rorx $0x1b, %edx, %r8d
add %r8d, %ecx
rol $0x1e, %ebp
xor 28(%rsp), %r10d
xor 4(%rsp), %r10d
xor 60(%rsp), %r10d
rol $1, %r10d
mov %r10d, 60(%rsp)
mov %edx, %r8d
xor %ebp, %r8d
xor %eax, %r8d
rorx $0x1b, %ecx, %r15d
lea 0xca62c1d6(%ebx,%r10d), %ebx
add %r8d, %ebx
add %r15d, %ebx
rol $0x1e, %edx
xor 32(%rsp), %r11d
xor 8(%rsp), %r11d
xor (%rsp), %r11d
rol $1, %r11d
mov %r11d, (%rsp)
mov %ecx, %r15d
xor %edx, %r15d
xor %ebp, %r15d
rorx $0x1b, %ebx, %r8d
lea 0xca62c1d6(%eax,%r11d), %eax
add %r15d, %eax
add %r8d, %eax
rol $0x1e, %ecx
xor 36(%rsp), %r9d
mov %ebx, %r8d
xor 12(%rsp), %r9d
xor %ecx, %r8d
xor 4(%rsp), %r9d
xor %edx, %r8d
rol $1, %r9d
mov %r9d, 4(%rsp)
rorx $0x1b, %eax, %r15d
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %r8d, %ebp
add %r15d, %ebp
rol $0x1e, %ebx
xor 40(%rsp), %r10d
xor 16(%rsp), %r10d
xor 8(%rsp), %r10d
rol $1, %r10d
mov %r10d, 8(%rsp)
mov %eax, %r15d
xor %ebx, %r15d
xor %ecx, %r15d
rorx $0x1b, %ebp, %r8d
lea 0xca62c1d6(%edx,%r10d), %edx
add %r15d, %edx
add %r8d, %edx
rol $0x1e, %eax
xor 44(%rsp), %r11d
xor 20(%rsp), %r11d
xor 12(%rsp), %r11d
rol $1, %r11d
mov %r11d, 12(%rsp)
mov %ebp, %r8d
xor %eax, %r8d
xor %ebx, %r8d
rorx $0x1b, %edx, %r15d
lea 0xca62c1d6(%ecx,%r11d), %ecx
add %r8d, %ecx
add %r15d, %ecx
rol $0x1e, %ebp
xor 48(%rsp), %r9d
xor 24(%rsp), %r9d
xor 16(%rsp), %r9d
rol $1, %r9d
mov %r9d, 16(%rsp)
mov %edx, %r15d
xor %ebp, %r15d
xor %eax, %r15d
rorx $0x1b, %ecx, %r8d
lea 0xca62c1d6(%ebx,%r9d), %ebx
add %r15d, %ebx
add %r8d, %ebx
rol $0x1e, %edx
xor 52(%rsp), %r10d
xor 28(%rsp), %r10d
xor 20(%rsp), %r10d
rol $1, %r10d
mov %r10d, 20(%rsp)
rorx $0x1b, %ebx, %r8d
lea 0xca62c1d6(%eax,%r10d), %eax
mov %ecx, %r15d
xor %edx, %r15d
xor %ebp, %r15d
add %r15d, %eax
add %r8d, %eax
rol $0x1e, %ecx
xor 56(%rsp), %r11d
xor 32(%rsp), %r11d
xor 24(%rsp), %r11d
rol $1, %r11d
mov %r11d, 24(%rsp)
mov %ebx, %r8d
xor %ecx, %r8d
xor %edx, %r8d
rorx $0x1b, %eax, %r15d
lea 0xca62c1d6(%ebp,%r11d), %ebp
add %r8d, %ebp
add %r15d, %ebp
rol $0x1e, %ebx
xor 60(%rsp), %r9d
xor 36(%rsp), %r9d
xor 28(%rsp), %r9d
rol $1, %r9d
mov %r9d, 28(%rsp)
mov %eax, %r15d
xor %ebx, %r15d
xor %ecx, %r15d
rorx $0x1b, %ebp, %r8d
lea 0xca62c1d6(%edx,%r9d), %edx
add %r15d, %edx
add %r8d, %edx
rol $0x1e, %eax
xor (%rsp), %r10d
xor 40(%rsp), %r10d
xor 32(%rsp), %r10d
rol $1, %r10d
mov %ebp, %r8d
xor %eax, %r8d
xor %ebx, %r8d
lea 0xca62c1d6(%ecx,%r10d), %ecx
add %r8d, %ecx
rol $0x1e, %ebp
xor 4(%rsp), %r11d
xor 44(%rsp), %r11d
xor 36(%rsp), %r11d
rorx $0x1b, %edx, %r8d
rol $1, %r11d
add %r8d, %ecx
mov %edx, %r8d
xor %ebp, %r8d
xor %eax, %r8d
rorx $0x1b, %ecx, %r15d
lea 0xca62c1d6(%ebx,%r11d), %ebx
add %r8d, %ebx
add %r15d, %ebx
rol $0x1e, %edx
xor 8(%rsp), %r9d
xor 48(%rsp), %r9d
xor 40(%rsp), %r9d
rol $1, %r9d
mov %ecx, %r15d
xor %edx, %r15d
xor %ebp, %r15d
rorx $0x1b, %ebx, %r8d
lea 0xca62c1d6(%eax,%r9d), %eax
add %r15d, %eax
add %r8d, %eax
rol $0x1e, %ecx
xor 12(%rsp), %r10d
xor 52(%rsp), %r10d
xor 44(%rsp), %r10d
rol $1, %r10d
rorx $0x1b, %eax, %r8d
mov %ebx, %r15d
xor %ecx, %r15d
xor %edx, %r15d
lea 0xca62c1d6(%ebp,%r10d), %ebp
add %r15d, %ebp
add %r8d, %ebp
rol $0x1e, %ebx
mov %eax, %r8d
xor 16(%rsp), %r11d
xor %ebx, %r8d
xor 56(%rsp), %r11d
xor %ecx, %r8d
xor 48(%rsp), %r11d
rol $1, %r11d
lea 0xca62c1d6(%edx,%r11d), %edx
add %r8d, %edx
rol $0x1e, %eax
xor 20(%rsp), %r9d
xor 60(%rsp), %r9d
xor 52(%rsp), %r9d
rorx $0x1b, %ebp, %r8d
rol $1, %r9d
add %r8d, %edx
mov %ebp, %r8d
xor %eax, %r8d
xor %ebx, %r8d
lea 0xca62c1d6(%ecx,%r9d), %ecx
add %r8d, %ecx
rol $0x1e, %ebp
xor 24(%rsp), %r10d
xor (%rsp), %r10d
xor 56(%rsp), %r10d
rorx $0x1b, %edx, %r8d
rol $1, %r10d
add %r8d, %ecx
mov %edx, %r8d
xor %ebp, %r8d
xor 28(%rsp), %r11d
xor %eax, %r8d
xor 4(%rsp), %r11d
xor 60(%rsp), %r11d
rol $1, %r11d
lea 0xca62c1d6(%ebx,%r10d), %ebx
add %r8d, %ebx
rol $0x1e, %edx
rorx $0x1b, %ecx, %r8d
add %r8d, %ebx
lea 0xca62c1d6(%eax,%r11d), %eax
mov %ecx, %r11d
xor %edx, %r11d
xor %ebp, %r11d
add %r11d, %eax
rol $0x1e, %ecx
rorx $0x1b, %ebx, %r11d
add %r11d, %eax
