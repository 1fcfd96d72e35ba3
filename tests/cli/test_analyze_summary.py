"""``ObjectProof.summary``: the one line ``prove --object``, ``analyze`` and ``scan`` print for a function.

Rule: a function not proved because some paths were refused counts every
path by its outcome (proved, refused, unknown, counterexample), and "first"
names the outcome of the path whose detail it quotes.
"""

from __future__ import annotations

from types import SimpleNamespace

from sha1opt.analyze import ObjectProof


def _path(name: str, outcome: str, detail: str = ""):
    return SimpleNamespace(name=name, outcome=outcome, detail=detail, kind="exit")


def test_regression_refused_summary_left_unknown_paths_out_of_its_count():
    """The bug (nettle's fat ``nettle_sha1_compress``, 74 paths): "54 path(s) proved, 16 refused (first: <an
    unknown path's detail>)" -- the 4 unknown paths were in no count, and their detail was shown as a
    refusal's."""
    paths = [_path("a", "proved"), _path("b", "refused", "getenv's string read"),
             _path("c", "unknown", "read of an unwritten realigned stack slot"), _path("d", "not checked")]
    proof = ObjectProof("x.o", "f", "x86_64", "refused", SimpleNamespace(paths=paths), None, (), 1.0)
    line = proof.summary()
    assert "1 path(s) proved, 1 refused, 1 unknown (first unknown: read of an unwritten" in line, line
    assert "1 path(s) not checked" in line, line
