"""One-instruction mutants of every dispatch path: each is proved (equivalent) or refuted natively.

Usage: .venv/bin/python bench/lift_mutants.py [--per-path N] [--only NAME]
(writes bench/results/lift_mutants.txt)

Objects: the project's x86-64 and i386 exports (one path each), and OpenSSL's
SHA-1 from Debian's libcrypto.a: ``libcrypto-lib-sha1-x86_64.o`` (integer,
SHA-NI, SSSE3, AVX, AVX2) and ``libcrypto-lib-sha1-586.o`` (integer, SHA-NI,
SSSE3, AVX). A path is the code of its entry symbol (OpenSSL's
``sha1_block_data_order_ssse3`` ...: from the symbol to the next one).

Mutants are made in the machine code itself, at sites capstone decodes in the
path's code, one change each, kinds in turn: an instruction replaced by NOPs
(dropped); an immediate or displacement changed (one bit flipped); a rotate or shift count
changed by one; a register operand changed (bit 0 of ModRM.rm flipped, register form only).
Each mutant object is proved whole (``analyze.prove_object``) and judged by
the report of the mutated path (the path whose label is the mutated symbol):

* ``equivalent (proved)`` -- the path proved: the mutant computes SHA-1;
* ``refuted, confirmed natively`` -- the prover's counterexample reproduced
  by running the mutant (``emit.confirm``) with the capability words that
  select the path (the path's ``witness``, a model of its path condition);
* ``refuted natively (prover: ...)`` -- the prover refused or said unknown,
  and the native run with the path's witness found a record that differs;
* ``not proved, not refuted`` -- neither: listed, never counted as success.

A mutant that is not proved yet computes SHA-1 on every record tried would be
a prover incompleteness; one that is proved yet differs natively would be a
soundness bug -- every proved mutant is therefore also run natively, and a
disagreement is reported as ``UNSOUND``.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import capstone
from elftools.elf.elffile import ELFFile

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.emit.confirm import Finding, confirm
from sha1opt.emit.objfile import load_object
from sha1opt.search.space.candidate import textbook

OUT = Path(__file__).resolve().parent / "results" / "lift_mutants.txt"
LIB64 = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
LIB32 = Path("/usr/lib/i386-linux-gnu/libcrypto.a")
SHIFTS = ("rol", "ror", "shl", "shr", "sar", "shld", "shrd", "rorx", "pslld", "psrld", "psrldq", "pslldq", "palignr",
          "vpslld", "vpsrld", "vpsrldq", "vpslldq", "vpalignr", "pshufd", "vpshufd", "sha1rnds4", "vprold")
KINDS = ("drop", "immediate", "count", "register")


@dataclass(frozen=True)
class Path_:
    name: str          # what the report calls it
    label: str         # the symbol the prover labels the path with
    start: int         # code range in .text
    end: int


@dataclass(frozen=True)
class Site:
    address: int
    size: int
    text: str
    mnemonic: str
    imm_offset: int     # 0: none
    imm_size: int
    modrm_offset: int   # 0: none


def code_paths(obj_path: Path, default: str) -> tuple[str, list[Path_], bytes, int]:
    """(section name, paths, section bytes, section file offset): one path per entry symbol."""
    with obj_path.open("rb") as f:
        elf = ELFFile(f)
        text = elf.get_section_by_name(".text")
        data, base = text.data(), text["sh_offset"]
        idx = [i for i, s in enumerate(elf.iter_sections()) if s.name == ".text"][0]
        syms = sorted({(s["st_value"], s.name) for s in elf.get_section_by_name(".symtab").iter_symbols()
                       if s["st_shndx"] == idx and s.name and s["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE")
                       and not s.name.startswith(".L")})
    starts = sorted({v for v, _ in syms})
    paths = []
    for v in starts:
        names = [n for vv, n in syms if vv == v]
        label = next((n for n in names if "shortcut" in n), names[0])      # the prover labels by the first by name
        name = min(names, key=len)
        end = next((s for s in starts if s > v), len(data))
        if name.startswith("K_XX") or end - v < 32:
            continue
        kind = next((k for k in ("shaext", "ssse3", "avx2", "avx") if k in name), "integer")
        paths.append(Path_(kind if name != default or kind != "integer" else "integer", label, v, end))
    return ".text", paths, data, base


def sites(data: bytes, p: Path_, bits: int) -> list[Site]:
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64 if bits == 64 else capstone.CS_MODE_32)
    md.detail = True
    out = []
    for i in md.disasm(data[p.start:p.end], p.start):
        if i.mnemonic.startswith(("j", "ret", "call", "nop", "endbr", "push", "pop")) or i.mnemonic in ("cpuid",):
            continue
        imm_off, imm_size, modrm_off = i.imm_offset or 0, i.imm_size or 0, i.modrm_offset or 0
        if not imm_size and i.disp_size:          # lea's constant (a round's K) is a displacement
            imm_off, imm_size = i.disp_offset, i.disp_size
        if modrm_off and (data[i.address + modrm_off] >> 6) != 3:
            modrm_off = 0           # a memory operand: the register mutant needs a register in ModRM.rm
        out.append(Site(i.address, i.size, f"{i.mnemonic} {i.op_str}".strip(), i.mnemonic, imm_off, imm_size,
                        modrm_off))
    return out


def mutate(blob: bytes, base: int, site: Site, kind: str, rng: random.Random) -> tuple[bytes, str] | None:
    m = bytearray(blob)
    at = base + site.address
    if kind == "drop":
        m[at:at + site.size] = b"\x90" * site.size
        return bytes(m), f"drop `{site.text}` at 0x{site.address:x}"
    if kind == "immediate" and site.imm_size and site.mnemonic not in SHIFTS:
        b = at + site.imm_offset + rng.randrange(site.imm_size)
        m[b] ^= 1 << rng.randrange(8)
        return bytes(m), f"flip a constant bit of `{site.text}` at 0x{site.address:x}"
    if kind == "count" and site.imm_size and site.mnemonic in SHIFTS:
        b = at + site.imm_offset
        m[b] = (m[b] + rng.choice((1, 255))) & 0xFF
        return bytes(m), f"count {blob[b]} -> {m[b]} in `{site.text}` at 0x{site.address:x}"
    if kind == "register" and site.modrm_offset:
        m[at + site.modrm_offset] ^= 0x01
        return bytes(m), f"register operand of `{site.text}` at 0x{site.address:x} (ModRM.rm bit 0)"
    return None


def mutants(obj_path: Path, base: int, data: bytes, p: Path_, bits: int, n: int, rng: random.Random):
    blob = obj_path.read_bytes()
    pool = sites(data, p, bits)
    out, tries = [], 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        got = mutate(blob, base, rng.choice(pool), KINDS[len(out) % len(KINDS)], rng)
        if got is not None and got[0] != blob:
            out.append((got[1], got[0]))
    return out


def judge(mut: Path, function: str | None, label: str, min_blocks: int | None, work: Path) -> tuple[str, str]:
    try:
        res = prove_object(mut, function=function, min_blocks=min_blocks, workdir=work)
    except LiftRefusal as e:
        res, why = None, f"refused: {e}"
    path = None
    if res is not None:
        mine = [x for x in res.proof.paths if label in x.name or (x.name.startswith("entry") and function is None)]
        path = next((x for x in mine if x.name.startswith("loop")), mine[0] if mine else None)
        why = f"{path.outcome}: {path.detail}" if path else f"no path labelled {label}: {res.summary()}"
    witness = dict(path.witness) if path is not None else {}
    uo = load_object(mut, work)
    fn = res.function if res is not None else (function or "sha1_block_data_order")
    blocks = res.contract.min_blocks if res is not None else (min_blocks or 1)
    native = confirm(uo, fn, blocks, work, symbols=witness)
    differs = isinstance(native, Finding)
    if path is not None and path.outcome == "proved":
        return ("UNSOUND: proved, differs natively" if differs else "equivalent (proved)"), \
            (native.describe() if differs else path.detail)
    if path is not None and path.outcome == "counterexample" and differs:
        return "refuted, confirmed natively", native.describe()
    if differs:
        return "refuted natively (prover: not proved)", f"{why[:90]}; native: {native.describe()}"
    return "not proved, not refuted", f"{why[:120]}; native: {native if native else 'agrees on every record'}"


def objects(work: Path) -> list[tuple[str, Path, str | None, int | None, int]]:
    out = []
    for arch in ("x86_64", "i386"):
        src = work / f"export_{arch}.S"
        src.write_text(function_text(textbook(arch)))
        obj = work / f"export_{arch}.o"
        subprocess.run(["gcc", "-m64" if arch == "x86_64" else "-m32", "-c", "-o", str(obj), str(src)], check=True,
                       timeout=60)
        out.append((f"sha1opt export ({arch})", obj, None, None, 64 if arch == "x86_64" else 32))
    for lib, member, bits in ((LIB64, "libcrypto-lib-sha1-x86_64.o", 64), (LIB32, "libcrypto-lib-sha1-586.o", 32)):
        if lib.exists():
            raw = subprocess.run(["ar", "p", str(lib), member], capture_output=True, check=True, timeout=60).stdout
            (work / member).write_bytes(raw)
            out.append((f"OpenSSL {member}", work / member, "sha1_block_data_order", 1, bits))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-path", type=int, default=20)
    ap.add_argument("--only", default=None, help="run only paths whose 'object path' name contains this")
    args = ap.parse_args()
    rng = random.Random(2026)
    lines: list[str] = []
    totals: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        for name, obj, function, min_blocks, bits in objects(work):
            _, paths, data, base = code_paths(obj, "sha1_block_data_order")
            for p in paths:
                title = f"{name} {p.name}"
                if args.only and args.only not in title:
                    continue
                counts: dict[str, int] = {}
                t0 = time.perf_counter()
                for i, (what, blob) in enumerate(mutants(obj, base, data, p, bits, args.per_path, rng)):
                    mut = work / f"mutant_{i}.o"
                    mut.write_bytes(blob)
                    sub = work / f"m{i}"
                    sub.mkdir(exist_ok=True)
                    kind, detail = judge(mut, function, p.label, min_blocks, sub)
                    counts[kind] = counts.get(kind, 0) + 1
                    totals[kind] = totals.get(kind, 0) + 1
                    lines.append(f"  {title} mutant {i}: {what}: {kind} -- {detail[:200]}")
                    print(lines[-1], flush=True)
                lines.append(f"{title}: {sum(counts.values())} mutants in {time.perf_counter() - t0:.1f} s: "
                             + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
                print(lines[-1], flush=True)
    lines.append("total: " + ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
    text = "\n".join(lines) + "\n"
    if not args.only:
        OUT.write_text(text)
    sys.stdout.write(lines[-1] + "\n")


if __name__ == "__main__":
    main()
