"""A model's uncertainty and its ensemble of perturbed models (search/cost/uncertainty.py, corpus/uncertainty.toml).

Rules (issue 25, item 4: "prefer candidates that stay good when the model's fitted parameters move within their
uncertainty"): the ensemble is a function of the model and the seed; every member is built by the model loader's
own checks (so it loads like any model, and a bad perturbation is refused as a bad row would be); how far a row
moves follows its source (measured rows stay, estimates move furthest, one-clock literature latencies stay); the
spec file refuses unknown keys like every corpus file.
"""

import pytest

from sha1opt.search.cost.model import load_model, model_from_table, model_table
from sha1opt.search.cost.simulator import Simulator
from sha1opt.search.cost.uncertainty import _apply, ensemble, load_spec, parse_spec, uncertainty
from sha1opt.search.measure import block_loop_items
from sha1opt.search.space.candidate import textbook
from sha1opt.semantics.datafiles import corpus_dir, load_toml
from sha1opt.semantics.errors import CorpusError, Sha1optError


@pytest.fixture(scope="module")
def zen1():
    return load_model("zen1")


def test_the_ensemble_is_deterministic_for_a_seed(zen1):
    a, b, c = ensemble(zen1, members=6, seed=3), ensemble(zen1, members=6, seed=3), ensemble(zen1, members=6, seed=4)
    assert a.models == b.models and [m.changes for m in a.members] == [m.changes for m in b.members]
    assert [m.changes for m in a.members] != [m.changes for m in c.members]
    assert len({m.changes for m in a.members}) > 1          # members differ from one another
    assert all(m.changes for m in a.members)                # and from the nominal model


def test_members_are_built_by_the_loader_and_price_code():
    items = block_loop_items(textbook("i386"))[:120]       # rounds 0-7 or so: enough to run every engine
    for name in ("zen1", "core2", "pentium", "goldencove"):
        model = load_model(name)
        for m in ensemble(model, members=2).members:
            assert m.model == model_from_table(_table_of(model, m), model.path)      # the loader's own product
            assert m.model.name.startswith(f"{name}~")
            assert Simulator(m.model).simulate(items).cycles > 0


def _table_of(model, member):
    raw = model_table(model.name)
    raw["name"] = member.model.name
    raw.pop("aliases", None)
    params = {p.name: p for p in uncertainty(model)}
    for name, _, new in member.changes:
        _apply(raw, model, params[name], new)
    return raw


def test_a_perturbation_the_loader_refuses_is_refused(zen1):
    p = next(p for p in uncertainty(zen1) if p.name == "classes.load.latency")
    raw = model_table("zen1")
    _apply(raw, zen1, p, 4.25)          # latencies are modelled to half a clock: the loader refuses a row so
    with pytest.raises(CorpusError, match="half a clock"):
        model_from_table(raw)


def test_how_far_a_row_moves_follows_its_source(zen1):
    spec = load_spec()
    got = {p.name: p for p in uncertainty(zen1, spec)}
    # "estimate, 7 clocks" (zen1.toml store_forwarding): two clocks either way
    assert got["rules.store_forwarding.latency"].values == (5.0, 6.0, 8.0, 9.0)
    # a multi-clock literature row: one clock either way; a one-clock one does not move
    assert got["classes.load.latency"].values == (3.0, 5.0)
    assert "classes.add_rr.latency" not in got
    # the issue widths zen1.toml's own comment allows
    assert got["issue_width.value"].values == (5, 6)
    # rows measured by a microbenchmark on the CPU keep their latency
    gc = load_model("goldencove")
    measured = [n for n, c in gc.classes.items() if "microbenchmark" in c.source.lower()]
    assert measured and not any(p.row in {f"classes.{n}" for n in measured} and p.field == "latency"
                                for p in uncertainty(gc, spec))


def test_the_spec_refuses_unknown_keys():
    raw = load_toml(corpus_dir() / "uncertainty.toml")
    assert parse_spec(raw, "u.toml") == load_spec()
    raw["tier"][0]["latnecy"] = 1
    with pytest.raises(CorpusError, match="u.toml: tier\\[0\\]: unknown key 'latnecy'"):
        parse_spec(raw, "u.toml")


def test_a_model_not_loaded_from_its_file_has_no_ensemble(zen1):
    member = ensemble(zen1, members=1).models[0]
    with pytest.raises(Sha1optError, match="not a model file"):
        ensemble(member)
