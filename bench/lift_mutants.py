"""One-instruction mutants of the proved integer paths: each is proved (equivalent) or refuted natively.

Usage: .venv/bin/python bench/lift_mutants.py  (writes bench/results/lift_mutants.txt)

Mutants are made in the machine code itself, in the loop of the path: an
instruction replaced by NOPs (dropped), or one immediate byte changed
(rotate count, constant, displacement). Each is proved with
``prove_object``; an outcome other than "proved" must come with a
counterexample confirmed by running the mutant natively, else it is counted
as unconfirmed. Objects: the project's x86-64 and i386 exports, and
OpenSSL's x86-64 object from Debian's libcrypto.a (integer path; its
OPENSSL_ia32cap_P is zero in the native runs).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from elftools.elf.elffile import ELFFile

from sha1opt.analyze import LiftRefusal, prove_object
from sha1opt.emit.assembly import function_text
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.lift.elf import ObjectFile

OUT = Path(__file__).resolve().parent / "results" / "lift_mutants.txt"
PER_OBJECT = 20


def mutants(obj_path: Path, function: str | None, rng: random.Random):
    data = obj_path.read_bytes()
    obj = ObjectFile.parse(data)
    sym = obj.find_function(function)
    fn = decode_function(obj, sym)
    head = min(Cfg.build(fn).loop_heads())
    with obj_path.open("rb") as f:
        sec = ELFFile(f).get_section_by_name(sym.section)
        base = sec["sh_offset"]
    body = [d for a, d in sorted(fn.instructions.items()) if a >= head and d.mnemonic not in ("ret",)]
    imm = [d for d in body if d.mnemonic in ("rol", "ror", "add", "lea", "xor", "and", "mov") and d.size >= 3]
    out = []
    for k in range(PER_OBJECT):
        m = bytearray(data)
        if k % 2 == 0:
            d = rng.choice(body)
            m[base + d.address: base + d.address + d.size] = b"\x90" * d.size
            what = f"drop `{d.text}` at 0x{d.address:x}"
        else:
            d = rng.choice(imm)
            at = base + d.address + d.size - 1          # the last byte: immediate or displacement
            m[at] ^= 1 << rng.randrange(0, 5)
            what = f"flip a bit of the last byte of `{d.text}` at 0x{d.address:x}"
        out.append((what, bytes(m)))
    return out


def main() -> None:
    rng = random.Random(2026)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        objs = []
        for arch in ("x86_64", "i386"):
            src = work / f"export_{arch}.S"
            src.write_text(function_text(textbook(arch)))
            obj = work / f"export_{arch}.o"
            subprocess.run(["gcc", "-m64" if arch == "x86_64" else "-m32", "-c", "-o", str(obj), str(src)], check=True)
            objs.append((f"sha1opt export ({arch})", obj, None))
        lib = Path("/usr/lib/x86_64-linux-gnu/libcrypto.a")
        if lib.exists():
            member = "libcrypto-lib-sha1-x86_64.o"
            raw = subprocess.run(["ar", "p", str(lib), member], capture_output=True, check=True).stdout
            (work / member).write_bytes(raw)
            objs.append((f"OpenSSL {member}", work / member, "sha1_block_data_order"))
        for name, obj, function in objs:
            counts = {"equivalent (proved)": 0, "refuted, confirmed natively": 0, "not proved, not confirmed": 0,
                      "refused": 0}
            t0 = time.perf_counter()
            for i, (what, blob) in enumerate(mutants(obj, function, rng)):
                p = work / f"mutant_{i}.o"
                p.write_bytes(blob)
                try:
                    res = prove_object(p, function=function, min_blocks=1 if function else None)
                    ok_paths = [x for x in res.proof.paths if x.name.startswith("loop")]
                    if res.outcome == "proved" or (res.outcome == "refused" and ok_paths
                                                   and all(x.outcome == "proved" for x in ok_paths)):
                        kind = "equivalent (proved)"
                    elif res.outcome == "counterexample":
                        kind = "refuted, confirmed natively"
                    elif res.outcome == "refused":
                        kind = "not proved, not confirmed"
                    else:
                        kind = "not proved, not confirmed"
                    detail = res.summary()[:160]
                except LiftRefusal as e:
                    kind, detail = "refused", str(e)[:160]
                counts[kind] += 1
                lines.append(f"  {name} mutant {i}: {what}: {kind} -- {detail}")
            lines.append(f"{name}: {PER_OBJECT} mutants in {time.perf_counter() - t0:.1f} s: "
                         + ", ".join(f"{v} {k}" for k, v in counts.items()))
    text = "\n".join(lines) + "\n"
    OUT.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
