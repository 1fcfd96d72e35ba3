/*
 * The native harness for a function of a shared object (emit/harness.py,
 * SharedObjectHarness): a libc program that loads the object with dlopen,
 * finds the function at its address in the file's layout plus the load base
 * (a stripped object's internal functions have no name to look up), writes
 * the given words at their addresses likewise (a dispatch path's capability
 * words, such as OpenSSL's OPENSSL_ia32cap_P, after the object's constructors
 * have set them) and then runs harness.c's record loop (built with
 * -DSHA1OPT_HOSTED), which calls the function through sha1opt_target.
 *
 *   argv: OBJECT ADDRESS [WORD_ADDRESS=HEXBYTES ...]     (addresses in hex)
 *
 * Exit status 8: the object cannot be loaded (dlerror on stderr); 9: bad
 * arguments. The caller checks that each word lies in a section written at
 * run time and outside the part made read-only after relocation.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

void *sha1opt_target;           /* the function's run-time address: the entry stub jumps to it */
extern void harness_main(void);

int main(int argc, char **argv) {
    if (argc < 3) return 9;
    void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 8;
    }
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) {
        fprintf(stderr, "dlinfo: %s\n", dlerror());
        return 8;
    }
    unsigned char *base = (unsigned char *)map->l_addr;
    sha1opt_target = base + strtoul(argv[2], NULL, 16);
    if (write_words((unsigned long)base, 3, argc, argv) != 0) return 9;
    harness_main();
    return 0;
}
