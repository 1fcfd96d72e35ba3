# rounds 0-79 of the skylake x86-64 whole block the search kept under the 6-iteration loop measure (issue 11 re-search of 2026-12-01, /tmp/measure/store.sqlite): 283.0 per iteration, 285.46 over 50
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
andn %ebx, %ecx, %r10d
mov %edx, %r11d
or %ebx, %r11d
andn %r11d, %r10d, %r10d
add %r10d, %ebp
rorx $0x1b, %eax, %r10d
add %r10d, %ebp
ror $2, %ebx
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
ror $2, %eax
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
ror $2, %ebp
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
ror $2, %r11d
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
ror $2, %ecx
lea 0x5a827999(%ebp,%r8d), %ebp
rorx $0x1b, %eax, %r8d
andn %ebx, %ecx, %r13d
mov %r11d, %r12d
or %ebx, %r12d
ror $2, %ebx
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
ror $2, %eax
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
ror $2, %r13d
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
ror $2, %edx
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
ror $2, %ecx
andn %ebx, %ecx, %r13d
andn %r8d, %r13d, %r13d
add %r13d, %ebp
add %r11d, %ebp
ror $2, %ebx
mov 52(%rsi), %r11d
bswap %r11d
mov %r11d, 52(%rsp)
lea 0x5a827999(%edx,%r12d), %edx
rorx $0x1b, %ebp, %r12d
andn %eax, %ebx, %r13d
mov %ecx, %r8d
or %eax, %r8d
ror $2, %eax
andn %r8d, %r13d, %r13d
add %r13d, %edx
add %r12d, %edx
lea 0x5a827999(%ecx,%r10d), %ecx
rorx $0x1b, %edx, %r10d
andn %ebp, %eax, %r12d
mov %ebx, %r13d
mov %eax, %r8d
or %ebp, %r13d
ror $2, %ebp
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
ror $2, %edx
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
ror $2, %ecx
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
ror $2, %ebx
andn %eax, %ebx, %r12d
andn %r13d, %r12d, %r12d
xor 40(%rsp), %r9d
lea 0x5a827999(%edx,%r11d), %edx
add %r12d, %edx
rorx $0x1b, %ebp, %r12d
xor 16(%rsp), %r9d
add %r12d, %edx
xor 8(%rsp), %r9d
ror $2, %eax
andn %ebp, %eax, %r12d
rol $1, %r9d
mov %r9d, 8(%rsp)
mov %ebx, %r13d
or %ebp, %r13d
andn %r13d, %r12d, %r12d
xor 44(%rsp), %r11d
lea 0x5a827999(%ecx,%r14d), %ecx
add %r12d, %ecx
xor 20(%rsp), %r11d
xor 12(%rsp), %r11d
rol $1, %r11d
mov %r11d, 12(%rsp)
mov %eax, %r12d
or %edx, %r12d
rorx $0x1b, %edx, %r13d
add %r13d, %ecx
ror $2, %ebp
andn %edx, %ebp, %r13d
andn %r12d, %r13d, %r13d
ror $2, %edx
rorx $0x1b, %ecx, %r12d
xor 48(%rsp), %r14d
lea 0x5a827999(%ebx,%r9d), %ebx
add %r13d, %ebx
xor 24(%rsp), %r14d
add %r12d, %ebx
xor 16(%rsp), %r14d
rol $1, %r14d
andn %ecx, %edx, %r12d
mov %r14d, 16(%rsp)
mov %ebp, %r13d
or %ecx, %r13d
andn %r13d, %r12d, %r12d
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x5a827999(%eax,%r11d), %eax
add %r12d, %eax
rorx $0x1b, %ebx, %r12d
xor 20(%rsp), %r9d
add %r12d, %eax
rol $1, %r9d
ror $2, %ecx
mov %r9d, 20(%rsp)
mov %edx, %r12d
xor %ecx, %r12d
xor %ebx, %r12d
xor 56(%rsp), %r11d
xor 32(%rsp), %r11d
rorx $0x1b, %eax, %r13d
xor 24(%rsp), %r11d
lea 0x6ed9eba1(%ebp,%r14d), %ebp
add %r12d, %ebp
add %r13d, %ebp
rol $1, %r11d
ror $2, %ebx
mov %r11d, 24(%rsp)
mov %ecx, %r13d
xor %ebx, %r13d
xor %eax, %r13d
xor 60(%rsp), %r14d
xor 36(%rsp), %r14d
xor 28(%rsp), %r14d
rol $1, %r14d
mov %r14d, 28(%rsp)
mov %ebx, %r12d
rorx $0x1b, %ebp, %r10d
lea 0x6ed9eba1(%edx,%r9d), %edx
add %r13d, %edx
add %r10d, %edx
ror $2, %eax
xor %eax, %r12d
xor %ebp, %r12d
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %edx, %r10d
xor 32(%rsp), %r9d
rol $1, %r9d
ror $2, %ebp
mov %r9d, 32(%rsp)
mov %eax, %r13d
xor %ebp, %r13d
xor %edx, %r13d
lea 0x6ed9eba1(%ecx,%r11d), %ecx
add %r12d, %ecx
add %r10d, %ecx
xor 4(%rsp), %r11d
xor 44(%rsp), %r11d
rorx $0x1b, %ecx, %r10d
xor 36(%rsp), %r11d
rol $1, %r11d
ror $2, %edx
mov %r11d, 36(%rsp)
mov %ebp, %r12d
xor %edx, %r12d
xor %ecx, %r12d
lea 0x6ed9eba1(%ebx,%r14d), %ebx
add %r13d, %ebx
add %r10d, %ebx
xor 8(%rsp), %r14d
xor 48(%rsp), %r14d
rorx $0x1b, %ebx, %r10d
xor 40(%rsp), %r14d
lea 0x6ed9eba1(%eax,%r9d), %eax
add %r12d, %eax
add %r10d, %eax
rol $1, %r14d
ror $2, %ecx
mov %r14d, 40(%rsp)
mov %edx, %r8d
xor %ecx, %r8d
xor %ebx, %r8d
xor 12(%rsp), %r9d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
lea 0x6ed9eba1(%ebp,%r11d), %ebp
add %ebp, %r8d
ror $2, %ebx
rol $1, %r9d
mov %r9d, 44(%rsp)
mov %ecx, %ebp
xor %ebx, %ebp
xor %eax, %ebp
rorx $0x1b, %eax, %r10d
add %r10d, %r8d
xor 16(%rsp), %r11d
xor 56(%rsp), %r11d
lea 0x6ed9eba1(%edx,%r14d), %edx
add %ebp, %edx
xor 48(%rsp), %r11d
rol $1, %r11d
mov %r11d, 48(%rsp)
mov %ebx, %ebp
ror $2, %eax
xor %eax, %ebp
xor %r8d, %ebp
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
ror $2, %r8d
mov %r14d, 52(%rsp)
mov %eax, %r10d
xor %r8d, %r10d
xor %edx, %r10d
ror $2, %edx
xor 24(%rsp), %r9d
xor (%rsp), %r9d
xor 56(%rsp), %r9d
lea 0x6ed9eba1(%ebx,%r11d), %ebx
add %r10d, %ebx
rol $1, %r9d
mov %r9d, 56(%rsp)
mov %r8d, %r10d
xor %edx, %r10d
xor %ecx, %r10d
rorx $0x1b, %ecx, %ebp
add %ebp, %ebx
ror $2, %ecx
rorx $0x1b, %ebx, %ebp
lea 0x6ed9eba1(%eax,%r14d), %eax
add %r10d, %eax
add %ebp, %eax
mov %edx, %ebp
xor %ecx, %ebp
xor 28(%rsp), %r11d
xor %ebx, %ebp
xor 4(%rsp), %r11d
xor 60(%rsp), %r11d
rol $1, %r11d
lea 0x6ed9eba1(%r8d,%r9d), %r8d
add %ebp, %r8d
mov %r11d, 60(%rsp)
ror $2, %ebx
rorx $0x1b, %eax, %ebp
add %ebp, %r8d
mov %ecx, %ebp
xor %ebx, %ebp
xor 32(%rsp), %r14d
xor %eax, %ebp
xor 8(%rsp), %r14d
xor (%rsp), %r14d
rol $1, %r14d
mov %r14d, (%rsp)
ror $2, %eax
rorx $0x1b, %r8d, %r10d
lea 0x6ed9eba1(%edx,%r11d), %edx
add %ebp, %edx
add %r10d, %edx
mov %ebx, %r10d
xor %eax, %r10d
xor 36(%rsp), %r9d
xor %r8d, %r10d
xor 12(%rsp), %r9d
xor 40(%rsp), %r11d
xor 16(%rsp), %r11d
xor 4(%rsp), %r9d
xor 8(%rsp), %r11d
rol $1, %r9d
lea 0x6ed9eba1(%ecx,%r14d), %ecx
add %r10d, %ecx
mov %r9d, 4(%rsp)
rol $1, %r11d
mov %r11d, 8(%rsp)
rorx $0x1b, %edx, %r10d
add %r10d, %ecx
ror $2, %r8d
mov %eax, %r10d
xor %r8d, %r10d
xor %edx, %r10d
xor 44(%rsp), %r14d
xor 20(%rsp), %r14d
xor 12(%rsp), %r14d
lea 0x6ed9eba1(%ebx,%r9d), %ebx
add %r10d, %ebx
rol $1, %r14d
ror $2, %edx
mov %r14d, 12(%rsp)
rorx $0x1b, %ecx, %r10d
add %r10d, %ebx
mov %r8d, %r10d
xor %edx, %r10d
xor %ecx, %r10d
xor 48(%rsp), %r9d
xor 24(%rsp), %r9d
xor 16(%rsp), %r9d
lea 0x6ed9eba1(%eax,%r11d), %eax
add %r10d, %eax
rol $1, %r9d
mov %r9d, 16(%rsp)
rorx $0x1b, %ebx, %r10d
add %r10d, %eax
xor 52(%rsp), %r11d
xor 28(%rsp), %r11d
xor 20(%rsp), %r11d
ror $2, %ecx
rol $1, %r11d
mov %edx, %r10d
mov %r11d, 20(%rsp)
xor %ecx, %r10d
xor %ebx, %r10d
rorx $0x1b, %eax, %ebp
lea 0x6ed9eba1(%r8d,%r14d), %r8d
add %r10d, %r8d
add %ebp, %r8d
ror $2, %ebx
mov %ecx, %ebp
xor %ebx, %ebp
xor %eax, %ebp
xor 56(%rsp), %r14d
xor 32(%rsp), %r14d
rorx $0x1b, %r8d, %r10d
xor 24(%rsp), %r14d
lea 0x6ed9eba1(%edx,%r9d), %edx
add %ebp, %edx
add %r10d, %edx
rol $1, %r14d
ror $2, %eax
mov %r14d, 24(%rsp)
mov %ebx, %r10d
xor %eax, %r10d
xor %r8d, %r10d
xor 60(%rsp), %r9d
xor 36(%rsp), %r9d
xor 28(%rsp), %r9d
lea 0x6ed9eba1(%ecx,%r11d), %ecx
add %r10d, %ecx
rol $1, %r9d
rorx $0x1b, %edx, %r10d
add %r10d, %ecx
mov %r9d, 28(%rsp)
rorx $0x1b, %ecx, %r10d
ror $2, %r8d
mov %eax, %ebp
xor %r8d, %ebp
xor %edx, %ebp
lea 0x6ed9eba1(%ebx,%r14d), %ebx
add %ebp, %ebx
add %r10d, %ebx
ror $2, %edx
xor (%rsp), %r11d
xor 40(%rsp), %r11d
xor 32(%rsp), %r11d
rol $1, %r11d
lea 0x6ed9eba1(%eax,%r9d), %eax
mov %r11d, 32(%rsp)
mov %r8d, %r10d
xor %edx, %r10d
xor %ecx, %r10d
add %eax, %r10d
rorx $0x1b, %ebx, %eax
add %eax, %r10d
ror $2, %ecx
xor 4(%rsp), %r14d
xor 44(%rsp), %r14d
lea 0x8f1bbcdc(%r8d,%r11d), %ebp
xor 36(%rsp), %r14d
mov %ebx, %r8d
rol $1, %r14d
xor %ecx, %r8d
mov %r14d, 36(%rsp)
andn %ebx, %r8d, %eax
and %edx, %r8d
xor %eax, %r8d
add %r8d, %ebp
rorx $0x1b, %r10d, %r8d
xor 8(%rsp), %r9d
add %r8d, %ebp
xor 48(%rsp), %r9d
ror $2, %ebx
lea 0x8f1bbcdc(%edx,%r14d), %edx
xor 40(%rsp), %r9d
rol $1, %r9d
mov %r9d, 40(%rsp)
mov %r10d, %r8d
xor %ebx, %r8d
andn %r10d, %r8d, %eax
and %ecx, %r8d
xor %eax, %r8d
add %r8d, %edx
xor 12(%rsp), %r11d
xor 52(%rsp), %r11d
ror $2, %r10d
xor 44(%rsp), %r11d
rol $1, %r11d
mov %r11d, 44(%rsp)
lea 0x8f1bbcdc(%ecx,%r9d), %ecx
mov %ebp, %r8d
xor %r10d, %r8d
andn %ebp, %r8d, %eax
rorx $0x1b, %ebp, %r12d
and %ebx, %r8d
xor %r8d, %eax
add %r12d, %edx
add %eax, %ecx
rorx $0x1b, %edx, %eax
xor 16(%rsp), %r14d
add %eax, %ecx
xor 56(%rsp), %r14d
xor 48(%rsp), %r14d
rol $1, %r14d
mov %r14d, 48(%rsp)
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
mov %edx, %eax
ror $2, %ebp
xor %ebp, %eax
andn %edx, %eax, %r12d
and %r10d, %eax
xor %r12d, %eax
add %eax, %ebx
rorx $0x1b, %ecx, %eax
xor 20(%rsp), %r9d
add %eax, %ebx
xor 60(%rsp), %r9d
xor 52(%rsp), %r9d
rol $1, %r9d
mov %r9d, 52(%rsp)
lea 0x8f1bbcdc(%r10d,%r14d), %r10d
mov %ecx, %eax
ror $2, %edx
xor %edx, %eax
andn %ecx, %eax, %r13d
and %ebp, %eax
xor %r13d, %eax
add %eax, %r10d
rorx $0x1b, %ebx, %eax
add %eax, %r10d
xor 24(%rsp), %r11d
xor (%rsp), %r11d
lea 0x8f1bbcdc(%ebp,%r9d), %ebp
xor 56(%rsp), %r11d
mov %ebx, %eax
rorx $0x1b, %r10d, %r13d
rol $1, %r11d
mov %r11d, 56(%rsp)
ror $2, %ecx
xor %ecx, %eax
andn %ebx, %eax, %r12d
and %edx, %eax
xor %r12d, %eax
add %eax, %ebp
add %r13d, %ebp
xor 28(%rsp), %r14d
xor 4(%rsp), %r14d
lea 0x8f1bbcdc(%edx,%r11d), %edx
xor 60(%rsp), %r14d
mov %r10d, %r13d
rol $1, %r14d
mov %r14d, 60(%rsp)
ror $2, %ebx
xor %ebx, %r13d
andn %r10d, %r13d, %eax
and %ecx, %r13d
xor %eax, %r13d
add %r13d, %edx
rorx $0x1b, %ebp, %r13d
xor 32(%rsp), %r9d
add %r13d, %edx
xor 8(%rsp), %r9d
xor (%rsp), %r9d
rol $1, %r9d
mov %r9d, (%rsp)
lea 0x8f1bbcdc(%ecx,%r14d), %ecx
mov %ebp, %r13d
ror $2, %r10d
xor %r10d, %r13d
andn %ebp, %r13d, %eax
and %ebx, %r13d
xor %eax, %r13d
add %r13d, %ecx
rorx $0x1b, %edx, %r13d
xor 36(%rsp), %r11d
add %r13d, %ecx
xor 12(%rsp), %r11d
xor 4(%rsp), %r11d
rol $1, %r11d
mov %r11d, 4(%rsp)
lea 0x8f1bbcdc(%ebx,%r9d), %ebx
mov %edx, %r13d
ror $2, %ebp
xor %ebp, %r13d
andn %edx, %r13d, %eax
and %r10d, %r13d
xor %eax, %r13d
add %r13d, %ebx
rorx $0x1b, %ecx, %r13d
xor 40(%rsp), %r14d
add %r13d, %ebx
xor 16(%rsp), %r14d
lea 0x8f1bbcdc(%r10d,%r11d), %eax
xor 8(%rsp), %r14d
rol $1, %r14d
mov %r14d, 8(%rsp)
mov %ecx, %r12d
ror $2, %edx
xor %edx, %r12d
andn %ecx, %r12d, %r10d
and %ebp, %r12d
xor %r10d, %r12d
add %r12d, %eax
rorx $0x1b, %ebx, %r12d
xor 44(%rsp), %r9d
add %r12d, %eax
xor 20(%rsp), %r9d
xor 12(%rsp), %r9d
rol $1, %r9d
mov %r9d, 12(%rsp)
lea 0x8f1bbcdc(%ebp,%r14d), %ebp
ror $2, %ecx
rorx $0x1b, %eax, %r12d
xor 48(%rsp), %r11d
mov %ebx, %r10d
xor %ecx, %r10d
xor 24(%rsp), %r11d
andn %ebx, %r10d, %r13d
xor 16(%rsp), %r11d
and %edx, %r10d
rol $1, %r11d
xor %r13d, %r10d
mov %r11d, 16(%rsp)
add %r10d, %ebp
add %r12d, %ebp
mov %eax, %r12d
ror $2, %ebx
xor %ebx, %r12d
andn %eax, %r12d, %r10d
and %ecx, %r12d
xor %r10d, %r12d
lea 0x8f1bbcdc(%edx,%r9d), %edx
add %r12d, %edx
rorx $0x1b, %ebp, %r12d
xor 52(%rsp), %r14d
xor 28(%rsp), %r14d
add %r12d, %edx
xor 20(%rsp), %r14d
rol $1, %r14d
mov %r14d, 20(%rsp)
mov %ebp, %r12d
ror $2, %eax
xor %eax, %r12d
andn %ebp, %r12d, %r10d
and %ebx, %r12d
xor %r10d, %r12d
lea 0x8f1bbcdc(%ecx,%r11d), %r13d
add %r12d, %r13d
rorx $0x1b, %edx, %r12d
xor 56(%rsp), %r9d
add %r12d, %r13d
ror $2, %ebp
xor 32(%rsp), %r9d
xor 24(%rsp), %r9d
rol $1, %r9d
mov %r9d, 24(%rsp)
mov %edx, %r12d
xor %ebp, %r12d
andn %edx, %r12d, %ecx
and %eax, %r12d
xor %ecx, %r12d
lea 0x8f1bbcdc(%ebx,%r14d), %ebx
add %r12d, %ebx
rorx $0x1b, %r13d, %r12d
xor 60(%rsp), %r11d
add %r12d, %ebx
xor 36(%rsp), %r11d
ror $2, %edx
xor 28(%rsp), %r11d
rol $1, %r11d
mov %r11d, 28(%rsp)
mov %r13d, %r12d
rorx $0x1b, %ebx, %ecx
xor %edx, %r12d
andn %r13d, %r12d, %r10d
and %ebp, %r12d
xor %r10d, %r12d
lea 0x8f1bbcdc(%eax,%r9d), %eax
add %r12d, %eax
add %ecx, %eax
xor (%rsp), %r14d
xor 40(%rsp), %r14d
ror $2, %r13d
xor 32(%rsp), %r14d
rol $1, %r14d
mov %r14d, 32(%rsp)
mov %ebx, %ecx
xor %r13d, %ecx
andn %ebx, %ecx, %r12d
and %edx, %ecx
xor %r12d, %ecx
lea 0x8f1bbcdc(%ebp,%r11d), %ebp
add %ecx, %ebp
rorx $0x1b, %eax, %ecx
xor 4(%rsp), %r9d
add %ecx, %ebp
xor 44(%rsp), %r9d
ror $2, %ebx
xor 36(%rsp), %r9d
rol $1, %r9d
mov %r9d, 36(%rsp)
mov %eax, %ecx
xor 8(%rsp), %r11d
xor %ebx, %ecx
xor 48(%rsp), %r11d
andn %eax, %ecx, %r12d
xor 40(%rsp), %r11d
and %r13d, %ecx
rol $1, %r11d
xor %r12d, %ecx
mov %r11d, 40(%rsp)
lea 0x8f1bbcdc(%edx,%r14d), %r8d
add %ecx, %r8d
rorx $0x1b, %ebp, %ecx
add %ecx, %r8d
ror $2, %eax
mov %ebp, %ecx
xor %eax, %ecx
andn %ebp, %ecx, %edx
and %ebx, %ecx
xor %edx, %ecx
lea 0x8f1bbcdc(%r13d,%r9d), %r13d
add %ecx, %r13d
rorx $0x1b, %r8d, %ecx
xor 12(%rsp), %r14d
add %ecx, %r13d
xor 52(%rsp), %r14d
ror $2, %ebp
xor 44(%rsp), %r14d
rol $1, %r14d
mov %r14d, 44(%rsp)
rorx $0x1b, %r13d, %ecx
lea 0x8f1bbcdc(%ebx,%r11d), %ebx
mov %r8d, %edx
xor 16(%rsp), %r9d
xor %ebp, %edx
xor 56(%rsp), %r9d
andn %r8d, %edx, %r12d
ror $2, %r8d
xor 48(%rsp), %r9d
and %eax, %edx
rol $1, %r9d
xor %r12d, %edx
mov %r9d, 48(%rsp)
add %edx, %ebx
add %ecx, %ebx
mov %r13d, %ecx
rorx $0x1b, %ebx, %edx
xor %r8d, %ecx
andn %r13d, %ecx, %r12d
ror $2, %r13d
and %ebp, %ecx
xor %r12d, %ecx
lea 0x8f1bbcdc(%eax,%r14d), %eax
add %ecx, %eax
add %edx, %eax
xor 20(%rsp), %r11d
xor 60(%rsp), %r11d
xor 52(%rsp), %r11d
rorx $0x1b, %eax, %edx
rol $1, %r11d
mov %r11d, 52(%rsp)
mov %r8d, %ecx
xor %r13d, %ecx
xor %ebx, %ecx
xor 24(%rsp), %r14d
xor (%rsp), %r14d
xor 56(%rsp), %r14d
lea 0xca62c1d6(%ebp,%r9d), %ebp
add %ecx, %ebp
add %edx, %ebp
rorx $0x1b, %ebp, %edx
rol $1, %r14d
ror $2, %ebx
mov %r14d, 56(%rsp)
mov %r13d, %ecx
xor %ebx, %ecx
xor %eax, %ecx
lea 0xca62c1d6(%r8d,%r11d), %r8d
add %ecx, %r8d
add %edx, %r8d
ror $2, %eax
rorx $0x1b, %r8d, %edx
mov %ebx, %ecx
xor %eax, %ecx
xor 28(%rsp), %r9d
xor %ebp, %ecx
xor 4(%rsp), %r9d
xor 60(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%r13d,%r14d), %r13d
add %ecx, %r13d
add %edx, %r13d
mov %r9d, 60(%rsp)
ror $2, %ebp
xor 32(%rsp), %r11d
xor 8(%rsp), %r11d
xor (%rsp), %r11d
rorx $0x1b, %r13d, %edx
rol $1, %r11d
mov %r11d, (%rsp)
xor 36(%rsp), %r14d
xor 12(%rsp), %r14d
xor 4(%rsp), %r14d
lea 0xca62c1d6(%ebx,%r9d), %ebx
rol $1, %r14d
mov %eax, %ecx
mov %r14d, 4(%rsp)
xor %ebp, %ecx
xor %r8d, %ecx
ror $2, %r8d
add %ecx, %ebx
add %edx, %ebx
rorx $0x1b, %ebx, %edx
xor 40(%rsp), %r9d
xor 16(%rsp), %r9d
xor 8(%rsp), %r9d
lea 0xca62c1d6(%eax,%r11d), %eax
rol $1, %r9d
mov %ebp, %ecx
mov %r9d, 8(%rsp)
xor %r8d, %ecx
xor %r13d, %ecx
ror $2, %r13d
add %ecx, %eax
add %edx, %eax
rorx $0x1b, %eax, %edx
mov %r8d, %ecx
xor %r13d, %ecx
xor %ebx, %ecx
xor 44(%rsp), %r11d
xor 20(%rsp), %r11d
xor 12(%rsp), %r11d
lea 0xca62c1d6(%ebp,%r14d), %ebp
add %ecx, %ebp
add %edx, %ebp
rol $1, %r11d
ror $2, %ebx
mov %r11d, 12(%rsp)
rorx $0x1b, %ebp, %edx
xor 48(%rsp), %r14d
xor 24(%rsp), %r14d
xor 16(%rsp), %r14d
lea 0xca62c1d6(%r8d,%r9d), %r8d
rol $1, %r14d
mov %r13d, %ecx
mov %r14d, 16(%rsp)
xor %ebx, %ecx
xor %eax, %ecx
ror $2, %eax
add %ecx, %r8d
add %edx, %r8d
rorx $0x1b, %r8d, %edx
xor 52(%rsp), %r9d
xor 28(%rsp), %r9d
xor 20(%rsp), %r9d
lea 0xca62c1d6(%r13d,%r11d), %ecx
rol $1, %r9d
mov %ebx, %r13d
mov %r9d, 20(%rsp)
xor %eax, %r13d
xor %ebp, %r13d
ror $2, %ebp
add %r13d, %ecx
add %edx, %ecx
rorx $0x1b, %ecx, %edx
xor 56(%rsp), %r11d
xor 32(%rsp), %r11d
xor 24(%rsp), %r11d
lea 0xca62c1d6(%ebx,%r14d), %ebx
rol $1, %r11d
mov %eax, %r13d
lea 0xca62c1d6(%eax,%r9d), %eax
mov %r11d, 24(%rsp)
xor %ebp, %r13d
xor %r8d, %r13d
ror $2, %r8d
add %r13d, %ebx
add %edx, %ebx
rorx $0x1b, %ebx, %r13d
xor 60(%rsp), %r14d
xor 36(%rsp), %r14d
xor 28(%rsp), %r14d
rol $1, %r14d
mov %ebp, %edx
mov %r14d, 28(%rsp)
xor %r8d, %edx
xor %ecx, %edx
ror $2, %ecx
add %edx, %eax
add %r13d, %eax
xor (%rsp), %r9d
xor 40(%rsp), %r9d
rorx $0x1b, %eax, %r13d
xor 32(%rsp), %r9d
lea 0xca62c1d6(%ebp,%r11d), %ebp
rol $1, %r9d
mov %r8d, %edx
xor %ecx, %edx
xor %ebx, %edx
add %edx, %ebp
add %r13d, %ebp
ror $2, %ebx
lea 0xca62c1d6(%r8d,%r14d), %edx
xor 4(%rsp), %r11d
xor 44(%rsp), %r11d
xor 36(%rsp), %r11d
rorx $0x1b, %ebp, %r8d
rol $1, %r11d
mov %ecx, %r13d
xor %ebx, %r13d
xor %eax, %r13d
ror $2, %eax
add %r13d, %edx
add %r8d, %edx
xor 8(%rsp), %r14d
xor 48(%rsp), %r14d
xor 40(%rsp), %r14d
rol $1, %r14d
lea 0xca62c1d6(%ecx,%r9d), %ecx
mov %ebx, %r8d
xor %eax, %r8d
xor %ebp, %r8d
ror $2, %ebp
add %r8d, %ecx
xor 12(%rsp), %r9d
xor 52(%rsp), %r9d
xor 44(%rsp), %r9d
rorx $0x1b, %edx, %r8d
rol $1, %r9d
add %r8d, %ecx
rorx $0x1b, %ecx, %r8d
lea 0xca62c1d6(%ebx,%r11d), %ebx
mov %eax, %r13d
xor %ebp, %r13d
xor %edx, %r13d
ror $2, %edx
add %r13d, %ebx
add %r8d, %ebx
mov %ebp, %r8d
xor %edx, %r8d
xor %ecx, %r8d
rorx $0x1b, %ebx, %r13d
lea 0xca62c1d6(%eax,%r14d), %eax
add %r8d, %eax
add %r13d, %eax
ror $2, %ecx
xor 16(%rsp), %r11d
xor 56(%rsp), %r11d
xor 48(%rsp), %r11d
rol $1, %r11d
xor 20(%rsp), %r14d
xor 60(%rsp), %r14d
xor 52(%rsp), %r14d
rorx $0x1b, %eax, %r13d
rol $1, %r14d
lea 0xca62c1d6(%ebp,%r9d), %ebp
mov %edx, %r8d
xor %ecx, %r8d
xor %ebx, %r8d
ror $2, %ebx
add %r8d, %ebp
add %r13d, %ebp
rorx $0x1b, %ebp, %r13d
xor 24(%rsp), %r9d
xor (%rsp), %r9d
xor 56(%rsp), %r9d
rol $1, %r9d
lea 0xca62c1d6(%edx,%r11d), %edx
mov %ecx, %r8d
xor %ebx, %r8d
xor %eax, %r8d
ror $2, %eax
add %r8d, %edx
add %r13d, %edx
xor 28(%rsp), %r11d
xor 4(%rsp), %r11d
xor 60(%rsp), %r11d
rorx $0x1b, %edx, %r13d
rol $1, %r11d
lea 0xca62c1d6(%ecx,%r14d), %ecx
mov %ebx, %r14d
xor %eax, %r14d
xor %ebp, %r14d
ror $2, %ebp
add %r14d, %ecx
add %r13d, %ecx
rorx $0x1b, %ecx, %r13d
lea 0xca62c1d6(%ebx,%r9d), %ebx
mov %eax, %r9d
xor %ebp, %r9d
xor %edx, %r9d
ror $2, %edx
add %r9d, %ebx
add %r13d, %ebx
rorx $0x1b, %ebx, %r13d
lea 0xca62c1d6(%eax,%r11d), %eax
mov %ebp, %r11d
xor %edx, %r11d
xor %ecx, %r11d
ror $2, %ecx
add %r11d, %eax
add %r13d, %eax
