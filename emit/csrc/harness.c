/*
 * Freestanding validation harness for an emitted sha1_block_data_order.
 *
 * Built twice from this one file: -m64 and -m32, with -ffreestanding
 * -nostdlib (no libc, raw syscalls, own _start), so the i386 candidate runs
 * on a host without 32-bit libraries. Protocol on stdin / stdout, all words
 * little-endian uint32:
 *
 *   in:  nblocks, misalign, chunk, tail, state[5], data[nblocks * 64 + tail]   (repeated)
 *   out: state[5], flags                                                       (per record)
 *
 * chunk = blocks per call (0: all in one call); misalign = bytes the data
 * ends before a PROT_NONE guard page (0: it ends exactly at the guard, so
 * any over-read faults); tail = bytes (0..63) after the whole blocks, in the
 * buffer but not hashed: a function taking a byte length is passed
 * 64 * nblocks + tail (sha1opt_tail, read by emit/adapter.py's code). The state sits at the end of its page, followed by
 * a guard page, with two canary words before it. flags: bit 0 a callee-saved
 * register (or the stack pointer) changed, bit 1 a canary changed, bit 2 the
 * input data changed. A fault kills the process: the caller sees the signal.
 *
 * With -DSHA1OPT_HOSTED it is the record loop of a libc program instead
 * (csrc/dlopen_main.c: a function of a shared object, loaded with dlopen):
 * no _start, no C library functions or stack-protector guard of its own.
 */
typedef unsigned int u32;
typedef unsigned long usize;
typedef unsigned char u8;

extern void sha1_block_data_order(u32 *state, const void *data, usize nblocks);
extern u32 sha1opt_call_checked(u32 *state, const void *data, usize nblocks);

/* The trailing bytes of the current record: an interface adapter adds them to a byte length. */
usize sha1opt_tail;

#define PAGE 4096UL
#define DATA_MAX (32UL << 20)       /* largest record: 32 MiB of blocks */
#define IN_MAX (DATA_MAX + 4096UL)

/* Raw system calls; mmap lives in callcheck_*.S (six arguments). */
extern void *sha1opt_map(usize len);
#if defined(__x86_64__)
static long sys3(long n, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
enum { SYS_READ = 0, SYS_WRITE = 1, SYS_MPROTECT = 10, SYS_EXIT = 60 };
#else
static long sys3(long n, long a, long b, long c) {
    long r;
    /* ebx is free with -fno-pie; the kernel preserves every other register. */
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}
enum { SYS_READ = 3, SYS_WRITE = 4, SYS_MPROTECT = 125, SYS_EXIT = 1 };
#endif
static void *map(usize len) { return sha1opt_map(len); }

static void die(int code) { for (;;) sys3(SYS_EXIT, code, 0, 0); }

static void *copy(void *dst, const void *src, usize n) {
    u8 *d = dst;
    const u8 *s = src;
    while (n--) *d++ = *s++;
    return dst;
}

static int same(const void *a, const void *b, usize n) {
    const u8 *x = a, *y = b;
    while (n--) if (*x++ != *y++) return 0;
    return 1;
}

#ifndef SHA1OPT_HOSTED
/* Called by the compiler for struct copies even when freestanding. */
void *memcpy(void *d, const void *s, usize n) { return copy(d, s, n); }
void *memset(void *d, int c, usize n) { u8 *p = d; while (n--) *p++ = (u8)c; return d; }
/* The zeroing functions with a contract in the prover (semantics/lift/calls.py KNOWN): glibc's and mbedTLS's. */
void explicit_bzero(void *d, usize n) { memset(d, 0, n); }
void mbedtls_platform_zeroize(void *d, usize n) { memset(d, 0, n); }

#if defined(__x86_64__)
/* The stack protector of compiled C (x86-64): the guard at %fs:0x28 lives in a block of our own
 * (set with arch_prctl before any call) and a failed check exits 6, a death confirm reports.
 * i386's guard is %gs:0x14 (a segment descriptor); not provided, so such objects do not link. */
static usize tls_block[16] = {0, 0, 0, 0, 0, 0x2f8a61c05e93d4b7UL};
void __stack_chk_fail(void) { die(6); }
static void set_guard(void) { if (sys3(158 /* arch_prctl */, 0x1002 /* ARCH_SET_FS */, (long)tls_block, 0)) die(5); }
#else
static void set_guard(void) {}
#endif
#else   /* SHA1OPT_HOSTED: the C library's functions and its stack-protector guard */
static void set_guard(void) {}
#endif

static int read_full(void *buf, usize n) {
    u8 *p = buf;
    while (n) {
        long r = sys3(SYS_READ, 0, (long)p, (long)n);
        if (r <= 0) return 0;
        p += r;
        n -= (usize)r;
    }
    return 1;
}

static void write_full(const void *buf, usize n) {
    const u8 *p = buf;
    while (n) {
        long r = sys3(SYS_WRITE, 1, (long)p, (long)n);
        if (r <= 0) die(3);
        p += r;
        n -= (usize)r;
    }
}

void harness_main(void) {
    set_guard();
    /* data: DATA_MAX bytes, then a guard page; state: one page, then a guard page. */
    u8 *data_map = map(DATA_MAX + PAGE);
    u8 *state_map = map(2 * PAGE);
    u8 *input = map(DATA_MAX);
    if ((long)data_map < 0 && (long)data_map > -4096) die(4);
    if ((long)state_map < 0 && (long)state_map > -4096) die(4);
    if ((long)input < 0 && (long)input > -4096) die(4);
    if (sys3(SYS_MPROTECT, (long)(data_map + DATA_MAX), PAGE, 0) != 0) die(5);
    if (sys3(SYS_MPROTECT, (long)(state_map + PAGE), PAGE, 0) != 0) die(5);
    u32 *state = (u32 *)(state_map + PAGE - 20);
    u32 *canary = state - 2;
    u32 head[9];
    while (read_full(head, sizeof head)) {
        usize nblocks = head[0], misalign = head[1], chunk = head[2], tail = head[3];
        usize bytes = nblocks * 64 + tail;
        if (tail > 63 || bytes + misalign > DATA_MAX || misalign > 4095) die(6);
        u8 *data = data_map + DATA_MAX - misalign - bytes;
        if (bytes && !read_full(input, bytes)) die(7);
        copy(data, input, bytes);
        copy(state, head + 4, 20);
        sha1opt_tail = tail;
        canary[0] = 0x5ca1ab1e;
        canary[1] = 0xdeadbeef;
        u32 flags = 0;
        if (chunk == 0) chunk = nblocks;
        usize done = 0;
        do {
            usize n = nblocks - done < chunk ? nblocks - done : chunk;
            flags |= sha1opt_call_checked(state, data + done * 64, n) ? 1u : 0u;
            done += n;
        } while (done < nblocks);
        if (canary[0] != 0x5ca1ab1e || canary[1] != 0xdeadbeef) flags |= 2;
        if (!same(data, input, bytes)) flags |= 4;
        u32 out[6];
        copy(out, state, 20);
        out[5] = flags;
        write_full(out, sizeof out);
    }
    die(0);
}
