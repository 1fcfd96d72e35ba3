/*
 * Words a harness program writes into memory after start-up (csrc/dlopen_main.c,
 * csrc/hosted_main.c): each argument ADDRESS=HEXBYTES, the address in hex,
 * plus base. A byte is written only where it differs (a pointer no
 * constructor changed may lie in data made read-only after relocation).
 * Returns 0, or 9 on a malformed argument.
 */
#include <stdlib.h>
#include <string.h>

static int hex_digit(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static int write_words(unsigned long base, int first, int argc, char **argv) {
    for (int i = first; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) return 9;
        unsigned char *at = (unsigned char *)(base + strtoul(argv[i], NULL, 16));
        for (const char *p = eq + 1; *p; p += 2, at++) {
            int hi = hex_digit(p[0]), lo = p[1] ? hex_digit(p[1]) : -1;
            if (hi < 0 || lo < 0) return 9;
            if (*at != (unsigned char)(hi << 4 | lo)) *at = (unsigned char)(hi << 4 | lo);
        }
    }
    return 0;
}
