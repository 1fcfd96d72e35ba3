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
#include "words.h"

extern void harness_main(void);

int main(int argc, char **argv) {
    if (write_words(0, 1, argc, argv) != 0) return 9;
    harness_main();
    return 0;
}
