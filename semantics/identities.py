"""The rewrite corpus: named identities (``corpus/identities.toml``) and their check.

Each identity says two expressions are equal for all 32-bit inputs
(``expect = "equal"``) or that a tempting rewrite is wrong
(``expect = "differ"``, which must come with a counterexample). Names are
unique; rows with unknown or missing keys, unparsable expressions or a bad
``expect`` are refused when loading, naming the row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sha1opt.semantics.datafiles import check_keys, corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, ParseError
from sha1opt.semantics.expr import parse
from sha1opt.semantics.ir import Builder, Term
from sha1opt.semantics.prove import Counterexample, Outcome, Proved, Prover

EXPECT = ("equal", "differ")


@dataclass(frozen=True)
class Identity:
    name: str
    lhs: str
    rhs: str
    expect: str
    source: str
    note: str = ""


@dataclass(frozen=True)
class IdentityResult:
    identity: Identity
    outcome: Outcome

    @property
    def ok(self) -> bool:
        """True when the outcome is what the row expects (and is not Unknown)."""
        if self.identity.expect == "equal":
            return isinstance(self.outcome, Proved)
        return isinstance(self.outcome, Counterexample)


def default_path() -> Path:
    return corpus_dir() / "identities.toml"


def load(path: Path | None = None) -> list[Identity]:
    path = path or default_path()
    data = load_toml(path)
    extra = sorted(set(data) - {"identity"})
    if extra:
        raise CorpusError(f"{path}: unknown top-level key {extra[0]!r}")
    rows = data.get("identity", [])
    if not isinstance(rows, list):
        raise CorpusError(f"{path}: 'identity' must be an array of tables")
    out: list[Identity] = []
    seen: set[str] = set()
    for i, row in enumerate(rows, start=1):
        where = f"{path.name}: identity #{i}" + (f" ({row.get('name')})" if isinstance(row, dict) and "name" in row else "")
        if not isinstance(row, dict):
            raise CorpusError(f"{where}: not a table")
        check_keys(row, where, {"name", "lhs", "rhs", "expect", "source"}, {"note"})
        for k, v in row.items():
            if not isinstance(v, str):
                raise CorpusError(f"{where}: {k} must be a string")
        if row["name"] in seen:
            raise CorpusError(f"{path.name}: duplicate identity name {row['name']!r}")
        seen.add(row["name"])
        if row["expect"] not in EXPECT:
            raise CorpusError(f"{where}: expect must be 'equal' or 'differ', not {row['expect']!r}")
        for side in ("lhs", "rhs"):
            try:
                parse(row[side])
            except ParseError as e:
                raise CorpusError(f"{where}: {side}: {e}") from None
        out.append(Identity(**row))
    return out


def terms(identity: Identity, builder: Builder | None = None) -> tuple[Term, Term]:
    b = builder or Builder()
    return parse(identity.lhs, b), parse(identity.rhs, b)


def check(identities: list[Identity], timeout: float = 10.0, prover: Prover | None = None) -> list[IdentityResult]:
    """Prove (or refute) every identity with one prover; results in corpus order."""
    prover = prover or Prover(timeout=timeout)
    results = []
    for ident in identities:
        lhs, rhs = terms(ident)
        results.append(IdentityResult(ident, prover.check(lhs, rhs, timeout)))
    return results
