"""The block-loop measure is a pure function of the model's content and the items (``search.measure.block_loop``):
the process measures equal code on an equal model once."""

import sha1opt.search.measure as measure
from sha1opt.search.cost.model import load_model
from sha1opt.search.measure import block_loop, block_loop_cycles, block_loop_items, forget_measures, measures_kept
from sha1opt.search.space.candidate import textbook


def _counting(monkeypatch) -> list:
    calls: list = []
    real = measure.simulator_for
    monkeypatch.setattr(measure, "simulator_for", lambda m: calls.append(m.name) or real(m))
    return calls


def test_equal_code_on_an_equal_model_is_simulated_once(monkeypatch):
    forget_measures()
    calls = _counting(monkeypatch)
    first = block_loop_cycles(textbook("x86_64"), load_model("k8"))
    again = block_loop(block_loop_items(textbook("x86_64")), load_model("k8"))     # new objects, equal content
    assert calls == ["k8"] and again.cycles == first


def test_another_model_or_other_code_is_simulated_again(monkeypatch):
    forget_measures()
    calls = _counting(monkeypatch)
    items = block_loop_items(textbook("x86_64"))
    block_loop(items, load_model("k8"))
    block_loop(items, load_model("k10"))
    block_loop(items[:-1], load_model("k8"))
    assert calls == ["k8", "k10", "k8"]


def test_the_memo_is_bounded(monkeypatch):
    forget_measures()
    monkeypatch.setattr(measure, "MEMO_SIZE", 2)
    items = block_loop_items(textbook("i386"))
    for k in range(4):
        block_loop(items[k:], load_model("atom"))
    assert measures_kept() <= 2
