/*
 * Interleaved throughput benchmark: `sha1opt bench` builds this with the
 * candidate object and the C peer (sha1_ref.c), and on x86-64 loads
 * OpenSSL's libcrypto with dlopen (OPENSSL_ia32cap is set by the parent
 * process before the library initialises, which picks its code path).
 *
 * stdin (little-endian u32): pairs, min_bytes, nsizes | PROBES, sizes[nsizes]
 * stdout (u64): tsc_hz (0 when not measured), npeers, then for every size,
 * pair and peer (in a rotating order within each pair): peer index, ticks,
 * bytes. Ticks are TSC ticks (rdtsc after lfence), not core cycles.
 *
 * With the PROBES bit, every pair ends with two more records, the core-share
 * probes (npeers counts them: they are the last two peers): PROBE_ADDS
 * dependent adds (one ALU a clock), then PROBE_ADDS adds in four independent
 * chains (every ALU); "bytes" is the number of adds. On a core of its own
 * their quotient is the same every pair; a pair during which another hardware
 * thread shared the core shows the second slower, the first not.
 *
 * Hosted on x86-64 (libc, dlopen); with -DSHA1OPT_FREESTANDING it is a
 * static i386 program with raw syscalls and no OpenSSL peer.
 */
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned long usize;

extern void sha1_block_data_order(u32 *state, const void *data, usize nblocks);
extern void sha1_ref_block_data_order(u32 *state, const void *data, usize nblocks);

static inline u64 ticks(void) {
    u32 lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((u64)hi << 32) | lo;
}

#define MAX_BYTES (1u << 20)
static unsigned char buffer[MAX_BYTES + 64] __attribute__((aligned(64)));

#ifdef SHA1OPT_FREESTANDING
static long sys3(long n, long a, long b, long c) {
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}
static int read_full(void *buf, usize n) {
    unsigned char *p = buf;
    while (n) { long r = sys3(3, 0, (long)p, (long)n); if (r <= 0) return 0; p += r; n -= (usize)r; }
    return 1;
}
static void write_full(const void *buf, usize n) {
    const unsigned char *p = buf;
    while (n) { long r = sys3(4, 1, (long)p, (long)n); if (r <= 0) break; p += r; n -= (usize)r; }
}
static void finish(int code) { for (;;) sys3(1, code, 0, 0); }
static u64 tsc_hz(void) { return 0; }
void *memcpy(void *d, const void *s, usize n) { char *x = d; const char *y = s; while (n--) *x++ = *y++; return d; }
void *memset(void *d, int c, usize n) { char *x = d; while (n--) *x++ = (char)c; return d; }
#define NPEERS 2
#else
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
static int read_full(void *buf, usize n) {
    unsigned char *p = buf;
    while (n) { long r = read(0, p, n); if (r <= 0) return 0; p += r; n -= (usize)r; }
    return 1;
}
static void write_full(const void *buf, usize n) {
    const unsigned char *p = buf;
    while (n) { long r = write(1, p, n); if (r <= 0) break; p += r; n -= (usize)r; }
}
static void finish(int code) { exit(code); }
static u64 tsc_hz(void) {
    /* TSC ticks over 200 ms of CLOCK_MONOTONIC_RAW. */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    u64 t0 = ticks();
    do clock_gettime(CLOCK_MONOTONIC_RAW, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < 200000000LL);
    u64 t1 = ticks();
    double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
    return (u64)((t1 - t0) * 1e9 / ns);
}
typedef struct { unsigned char opaque[128]; } sha_ctx;  /* >= sizeof(SHA_CTX) (96) */
static int (*ossl_init)(sha_ctx *);
static int (*ossl_update)(sha_ctx *, const void *, usize);
#define NPEERS 3
#endif

#define PROBES 0x100u          /* in the nsizes word: run the core-share probes after each pair */
#define PROBE_ADDS 131072u     /* adds per probe (~130 k core cycles for the chain) */

/* PROBE_ADDS adds: one dependent chain (ways 1) or four independent ones (ways 4), 32 adds an iteration. */
static void probe(int ways) {
    u32 n = PROBE_ADDS / 32, a = 0, b = 0, c = 0, d = 0;
    if (ways == 1) {
        __asm__ volatile("1:\n\t" ".rept 32\n\taddl $1, %0\n\t.endr\n\t" "decl %1\n\tjnz 1b"
                         : "+r"(a), "+r"(n) :: "cc");
    } else {
        __asm__ volatile("1:\n\t" ".rept 8\n\taddl $1, %0\n\taddl $1, %1\n\taddl $1, %2\n\taddl $1, %3\n\t.endr\n\t"
                         "decl %4\n\tjnz 1b" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(n) :: "cc");
    }
}

static void run_peer(int peer, const unsigned char *data, usize size, usize calls) {
    static u32 state[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    if (peer == 0) {
        for (usize i = 0; i < calls; i++) sha1_block_data_order(state, data, size / 64);
    } else if (peer == 1) {
        for (usize i = 0; i < calls; i++) sha1_ref_block_data_order(state, data, size / 64);
    }
#ifndef SHA1OPT_FREESTANDING
    else {
        static sha_ctx ctx;
        ossl_init(&ctx);
        for (usize i = 0; i < calls; i++) ossl_update(&ctx, data, size);
    }
#endif
}

#ifdef SHA1OPT_FREESTANDING
void bench_main(void)
#else
int main(int argc, char **argv)
#endif
{
    u32 head[3];
    u32 sizes[16];
    if (!read_full(head, sizeof head) || (head[2] & ~PROBES) > 16 || !read_full(sizes, 4 * (head[2] & 0xffu)))
        finish(2);
    u32 pairs = head[0], min_bytes = head[1], nsizes = head[2] & 0xffu, probes = head[2] & PROBES;
    int npeers = NPEERS;
#ifndef SHA1OPT_FREESTANDING
    const char *lib = argc > 1 ? argv[1] : 0;
    if (lib) {
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h) finish(3);
        ossl_init = (int (*)(sha_ctx *))dlsym(h, "SHA1_Init");
        ossl_update = (int (*)(sha_ctx *, const void *, usize))dlsym(h, "SHA1_Update");
        if (!ossl_init || !ossl_update) finish(4);
    } else {
        npeers = 2;
    }
#endif
    /* Deterministic data (an LCG): the content does not change SHA-1's timing. */
    u32 x = 12345;
    for (usize i = 0; i < sizeof buffer; i++) { x = x * 1103515245u + 12345u; buffer[i] = (unsigned char)(x >> 16); }
    u64 out[4] = {tsc_hz(), (u64)npeers + (probes ? 2 : 0), 0, 0};
    write_full(out, 2 * sizeof(u64));
    for (u32 s = 0; s < nsizes; s++) {
        usize size = sizes[s];
        if (size == 0 || size % 64 || size > MAX_BYTES) finish(5);
        usize calls = min_bytes / size ? min_bytes / size : 1;
        for (int p = 0; p < npeers; p++) run_peer(p, buffer, size, calls);   /* warm-up */
        for (u32 pair = 0; pair < pairs; pair++) {
            for (int k = 0; k < npeers; k++) {
                int p = (k + (int)pair) % npeers;                        /* rotate who goes first */
                u64 t0 = ticks();
                run_peer(p, buffer, size, calls);
                u64 t1 = ticks();
                u64 rec[3] = {(u64)p, t1 - t0, (u64)(size * calls)};
                write_full(rec, sizeof rec);
            }
            for (int w = 0; probes && w < 2; w++) {
                u64 t0 = ticks();
                probe(w ? 4 : 1);
                u64 t1 = ticks();
                u64 rec[3] = {(u64)(npeers + w), t1 - t0, (u64)PROBE_ADDS};
                write_full(rec, sizeof rec);
            }
        }
    }
    finish(0);
#ifndef SHA1OPT_FREESTANDING
    return 0;
#endif
}
