# rounds 0-79 of best_block('skylake', 'x86_64') from the lead's store of 2026-12-01 (0-79: proved result stored for this CPU under another model version, re-measured: bb4ffbfa6190)
mov (%rsi), %r8d
bswap %r8d
mov %r8d, (%rsp)
mov 4(%rsi), %r9d
bswap %r9d
mov %r9d, 4(%rsp)
lea 0x5a827999(%ebp,%r8d), %ebp
rorx $0x1b, %eax, %r8d
andn %ebx, %ecx, %r10d
mov %edx, %r11d
or %ebx, %r11d
mov 8(%rsi), %r12d
andn %r11d, %r10d, %r10d
bswap %r12d
add %r10d, %ebp
add %r8d, %ebp
mov %r12d, 8(%rsp)
lea 0x5a827999(%edx,%r9d), %r10d
rorx $0x1b, %ebp, %r9d
rol $0x1e, %ebx
andn %eax, %ebx, %edx
mov %ecx, %r8d
or %eax, %r8d
mov 12(%rsi), %r11d
andn %r8d, %edx, %edx
bswap %r11d
add %edx, %r10d
add %r9d, %r10d
mov %r11d, 12(%rsp)
rol $0x1e, %eax
rorx $0x1b, %r10d, %r9d
andn %ebp, %eax, %edx
mov %ebx, %r8d
or %ebp, %r8d
mov 16(%rsi), %r13d
andn %r8d, %edx, %edx
bswap %r13d
mov %r13d, 16(%rsp)
lea 0x5a827999(%ecx,%r12d), %ecx
add %edx, %ecx
add %r9d, %ecx
lea 0x5a827999(%ebx,%r11d), %ebx
rorx $0x1b, %ecx, %r11d
rol $0x1e, %ebp
andn %r10d, %ebp, %r9d
mov %eax, %edx
or %r10d, %edx
mov 20(%rsi), %r12d
andn %edx, %r9d, %r9d
bswap %r12d
add %r9d, %ebx
add %r11d, %ebx
mov %r12d, 20(%rsp)
lea 0x5a827999(%eax,%r13d), %eax
rol $0x1e, %r10d
rorx $0x1b, %ebx, %r13d
andn %ecx, %r10d, %r11d
mov %ebp, %r9d
or %ecx, %r9d
mov 24(%rsi), %edx
andn %r9d, %r11d, %r11d
bswap %edx
add %r11d, %eax
add %r13d, %eax
mov %edx, 24(%rsp)
rol $0x1e, %ecx
lea 0x5a827999(%ebp,%r12d), %ebp
rorx $0x1b, %eax, %r12d
andn %ebx, %ecx, %r13d
mov %r10d, %r11d
or %ebx, %r11d
rol $0x1e, %ebx
mov 28(%rsi), %r9d
andn %r11d, %r13d, %r13d
bswap %r9d
add %r13d, %ebp
add %r12d, %ebp
mov %r9d, 28(%rsp)
lea 0x5a827999(%r10d,%edx), %edx
rorx $0x1b, %ebp, %r10d
andn %eax, %ebx, %r13d
mov %ecx, %r12d
or %eax, %r12d
mov 32(%rsi), %r11d
andn %r12d, %r13d, %r13d
bswap %r11d
add %r13d, %edx
add %r10d, %edx
mov %r11d, 32(%rsp)
rol $0x1e, %eax
lea 0x5a827999(%ecx,%r9d), %ecx
rorx $0x1b, %edx, %r9d
andn %ebp, %eax, %r10d
mov %ebx, %r13d
or %ebp, %r13d
mov 36(%rsi), %r12d
andn %r13d, %r10d, %r10d
bswap %r12d
add %r10d, %ecx
add %r9d, %ecx
mov %r12d, 36(%rsp)
rol $0x1e, %ebp
andn %edx, %ebp, %r9d
mov %eax, %r10d
or %edx, %r10d
andn %r10d, %r9d, %r9d
rorx $0x1b, %ecx, %r10d
mov 40(%rsi), %r13d
bswap %r13d
mov %r13d, 40(%rsp)
lea 0x5a827999(%ebx,%r11d), %ebx
add %r9d, %ebx
add %r10d, %ebx
rorx $0x1b, %ebx, %r10d
rol $0x1e, %edx
lea 0x5a827999(%eax,%r12d), %eax
andn %ecx, %edx, %r12d
mov %ebp, %r9d
or %ecx, %r9d
mov 44(%rsi), %r11d
andn %r9d, %r12d, %r12d
bswap %r11d
add %r12d, %eax
add %r10d, %eax
mov %r11d, 44(%rsp)
mov %edx, %r10d
or %ebx, %r10d
mov 48(%rsi), %r12d
bswap %r12d
mov %r12d, 48(%rsp)
lea 0x5a827999(%ebp,%r13d), %ebp
rorx $0x1b, %eax, %r13d
rol $0x1e, %ecx
andn %ebx, %ecx, %r9d
andn %r10d, %r9d, %r9d
add %r9d, %ebp
add %r13d, %ebp
rol $0x1e, %ebx
mov 52(%rsi), %r13d
bswap %r13d
mov %r13d, 52(%rsp)
lea 0x5a827999(%edx,%r11d), %edx
andn %eax, %ebx, %r11d
mov %ecx, %r9d
or %eax, %r9d
rol $0x1e, %eax
andn %r9d, %r11d, %r11d
add %r11d, %edx
rorx $0x1b, %ebp, %r11d
add %r11d, %edx
andn %ebp, %eax, %r11d
mov %ebx, %r9d
or %ebp, %r9d
mov 56(%rsi), %r10d
andn %r9d, %r11d, %r11d
bswap %r10d
mov %r10d, 56(%rsp)
lea 0x5a827999(%ecx,%r12d), %ecx
add %r11d, %ecx
rorx $0x1b, %edx, %r11d
add %r11d, %ecx
rol $0x1e, %ebp
andn %edx, %ebp, %r11d
mov %eax, %r12d
or %edx, %r12d
mov 60(%rsi), %r9d
andn %r12d, %r11d, %r11d
bswap %r9d
mov %r9d, 60(%rsp)
lea 0x5a827999(%ebx,%r13d), %ebx
add %r11d, %ebx
rorx $0x1b, %ecx, %r8d
add %r8d, %ebx
rol $0x1e, %edx
andn %ecx, %edx, %r8d
mov %ebp, %r11d
or %ecx, %r11d
xor 32(%rsp), %r13d
andn %r11d, %r8d, %r8d
xor 8(%rsp), %r13d
xor (%rsp), %r13d
lea 0x5a827999(%eax,%r10d), %eax
add %r8d, %eax
rorx $0x1b, %ebx, %r8d
rol $1, %r13d
add %r8d, %eax
mov %r13d, (%rsp)
rol $0x1e, %ecx
andn %ebx, %ecx, %r8d
mov %edx, %r11d
or %ebx, %r11d
andn %r11d, %r8d, %r8d
xor 36(%rsp), %r10d
lea 0x5a827999(%ebp,%r9d), %ebp
add %r8d, %ebp
rorx $0x1b, %eax, %r8d
xor 12(%rsp), %r10d
add %r8d, %ebp
xor 4(%rsp), %r10d
rol $1, %r10d
mov %r10d, 4(%rsp)
rol $0x1e, %ebx
andn %eax, %ebx, %r8d
mov %ecx, %r11d
or %eax, %r11d
andn %r11d, %r8d, %r8d
xor 40(%rsp), %r9d
lea 0x5a827999(%edx,%r13d), %edx
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
xor 16(%rsp), %r9d
add %r8d, %edx
xor 8(%rsp), %r9d
rol $0x1e, %eax
rol $1, %r9d
mov %r9d, 8(%rsp)
andn %ebp, %eax, %r8d
mov %ebx, %r11d
or %ebp, %r11d
andn %r11d, %r8d, %r8d
xor 44(%rsp), %r13d
lea 0x5a827999(%ecx,%r10d), %ecx
add %r8d, %ecx
xor 20(%rsp), %r13d
xor 12(%rsp), %r13d
rol $1, %r13d
mov %r13d, 12(%rsp)
rorx $0x1b, %edx, %r8d
add %r8d, %ecx
rol $0x1e, %ebp
andn %edx, %ebp, %r8d
mov %eax, %r11d
or %edx, %r11d
andn %r11d, %r8d, %r8d
rorx $0x1b, %ecx, %r11d
xor 48(%rsp), %r10d
lea 0x5a827999(%ebx,%r9d), %ebx
add %r8d, %ebx
xor 24(%rsp), %r10d
add %r11d, %ebx
xor 16(%rsp), %r10d
rol $0x1e, %edx
rol $1, %r10d
mov %r10d, 16(%rsp)
andn %ecx, %edx, %r11d
mov %ebp, %r8d
or %ecx, %r8d
andn %r8d, %r11d, %r11d
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x5a827999(%eax,%r13d), %eax
add %r11d, %eax
rorx $0x1b, %ebx, %r11d
xor 20(%rsp), %r9d
add %r11d, %eax
rol $1, %r9d
rol $0x1e, %ecx
mov %r9d, 20(%rsp)
mov %ebx, %r11d
xor %edx, %r11d
xor %ecx, %r11d
xor 56(%rsp), %r13d
xor 32(%rsp), %r13d
rorx $0x1b, %eax, %r8d
xor 24(%rsp), %r13d
lea 0x6ed9eba1(%ebp,%r10d), %ebp
add %r11d, %ebp
add %r8d, %ebp
rol $1, %r13d
rol $0x1e, %ebx
mov %r13d, 24(%rsp)
xor 60(%rsp), %r10d
xor 36(%rsp), %r10d
xor 28(%rsp), %r10d
lea 0x6ed9eba1(%edx,%r9d), %edx
rol $1, %r10d
mov %eax, %r8d
mov %r10d, 28(%rsp)
xor %ecx, %r8d
xor %ebx, %r8d
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
add %r8d, %edx
rol $0x1e, %eax
mov %ebp, %r8d
xor %ebx, %r8d
xor %eax, %r8d
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %edx, %r11d
xor 32(%rsp), %r9d
rol $1, %r9d
rol $0x1e, %ebp
mov %r9d, 32(%rsp)
lea 0x6ed9eba1(%ecx,%r13d), %ecx
add %r8d, %ecx
add %r11d, %ecx
mov %edx, %r11d
xor %eax, %r11d
xor %ebp, %r11d
xor 4(%rsp), %r13d
xor 44(%rsp), %r13d
rorx $0x1b, %ecx, %r8d
xor 36(%rsp), %r13d
rol $1, %r13d
rol $0x1e, %edx
mov %r13d, 36(%rsp)
lea 0x6ed9eba1(%ebx,%r10d), %ebx
add %r11d, %ebx
add %r8d, %ebx
mov %ecx, %r8d
xor %ebp, %r8d
xor %edx, %r8d
xor 8(%rsp), %r10d
xor 48(%rsp), %r10d
rorx $0x1b, %ebx, %r11d
xor 40(%rsp), %r10d
lea 0x6ed9eba1(%eax,%r9d), %eax
add %r8d, %eax
add %r11d, %eax
rol $1, %r10d
rol $0x1e, %ecx
mov %r10d, 40(%rsp)
mov %ebx, %r14d
xor %edx, %r14d
xor %ecx, %r14d
xor 12(%rsp), %r9d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
lea 0x6ed9eba1(%ebp,%r13d), %ebp
add %ebp, %r14d
rol $0x1e, %ebx
rol $1, %r9d
mov %r9d, 44(%rsp)
rorx $0x1b, %eax, %ebp
add %ebp, %r14d
mov %eax, %ebp
xor %ecx, %ebp
xor %ebx, %ebp
xor 16(%rsp), %r13d
xor 56(%rsp), %r13d
lea 0x6ed9eba1(%edx,%r10d), %edx
add %ebp, %edx
xor 48(%rsp), %r13d
rol $1, %r13d
rol $0x1e, %eax
mov %r13d, 48(%rsp)
rorx $0x1b, %r14d, %ebp
add %ebp, %edx
mov %r14d, %ebp
xor %ebx, %ebp
xor %eax, %ebp
xor 20(%rsp), %r10d
xor 60(%rsp), %r10d
rorx $0x1b, %edx, %r11d
xor 52(%rsp), %r10d
rol $1, %r10d
lea 0x6ed9eba1(%ecx,%r9d), %ecx
add %ebp, %ecx
add %r11d, %ecx
rol $0x1e, %r14d
mov %r10d, 52(%rsp)
mov %edx, %r11d
rol $0x1e, %edx
xor %eax, %r11d
xor %r14d, %r11d
xor 24(%rsp), %r9d
xor (%rsp), %r9d
rorx $0x1b, %ecx, %ebp
xor 56(%rsp), %r9d
lea 0x6ed9eba1(%ebx,%r13d), %ebx
add %r11d, %ebx
add %ebp, %ebx
rol $1, %r9d
mov %r9d, 56(%rsp)
mov %ecx, %ebp
rol $0x1e, %ecx
xor %r14d, %ebp
xor %edx, %ebp
lea 0x6ed9eba1(%eax,%r10d), %eax
add %ebp, %eax
xor 28(%rsp), %r13d
xor 4(%rsp), %r13d
rorx $0x1b, %ebx, %ebp
xor 60(%rsp), %r13d
add %ebp, %eax
rol $1, %r13d
lea 0x6ed9eba1(%r14d,%r9d), %ebp
mov %r13d, 60(%rsp)
mov %ebx, %r14d
rol $0x1e, %ebx
xor %edx, %r14d
xor %ecx, %r14d
xor 32(%rsp), %r10d
add %r14d, %ebp
xor 8(%rsp), %r10d
xor (%rsp), %r10d
rol $1, %r10d
mov %r10d, (%rsp)
rorx $0x1b, %eax, %r14d
add %r14d, %ebp
mov %eax, %r14d
rol $0x1e, %eax
xor %ecx, %r14d
xor %ebx, %r14d
xor 36(%rsp), %r9d
xor 12(%rsp), %r9d
xor 4(%rsp), %r9d
lea 0x6ed9eba1(%edx,%r13d), %edx
add %r14d, %edx
rol $1, %r9d
mov %r9d, 4(%rsp)
xor 40(%rsp), %r13d
xor 16(%rsp), %r13d
rorx $0x1b, %ebp, %r14d
xor 8(%rsp), %r13d
add %r14d, %edx
lea 0x6ed9eba1(%ecx,%r10d), %ecx
rol $1, %r13d
mov %ebp, %r14d
mov %r13d, 8(%rsp)
xor %ebx, %r14d
xor %eax, %r14d
add %r14d, %ecx
rol $0x1e, %ebp
mov %edx, %r14d
xor %eax, %r14d
xor %ebp, %r14d
xor 44(%rsp), %r10d
rorx $0x1b, %edx, %r11d
xor 20(%rsp), %r10d
add %r11d, %ecx
xor 12(%rsp), %r10d
lea 0x6ed9eba1(%ebx,%r9d), %ebx
add %r14d, %ebx
rol $1, %r10d
rol $0x1e, %edx
mov %r10d, 12(%rsp)
rorx $0x1b, %ecx, %r14d
add %r14d, %ebx
mov %ecx, %r14d
xor %ebp, %r14d
xor %edx, %r14d
xor 48(%rsp), %r9d
xor 24(%rsp), %r9d
xor 16(%rsp), %r9d
lea 0x6ed9eba1(%eax,%r13d), %eax
add %r14d, %eax
rol $1, %r9d
mov %r9d, 16(%rsp)
rorx $0x1b, %ebx, %r14d
add %r14d, %eax
xor 52(%rsp), %r13d
xor 28(%rsp), %r13d
xor 20(%rsp), %r13d
rol $0x1e, %ecx
rol $1, %r13d
mov %ebx, %r14d
mov %r13d, 20(%rsp)
xor %edx, %r14d
xor %ecx, %r14d
rorx $0x1b, %eax, %r11d
lea 0x6ed9eba1(%ebp,%r10d), %ebp
add %r14d, %ebp
add %r11d, %ebp
rol $0x1e, %ebx
mov %eax, %r11d
xor %ecx, %r11d
xor %ebx, %r11d
xor 56(%rsp), %r10d
xor 32(%rsp), %r10d
rorx $0x1b, %ebp, %r14d
xor 24(%rsp), %r10d
lea 0x6ed9eba1(%edx,%r9d), %edx
add %r11d, %edx
add %r14d, %edx
rol $1, %r10d
mov %r10d, 24(%rsp)
rol $0x1e, %eax
mov %ebp, %r14d
xor %ebx, %r14d
xor %eax, %r14d
xor 60(%rsp), %r9d
xor 36(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x6ed9eba1(%ecx,%r13d), %ecx
add %r14d, %ecx
rorx $0x1b, %edx, %r14d
add %r14d, %ecx
rol $1, %r9d
mov %r9d, 28(%rsp)
rol $0x1e, %ebp
mov %edx, %r14d
xor %eax, %r14d
xor %ebp, %r14d
rorx $0x1b, %ecx, %r11d
lea 0x6ed9eba1(%ebx,%r10d), %ebx
add %r14d, %ebx
add %r11d, %ebx
rol $0x1e, %edx
xor (%rsp), %r13d
xor 40(%rsp), %r13d
xor 32(%rsp), %r13d
rol $1, %r13d
lea 0x6ed9eba1(%eax,%r9d), %eax
mov %r13d, 32(%rsp)
mov %ecx, %r11d
xor %ebp, %r11d
xor %edx, %r11d
add %eax, %r11d
rorx $0x1b, %ebx, %eax
add %eax, %r11d
rol $0x1e, %ecx
xor 4(%rsp), %r10d
xor 44(%rsp), %r10d
lea 0x8f1bbcdc(%ebp,%r13d), %ebp
xor 36(%rsp), %r10d
mov %ebx, %eax
rol $1, %r10d
xor %ecx, %eax
mov %r10d, 36(%rsp)
andn %ebx, %eax, %r14d
and %edx, %eax
xor %r14d, %eax
add %eax, %ebp
rorx $0x1b, %r11d, %eax
xor 8(%rsp), %r9d
add %eax, %ebp
xor 48(%rsp), %r9d
rol $0x1e, %ebx
lea 0x8f1bbcdc(%edx,%r10d), %edx
xor 40(%rsp), %r9d
rol $1, %r9d
mov %r9d, 40(%rsp)
mov %r11d, %eax
xor %ebx, %eax
andn %r11d, %eax, %r14d
and %ecx, %eax
xor %r14d, %eax
add %eax, %edx
xor 12(%rsp), %r13d
xor 52(%rsp), %r13d
rol $0x1e, %r11d
xor 44(%rsp), %r13d
rol $1, %r13d
mov %r13d, 44(%rsp)
rorx $0x1b, %ebp, %eax
add %eax, %edx
lea 0x8f1bbcdc(%ecx,%r9d), %ecx
mov %ebp, %eax
xor %r11d, %eax
andn %ebp, %eax, %r14d
and %ebx, %eax
xor %eax, %r14d
add %r14d, %ecx
rorx $0x1b, %edx, %r14d
xor 16(%rsp), %r10d
add %r14d, %ecx
xor 56(%rsp), %r10d
xor 48(%rsp), %r10d
rol $1, %r10d
mov %r10d, 48(%rsp)
rol $0x1e, %ebp
lea 0x8f1bbcdc(%ebx,%r13d), %ebx
mov %edx, %r14d
xor %ebp, %r14d
andn %edx, %r14d, %eax
and %r11d, %r14d
xor %eax, %r14d
add %r14d, %ebx
rorx $0x1b, %ecx, %r14d
xor 20(%rsp), %r9d
add %r14d, %ebx
xor 60(%rsp), %r9d
xor 52(%rsp), %r9d
rol $1, %r9d
mov %r9d, 52(%rsp)
rol $0x1e, %edx
lea 0x8f1bbcdc(%r11d,%r10d), %r11d
mov %ecx, %r14d
xor %edx, %r14d
andn %ecx, %r14d, %eax
and %ebp, %r14d
xor %eax, %r14d
add %r14d, %r11d
rorx $0x1b, %ebx, %r14d
add %r14d, %r11d
xor 24(%rsp), %r13d
xor (%rsp), %r13d
rol $0x1e, %ecx
lea 0x8f1bbcdc(%ebp,%r9d), %ebp
xor 56(%rsp), %r13d
mov %ebx, %r14d
rol $1, %r13d
xor %ecx, %r14d
mov %r13d, 56(%rsp)
andn %ebx, %r14d, %eax
and %edx, %r14d
xor %eax, %r14d
add %r14d, %ebp
rorx $0x1b, %r11d, %r14d
xor 28(%rsp), %r10d
add %r14d, %ebp
xor 4(%rsp), %r10d
xor 60(%rsp), %r10d
rol $1, %r10d
mov %r10d, 60(%rsp)
rol $0x1e, %ebx
lea 0x8f1bbcdc(%edx,%r13d), %edx
mov %r11d, %r14d
xor %ebx, %r14d
andn %r11d, %r14d, %eax
and %ecx, %r14d
xor %eax, %r14d
add %r14d, %edx
rorx $0x1b, %ebp, %r14d
xor 32(%rsp), %r9d
add %r14d, %edx
xor 8(%rsp), %r9d
xor (%rsp), %r9d
rol $1, %r9d
mov %r9d, (%rsp)
rol $0x1e, %r11d
lea 0x8f1bbcdc(%ecx,%r10d), %ecx
mov %ebp, %r14d
xor %r11d, %r14d
andn %ebp, %r14d, %eax
and %ebx, %r14d
xor %eax, %r14d
add %r14d, %ecx
rorx $0x1b, %edx, %r14d
xor 36(%rsp), %r13d
add %r14d, %ecx
xor 12(%rsp), %r13d
xor 4(%rsp), %r13d
rol $1, %r13d
mov %r13d, 4(%rsp)
rol $0x1e, %ebp
lea 0x8f1bbcdc(%ebx,%r9d), %ebx
mov %edx, %r14d
xor %ebp, %r14d
andn %edx, %r14d, %eax
and %r11d, %r14d
xor %eax, %r14d
add %r14d, %ebx
rorx $0x1b, %ecx, %r14d
xor 40(%rsp), %r10d
add %r14d, %ebx
xor 16(%rsp), %r10d
lea 0x8f1bbcdc(%r11d,%r13d), %eax
xor 8(%rsp), %r10d
rol $1, %r10d
mov %r10d, 8(%rsp)
rol $0x1e, %edx
mov %ecx, %r8d
xor %edx, %r8d
andn %ecx, %r8d, %r11d
and %ebp, %r8d
xor %r11d, %r8d
add %r8d, %eax
rorx $0x1b, %ebx, %r8d
xor 44(%rsp), %r9d
add %r8d, %eax
xor 20(%rsp), %r9d
xor 12(%rsp), %r9d
rol $1, %r9d
mov %r9d, 12(%rsp)
rol $0x1e, %ecx
lea 0x8f1bbcdc(%ebp,%r10d), %ebp
rorx $0x1b, %eax, %r8d
xor 48(%rsp), %r13d
mov %ebx, %r11d
xor %ecx, %r11d
xor 24(%rsp), %r13d
andn %ebx, %r11d, %r14d
xor 16(%rsp), %r13d
and %edx, %r11d
rol $1, %r13d
xor %r14d, %r11d
mov %r13d, 16(%rsp)
add %r11d, %ebp
add %r8d, %ebp
rol $0x1e, %ebx
mov %eax, %r8d
xor %ebx, %r8d
andn %eax, %r8d, %r11d
and %ecx, %r8d
xor %r11d, %r8d
lea 0x8f1bbcdc(%edx,%r9d), %edx
add %r8d, %edx
rorx $0x1b, %ebp, %r8d
xor 52(%rsp), %r10d
xor 28(%rsp), %r10d
add %r8d, %edx
xor 20(%rsp), %r10d
rol $1, %r10d
mov %r10d, 20(%rsp)
rol $0x1e, %eax
mov %ebp, %r8d
xor %eax, %r8d
andn %ebp, %r8d, %r11d
and %ebx, %r8d
xor %r11d, %r8d
lea 0x8f1bbcdc(%ecx,%r13d), %r14d
add %r8d, %r14d
rorx $0x1b, %edx, %r8d
xor 56(%rsp), %r9d
add %r8d, %r14d
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
lea 0x8f1bbcdc(%ebx,%r10d), %ebx
add %r8d, %ebx
rorx $0x1b, %r14d, %r8d
xor 60(%rsp), %r13d
add %r8d, %ebx
xor 36(%rsp), %r13d
rol $0x1e, %edx
xor 28(%rsp), %r13d
rol $1, %r13d
mov %r13d, 28(%rsp)
mov %r14d, %r8d
rorx $0x1b, %ebx, %ecx
xor %edx, %r8d
andn %r14d, %r8d, %r11d
and %ebp, %r8d
xor %r11d, %r8d
lea 0x8f1bbcdc(%eax,%r9d), %eax
add %r8d, %eax
add %ecx, %eax
xor (%rsp), %r10d
xor 40(%rsp), %r10d
rol $0x1e, %r14d
xor 32(%rsp), %r10d
rol $1, %r10d
mov %r10d, 32(%rsp)
mov %ebx, %ecx
xor %r14d, %ecx
andn %ebx, %ecx, %r8d
and %edx, %ecx
xor %r8d, %ecx
lea 0x8f1bbcdc(%ebp,%r13d), %ebp
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
xor 8(%rsp), %r13d
xor %ebx, %ecx
xor 48(%rsp), %r13d
andn %eax, %ecx, %r8d
xor 40(%rsp), %r13d
and %r14d, %ecx
rol $1, %r13d
xor %r8d, %ecx
mov %r13d, 40(%rsp)
lea 0x8f1bbcdc(%edx,%r10d), %r12d
add %ecx, %r12d
rorx $0x1b, %ebp, %ecx
add %ecx, %r12d
rol $0x1e, %eax
mov %ebp, %ecx
xor %eax, %ecx
andn %ebp, %ecx, %edx
and %ebx, %ecx
xor %edx, %ecx
lea 0x8f1bbcdc(%r14d,%r9d), %r14d
add %ecx, %r14d
rorx $0x1b, %r12d, %ecx
xor 12(%rsp), %r10d
add %ecx, %r14d
xor 52(%rsp), %r10d
rol $0x1e, %ebp
xor 44(%rsp), %r10d
rol $1, %r10d
mov %r10d, 44(%rsp)
mov %r12d, %ecx
rorx $0x1b, %r14d, %edx
xor %ebp, %ecx
andn %r12d, %ecx, %r8d
and %eax, %ecx
xor %r8d, %ecx
lea 0x8f1bbcdc(%ebx,%r13d), %ebx
add %ecx, %ebx
add %edx, %ebx
xor 16(%rsp), %r9d
xor 56(%rsp), %r9d
rol $0x1e, %r12d
xor 48(%rsp), %r9d
rol $1, %r9d
mov %r9d, 48(%rsp)
mov %r14d, %edx
rorx $0x1b, %ebx, %ecx
xor %r12d, %edx
andn %r14d, %edx, %r8d
rol $0x1e, %r14d
and %ebp, %edx
xor %r8d, %edx
lea 0x8f1bbcdc(%eax,%r10d), %eax
add %edx, %eax
add %ecx, %eax
xor 20(%rsp), %r13d
xor 60(%rsp), %r13d
xor 52(%rsp), %r13d
rorx $0x1b, %eax, %ecx
rol $1, %r13d
mov %r13d, 52(%rsp)
mov %ebx, %edx
xor %r12d, %edx
xor %r14d, %edx
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %edx, %ebp
add %ecx, %ebp
rorx $0x1b, %ebp, %ecx
rol $0x1e, %ebx
xor 24(%rsp), %r10d
xor (%rsp), %r10d
xor 56(%rsp), %r10d
rol $1, %r10d
mov %r10d, 56(%rsp)
mov %eax, %edx
xor %r14d, %edx
xor %ebx, %edx
lea 0xca62c1d6(%r12d,%r13d), %r12d
add %edx, %r12d
add %ecx, %r12d
rol $0x1e, %eax
rorx $0x1b, %r12d, %ecx
mov %ebp, %edx
xor %ebx, %edx
xor 28(%rsp), %r9d
xor %eax, %edx
xor 4(%rsp), %r9d
xor 60(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%r14d,%r10d), %r14d
add %edx, %r14d
add %ecx, %r14d
mov %r9d, 60(%rsp)
rol $0x1e, %ebp
xor 32(%rsp), %r13d
xor 8(%rsp), %r13d
xor (%rsp), %r13d
rorx $0x1b, %r14d, %ecx
rol $1, %r13d
mov %r13d, (%rsp)
xor 36(%rsp), %r10d
xor 12(%rsp), %r10d
xor 4(%rsp), %r10d
lea 0xca62c1d6(%ebx,%r9d), %ebx
rol $1, %r10d
mov %r12d, %edx
rol $0x1e, %r12d
mov %r10d, 4(%rsp)
xor %eax, %edx
xor %ebp, %edx
add %edx, %ebx
add %ecx, %ebx
rorx $0x1b, %ebx, %ecx
mov %r14d, %edx
xor %ebp, %edx
xor %r12d, %edx
xor 40(%rsp), %r9d
xor 16(%rsp), %r9d
xor 8(%rsp), %r9d
lea 0xca62c1d6(%eax,%r13d), %eax
add %edx, %eax
add %ecx, %eax
rol $1, %r9d
rol $0x1e, %r14d
mov %r9d, 8(%rsp)
rorx $0x1b, %eax, %ecx
mov %ebx, %edx
xor %r12d, %edx
xor %r14d, %edx
xor 44(%rsp), %r13d
xor 20(%rsp), %r13d
xor 12(%rsp), %r13d
lea 0xca62c1d6(%ebp,%r10d), %ebp
add %edx, %ebp
add %ecx, %ebp
rol $1, %r13d
rol $0x1e, %ebx
mov %r13d, 12(%rsp)
rorx $0x1b, %ebp, %ecx
mov %eax, %edx
rol $0x1e, %eax
xor %r14d, %edx
xor %ebx, %edx
xor 48(%rsp), %r10d
xor 24(%rsp), %r10d
xor 16(%rsp), %r10d
lea 0xca62c1d6(%r12d,%r9d), %r12d
add %edx, %r12d
add %ecx, %r12d
rol $1, %r10d
mov %r10d, 16(%rsp)
rorx $0x1b, %r12d, %ecx
mov %ebp, %edx
xor %ebx, %edx
xor %eax, %edx
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
xor 20(%rsp), %r9d
lea 0xca62c1d6(%r14d,%r13d), %r14d
add %edx, %r14d
add %ecx, %r14d
rol $1, %r9d
rol $0x1e, %ebp
mov %r9d, 20(%rsp)
rorx $0x1b, %r14d, %ecx
mov %r12d, %edx
xor %eax, %edx
xor %ebp, %edx
xor 56(%rsp), %r13d
xor 32(%rsp), %r13d
xor 24(%rsp), %r13d
lea 0xca62c1d6(%ebx,%r10d), %ebx
add %edx, %ebx
add %ecx, %ebx
rol $1, %r13d
rol $0x1e, %r12d
mov %r13d, 24(%rsp)
rorx $0x1b, %ebx, %ecx
lea 0xca62c1d6(%eax,%r9d), %eax
mov %r14d, %edx
xor %ebp, %edx
xor %r12d, %edx
xor 60(%rsp), %r10d
add %edx, %eax
add %ecx, %eax
xor 36(%rsp), %r10d
xor 28(%rsp), %r10d
rol $1, %r10d
rol $0x1e, %r14d
mov %r10d, 28(%rsp)
mov %ebx, %ecx
xor %r12d, %ecx
xor %r14d, %ecx
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %eax, %edx
xor 32(%rsp), %r9d
lea 0xca62c1d6(%ebp,%r13d), %ebp
add %ecx, %ebp
add %edx, %ebp
rol $1, %r9d
rol $0x1e, %ebx
lea 0xca62c1d6(%r12d,%r10d), %edx
mov %eax, %r12d
xor %r14d, %r12d
xor 4(%rsp), %r13d
xor %ebx, %r12d
xor 44(%rsp), %r13d
add %r12d, %edx
xor 36(%rsp), %r13d
rorx $0x1b, %ebp, %r12d
rol $1, %r13d
add %r12d, %edx
rol $0x1e, %eax
mov %ebp, %r12d
xor %ebx, %r12d
xor 8(%rsp), %r10d
xor %eax, %r12d
xor 48(%rsp), %r10d
xor 40(%rsp), %r10d
rol $1, %r10d
lea 0xca62c1d6(%r14d,%r9d), %ecx
add %r12d, %ecx
rol $0x1e, %ebp
rorx $0x1b, %edx, %r12d
add %r12d, %ecx
mov %edx, %r12d
xor %eax, %r12d
xor 12(%rsp), %r9d
xor %ebp, %r12d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
rorx $0x1b, %ecx, %r14d
rol $1, %r9d
lea 0xca62c1d6(%ebx,%r13d), %ebx
add %r12d, %ebx
add %r14d, %ebx
rol $0x1e, %edx
mov %ecx, %r14d
xor %ebp, %r14d
xor %edx, %r14d
rorx $0x1b, %ebx, %r12d
lea 0xca62c1d6(%eax,%r10d), %eax
add %r14d, %eax
add %r12d, %eax
rol $0x1e, %ecx
xor 16(%rsp), %r13d
xor 56(%rsp), %r13d
xor 48(%rsp), %r13d
rol $1, %r13d
mov %ebx, %r12d
xor %edx, %r12d
xor 20(%rsp), %r10d
xor %ecx, %r12d
xor 60(%rsp), %r10d
xor 52(%rsp), %r10d
rorx $0x1b, %eax, %r14d
rol $1, %r10d
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %r12d, %ebp
add %r14d, %ebp
rol $0x1e, %ebx
rorx $0x1b, %ebp, %r14d
mov %eax, %r12d
xor %ecx, %r12d
xor 24(%rsp), %r9d
xor %ebx, %r12d
xor (%rsp), %r9d
xor 56(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%edx,%r13d), %edx
add %r12d, %edx
add %r14d, %edx
rol $0x1e, %eax
mov %ebp, %r14d
xor %ebx, %r14d
xor 28(%rsp), %r13d
xor %eax, %r14d
xor 4(%rsp), %r13d
xor 60(%rsp), %r13d
rorx $0x1b, %edx, %r12d
rol $1, %r13d
lea 0xca62c1d6(%ecx,%r10d), %ecx
add %r14d, %ecx
add %r12d, %ecx
rol $0x1e, %ebp
rorx $0x1b, %ecx, %r12d
mov %edx, %r14d
xor %eax, %r14d
xor %ebp, %r14d
lea 0xca62c1d6(%ebx,%r9d), %ebx
add %r14d, %ebx
add %r12d, %ebx
rol $0x1e, %edx
rorx $0x1b, %ebx, %r12d
lea 0xca62c1d6(%eax,%r13d), %eax
mov %ecx, %r13d
rol $0x1e, %ecx
xor %ebp, %r13d
xor %edx, %r13d
add %r13d, %eax
add %r12d, %eax
