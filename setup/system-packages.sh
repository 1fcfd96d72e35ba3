#!/bin/sh
# System packages the tests need beyond Python: clang (the C matrix of tests/test_lift_cc.py),
# libssl-dev and libssl-dev:i386 (OpenSSL's libcrypto.a objects, tests/test_lift_openssl.py),
# llvm (llvm-mca, tests/search/test_cost_mca.py) and llvm-19 (the newest AMD/Intel scheduling
# models Debian 12 has: llvm-mca-19 beside our models in bench/cost_fidelity_host.py) and
# qemu-user (qemu-x86_64 / qemu-i386 7.2: the vectors of code this CPU lacks a feature for,
# corpus/emulators.toml; tests/emit/test_cross_export.py), and other libraries' SHA-1 (issue 24:
# tests/semantics/lift/test_lift_libraries.py and test_lift_{got_flags,stack_address,known_calls}.py,
# bench/other_libraries.py, `sha1opt scan`): nettle-dev, libgcrypt20-dev, libcrypto++-dev, libmbedtls-dev,
# libwolfssl-dev, libiberty-dev (libiberty.a: sha1_process_block) and libctf0 (the same code linked into
# stripped libctf.so.0 / libctf-nobfd.so.0); and the i386 shared libcrypto.so.3 (libssl3:i386, tests/semantics/lift/test_lift_linked_data.py),
# which libssl-dev:i386 depends on; gcc-multilib (gcc -m32 and libc6-dev-i386: the native harness of i386
# objects and shared objects, emit/confirm.py, emit/csrc/dlopen_main.c); libllvm19 (libLLVM-19.so, whose
# llvm::SHA1::hashBlock() tests/semantics/lift/test_lift_context_block.py proves; llvm-19 depends on it);
# libnss3 (libfreeblpriv3.so, whose stripped shaCompress tests/semantics/lift/test_lift_wide_slots.py proves).
# Called by `make test`. Installs only what is missing, with apt-get as root; anywhere else
# (no root, no apt) it says so and exits 0: the tests that need a package skip with a reason.
set -u
missing=""
command -v clang >/dev/null 2>&1 || missing="$missing clang"
[ -e /usr/lib/x86_64-linux-gnu/libcrypto.a ] || missing="$missing libssl-dev"
[ -e /usr/lib/i386-linux-gnu/libcrypto.a ] || missing="$missing libssl-dev:i386"
[ -e /usr/lib/i386-linux-gnu/libcrypto.so.3 ] || missing="$missing libssl3:i386"
command -v llvm-mca >/dev/null 2>&1 || missing="$missing llvm"
command -v llvm-mca-19 >/dev/null 2>&1 || missing="$missing llvm-19"
command -v qemu-x86_64 >/dev/null 2>&1 || missing="$missing qemu-user"
[ -e /usr/lib/x86_64-linux-gnu/libnettle.a ] || missing="$missing nettle-dev"
[ -e /usr/lib/x86_64-linux-gnu/libgcrypt.a ] || missing="$missing libgcrypt20-dev"
[ -e /usr/lib/x86_64-linux-gnu/libcryptopp.a ] || missing="$missing libcrypto++-dev"
[ -e /usr/lib/x86_64-linux-gnu/libmbedcrypto.a ] || missing="$missing libmbedtls-dev"
[ -e /usr/lib/x86_64-linux-gnu/libwolfssl.so ] || missing="$missing libwolfssl-dev"
[ -e /usr/lib/x86_64-linux-gnu/libiberty.a ] || missing="$missing libiberty-dev"
[ -e /usr/lib/x86_64-linux-gnu/libctf.so.0 ] || missing="$missing libctf0"
[ -e /usr/lib/x86_64-linux-gnu/libLLVM-19.so ] || missing="$missing libllvm19"
[ -e /usr/lib/x86_64-linux-gnu/libfreeblpriv3.so ] || missing="$missing libnss3"
if command -v gcc >/dev/null 2>&1; then
    m32=$(mktemp -d)
    printf 'int main(void){return 0;}\n' > "$m32/t.c"
    gcc -m32 "$m32/t.c" -o "$m32/t" >/dev/null 2>&1 || missing="$missing gcc-multilib"
    rm -rf "$m32"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: not installing$missing (needs root and apt-get); the tests that need them will skip" >&2
    exit 0
fi
case "$missing" in
    *:i386*) dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386 ;;
esac
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A mirror mid-sync can fail one index (seen for i386 security): install what the rest allows.
apt-get update -qq >/dev/null 2>&1 || echo "setup: apt-get update reported errors; trying anyway" >&2
# One transaction first (package lists read and dpkg triggers run once: about half the time of one
# apt-get per package); only if it fails, each package alone, so one that cannot be had skips its tests.
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null 2>&1 && exit 0
for pkg in $missing; do
    apt-get install -y -qq "$pkg" >/dev/null 2>&1 \
        || echo "setup: apt-get could not install $pkg; the tests that need it will skip" >&2
done
exit 0
