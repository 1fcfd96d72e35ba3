"""Shared fixtures: one Prover per test module is enough (each owns a z3.Context)."""

import pytest

from sha1opt.semantics.prove import Prover


@pytest.fixture(scope="module")
def prover():
    return Prover(timeout=20.0)
