"""Vector lanes that are constants by their instruction are constants at the loop head (``vectors.LaneFold``).

The bug: a correct SHA-NI function that loads E the way Intel's SHA extensions
sample code does -- ``pinsrd $3, 16(%rdi), %xmm1`` into a register whose lanes
0-2 hold the caller's values, then ``pand`` with the constant mask (0, 0, 0,
0xffffffff) -- got a false counterexample (exit 3): the lifter kept lanes 0-2 as
``and(xmm1.j, 0)`` and lane 3 as ``and(h4, 0xffffffff)``, so the loop-head
template (``template.build_template``) havocked lanes 0-2 (which ``sha1rnds4``
adds into the rounds through ``sha1nexte``) and found E nowhere. The same held
for ``pxor %xmm1, %xmm1`` (``xor(x, x)``) before ``pinsrd``, and the VEX forms.
Exact identities now fold those lanes (0, and h4 itself); a wrong mask is still
refuted. The function is this project's own (``csrc/sha1_shani_pinsrd.S``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.support.cpu import not_run_here
from sha1opt.analyze import prove_object
from sha1opt.emit.toolchain import run, which
from sha1opt.semantics.domain import NumpyDomain, TermDomain
from sha1opt.semantics.ir import evaluate
from sha1opt.semantics.lift.vectors import LaneFold

SOURCE = Path(__file__).parent / "csrc" / "sha1_shani_pinsrd.S"
LOADS = {1: "pinsrd + pand", 2: "vpinsrd + vpand", 3: "pxor + pinsrd", 4: "vpxor + vpinsrd"}


def _build(tmp_path, *defines: str) -> Path:
    out = tmp_path / "sha1_shani_pinsrd.o"
    run([which("gcc"), *(f"-D{d}" for d in defines), "-c", "-o", str(out), str(SOURCE)], "assembling the test code")
    return out


@pytest.mark.parametrize("load", sorted(LOADS), ids=[LOADS[k] for k in sorted(LOADS)])
def test_pinsrd_pand_loaded_e_is_not_a_false_counterexample(tmp_path, load):
    res = prove_object(_build(tmp_path, f"LOAD_E={load}"))
    assert res.proved, res.summary()
    assert [p.kind for p in res.proof.paths] == ["loop not entered", "loop"]


def test_a_mask_that_drops_a_bit_of_e_is_refuted(tmp_path):
    res = prove_object(_build(tmp_path, "MASK_E=0x7fffffff"))
    assert not res.proved
    loop = next(p for p in res.proof.paths if p.kind == "loop")
    assert loop.outcome == "counterexample" and "code gives" in loop.detail, loop.detail
    if not_run_here("sha") is None:           # confirmed by running it (the harness needs SHA-NI)
        assert res.outcome == "counterexample", res.summary()


def test_a_mask_that_keeps_the_callers_lanes_is_not_proved(tmp_path):
    """Lanes 0-2 masked with 0xff keep a byte of whatever the caller left in %xmm1: never proved (natively
    the register may happen to hold zeros, so this is a refutation by the prover, not always a run)."""
    res = prove_object(_build(tmp_path, "MASK_LO=0xff"))
    assert not res.proved
    loop = next(p for p in res.proof.paths if p.kind == "loop")
    assert loop.outcome == "counterexample", loop.detail


# -- the identities -------------------------------------------------------------------------------

CASES = [("and", "x", 0), ("and", 0, "x"), ("and", "x", 0xFFFFFFFF), ("and", 0xFFFFFFFF, "x"),
         ("or", "x", 0), ("or", 0xFFFFFFFF, "x"), ("xor", "x", "x"), ("xor", 0, "x"), ("sub", "x", "x"),
         ("sub", "x", 0), ("add", 0, "x"), ("shl", 0, "x"), ("shr", "x", 0), ("rol", "x", 32),
         ("and", 0x00FF00FF, 0x0F0F0F0F), ("xor", "x", "y"), ("and", "x", 0x7FFFFFFF)]


@pytest.mark.parametrize("op, a, b", CASES)
def test_lane_fold_is_an_identity_in_every_domain(op, a, b):
    """Each folded value equals the unfolded operation on random inputs, and a term folds to a constant or
    an operand exactly when a rule says so (``x ^ y`` and ``x & 0x7fffffff`` stay operations)."""
    rng = np.random.default_rng(3)
    env = {n: rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for n in ("x", "y")}
    nd = NumpyDomain(64)
    arg = (lambda d, v: d.var(v) if isinstance(v, str) else d.const(v))
    want = nd.apply(op, *(env[v] if isinstance(v, str) else nd.const(v) for v in (a, b)))
    got_np = LaneFold(nd).apply(op, *(env[v] if isinstance(v, str) else nd.const(v) for v in (a, b)))
    td = TermDomain()
    term = LaneFold(td).apply(op, arg(td, a), arg(td, b))
    assert np.array_equal(got_np, want)
    assert np.array_equal(evaluate([term], nd, env)[0], want)
    folded = term.node.op in ("const", "var")
    assert folded == ((op, a, b) not in (("xor", "x", "y"), ("and", "x", 0x7FFFFFFF)))
