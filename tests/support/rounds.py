"""Round 20 of SHA-1 as straight-line x86-64 code, with its cut-point bindings (for block-proof tests)."""

ROUND_20 = """
    mov 68(%rsp), %esi     # W17
    xor 48(%rsp), %esi     # ^ W12
    xor 24(%rsp), %esi     # ^ W6
    xor 16(%rsp), %esi     # ^ W4
    rol $1, %esi
    mov %esi, 80(%rsp)     # W20
    add $0x6ed9eba1, %esi  # + K
    add %ebp, %esi         # + e
    mov %ebx, %edi
    xor %ecx, %edi
    xor %edx, %edi
    add %edi, %esi         # + parity(b, c, d)
    mov %eax, %edi
    rol $5, %edi
    add %edi, %esi         # + rol(a, 5): the new a
    rol $30, %ebx
"""
ROUND_20_INPUTS = {"a": ("reg", "eax"), "b": ("reg", "ebx"), "c": ("reg", "ecx"), "d": ("reg", "edx"),
                   "e": ("reg", "ebp"), **{f"W{j}": ("mem", "stack", 4 * j) for j in range(4, 20)}}
ROUND_20_OUTPUTS = {"a": ("reg", "esi"), "b": ("reg", "eax"), "c": ("reg", "ebx"), "d": ("reg", "ecx"),
                    "e": ("reg", "edx"), **{f"W{j}": ("mem", "stack", 4 * j) for j in range(5, 21)}}
