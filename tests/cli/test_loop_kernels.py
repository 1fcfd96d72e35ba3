"""bench/loop_kernels.py's kernels (nothing timed): what it times is what its docstring says.

What is proved: the frame rewrite moves a block loop into calibrate's kernel frame as its docstring's example
says; the kernels pass calibrate's checks (``microbench.validate_all``: registers and the private buffer only,
the machine code the intended instructions; every fifth two-field loop here, the bench checks all before it
runs any); with the ring apart no read of the W ring reads a slot a store writes, and the instructions are the
loop's own, in order; each ablation changes only what its name says; each order moves only a round's W
group, to where its name says; the two-field loops are distinct; a loop
needing a register the frame lacks is left out with a note, not timed wrongly; and a bad argument is one line
and exit 2.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from sha1opt.emit.microbench import Checked, priced, validate_all
from sha1opt.search.cost.model import load_model
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.listing import parse_listing
from sha1opt.semantics.x86 import Instr, Mem, Reg

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


def test_each_order_moves_only_the_w_group_within_its_round(lk):
    """The orders table: every round keeps its instructions (the W group on its own temporary), f and the rest
    keep their order, and the W group lands where the name says."""
    tb = lk.frame(textbook("x86_64").body[textbook("x86_64").loop_start:], apart=True)
    rounds, tail = lk._rounds(tb)
    assert len(rounds) == 80 and all(len(r) >= 10 for r in rounds)
    base = lk.ORDERS["W group first (the textbook's)"](list(tb))
    assert len(base) == len(tb) and [i.mnemonic for i in base] == [i.mnemonic for i in tb]
    assert sum(1 for i in base if lk.W_TEMP in i.operands) >= 80     # the W groups' own temporary
    where = {"W group before f's instruction 1": 1, "W group before f's instruction 2": 2,
             "W group before f's instruction 3": 3}
    for name, edit in lk.ORDERS.items():
        out = edit(list(tb))
        assert len(out) == len(tb) and out[-len(tail):] == tail
        at = 0
        for r in rounds:
            w, f, rest = lk._parts(r)
            got = out[at:at + len(r)]
            at += len(r)
            assert sorted(map(str, got)) == sorted(map(str, w + f + rest))
            assert [i for i in got if i not in w] == f + rest        # f and the rest in their order
            first = next(k for k, i in enumerate(got) if i == w[0])
            assert got[first:first + len(w)] == w or name.startswith("lea first")
            want = {**where, "W group first (the textbook's)": 0, "W group before f's add into e": len(f) - 1,
                    "W group after f's add into e": len(f)}.get(name)
            if want is not None:
                assert first == want, (name, [str(i) for i in got])
            else:                                                   # the lea first, the rest before f's add
                assert got[0] == w[-1] and got[len(f):len(f) + len(w) - 1] == w[:-1]


def test_the_lea_groups(lk):
    for k in lk.LEA_KS:
        body, groups = lk.lea_body(k)
        lines = body.splitlines()
        assert len(lines) == groups * (1 + k) <= lk.LEA_SIZE
        assert all(ln.startswith("leal 1(%r15,") for ln in lines[::1 + k])


@pytest.mark.parametrize("args", [["--passes", "0"], ["--uarch", "nosuch"]])
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
