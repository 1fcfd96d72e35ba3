"""Every corpus identity holds as stated, and the loader refuses bad rows by name."""

import numpy as np
import pytest

from sha1opt.semantics import identities
from sha1opt.semantics.domain import NumpyDomain
from sha1opt.semantics.errors import CorpusError
from sha1opt.semantics.ir import evaluate, variables
from sha1opt.semantics.prove import Counterexample, Proved

CORPUS = identities.load()


def test_corpus_is_substantial_and_has_both_kinds():
    assert len(CORPUS) >= 25
    assert {i.expect for i in CORPUS} == {"equal", "differ"}


@pytest.mark.parametrize("ident", CORPUS, ids=[i.name for i in CORPUS])
def test_identity(ident, prover):
    lhs, rhs = identities.terms(ident)
    out = prover.check(lhs, rhs)
    if ident.expect == "equal":
        assert isinstance(out, Proved), out
    else:
        assert isinstance(out, Counterexample), out
        # The counterexample is real: both sides, evaluated at its inputs, give its two differing values.
        assert set(variables([lhs, rhs])) <= set(out.inputs)
        env = {k: np.array([v], dtype=np.uint32) for k, v in out.inputs.items()}
        got = [int(v[0]) for v in evaluate([lhs, rhs], NumpyDomain(1), env)]
        assert got == [out.lhs, out.rhs] and out.lhs != out.rhs


def _write(tmp_path, body):
    p = tmp_path / "identities.toml"
    p.write_text(body)
    return p


ROW = 'name = "x"\nlhs = "a"\nrhs = "a"\nexpect = "equal"\nsource = "s"\n'


@pytest.mark.parametrize("body, message", [
    ("[[identity]]\n" + ROW + "[[identity]]\n" + ROW, "duplicate identity name 'x'"),
    ("[[identity]]\n" + ROW + "sorce = 'typo'\n", "unknown key 'sorce'"),
    ("[[identity]]\n" + ROW.replace('source = "s"\n', ""), "missing key 'source'"),
    ("[[identity]]\n" + ROW.replace('"equal"', '"maybe"'), "expect must be"),
    ("[[identity]]\n" + ROW.replace('lhs = "a"', 'lhs = "a +"'), "lhs: column 4"),
    ("[[identiti]]\n" + ROW, "unknown top-level key 'identiti'"),
    ("[[identity]]\nname = ", "not valid TOML"),
])
def test_loader_refuses(tmp_path, body, message):
    with pytest.raises(CorpusError) as e:
        identities.load(_write(tmp_path, body))
    assert message in str(e.value)


def test_false_entry_fails_with_counterexample(tmp_path):
    p = _write(tmp_path, '[[identity]]\nname = "wrong"\nlhs = "x ^ y"\nrhs = "x | y"\nexpect = "equal"\nsource = "s"\n')
    [res] = identities.check(identities.load(p))
    assert not res.ok and isinstance(res.outcome, Counterexample)
