/*
 * The native harness for a function of an archive member that calls the C
 * library or other members (emit/harness.py, ArchiveHarness): a libc program
 * linked with the member, the archive and the C library, whose main runs
 * harness.c's record loop (built with -DSHA1OPT_HOSTED). The archive's own
 * constructors (nettle's fat_init) run before main, as in any program; main
 * then writes the given words at their addresses (a function pointer's value
 * as the file holds it, so a record's first call takes the resolver, as a
 * call made before the constructors would).
 *
 *   argv: [WORD_ADDRESS=HEXBYTES ...]     (addresses in hex; -no-pie: as linked)
 *
 * Exit status 9: bad arguments.
 */
#include <stdlib.h>
#include <string.h>

extern void harness_main(void);

static int hex(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) return 9;
        unsigned char *at = (unsigned char *)strtoul(argv[i], NULL, 16);
        for (const char *p = eq + 1; *p; p += 2, at++) {
            int hi = hex(p[0]), lo = p[1] ? hex(p[1]) : -1;
            if (hi < 0 || lo < 0) return 9;
            /* written only where it differs: a pointer no constructor changed may lie in read-only data */
            if (*at != (unsigned char)(hi << 4 | lo)) *at = (unsigned char)(hi << 4 | lo);
        }
    }
    harness_main();
    return 0;
}
