"""The semantics table agrees with itself (Z3 vs numpy vs terms) and with the real CPU.

For every mnemonic in ``x86.SEMANTICS`` there are snippets in ``FORMS``
covering its operand shapes (register, immediate, memory source, memory
destination, %cl counts, counts >= 32). Each snippet runs on 64 random
states through the numpy interpreter and natively (assembled with ``as``,
called through ctypes); 8 of those states also run through Z3 symbolically
(then instantiated) and through the term IR.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import z3

from tests.support.cpu import not_run_here, skip_unless_runs
from tests.support.native import BUFFER_WORDS, TEST_REGS, SnippetRunner
from sha1opt.emit.toolchain import ToolchainError, assemble
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.domain import NumpyDomain, TermDomain, Z3Domain
from sha1opt.semantics.ir import evaluate
from sha1opt.semantics.machine import Machine
from sha1opt.semantics.errors import UnsupportedError
from sha1opt.semantics.features import ISA_LEVELS
from sha1opt.semantics.x86 import SEMANTICS, Imm, Reg, arguments

LANES = 64
Z3_LANES = 8

# mnemonic -> snippets exercising it (AT&T; %rsi points at a 16-word buffer).
FORMS: dict[str, list[str]] = {
    "mov": ["mov %ebx, %eax", "mov $0x5a827999, %ecx", "mov 8(%rsi), %edx", "mov %r9d, 60(%rsi)", "movl $-1, 4(%rsi)"],
    "add": ["add %ebx, %eax", "add $0x8f1bbcdc, %ecx", "addl $-7, %edx", "add 12(%rsi), %r8d", "add %eax, 4(%rsi)"],
    "sub": ["sub %ebx, %eax", "sub $1, %ecx", "sub 16(%rsi), %r10d", "sub %edx, 20(%rsi)"],
    "and": ["and %ebx, %eax", "and $0xff00ff00, %ecx", "and 24(%rsi), %r11d", "andl %edi, 28(%rsi)"],
    "or": ["or %ebx, %eax", "or $0x80000001, %ecx", "or 32(%rsi), %r12d", "or %ebp, 36(%rsi)"],
    "xor": ["xor %ebx, %eax", "xorl $0xffffffff, %ecx", "xor 40(%rsi), %r13d", "xor %r15d, 44(%rsi)"],
    "not": ["not %eax", "notl 48(%rsi)"],
    "bswap": ["bswap %eax", "bswap %r14d"],
    "rol": ["rol $5, %eax", "roll $30, %ebx", "rol $0, %ecx", "rol $33, %edx", "rol %cl, %edi",
            "rol %r8d", "rol $1, 52(%rsi)", "rol %cl, 4(%rsi)"],
    "ror": ["ror $2, %eax", "ror $27, %r9d", "ror %cl, %ebx", "ror $31, 56(%rsi)"],
    "shl": ["shl $5, %eax", "shl %cl, %ebx", "sal $31, %edx", "shl $7, 8(%rsi)", "shl %r10d"],
    "shr": ["shr $27, %eax", "shr %cl, %ebx", "shrl $1, 12(%rsi)"],
    "lea": ["lea 0x5a827999(%rax,%rbx), %eax", "lea -3(%rdx), %edx", "lea 7(%rcx,%rdi,4), %ebp",
            "lea (,%r8,8), %r9d", "leal 0xca62c1d6(%r10,%r11,2), %r12d", "lea 0x6ed9eba1(%eax,%ebx), %ecx"],
    "andn": ["andn %ecx, %ebx, %eax", "andn 16(%rsi), %r8d, %r9d"],
    "rorx": ["rorx $27, %ebx, %eax", "rorx $2, 20(%rsi), %r10d", "rorx $0, %ecx, %ecx"],
    "shld": ["shld $5, %eax, %eax", "shld $13, %ebx, %edx", "shldl $0, %ecx, %edi", "shld $37, %r8d, 24(%rsi)",
             "shld %cl, %ebx, %eax", "shld %cl, %edx, 8(%rsi)"],
    "shrd": ["shrd $7, %edx, %edx", "shrd $31, %eax, %ebx", "shrd %cl, %ebp, %r9d", "shrd $2, %r10d, 4(%rsi)"],
}

ALL = [(m, s) for m, forms in FORMS.items() for s in forms]
# The scalar rows; the vector rows have their own native tests (test_vector_semantics.py).
SCALAR = {m: sem for m, sem in SEMANTICS.items() if not sem.vector}


def test_every_table_entry_has_forms():
    assert set(FORMS) == set(SCALAR), "each mnemonic of the table needs CPU-checked snippets"


def _inputs(seed: int):
    rng = np.random.default_rng(seed)
    regs = {r: rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32) for r in TEST_REGS}
    buf = rng.integers(0, 1 << 32, (BUFFER_WORDS, LANES), dtype=np.uint64).astype(np.uint32)
    # Some lanes get corner values; ecx lanes cover counts 0, 31, 32, 33 (masked).
    regs["ecx"][:4] = [0, 31, 32, 33]
    regs["eax"][4:7] = [0, 0xFFFFFFFF, 0x80000000]
    return regs, buf


def _run_numpy(program, regs, buf):
    dom = NumpyDomain(LANES)
    m = Machine(dom, initial_reg=lambda r: regs[r].copy(),
                initial_mem=lambda region, off: buf[off // 4].copy(), pointers={"esi": "buf"})
    m.run(program)
    out_regs = {r: m.get(("reg", r)) for r in TEST_REGS}
    out_buf = np.stack([m.get(("mem", "buf", 4 * w)) for w in range(BUFFER_WORDS)])
    return out_regs, out_buf


@pytest.fixture(scope="module")
def native():
    if (reason := not_run_here()) is not None:
        pytest.skip(reason)
    try:
        runner = SnippetRunner([s for _, s in ALL])
    except ToolchainError as e:
        pytest.skip(f"toolchain unavailable: {e}")
    yield runner
    runner.close()


@pytest.mark.parametrize("k", range(len(ALL)), ids=[s for _, s in ALL])
def test_numpy_agrees_with_cpu(native, k):
    """Exactly the rows whose ISA this CPU lacks are skipped (a BMI row on a host without BMI, or under
    ``SHA1OPT_CPU_LACKS=bmi2``: "this CPU lacks bmi2"); the base rows always run."""
    mnemonic, snippet = ALL[k]
    skip_unless_runs(SEMANTICS[mnemonic].isa)
    program = parse_text(snippet, "x86_64")
    assert program[0].mnemonic == mnemonic
    regs, buf = _inputs(k)
    want_regs, want_buf = _run_numpy(program, regs, buf)
    for lane in range(LANES):
        got_regs, got_buf = native.run(k, {r: int(v[lane]) for r, v in regs.items()}, [int(w) for w in buf[:, lane]])
        for r in TEST_REGS:
            assert got_regs[r] == int(want_regs[r][lane]), f"{snippet}: %{r} lane {lane}"
        assert got_buf == [int(w) for w in want_buf[:, lane]], f"{snippet}: memory lane {lane}"


@pytest.mark.parametrize("k", range(len(ALL)), ids=[s for _, s in ALL])
def test_z3_and_terms_agree_with_numpy(k):
    _, snippet = ALL[k]
    program = parse_text(snippet, "x86_64")
    regs, buf = _inputs(1000 + k)
    want_regs, want_buf = _run_numpy(program, regs, buf)

    zd = Z3Domain()
    mz = Machine(zd, initial_reg=lambda r: zd.var(r), initial_mem=lambda reg, off: zd.var(f"m{off}"),
                 pointers={"esi": "buf"})
    mz.run(program)
    td = TermDomain()
    mt = Machine(td, initial_reg=lambda r: td.var(r), initial_mem=lambda reg, off: td.var(f"m{off}"),
                 pointers={"esi": "buf"})
    mt.run(program)
    for lane in range(Z3_LANES):
        point = {r: int(regs[r][lane]) for r in TEST_REGS} | {f"m{4 * w}": int(buf[w, lane]) for w in range(BUFFER_WORDS)}
        subst = [(zd.var(n), zd.const(v)) for n, v in point.items()]
        env = {n: np.array([v], dtype=np.uint32) for n, v in point.items()}
        for r in TEST_REGS:
            zval = z3.simplify(z3.substitute(mz.get(("reg", r)), *subst)).as_long()
            tval = int(evaluate([mt.get(("reg", r))], NumpyDomain(1), env)[0][0])
            assert zval == tval == int(want_regs[r][lane]), f"{snippet}: %{r} lane {lane}"
        for w in range(BUFFER_WORDS):
            zval = z3.simplify(z3.substitute(mz.get(("mem", "buf", 4 * w)), *subst)).as_long()
            assert zval == int(want_buf[w, lane]), f"{snippet}: word {w} lane {lane}"


# --- the table's flag and ISA columns ---------------------------------------
#
# Intel SDM vol. 2 (order no. 325383), "Flags Affected" of each instruction,
# the fact ``writes_flags`` states; the native test below checks it on the CPU.
SDM_FLAGS: dict[str, tuple[bool, str]] = {
    "mov":   (False, "MOV: None of the flags are affected"),
    "add":   (True,  "ADD: OF, SF, ZF, AF, CF, PF set according to the result"),
    "sub":   (True,  "SUB: OF, SF, ZF, AF, PF, CF set according to the result"),
    "and":   (True,  "AND: OF and CF cleared; SF, ZF, PF set according to the result"),
    "or":    (True,  "OR: OF and CF cleared; SF, ZF, PF set according to the result"),
    "xor":   (True,  "XOR: OF and CF cleared; SF, ZF, PF set according to the result"),
    "not":   (False, "NOT: None"),
    "bswap": (False, "BSWAP: None"),
    "rol":   (True,  "RCL/RCR/ROL/ROR: CF affected (OF for 1-bit rotates); none for count 0"),
    "ror":   (True,  "RCL/RCR/ROL/ROR: CF affected (OF for 1-bit rotates); none for count 0"),
    "shl":   (True,  "SAL/SAR/SHL/SHR: CF, OF, SF, ZF, PF affected; none for count 0"),
    "shr":   (True,  "SAL/SAR/SHL/SHR: CF, OF, SF, ZF, PF affected; none for count 0"),
    "lea":   (False, "LEA: None"),
    "andn":  (True,  "ANDN: SF and ZF updated, OF and CF cleared"),
    "rorx":  (False, "RORX: None"),
    "shld":  (True,  "SHLD: CF, SF, ZF, PF set according to the result (OF for 1-bit shifts); none for count 0"),
    "shrd":  (True,  "SHRD: CF, SF, ZF, PF set according to the result (OF for 1-bit shifts); none for count 0"),
}
STATUS_FLAGS = 0x8D5       # OF SF ZF AF PF CF in EFLAGS
FLAG_PRESETS = (0x002, 0x002 | STATUS_FLAGS)   # bit 1 always reads 1
FLAG_LANES = 16
FLAG_CASES = [(m, s, p) for m, s in ALL for p in FLAG_PRESETS]


def test_writes_flags_matches_the_sdm():
    assert {m: SEMANTICS[m].writes_flags for m in SCALAR} == {m: w for m, (w, _) in SDM_FLAGS.items()}


@pytest.fixture(scope="module")
def flag_runner():
    """Each snippet between ``popfq`` of a preset and ``pushfq``; EFLAGS land in buffer words 0-1."""
    if (reason := not_run_here()) is not None:
        pytest.skip(reason)
    try:
        runner = SnippetRunner([f"pushq ${p:#x}\npopfq\n{s}\npushfq\npopq (%rsi)" for _, s, p in FLAG_CASES])
    except ToolchainError as e:
        pytest.skip(f"toolchain unavailable: {e}")
    yield runner
    runner.close()


def _flags_after(runner, k: int) -> list[int]:
    """EFLAGS' status bits after FLAG_CASES[k] on FLAG_LANES random states."""
    regs, buf = _inputs(2000 + k)
    out = []
    for lane in range(FLAG_LANES):
        _, got_buf = runner.run(k, {r: int(v[lane]) for r, v in regs.items()}, [int(w) for w in buf[:, lane]])
        out.append(got_buf[0] & STATUS_FLAGS)
    return out


@pytest.mark.parametrize("mnemonic", sorted(SCALAR))
def test_writes_flags_matches_the_cpu(flag_runner, mnemonic):
    """A row without flag writes leaves every status flag as preset, in every form and state;
    a row with them changes some flag for some form, state and preset. Rows whose ISA this CPU
    lacks are skipped with the reason."""
    skip_unless_runs(SEMANTICS[mnemonic].isa)
    changed = []
    for k, (m, snippet, preset) in enumerate(FLAG_CASES):
        if m != mnemonic:
            continue
        for got in _flags_after(flag_runner, k):
            if got != preset & STATUS_FLAGS:
                changed.append(snippet)
    assert bool(changed) == SEMANTICS[mnemonic].writes_flags, (mnemonic, sorted(set(changed)))


# GNU as ``.arch`` extensions that each ISA level adds (gas names BMI1 ``.bmi``).
_GAS_EXTENSIONS = {"base": (), "bmi1": (".bmi",), "bmi2": (".bmi", ".bmi2")}
# The CPUID feature each instruction needs (Intel SDM vol. 2, "CPUID Feature Flag" column):
# ANDN: BMI1 (CPUID.(EAX=07H,ECX=0):EBX[bit 3]); RORX: BMI2 (EBX[bit 8]); the rest are base i486+.
CPUID_FEATURE = {"andn": "bmi1", "rorx": "bmi2"}


def _assembles_at(level: str, snippet: str, tmp_path) -> bool:
    source = "\n".join([".arch generic64", *(f".arch {x}" for x in _GAS_EXTENSIONS[level]), snippet, ""])
    try:
        assemble(source, "x86_64", tmp_path, "isa")
    except ToolchainError:
        return False
    return True


def test_isa_matches_the_cpuid_feature():
    assert {m: SEMANTICS[m].isa for m in SCALAR} == {m: CPUID_FEATURE.get(m, "base") for m in SCALAR}


@pytest.mark.parametrize("k", range(len(ALL)), ids=[s for _, s in ALL])
def test_isa_is_the_lowest_level_the_assembler_accepts(k, tmp_path):
    """gas (whose ISA tables follow the SDM) accepts the snippet at the row's ``isa`` level,
    and refuses it one level lower."""
    if shutil.which("as") is None:
        pytest.skip("GNU as not on PATH")
    mnemonic, snippet = ALL[k]
    level = SEMANTICS[mnemonic].isa
    assert _assembles_at(level, snippet, tmp_path), f"{snippet} refused at {level}"
    i = ISA_LEVELS.index(level)
    if i > 0:
        assert not _assembles_at(ISA_LEVELS[i - 1], snippet, tmp_path), f"{snippet} accepted below {level}"


def test_arguments_feed_the_value_function_in_its_order():
    sub, shl1, andn = parse_text("sub %ebx, %eax\nshl %eax\nandn %ecx, %ebx, %eax", "x86_64")
    assert arguments(sub) == (Reg("eax"), Reg("ebx"))          # eax - ebx
    assert arguments(shl1) == (Reg("eax"), Imm(1))             # the implicit count
    assert arguments(andn) == (Reg("ebx"), Reg("ecx"))         # ~ebx & ecx
    with pytest.raises(UnsupportedError):
        arguments(parse_text("lea 4(%rax), %ebx", "x86_64")[0])
