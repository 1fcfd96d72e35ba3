"""``search.cost.items.cost_items``: decoded machine code as the simulator's items (the one conversion).

Rule (module docstring of ``search/cost/items.py``): a table instruction with plain operands is an
``Instr``; a vector/SHA-NI instruction (a vector row of the table) an ``Opaque`` of kind "vector"; a
control/compare mnemonic its ``OPAQUE_KINDS`` kind; anything else kind "opaque" (never free).
"""

from __future__ import annotations

import pytest

from sha1opt.emit.objfile import load_object
from sha1opt.search.cost import classify, load_model
from sha1opt.search.cost.items import cost_items
from sha1opt.semantics.lift.decode import decode_function
from sha1opt.semantics.opaque import Opaque
from sha1opt.semantics.x86 import CL, Imm, Instr, Mem, Reg

SNIPPET = """\
\t.text
\t.globl f
\t.type f, @function
f:
\tpaddd %xmm3, %xmm9
\taddl 0x30(%rsp), %ebp
\tcmovne %r8, %rsi
\tvpalignr $8, %ymm6, %ymm7, %ymm8
\tsub $-128, %r9
\tdecq %rdx
\tjne f
\tret
\t.size f, .-f
"""


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    d = tmp_path_factory.mktemp("items")
    src = d / "f.s"
    src.write_text(SNIPPET)
    obj = load_object(src, d).obj
    fn = decode_function(obj, obj.find_function("f"))
    return cost_items([fn.instructions[a] for a in sorted(fn.instructions)])


def test_each_decoded_instruction_becomes_the_item_its_kind_says(items):
    kinds = [it.kind if isinstance(it, Opaque) else "instr" for it in items]
    assert kinds == ["vector", "instr", "opaque", "vector", "instr", "counter", "branch", "return"]
    skylake = load_model("skylake")
    assert [classify(it, skylake) for it in items[:5]] == ["vec_alu", "add_rm", "opaque", "vec_shuffle", "add_rr"]


def test_regression_sub_minus_128_is_the_table_sub_not_an_opaque_item(items):
    """The objdump-text front end this replaced could not read ``sub $0xffffffffffffff80, %r9`` (OpenSSL's
    AVX2 loop): it became an opaque 2-uop item that wrote no register, so r9's readers did not wait for it."""
    sub = items[4]
    assert isinstance(sub, Instr) and sub.mnemonic == "sub" and sub.operands[0].value == -128


def test_regression_shrd_is_priced_not_an_error():
    """OpenSSL's AVX loop has ``shrd $2, %ebx, %ebx`` (a table instruction): ``class_of`` raised
    "no cost class for shrd" once the lift front end made it an ``Instr``. It then fell to the
    conservative opaque row (goldencove priced the AVX path +93 % too slow); now it is the double-shift
    class of one register (a rotate), and with two registers the general one."""
    ins = Instr("shrd", (Imm(2), Reg("ebx", 32), Reg("ebx", 32)))
    two = Instr("shld", (Imm(5), Reg("eax", 32), Reg("ebx", 32)))
    assert classify(ins, load_model("zen5")) == "double_rot"
    assert classify(two, load_model("zen5")) == "double_shift"


def test_double_shift_by_cl_or_into_memory_keeps_the_opaque_row():
    """Only shld/shrd by an immediate into a register have rows; the %cl and memory forms are not priced
    by any source here, so they stay on the conservative opaque row."""
    by_cl = Instr("shld", (CL, Reg("eax", 32), Reg("ebx", 32)))
    to_mem = Instr("shrd", (Imm(2), Reg("eax", 32), Mem(Reg("esp", 32), None, 1, 8)))
    assert [classify(i, load_model("skylake")) for i in (by_cl, to_mem)] == ["opaque", "opaque"]
