"""One-instruction mutants of every dispatch path: each is proved (equivalent) or refuted natively.

Usage: .venv/bin/python bench/lift_mutants.py [--per-path N] [--only TEXT] [--seed S]
(writes bench/results/lift_mutants.txt when run without --only / --per-path)

Objects: the project's x86-64 and i386 exports (one path each), and OpenSSL's
SHA-1 from Debian's libcrypto.a: ``libcrypto-lib-sha1-x86_64.o`` (integer,
SHA-NI, SSSE3, AVX, AVX2) and ``libcrypto-lib-sha1-586.o`` (integer, SHA-NI,
SSSE3, AVX). A path is the code of one symbol (OpenSSL's ``_ssse3_shortcut``
...: from the symbol to the next one), named by the label the prover gives
the loop whose head lies in it (``analyze.prove_object`` of the unmutated
object, all paths, run once per object).

Mutants are made in the machine code itself, at instructions reachable in the
path's code (capstone, following fall-through and direct branches: no data,
no padding), one change each, kinds in turn: an instruction replaced by NOPs
(dropped); an immediate or displacement changed (one bit flipped; not a
field a RELA relocation fills in at link time); a rotate or shift count
changed by one; a register operand changed (bit 0 of ModRM.rm flipped,
register form only). Selection is deterministic: one
``random.Random`` per path, seeded with ``--seed`` and the path's title.
Besides 20 per path, 4 mutants of each OpenSSL dispatcher (``--dispatcher``),
each proved on every path (e.g. ``testl $0x200`` -> ``testl $0``: every
capability value now takes the integer path, which is SHA-1 -- equivalent,
proved).

Each mutant is proved on the paths that can execute the mutated instruction
(``prove_object(..., paths={label})``): its own path, or every path when the
instruction is shared -- the dispatcher (code of the entry symbol from which a
jump to another path is reachable), or code of a path that another path jumps
into or falls through into (checked statically, per object). Verdicts:

* ``equivalent (proved)`` -- every path proved that can execute the mutated
  instruction: the mutant computes SHA-1 there (and, the others being
  byte-identical, everywhere); it is still run natively with every path's
  capability words, and a disagreement is reported as ``UNSOUND``;
* ``refuted, confirmed natively`` -- the prover found a counterexample on the
  path and ``prove_object`` confirmed it by running the mutant natively
  (``emit.confirm``) with the capability words that select the path (its
  ``witness``): the command prints a concrete record that disagrees;
* ``refuted natively (prover: not proved)`` -- the prover did not prove the
  path (unknown, e.g. a pointer used as data: a refusal of category
  ``"untracked value"``), and the native run found a record that differs
  (printed as the counterexample);
* ``refuted natively (prover refused)`` -- the prover refused the path, and
  this script's native run with the path's words found a record that differs;
* ``refuted natively by its output (prover refused / not proved)`` -- the
  native runs agree with SHA-1, but on the same records the mutant shows other
  bytes than the unmutated function (``output_differs``: exit status, answers,
  stderr), with each path's words and environment: e.g. a mutant of nettle's
  resolver that has ``fwrite`` print its ``NETTLE_FAT_VERBOSE`` message past
  its end (the prover refused it: "fwrite reads past the end of ...");
* ``not proved, not refuted`` -- neither: listed, never counted as success
  (a prover incompleteness if the mutant is in fact equivalent).

OpenSSL's AVX2 path is refused by the prover (two blocks per iteration), so
its mutants can only land in the last three categories.

Invariant: a mutant is counted ``equivalent (proved)`` only when the prover proved every path
that can execute it and the native runs with every path's capability words agree; a proof a
native run contradicts is ``UNSOUND: proved, differs natively`` (a prover bug), never counted
as a success. E.g. OpenSSL's dispatcher mutant ``testl $0x200`` -> ``testl $0`` is proved and
agrees natively: equivalent. The first line of the output says when (UTC), on which commit
(``+dirty`` when tracked files differ from it) and under what load the figures were made.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import capstone
from elftools.elf.elffile import ELFFile

from sha1opt.analyze import ObjectProof, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.emit.confirm import Finding, Unavailable, harness_for
from sha1opt.emit.harness import Record
from sha1opt.emit.native_check import native_finding, split_words
from sha1opt.emit.objfile import load_object
from sha1opt.emit.toolchain import Stopped, run_forked
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.elf import ObjectError
from sha1opt.semantics.lift.interface import DEFAULT, KEYWORDS, Interface

OUT = Path(__file__).resolve().parent / "results" / "lift_mutants.txt"
LIB64 = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
LIB32 = Path("/usr/lib/i386-linux-gnu/libcrypto.a")
SHIFTS = ("rol", "ror", "shl", "shr", "sar", "shld", "shrd", "rorx", "pslld", "psrld", "psrldq", "pslldq", "palignr",
          "vpslld", "vpsrld", "vpsrldq", "vpslldq", "vpalignr", "pshufd", "vpshufd", "sha1rnds4", "vprold", "vpsrlq",
          "psrlq", "vpsllq", "psllq")
KINDS = ("drop", "immediate", "count", "register")
ENDS = ("ret", "jmp", "ud2", "hlt")               # no fall-through
JUDGE_SECONDS = 300.0       # one mutant's proof and native runs, at most (``judged``)


@dataclass(frozen=True)
class Insn:
    address: int
    size: int
    text: str
    mnemonic: str
    target: int | None      # a direct branch's or call's target
    imm_offset: int         # 0: none
    imm_size: int
    modrm_offset: int       # 0: none, or ModRM is not a register form


@dataclass(frozen=True)
class PathCode:
    label: str              # the prover's label of the loop whose head is in [start, end)
    name: str               # what the report calls it: integer, shaext, ssse3, avx, avx2
    start: int
    end: int
    sites: tuple[Insn, ...]  # instructions reachable from the path's entries, in the path's range
    shared: frozenset[int]   # addresses of instructions every path may execute (prove all paths)


# -- the code --------------------------------------------------------------------------------------

def text_section(obj_path: Path, section: str = ".text") -> tuple[bytes, int, list[tuple[int, str]]]:
    """(the code section's bytes, its file offset, sorted (offset, name) of its code symbols: from
    ``.symtab``, else -- a stripped shared object -- ``.dynsym``; offsets in the section)."""
    with obj_path.open("rb") as f:
        elf = ELFFile(f)
        text = elf.get_section_by_name(section)
        idx = [i for i, s in enumerate(elf.iter_sections()) if s.name == section][0]
        table = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
        syms = sorted({(s["st_value"] - text["sh_addr"], s.name) for s in table.iter_symbols()
                       if s["st_shndx"] == idx and s.name and s["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE")
                       and not s.name.startswith(".L")})
        return text.data(), text["sh_offset"], syms


def linker_written(obj_path: Path, section: str = ".text") -> frozenset[int]:
    """Bytes of ``section`` a RELA relocation overwrites at link time (x86-64: a flipped bit there changes
    nothing)."""
    with obj_path.open("rb") as f:
        rela = ELFFile(f).get_section_by_name(".rela" + section)
        if rela is None:            # i386 REL: the field holds the addend, a real constant
            return frozenset()
        return frozenset(r["r_offset"] + k for r in rela.iter_relocations() for k in range(4))


class Code:
    """The instructions of .text, decoded one at a time where execution can reach (data is never decoded)."""

    def __init__(self, data: bytes, bits: int, fixed: frozenset[int] = frozenset()) -> None:
        self.data = data
        self.fixed = fixed
        self.md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64 if bits == 64 else capstone.CS_MODE_32)
        self.md.detail = True
        self.md.syntax = capstone.CS_OPT_SYNTAX_ATT
        self.at: dict[int, Insn] = {}

    def get(self, a: int) -> Insn | None:
        if a in self.at:
            return self.at[a]
        i = next(self.md.disasm(self.data[a:a + 16], a), None)
        if i is None:
            return None
        target = None
        if (i.insn_name().startswith("j") or i.insn_name() == "call") and i.operands and \
                i.operands[0].type == capstone.x86.X86_OP_IMM:
            target = i.operands[0].imm
        imm_off, imm_size, modrm_off = i.imm_offset or 0, i.imm_size or 0, i.modrm_offset or 0
        if not imm_size and i.disp_size:          # lea's constant (a round's K) is a displacement
            imm_off, imm_size = i.disp_offset, i.disp_size
        if imm_size and any(a + imm_off + k in self.fixed for k in range(imm_size)):
            imm_off, imm_size = 0, 0    # the linker writes this field: no constant to mutate
        if modrm_off and (self.data[a + modrm_off] >> 6) != 3:
            modrm_off = 0           # a memory operand: the register mutant needs a register in ModRM.rm
        # (the text in AT&T syntax, the mnemonic capstone's instruction name: "rol", not "roll")
        self.at[a] = Insn(a, i.size, f"{i.mnemonic} {i.op_str}".strip(), i.insn_name(), target, imm_off, imm_size,
                          modrm_off)
        return self.at[a]

    def reachable(self, start: int) -> set[int]:
        """Addresses reachable from ``start`` by fall-through and direct branches and calls."""
        seen: set[int] = set()
        work = [start]
        while work:
            a = work.pop()
            if a in seen or not 0 <= a < len(self.data) or self.get(a) is None:
                continue
            seen.add(a)
            work.extend(successors(self.at[a]))
        return seen


def successors(ins: Insn) -> list[int]:
    last = ins.mnemonic.split()[-1]               # "repz ret", "notrack jmp"
    nxt = [] if last in ENDS or last.startswith(("ret", "jmp")) else [ins.address + ins.size]
    return nxt + ([ins.target] if ins.target is not None else [])


def path_codes(obj_path: Path, bits: int, proof: ObjectProof, entry: str, section: str = ".text") -> list[PathCode]:
    """The object's paths (one per symbol range holding a loop head), with their mutation sites and the
    shared instructions (see the module docstring). A function with no loop path (a one-block interface,
    ``SHA1_Transform`` into stripped code) is one path: every instruction reachable from its entry."""
    data, _, syms = text_section(obj_path, section)
    code = Code(data, bits, linker_written(obj_path, section))
    heads = {p.head: p.label for p in proof.proof.paths if p.kind == "loop"}
    entry_at = next(v for v, n in syms if n == entry)
    starts = sorted({v for v, _ in syms})
    ends = {v: next((s for s in starts if s > v), len(data)) for v in starts}
    everything = code.reachable(entry_at)
    if not heads:
        # (and the code of this section a function pointer's value took on a proved path: nettle's fat entry is
        # one ``jmp *nettle_sha1_compress_vec(%rip)``, its paths run the resolver ``nettle_sha1_compress_init``)
        # (each within its symbol: a call to a function that does not return, ``__assert_fail``, is not followed
        # into the next function by its fall-through)
        taken = {t for p in proof.proof.paths for _, t in p.pointers}
        for v, n in syms:
            if n in taken:
                everything |= {a for a in code.reachable(v) if v <= a < ends[v]}
        mine = sorted(everything)
        return [PathCode(entry, "function", entry_at, max(mine) + 1, tuple(code.at[a] for a in mine),
                         frozenset(mine))]

    def range_of(a: int) -> int:
        return max((v for v in starts if v <= a), default=-1)

    # the dispatcher: the entry range's instructions from which a jump out of that range is reachable
    out_jumps = {a for a in everything if range_of(a) == entry_at and code.at[a].target is not None
                 and range_of(code.at[a].target) != entry_at}
    preds: dict[int, set[int]] = {}
    for a in everything:
        for s in successors(code.at[a]):
            preds.setdefault(s, set()).add(a)
    dispatcher, work = set(), list(out_jumps)
    while work:
        a = work.pop()
        if a not in dispatcher and range_of(a) == entry_at:
            dispatcher.add(a)
            work.extend(preds.get(a, ()))
    # a range entered or left other than by the dispatcher's jumps: all of its code is shared
    tangled = set()
    for a in everything:
        for s in successors(code.at[a]):
            if range_of(s) != range_of(a) and not (a in out_jumps and s == code.at[a].target):
                tangled |= {range_of(a), range_of(s)}
    out = []
    for v in starts:
        labels = sorted({lab for h, lab in heads.items() if v <= h < ends[v]})
        if not labels:
            continue
        mine = sorted(a for a in everything if v <= a < ends[v])
        shared = frozenset(mine) if v in tangled else frozenset(a for a in mine if a in dispatcher)
        name = next((k for k in ("shaext", "ssse3", "avx2", "avx") if k in labels[0]), "integer")
        out.append(PathCode(labels[0], name, v, ends[v], tuple(code.at[a] for a in mine), shared))
    return out


# -- mutants ---------------------------------------------------------------------------------------

def applies(site: Insn, kind: str) -> bool:
    if site.mnemonic.startswith(("j", "ret", "call", "nop", "endbr", "push", "pop")) or site.mnemonic == "cpuid":
        return False
    if kind == "drop":
        return True
    if kind == "immediate":
        return bool(site.imm_size) and site.mnemonic not in SHIFTS
    if kind == "count":
        return bool(site.imm_size) and site.mnemonic in SHIFTS
    return bool(site.modrm_offset)


def mutate(blob: bytes, base: int, site: Insn, kind: str, rng: random.Random) -> tuple[bytes, str]:
    m = bytearray(blob)
    at = base + site.address
    if kind == "drop":
        m[at:at + site.size] = b"\x90" * site.size
        return bytes(m), f"drop `{site.text}` at 0x{site.address:x}"
    if kind == "immediate":
        b = at + site.imm_offset + rng.randrange(site.imm_size)
        m[b] ^= 1 << rng.randrange(8)
        return bytes(m), f"flip a constant bit of `{site.text}` at 0x{site.address:x}"
    if kind == "count":
        b = at + site.imm_offset
        m[b] = (m[b] + rng.choice((1, 255))) & 0xFF
        return bytes(m), f"count {blob[b]} -> {m[b]} in `{site.text}` at 0x{site.address:x}"
    m[at + site.modrm_offset] ^= 0x01
    return bytes(m), f"register operand of `{site.text}` at 0x{site.address:x} (ModRM.rm bit 0)"


def mutants(blob: bytes, base: int, p: PathCode, n: int, rng: random.Random) -> list[tuple[str, bytes, Insn]]:
    """n distinct mutants, kinds in turn (a kind with no site left is skipped)."""
    out: list[tuple[str, bytes, Insn]] = []
    seen: set[bytes] = set()
    pools = {k: [s for s in p.sites if applies(s, k)] for k in KINDS}
    turn = 0
    while len(out) < n and turn < 50 * n:
        kind = KINDS[turn % len(KINDS)]
        turn += 1
        if not pools[kind]:
            continue
        site = rng.choice(pools[kind])
        mut, what = mutate(blob, base, site, kind, rng)
        if mut != blob and mut not in seen:
            seen.add(mut)
            out.append((what, mut, site))
    return out


# -- judging ---------------------------------------------------------------------------------------

def native(mut: Path, function: str, blocks: int, work: Path, words: list[tuple[str, tuple]],
           interface: Interface = DEFAULT, lifted=None, member: str | None = None) -> tuple[str, object]:
    """Run the mutant once per set of capability words: (path, first Finding), else (last path, result).
    ``lifted``: the mutant's proof (a shared object's function is run only once lifted, ``confirm``);
    ``member``: the mutant is this member of the archive ``mut``."""
    uo = load_object(mut, work, member=member)
    last: tuple[str, object] = ("", None)
    for name, w in words:
        got = native_finding(uo, function, blocks, work, interface, symbols=dict(w), lifted=lifted)
        if isinstance(got, Finding):
            return name, got
        last = (name, got)
    return last


def judged(blob: bytes, base: int, p: "PathCode", codes: list, count: int, rng: random.Random, work: Path,
           prefix: str, suffix: str, judge_one, wrap=None, stopped=None,
           limit: float = JUDGE_SECONDS) -> Iterator[tuple[int, str, bool, str, str, float]]:
    """Each of ``count`` mutants of path ``p`` (``mutants``) written under ``work`` and judged on the paths that
    can execute it -- every path when its site is shared or there is one path, else ``p``'s alone --
    by ``judge_one(mutant, selected, workdir) -> (kind, detail)``: (index, what, on every path, kind, detail,
    seconds). The one loop of this script and ``bench/other_libraries.py``. ``wrap(mutated bytes)`` gives the
    file to judge (an archive with the mutated member in place; default the bytes themselves). Each judgement
    runs in a forked child for at most ``limit`` seconds; one stopped there is ``stopped(mutant, workdir)``
    (a native run alone), else "not proved, not refuted"."""
    for i, (what, mblob, site) in enumerate(mutants(blob, base, p, count, rng)):
        mut = work / f"{prefix}mutant_{i}{suffix}"
        mut.write_bytes(wrap(mblob) if wrap is not None else mblob)
        sub = work / f"{prefix}m{i}"
        sub.mkdir()
        selected = None if site.address in p.shared or len(codes) == 1 else frozenset({p.label})
        t0 = time.perf_counter()
        got = run_forked(lambda: judge_one(mut, selected, sub), limit)
        if isinstance(got, Stopped):
            kind, detail = stopped(mut, sub) if stopped is not None else ("not proved, not refuted", "")
            detail = f"the prover's child: {got.detail}; {detail}"
        else:
            kind, detail = got
        yield i, what, selected is None, kind, detail, time.perf_counter() - t0


def judge(mut: Path, function: str | None, min_blocks: int | None, selected: frozenset[str] | None,
          words: dict[str, list[tuple]], work: Path, interface: Interface | None = None,
          member: str | None = None, original: Path | None = None) -> tuple[str, str]:
    """(verdict, detail) of one mutant (see the module docstring).

    The prover is ``prove_object`` as ``sha1opt prove --object`` runs it (native confirmation on), on the
    ``selected`` paths; ``words`` are the capability words of every path of the unmutated object, by label.
    """
    res, why, scope = None, "", selected
    for scope in dict.fromkeys((selected, None)):
        try:
            res = prove_object(mut, function=function, min_blocks=min_blocks, workdir=work, paths=scope,
                               interface=interface, member=member)
            break
        except ObjectError as e:          # the mutant has no path with this label: prove every path
            why = f"refused: {e}"
        except Sha1optError as e:
            why = f"refused: {e}"
            break
    fn = res.function if res is not None else (function or "sha1_block_data_order")
    used = interface or (interface_of(res) if res is not None else DEFAULT)
    blocks = res.contract.min_blocks if res is not None else (min_blocks or 0)
    judged = [p for p in res.proof.paths if p.outcome != "not checked"] if res is not None else []
    scope = scope if res is not None else None
    if res is not None and res.outcome in ("proved", "partial"):
        where, got = native(mut, fn, blocks, work, [(lab, w) for lab, ws in words.items() for w in ws], used,
                            res.proof, member)
        paths = "every path" if scope is None else f"the {len(judged)} path(s) labelled {sorted(scope)[0]}"
        if isinstance(got, Finding):
            return "UNSOUND: proved, differs natively", f"proved on {paths}; native ({where}): {got.describe()}"
        return "equivalent (proved)", f"proved on {paths}: {judged[0].detail}"
    bad = next((p for p in judged if p.outcome == "counterexample"),
               next((p for p in judged if p.outcome != "proved"), None))
    if bad is not None:
        why = f"{bad.outcome}: {bad.name}: {bad.detail}"
    if res is not None and res.outcome == "counterexample":      # the prover printed a native counterexample
        kind = "refuted, confirmed natively" if bad is not None and bad.outcome == "counterexample" \
            else "refuted natively (prover: not proved)"
        return kind, f"prover: {why[:150]}; native: {res.native.describe()}"
    mine = [(lab, w) for lab, ws in words.items() if scope is None or lab in scope for w in ws]
    extra = [(bad.name, bad.witness)] if bad is not None and bad.witness not in {w for _, w in mine} else []
    where, got = native(mut, fn, blocks, work, mine + extra, used, res.proof if res is not None else None, member)
    refused = res is None or res.outcome == "refused"
    if isinstance(got, Finding):
        kind = "refuted natively (prover refused)" if refused else "refuted natively (prover: not proved)"
        return kind, f"prover: {why[:150]}; native ({where}): {got.describe()}"
    said = got.reason if isinstance(got, Unavailable) else "agrees on every record tried"
    if original is not None and not isinstance(got, Unavailable):
        seen = output_differs(original, mut, fn, work, mine + extra, used,
                              res.proof if res is not None else None, member)
        if seen is not None:
            kind = "refuted natively by its output (prover refused)" if refused else \
                "refuted natively by its output (prover: not proved)"
            return kind, f"prover: {why[:150]}; native ({seen[0]}): {seen[1]}"
    return "not proved, not refuted", f"prover: {why[:160]}; native: {said}"


def output_differs(original: Path, mut: Path, function: str, work: Path, words: list[tuple[str, tuple]],
                   interface: Interface, lifted, member: str | None) -> tuple[str, str] | None:
    """The first path's words on which the mutant's native run shows other bytes than the unmutated function's on
    the same records -- its exit status, its answers (the states), what it prints on stderr (nettle's
    ``NETTLE_FAT_VERBOSE`` message, read past its end by a mutant) -- as (path, what differs), else None. The
    unmutated function runs twice: output that differs between its own runs says nothing (None)."""
    records = [Record(tuple(range(k, k + 5)), bytes(range(k, k + 64))) for k in (1, 2)]
    for name, w in words:
        symbols, environment = split_words(dict(w))
        seen = []
        for k, obj in enumerate((original, mut, original)):
            sub = work / f"output_{k}"
            sub.mkdir(exist_ok=True)
            h = harness_for(load_object(obj, sub, member=member), function, sub, interface, symbols, lifted,
                            environment)
            if isinstance(h, Unavailable):
                return None
            seen.append(h.transcript(records))
        if seen[0] != seen[2]:
            return None
        if seen[0] != seen[1]:
            if isinstance(seen[1], str) or isinstance(seen[0], str):
                return name, f"the unmutated run: {str(seen[0])[:80]}; the mutant's: {str(seen[1])[:80]}"
            what = [part for part, a, b in zip(("exit status", "answers", "stderr"), seen[0], seen[1]) if a != b]
            return name, f"the mutant's {' and '.join(what)} differ from the unmutated function's " \
                         f"(stderr {seen[0][2][:60]!r} -> {seen[1][2][:60]!r})"
    return None


def interface_of(res: ObjectProof) -> Interface:
    """The interface a proof without a declared one ran under (``prove_object`` proves a function that never
    reads nblocks as one block)."""
    return KEYWORDS["one-block"] if res.contract.one_block else DEFAULT


def path_words(orig: ObjectProof) -> dict[str, list[tuple]]:
    """The capability words of every path of the unmutated object, by path label (what ``judge`` runs a
    mutant with natively)."""
    words: dict[str, list[tuple]] = {}
    for p in orig.proof.paths:
        lab = p.label if p.kind == "loop" else orig.function
        if p.witness not in words.setdefault(lab, []):
            words[lab].append(p.witness)
    return words


# -- the run ---------------------------------------------------------------------------------------

def _commit() -> str:
    """The checkout's commit, ``+dirty`` when the tracked files differ from it (what the figures were made on)."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


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
    ap.add_argument("--dispatcher", type=int, default=4, help="mutants of each dispatcher (shared code)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", default=None, help="run only paths whose 'object path' title contains this")
    args = ap.parse_args()
    t_all = time.perf_counter()
    lines: list[str] = [f"# bench/lift_mutants.py on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
                        f"commit {_commit()}, seed {args.seed}, {args.per_path} mutants per path, "
                        f"{args.dispatcher} per dispatcher; {_load()} at start"]
    summaries: list[str] = []
    totals: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        for name, obj, function, min_blocks, bits in objects(work):
            kinds = ("integer", "shaext", "ssse3", "avx2", "dispatcher")
            if args.only and not any(args.only in f"{name} {k}" for k in kinds):
                continue
            ow = work / f"{obj.stem}_orig"
            ow.mkdir()
            orig = prove_object(obj, function=function, min_blocks=min_blocks, workdir=ow, native=False)
            words = path_words(orig)
            lines.append(f"{name}: unmutated: {orig.summary()[:160]}")
            print(lines[-1], flush=True)
            blob = obj.read_bytes()
            _, base, _ = text_section(obj)
            codes = path_codes(obj, bits, orig, orig.function)
            shared = sorted({s for p in codes for s in p.sites if s.address in p.shared}, key=lambda s: s.address)
            groups = [(p, args.per_path) for p in codes]
            if len(codes) > 1 and shared:      # the dispatcher's own mutants, each proved on every path
                groups.append((PathCode(orig.function, "dispatcher", shared[0].address, shared[-1].address + 1,
                                        tuple(shared), frozenset(s.address for s in shared)), args.dispatcher))
            for p, count in groups:
                title = f"{name} {p.name}"
                if args.only and args.only not in title:
                    continue
                counts: dict[str, int] = {}
                t0 = time.perf_counter()
                rng = random.Random(f"{args.seed}:{title}")
                for i, what, every, kind, detail, dt in judged(
                        blob, base, p, codes, count, rng, work, f"{obj.stem}_{p.name}_", ".o",
                        lambda mut, selected, sub: judge(mut, function, min_blocks, selected, words, sub)):
                    counts[kind] = counts.get(kind, 0) + 1
                    totals[kind] = totals.get(kind, 0) + 1
                    scope = "all paths" if every else "its path"
                    lines.append(f"  {title} mutant {i}: {what} [{scope}, {dt:.1f} s]: {kind} -- {detail[:240]}")
                    print(lines[-1], flush=True)
                n = sum(counts.values())
                dt = time.perf_counter() - t0
                summaries.append(f"{title}: {n} mutants in {dt:.1f} s ({dt / max(n, 1):.1f} s each): "
                                 + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
                lines.append(summaries[-1])
                print(lines[-1], flush=True)
    lines.append("")
    lines.append("summary per path:")
    lines.extend(f"  {s}" for s in summaries)
    lines.append(f"# done; {_load()}")
    lines.append(f"total ({time.perf_counter() - t_all:.0f} s): "
                 + ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
    text = "\n".join(lines) + "\n"
    if not args.only and args.per_path == 20 and args.dispatcher == 4:
        OUT.write_text(text)
    sys.stdout.write(lines[-1] + "\n")


if __name__ == "__main__":
    main()
