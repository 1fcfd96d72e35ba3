"""bench/loop_kernels.py's kernels (nothing timed): what it times is what its docstring says.

What is proved: the frame rewrite moves a block loop into calibrate's kernel frame as its docstring's example
says; the kernels pass calibrate's checks (``microbench.validate_all``: registers and the private buffer only,
the machine code the intended instructions; every fifth two-field loop here, the bench checks all before it
runs any); with the ring apart no read of the W ring reads a slot a store writes, and the instructions are the
loop's own, in order; each ablation changes only what its name says; each order moves only a round's W
group, to where its name says, and computes what the textbook with the ring apart computes; the two-field loops are distinct; a loop
needing a register the frame lacks is left out with a note, not timed wrongly; and a bad argument is one line
and exit 2.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from sha1opt.emit.microbench import Checked, priced, validate_all
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.machine import Machine
from sha1opt.search.cost.model import load_model
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lk(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))    # the script imports its sibling pair_table.py
    return importlib.import_module("loop_kernels")


def _code(body: str) -> list[Instr]:
    return [i for i in parse_listing("1:\n" + body, "x86_64", "test").items if isinstance(i, Instr)]


def _ring(lk, m: Mem) -> bool:
    return lk.RING <= m.disp < lk.RING + 64 or lk.APART <= m.disp < lk.APART + 64


def test_the_frame_example_of_the_docstring(lk):
    out = lk.frame(_code("xorl 28(%rsp), %r8d\nleal 0x5a827999(%ebp,%r8d), %ebp\nmovl 4(%rsi), %r8d\n"
                         "addl 8(%rdi), %ecx\nmovl %r8d, 12(%rsp)\n"))
    assert [str(i) for i in out[:3]] == ["xor 92(%rsp), %r8d", "lea 0x5a827999(%r14d,%r8d), %r14d",
                                         "mov 196(%rsp), %r8d"]
    assert (out[3].operands[0].disp, str(out[3].operands[1])) == (lk.STATE + 8, "%r13d")
    apart = lk.frame(_code("xorl 28(%rsp), %r8d\nmovl %r8d, 12(%rsp)\n"), apart=True)
    assert apart[0].operands[0].disp == 428 and apart[1].operands[1].disp == 76   # reads apart, stores not


def test_a_register_the_frame_lacks_is_refused(lk):
    with pytest.raises(lk.FrameRefusal, match="r11d"):
        lk.frame(_code("movl %r11d, %eax\n"))
    with pytest.raises(lk.FrameRefusal, match="no room"):
        lk.frame(_code("movl 64(%rsi), %eax\n"))
    with pytest.raises(lk.FrameRefusal, match="no room"):          # 16 bytes from 56 would leave the slot
        lk.frame([Instr("movdqu", (Reg("xmm1", 128), Mem(Reg("esp", 64), None, 1, 56)))])
    with pytest.raises(lk.FrameRefusal, match="r13d"):             # %ecx moves there: two names, one register
        lk.frame(_code("movl %ecx, %eax\naddl %r13d, %eax\n"))


def test_the_kernels_pass_calibrates_checks_and_the_left_out_loops_are_named(lk):
    model = load_model("zen4")
    rows, notes = lk.plan(model)
    pairs = [r for r in rows if r.table == "pairs"]
    assert len(pairs) >= 60 and len({r.name for r in pairs}) == len(pairs)
    # the two-field loops come from the same frame as the one-field ones: every fifth is checked here (the
    # bench checks all before it runs any), to keep this test a few seconds
    ks = [priced(f"lk.{n}", r.body, model, "test") for n, r in enumerate(rows) if r.table != "pairs"]
    ks += [priced(f"lk.p{n}", r.body, model, "test") for n, r in enumerate(pairs[::5])]
    assert all(isinstance(c, Checked) for c in validate_all(ks, model))
    names = {r.name for r in rows}
    assert {"textbook", "textbook, ring apart", "kw=add", "wsrc=late, ring apart"} <= names
    assert set(lk.ABLATIONS) | set(lk.ORDERS) <= names and {f"lea3 + {k} add" for k in lk.LEA_KS} <= names
    # the loops with five temporaries need ten registers; the frame has nine: named, not timed
    assert any("wsrc=reg3" in n for n in notes) and "wsrc=reg3" not in names


def test_ring_apart_reads_no_stored_slot_and_keeps_the_instructions(lk):
    model = load_model("zen4")
    rows = {r.name: r for r in lk.plan(model)[0]}
    for name in ("textbook", "wsrc=late", "wsrc=load"):
        written, apart = _code(rows[name].body), _code(rows[f"{name}, ring apart"].body)
        assert [i.mnemonic for i in written] == [i.mnemonic for i in apart]
        stored = {i.operands[-1].disp for i in apart if isinstance(i.operands[-1], Mem) and i.mnemonic == "mov"}
        read = {o.disp for i in apart for o in i.operands[:-1] if isinstance(o, Mem) and i.mnemonic != "lea"}
        assert not {d for d in read if _ring(lk, Mem(None, disp=d))} & stored
        # as written, the ring's reads are the stores' slots (the recurrence through memory)
        read_w = {o.disp for i in written for o in i.operands[:-1] if isinstance(o, Mem) and i.mnemonic != "lea"}
        assert {d for d in read_w if lk.RING <= d < lk.RING + 64} <= stored


def test_each_ablation_changes_only_what_it_names(lk):
    tb = lk.frame(textbook("x86_64").body[textbook("x86_64").loop_start:], apart=True)
    assert sum(1 for i in tb if lk._kwe(i)) == 80
    for name, edit in lk.ABLATIONS.items():
        out = edit(list(tb))
        if name.startswith(("lea K", "->")):      # each lea K(e,w),e, in place, as the name says; nothing else
            j = 0
            for ins in tb:
                hit = lk._kwe(ins)
                if not hit:
                    assert out[j] == ins
                    j += 1
                    continue
                m, e = hit
                want = {"lea K(e,w),e -> add w,e": ["add %s, %s" % (m.index, e)],
                        "lea K(e,w),e -> lea (e,w),e": ["lea (%s,%s), %s" % (m.base, m.index, e)],
                        "-> add $K,e; add w,e": [f"add ${m.disp:#x}, {e}", f"add {m.index}, {e}"],
                        "-> add w,e; add $K,e": [f"add {m.index}, {e}", f"add ${m.disp:#x}, {e}"]}[name]
                assert [str(i) for i in out[j:j + len(want)]] == want
                j += len(want)
            assert j == len(out)
        elif name == "ring xors -> register xors":
            assert [i for i in out if i not in tb] == [lk.Instr("xor", (lk.CONSTANT, i.operands[1])) for i in tb
                                                        if i.mnemonic == "xor" and isinstance(i.operands[0], Mem)]
        elif name == "rotates -> adds":
            assert len(out) == len(tb) and not any(i.mnemonic in ("rol", "ror") for i in out)
            assert all(a == b for a, b in zip(out, tb) if b.mnemonic not in ("rol", "ror"))
        else:
            assert name == "ring stores left out"
            ring_stores = [i for i in tb if i.mnemonic == "mov" and isinstance(i.dest, Mem)
                           and lk.RING <= i.dest.disp < lk.RING + 64]
            assert [i for i in tb if i not in out] == ring_stores
            assert len(tb) - len(out) == 64 + 16 - 3     # W_16..76 and W_0..15 stored; W_77..79 never read


def _state(code: list[Instr]) -> tuple[dict, dict]:
    """Registers (but the round temporaries) and buffer words after ``code``, from the project's interpreter on
    two random lanes: what the code computes."""
    def val(*key):
        h = zlib.crc32(repr(key).encode())
        return np.array([h, h ^ 0x9E3779B9], dtype=np.uint32)
    m = Machine(NumpyDomain(2), initial_reg=lambda n: val("r", n), initial_mem=lambda reg, off: val("m", reg, off),
                pointers={"esp": "stack"})
    m.run(code)
    regs = {k: tuple(map(int, v)) for k, v in m.regs.items() if k not in ("r8d", "r9d", "esi", "esp")}
    return regs, {k: tuple(map(int, v)) for k, v in m.mem.items()}


def test_each_order_moves_only_the_w_group_within_its_round_and_computes_what_the_textbook_does(lk):
    """The orders table: every order computes what the textbook with the ring apart computes (a..e and every
    buffer word, run by the interpreter); every round keeps its instructions, f and the rest in their order, and
    the W group lands where the name says. The round's parts are checked apart from ``_parts``: f's length per
    round form, f's last instruction the add into the lea's e, the rest ``mov; rol $5; add; ror $2``."""
    tb = lk.frame(textbook("x86_64").body[textbook("x86_64").loop_start:], apart=True)
    rounds, tail = lk._rounds(tb)
    assert len(rounds) == 80
    want_state = _state(tb)
    where = {"W group first (the textbook's)": 0, **{f"W group before f's instruction {k}": k for k in (1, 2, 3)}}
    for name, edit in lk.ORDERS.items():
        out = edit(list(tb))
        assert _state(out) == want_state, name
        assert len(out) == len(tb) and out[-len(tail):] == tail
        at = 0
        for t, r in enumerate(rounds):
            w, f, rest = lk._parts(r)
            assert len(f) == (5 if t < 20 else 7 if 40 <= t < 60 else 4)       # Ch, Maj, parity
            assert f[-1].mnemonic == "add" and f[-1].operands[1] == w[-1].operands[1]
            assert [i.mnemonic for i in rest] == ["mov", "rol", "add", "ror"] and rest[1].operands[0] == Imm(5)
            assert len(w) + len(f) + len(rest) == len(r)
            got = out[at:at + len(r)]
            at += len(r)
            assert [i for i in got if i not in w] == f + rest                   # f and the rest in their order
            first = got.index(w[0])
            if name in where or name.startswith("W group"):
                k = where.get(name, len(f) - 1 if "before f's add" in name else len(f))
                assert got[first:first + len(w)] == w and first == k, (name, t)
            else:                                                               # W first, its lea before f's add
                assert got[:len(w) - 1] == w[:-1] and got[len(w) - 1 + len(f) - 1] == w[-1]


def test_the_lea_groups(lk):
    for k in lk.LEA_KS:
        body, groups = lk.lea_body(k)
        lines = body.splitlines()
        assert len(lines) == groups * (1 + k) <= lk.LEA_SIZE
        assert all(ln.startswith("leal 1(%r15,") for ln in lines[::1 + k])


@pytest.mark.parametrize("args", [["--passes", "0"], ["--uarch", "nosuch"], ["--out", "/nosuch/folder/x.txt"]])
def test_a_bad_argument_is_one_line_and_exit_2(args):
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "loop_kernels.py"), *args], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    lines = r.stderr.strip().splitlines()       # argparse's usage line, then the one line naming the problem
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(lines) == 2 and lines[0].startswith("usage:") and lines[1].startswith("loop_kernels.py: error: ")


def test_the_hybrid_split_is_the_whole_loop_or_a_note(lk):
    rows, notes = lk.plan(load_model("zen4"))
    hyb = [r for r in rows if r.table == "hybrid"]
    if not hyb:                                   # a host that runs no hybrid level (or a block the frame refuses)
        assert any("hybrid" in n for n in notes)
        return
    whole, scalar, vector = (r.body.splitlines() for r in hyb)
    assert sorted(scalar + vector) == sorted(whole) and scalar and vector
    assert all(lk.SEMANTICS[ln.split()[0]].vector for ln in vector)
    assert not any(lk.SEMANTICS[ln.split()[0]].vector for ln in scalar)


def test_rounds_alone_rename_a_to_e_as_a_block_does(lk):
    body = lk.rounds_body(lk.ROUND, 2).splitlines()
    # round 0: a = eax, e = r14d; round 1: a = r14d (round 0's new a), e = r13d
    assert body == ["movl %eax, %r8d", "roll $5, %r8d", "addl %r8d, %r14d",
                    "movl %r14d, %r8d", "roll $5, %r8d", "addl %r8d, %r13d"]
    assert all(lk.rounds_body(lines).count("\n") == 80 * len(lines) for lines in lk.ROUND_FORMS.values())
