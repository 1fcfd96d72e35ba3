"""The SHA-1 code other libraries ship (issue 24): each function proved, then 20 one-instruction mutants of it.

Usage: .venv/bin/python bench/other_libraries.py [--mutants N] [--only TEXT] [--seed S]
(writes bench/results/other_libraries.txt when run without --only and with 20 mutants)

Functions (Debian's static libraries, installed by setup/system-packages.sh; a
library that is missing is one line saying so): nettle's
``_nettle_sha1_compress_x86_64``, ``_nettle_sha1_compress_sha_ni`` and the
fat-build entry ``nettle_sha1_compress``; libgcrypt's
``_gcry_sha1_transform_amd64_{ssse3,avx,avx_bmi2,avx2_bmi2}`` and
``_gcry_sha1_transform_intel_shaext``; Crypto++'s
``SHA1_HashMultipleBlocks_SHANI``, ``SHA1_HashBlock_CXX`` and
``SHA1::Transform``; mbedTLS's ``mbedtls_internal_sha1_process``; wolfSSL's
``Transform`` (of its ``sha`` member); ``SHA1_Transform`` of
``libcrypto.so.3`` (x86-64, and i386's: libssl3:i386); OpenSSL's stitched AES-CBC + SHA-1
``aesni_cbc_sha1_enc`` and its SSSE3, AVX and SHA-NI bodies (libcrypto.a: their mutants judged on the
hash and the ciphertext, ``emit.cbc_confirm``) and its multi-buffer ``sha1_multi_block`` (its mutants
judged lane by lane, ``emit.lanes_confirm``). Each is found by its symbol (a C++ name by a part of its
mangled name), in the archive member that defines it.

Each is proved as ``sha1opt prove --object`` proves it
(``analyze.prove_object``), under the interface the catalogue gives for the
symbol (``lift.catalogue.lookup``, for its archive member; none: the default,
``(state, data, nblocks)``): the verdict, and each path's outcome and time. A function the
prover refuses is reported with the refusal, and has no mutants (there is
nothing proved to mutate against). Then ``--mutants`` one-instruction mutants
of the function's code, made, proved and judged by ``bench/lift_mutants.py``
(``mutants``, ``judge``: the same verdicts -- equivalent (proved), refuted
and confirmed natively, refuted natively, not proved / not refuted, UNSOUND),
counted per function. Mutants of a shared object are run natively as well:
the mutated copy loaded with ``dlopen`` in the harness child, the function
called at its address (``emit.confirm.shared_harness``).

The header names the host CPU (vendor, family, model: ``emit.host_cpu``),
the commit and the load; times are wall seconds on a shared machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sha1opt.analyze import ObjectProof, prove_object
from sha1opt.emit.confirm import Finding, Unavailable
from sha1opt.emit.host_cpu import host, identify
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.archive import members
from sha1opt.semantics.lift.catalogue import lookup
from sha1opt.semantics.lift.elf import ObjectFile, Symbol
from sha1opt.semantics.lift.interface import Interface

sys.path.insert(0, str(Path(__file__).resolve().parent))     # the sibling script whose machinery this reuses
import lift_mutants  # noqa: E402

LIB = Path("/usr/lib/x86_64-linux-gnu")
OUT = Path(__file__).resolve().parent / "results" / "other_libraries.txt"


@dataclass(frozen=True)
class Target:
    library: str
    file: Path
    symbol: str                  # the symbol, or a part of a C++ mangled name
    member_defines: str = ""     # the member must also define this symbol (wolfSSL's sha member: wc_ShaUpdate)

    def matches(self, name: str) -> bool:
        return name == self.symbol or (self.symbol in name and name.startswith("_ZN"))


TARGETS = (
    Target("nettle", LIB / "libnettle.a", "_nettle_sha1_compress_x86_64"),
    Target("nettle", LIB / "libnettle.a", "_nettle_sha1_compress_sha_ni"),
    Target("nettle", LIB / "libnettle.a", "nettle_sha1_compress"),
    *(Target("libgcrypt", LIB / "libgcrypt.a", f"_gcry_sha1_transform_{s}")
      for s in ("amd64_ssse3", "amd64_avx", "amd64_avx_bmi2", "amd64_avx2_bmi2", "intel_shaext")),
    Target("Crypto++", LIB / "libcrypto++.a", "29SHA1_HashMultipleBlocks_SHANI"),
    Target("Crypto++", LIB / "libcrypto++.a", "18SHA1_HashBlock_CXX"),
    Target("Crypto++", LIB / "libcrypto++.a", "4SHA19Transform"),
    Target("mbedTLS", LIB / "libmbedcrypto.a", "mbedtls_internal_sha1_process"),
    Target("wolfSSL", LIB / "libwolfssl.a", "Transform", member_defines="wc_ShaUpdate"),
    Target("OpenSSL", LIB / "libcrypto.so.3", "SHA1_Transform"),
    *(Target("OpenSSL", LIB / "libcrypto.a", f"aesni_cbc_sha1_enc{s}") for s in ("", "_ssse3", "_avx", "_shaext")),
    Target("OpenSSL", LIB / "libcrypto.a", "sha1_multi_block"),
    Target("OpenSSL i386", Path("/usr/lib/i386-linux-gnu/libcrypto.so.3"), "SHA1_Transform"),
)


@dataclass(frozen=True)
class Located:
    path: Path                   # the object on disk (an archive member written to the work folder)
    where: str                   # "libnettle.a(sha1-compress.o)"
    symbol: Symbol
    archive: Path | None = None  # the .a and the member, proved from there: a function pointer into another
    member: str | None = None    # member is followed (nettle's fat nettle_sha1_compress)
    offset: int = 0              # where the member's bytes start in the archive (a mutant is put there)


def locate(t: Target, work: Path) -> Located | str:
    """The object defining ``t``'s function, or why it is not here."""
    if not t.file.exists():
        return f"{t.file} not installed (setup/system-packages.sh)"
    data = t.file.read_bytes()
    if data[:4] == b"\x7fELF":
        units = [(None, data, 0)]
    else:
        units = [(m.name, data[m.offset:m.offset + m.size], m.offset) for m in members(data)]
    key = t.symbol.encode()
    for name, body, offset in units:
        if body.find(key) < 0 or (t.member_defines and body.find(t.member_defines.encode()) < 0):
            continue
        obj = ObjectFile.parse(body)
        if t.member_defines and not any(s.name == t.member_defines for s in obj.functions()):
            continue
        hit = next((s for s in obj.functions() if s.section in obj.executable and t.matches(s.name)), None)
        if hit is None:
            continue
        if name is None:
            return Located(t.file, t.file.name, hit)
        path = work / f"{t.file.stem}_{Path(name).name}"
        path.write_bytes(body)
        return Located(path, f"{t.file.name}({name})", hit, t.file, name, offset)
    return f"no function {t.symbol!r} in {t.file.name}"


def prove(loc: Located, interface: Interface | None, work: Path) -> ObjectProof | str:
    try:
        return prove_object(loc.archive or loc.path, member=loc.member, function=loc.symbol.name, workdir=work,
                            interface=interface)
    except Sha1optError as e:
        return f"refused: {e}"


def mutant_counts(loc: Located, orig: ObjectProof, interface: Interface | None, n: int, seed: int, work: Path,
                  log) -> dict[str, int]:
    """``n`` one-instruction mutants of the function (``lift_mutants``: sites, mutants, judging), per verdict."""
    bits = 64 if orig.arch == "x86_64" else 32
    codes = lift_mutants.path_codes(loc.path, bits, orig, loc.symbol.name, loc.symbol.section)
    _, base, _ = lift_mutants.text_section(loc.path, loc.symbol.section)
    words = lift_mutants.path_words(orig)
    blob = loc.path.read_bytes()
    counts: dict[str, int] = {}
    wrap, suffix = None, loc.path.suffix
    if loc.archive is not None:     # (judged in a copy of the archive, the member mutated in place: as proved)
        whole, at = loc.archive.read_bytes(), loc.offset
        wrap, suffix = (lambda mblob: whole[:at] + mblob + whole[at + len(mblob):]), ".a"

    def stopped(mut: Path, sub: Path) -> tuple[str, str]:
        # (the mutant has no proof: a shared object's function is not run unlifted; an archive member's run
        # takes the unmutated proof's function pointers only, to start where its paths start)
        where, got = lift_mutants.native(mut, loc.symbol.name, orig.contract.min_blocks, sub,
                                         [(lab, w) for lab, ws in words.items() for w in ws],
                                         interface or lift_mutants.interface_of(orig),
                                         orig.proof if loc.archive is not None else None, loc.member)
        if isinstance(got, Finding):
            return "refuted natively (prover: not proved)", f"native ({where}): {got.describe()}"
        return "not proved, not refuted", f"native: {got.reason if isinstance(got, Unavailable) else 'agrees'}"

    i = 0
    for k, p in enumerate(codes):
        # (n over the paths: the first n % len(codes) paths one more, so that they add up to n)
        per = n // len(codes) + (k < n % len(codes)) if n > 0 else 0
        rng = random.Random(f"{seed}:{loc.where}:{loc.symbol.name}:{p.label}")
        for _, what, _, kind, detail, dt in lift_mutants.judged(
                blob, base, p, codes, per, rng, work, f"p{k}_", suffix,
                lambda mut, selected, sub: lift_mutants.judge(mut, loc.symbol.name, None, selected, words, sub,
                                                              interface, loc.member if wrap else None,
                                                              loc.archive or loc.path),
                wrap, stopped):
            counts[kind] = counts.get(kind, 0) + 1
            log(f"    mutant {i}: {what} [{dt:.1f} s]: {kind} -- {detail[:200]}")
            i += 1
    return counts


def host_line() -> str:
    cpu = host()
    if cpu is None:
        return "host CPU: not identified (cpuid unreadable)"
    row = identify(cpu.id)
    return f"host CPU: {cpu}; model {row.model} ({row.match})" if row else f"host CPU: {cpu}; no model row"


def run(targets, n: int, seed: int, log) -> dict[str, int]:
    """Prove every target, then its mutants; ``log`` gets each line. The totals per verdict."""
    totals: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="sha1opt-other-") as d:
        work = Path(d)
        for k, t in enumerate(targets):
            tw = work / f"t{k}"
            tw.mkdir()
            loc = locate(t, tw)
            if isinstance(loc, str):
                log(f"{t.library} {t.symbol}: not run: {loc}")
                continue
            row = lookup(loc.symbol.name, loc.member)
            iface = row.interface if row is not None else None
            res = prove(loc, iface, tw)
            default = "(state, data) (default; nblocks never read)" if not isinstance(res, str) and \
                res.contract.one_block else "(state, data, nblocks) (default)"
            head = f"{t.library} {loc.where} {loc.symbol.name}, interface " + \
                (f"{replace(iface, name=None)} (catalogue)" if iface else default)
            if isinstance(res, str):
                log(f"{head}: {' '.join(res.split())[:300]}")
                continue
            log(f"{head}: {res.outcome}: {' '.join(res.summary().split())[:300]}")
            for p in res.proof.paths:
                log(f"  path {p.name}: {p.outcome}, {p.instructions} instructions, {p.seconds:.2f} s")
            if res.outcome not in ("proved", "partial"):
                log("  no mutants: the function itself is not proved")
                continue
            counts = mutant_counts(loc, res, iface, n, seed, tw, log)
            for kind, v in counts.items():
                totals[kind] = totals.get(kind, 0) + v
            log(f"  mutants: {sum(counts.values())}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return totals


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mutants", type=int, default=20, help="one-instruction mutants per function")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", default=None, help="run only functions whose library or symbol contains this")
    ap.add_argument("--out", type=Path, default=None, help="also write the output here (a run with --only)")
    args = ap.parse_args()
    targets = [t for t in TARGETS if args.only is None or args.only in f"{t.library} {t.symbol}"]
    lines = [f"# bench/other_libraries.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit "
             f"{lift_mutants._commit()}, seed {args.seed}, {args.mutants} mutants per function; {lift_mutants._load()}",
             f"# {host_line()}"]
    print("\n".join(lines), flush=True)

    def log(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    t0 = time.perf_counter()
    totals = run(targets, args.mutants, args.seed, log)
    log(f"total ({time.perf_counter() - t0:.0f} s): " + ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
    log(f"# done; {lift_mutants._load()}")
    out = args.out or (OUT if args.only is None and args.mutants == 20 else None)
    if out is not None:
        out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
