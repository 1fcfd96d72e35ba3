"""An instruction whose bytes a relocation rewrites other than in its address field is refused when reached.

Rule (issue 24; ``lift.decode`` ``Decoded.rewritten``, ``lift.executor.step``): the linker applies every relocation
of a ``.o``, wherever it points. Where one points into an instruction's opcode or ModRM bytes -- a ``nop`` sled left
where an instruction with a relocated address was dropped -- the bytes the prover reads are not the bytes that run,
so the instruction is refused by name (a ``nop`` too: it is checked before nops are skipped). Regression
(bench/other_libraries.py, mutants of a resolver judged in an archive): dropping ``mov %rax, vec(%rip)`` left its
R_X86_64_PC32 in the middle of seven nops; the prover proved the mutant, and the linked program ran the
displacement the linker wrote there as code and died ("UNSOUND: proved, differs natively"). The code is the tests'
own ``csrc/sha1_archive_resolver.c``, built with gcc -O2, the store replaced by nops here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sha1opt.semantics.lift.elf import ObjectFile
from sha1opt.semantics.lift.function import prove_function
from sha1opt.semantics.lift.interface import DEFAULT
from tests.support.csrc import compile_c

SOURCE = Path(__file__).resolve().parent / "csrc" / "sha1_archive_resolver.c"
STORE = bytes.fromhex("488905")          # mov %rax, disp32(%rip)


def _init_paths(obj: ObjectFile):
    return [p for p in prove_function(obj, "entry", DEFAULT.contract("sysv")).paths if ("vec", "init") in p.pointers]


def test_regression_dropped_store_with_its_relocation_left_is_refused(tmp_path_factory):
    folder = tmp_path_factory.mktemp("relocated")
    obj = compile_c(SOURCE, folder)
    text = bytearray(obj.sections[".text"])
    at = next((off - 3 for off in sorted(obj.relocs[".text"]) if text[off - 3:off] == STORE), None)
    if at is None:
        pytest.skip("gcc -O2 did not store the pointer with mov %rax, disp32(%rip)")
    assert not any("rewrites bytes" in p.detail for p in _init_paths(obj))
    text[at:at + 7] = b"\x90" * 7
    raw = bytearray((folder / "sha1_archive_resolver.o").read_bytes())
    start = raw.find(bytes(obj.sections[".text"]))
    raw[start:start + len(text)] = text
    mutant = ObjectFile.parse(bytes(raw))
    said = [(p.outcome, p.detail) for p in _init_paths(mutant)]
    assert said and all(o == "refused" and f"rewrites bytes of it that are not its address field at 0x{at + 3:x}"
                        in d for o, d in said), said
