"""The block loop of the scalar export (emit/assembly.py, search/space/frame.py ``loop_start``).

Proved here: on x86-64 the loads of a..e run once, before the loop label (the
loop carries the state in registers from block to block, as OpenSSL's integer
code does), and the whole-function proof still holds; a body that changes a
state register after the feed-forward -- right for one block, wrong for the
next -- is refused by that proof, so the loop's new contract is checked, not
assumed. On i386 the loads stay inside the loop.
"""

from dataclasses import replace

from tests.support.cpu import needs
from sha1opt.emit.assembly import function_text
from sha1opt.emit.validate import validate
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.x86 import Imm, Instr, Reg

pytestmark = needs()                       # native validation of base x86 code


def _loop_part(text: str) -> str:
    return text.split(".Lsha1_loop:", 1)[1]


def test_x86_64_loads_the_state_once_before_the_loop():
    sched = textbook("x86_64")
    text = function_text(sched)
    head, loop = text.split(".Lsha1_loop:", 1)
    loads = [f"mov {4 * i}(%rdi)" if i else "mov (%rdi)" for i in range(5)]
    assert all(ld in head for ld in loads) and not any(ld in loop for ld in loads)


def test_i386_loads_the_state_inside_the_loop():
    assert "mov 64(%esp), %esi" in _loop_part(function_text(textbook("i386")))


def test_x86_64_loop_is_proved_whole(tmp_path):
    sched = textbook("x86_64")
    v = validate(function_text(sched), sched, tmp_path, native=False)
    assert v.failure is None and v.proof.proved


def test_a_state_register_changed_after_the_feed_forward_is_refused(tmp_path):
    sched = textbook("x86_64")
    bad = replace(sched, body=sched.body + (Instr("add", (Imm(1), Reg("eax"))),))
    v = validate(function_text(bad), bad, tmp_path, native=False)
    assert v.failure is not None and v.failure.name == "prove", v.checks
