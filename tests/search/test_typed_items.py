"""One typed code representation: cost items carry typed operands, and the SHA-NI block is built once.

The rule: nothing downstream of a text reader parses operand text. An ``Opaque`` item's operands are
``x86.Reg`` / ``Mem`` / ``Imm`` or ``opaque.Label`` / ``Symbol``; the SHA-NI block is typed instructions
(``space.shani.parts``) from which both the exported text (``Parts.line``) and the cost model's items
(``engines.shani.loop_items``) come -- the items equal what the listing reader makes of that text.
"""

from __future__ import annotations

import dataclasses

import pytest

from sha1opt.search.cost.model import load_model
from sha1opt.search.engines.shani import loop_items, loop_text
from sha1opt.search.measure import block_items, block_loop, hybrid_loop_items
from sha1opt.search.space.hybrid import HybridParams, build
from sha1opt.search.space.shani import MSG2_FORMS, ShaniParams, default_params, unit_code, unit_text
from sha1opt.semantics.att import parse_text
from sha1opt.semantics.listing import opaque_operand, parse_listing
from sha1opt.semantics.opaque import Label, Opaque, Symbol
from sha1opt.semantics.x86 import Imm, Instr, Mem, Reg

TYPED = (Reg, Mem, Imm, Label, Symbol)
POINTS = [(default_params("x86_64"), "x86_64"), (default_params("i386"), "i386"),
          (ShaniParams(preload=1), "x86_64"),
          *[(dataclasses.replace(default_params("x86_64"), msg2_form=f), "x86_64") for f in MSG2_FORMS],
          (dataclasses.replace(default_params("i386"), msg2_form="avx512"), "i386")]


def _without_lines(items) -> list:
    return [dataclasses.replace(it, line=0) for it in items]


@pytest.mark.parametrize("params,arch", POINTS)
def test_shani_loop_items_are_what_the_listing_reader_makes_of_the_loop_text(params, arch):
    # the same instructions, built once as typed items: no text between the block and its items
    items = loop_items(params, arch)
    assert items == _without_lines(_read(loop_text(params, arch), arch))
    assert all(isinstance(o, TYPED) for it in items if isinstance(it, Opaque) for o in it.operands)


def _read(text: str, arch: str) -> list:
    """The listing reader's items of ``text``, vector rows as vector items; it refuses ``cmovne`` (no table
    row): that is the opaque item ``cost.items`` gives it."""
    out: list = []
    for line in text.splitlines():
        if line.startswith("cmov"):
            out.append(Opaque("cmovne", (Reg("eax", 64), Reg("esi", 64)), 0, "opaque"))
        else:
            out += block_items(parse_listing(line, arch).items)
    return out


@pytest.mark.parametrize("params,arch", POINTS)
def test_the_unit_code_is_the_parsed_unit_text(params, arch):
    assert unit_code(params, arch) == parse_text(unit_text(params, arch), arch)


def test_opaque_operands_are_typed_and_their_effects_come_from_the_types():
    items = parse_listing("1:\npushq %rbx\nmovzbl %ah, %edx\npaddd .LC0(%rip), %xmm1\nmovdqa %xmm1, 0x10(%rsp)\n"
                          "decq 72(%rsp)\njne 1b\njmp *%rax\n", "x86_64").items
    push, movz, paddd, movdqa, dec, jne, jmp = items
    assert push.operands == (Reg("ebx", 64),) and push.reads == {"ebx", "esp"} and push.writes == {"esp"}
    assert movz.operands == (Reg("ah", 0), Reg("edx", 32)) and movz.reads == {"eax", "edx"}
    assert paddd.operands[0] == Symbol(".LC0(%rip)", (Reg("rip", 0),), True, False) and paddd.memory
    assert movdqa.operands == (Reg("xmm1", 128), Mem(Reg("esp", 64), None, 1, 16)) and movdqa.kind == "vector"
    assert dec.operands == (Mem(Reg("esp", 64), None, 1, 72),) and dec.writes == {"flags"} and dec.memory
    assert jne.operands == (Label("1b"),) and jne.target == "1b" and jne.reads == {"flags"}
    assert isinstance(jmp.operands[0], Symbol) and jmp.reads == {"eax"} and jmp.target is None
    assert all(isinstance(o, TYPED) for it in items for o in it.operands)


def test_registers_of_any_width_read_as_typed_registers_and_print_as_written():
    for text, reg in (("%al", Reg("eax", 8)), ("%r9w", Reg("r9d", 16)), ("%zmm3", Reg("xmm3", 512)),
                      ("%ymm12", Reg("xmm12", 256)), ("%rip", Reg("rip", 0)), ("%sil", Reg("esi", 8))):
        assert opaque_operand(text) == reg and str(reg) == text


def test_a_vector_row_is_priced_from_its_own_operands():
    # the hybrid block's vector rows keep the instruction's typed operands, and price as before
    block = build(HybridParams(isa="avx"))
    items = hybrid_loop_items(block)
    vec = [it for it in items if isinstance(it, Opaque) and it.kind == "vector"]
    assert vec and all(isinstance(o, (Reg, Mem, Imm)) for it in vec for o in it.operands)
    assert all(any(isinstance(i, Instr) and i.operands == it.operands for i in block.body + block.main)
               for it in vec)
    assert block_loop(items, load_model("skylake")).cycles > 0
