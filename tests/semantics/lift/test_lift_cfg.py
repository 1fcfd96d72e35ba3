"""``lift.cfg.Cfg.loop_body``: the natural loop of a back edge (reachable from the head, reaching the tail)."""

from __future__ import annotations

from sha1opt.emit.objfile import load_object
from sha1opt.semantics.lift.cfg import Cfg
from sha1opt.semantics.lift.decode import decode_function

TEXT = """\
\t.text
\t.globl f
\t.type f, @function
f:
\tmovl $3, %ecx
\tjmp 1f
\t.p2align 4
1:\tdecl %ecx
\tjne 1b
\tjmp 2f
\tnop
2:\tmovl $2, %ecx
3:\tdecl %ecx
\tjmp 4f
\tnop
4:\tjne 3b
\tret
\t.size f, .-f
"""


def _cfg(tmp_path) -> Cfg:
    src = tmp_path / "f.s"
    src.write_text(TEXT)
    obj = load_object(src, tmp_path).obj
    return Cfg.build(decode_function(obj, obj.find_function("f")))


def test_regression_self_loop_body_is_its_one_block_not_its_predecessors(tmp_path):
    """A self-loop's body took in every predecessor of its head (the prologue), so a later loop's head
    looked nested in it."""
    g = _cfg(tmp_path)
    (tail, head), second = sorted(g.back_edges())
    assert tail == head and g.loop_body(tail, head) == {head}
    assert len(g.loop_heads()) == 2


def test_padding_that_only_falls_into_the_loop_is_not_in_it(tmp_path):
    g = _cfg(tmp_path)
    tail, head = sorted(g.back_edges())[1]
    body = g.loop_body(tail, head)
    padding = [b for b in g.blocks if not any(b in ss for ss in g.succs.values()) and b != g.entry]
    assert padding and not set(padding) & body and len(body) == 2
