"""The calibration microbenchmarks (emit/microbench.py): generated from the model's own classes and rules, checked
before they run.

Rules (issue 25): every class a model prices has a microbenchmark (a class added to the model without one is refused
by name); every rule is fitted or says why not; every generated kernel assembles and its machine code is the
intended instruction list; a body that could touch memory outside its buffer, the harness's registers, or loop
for ever is refused.
"""

import pytest

from sha1opt.emit import microbench
from sha1opt.emit.microbench import (FITTED_RULES, NOT_FITTED, UNMEASURED, Kernel, MicrobenchError, kernels, validate,
                                     validate_all)
from sha1opt.emit.toolchain import host_is_x86_64
from sha1opt.search.cost.model import RULE_NAMES, load_model, model_names

native_tools = pytest.mark.skipif(not host_is_x86_64(), reason="assembling x86-64 kernels needs an x86-64 host's gas")


@pytest.mark.parametrize("name", model_names())
def test_every_class_of_every_model_has_a_kernel(name):
    """Each class of each literature model (but the catch-all ``opaque``) has a throughput kernel made of it."""
    m = load_model(name)
    if m.arch != "x86_64":
        pytest.skip(f"{name} is an i386 model: the kernels are x86-64 code")
    ks = {k.name: k for k in kernels(m, pairs=False)}
    for cls in m.classes:
        if cls in UNMEASURED:
            continue
        assert f"tput.{cls}" in ks and cls in ks[f"tput.{cls}"].classes, cls


def test_a_class_without_an_exemplar_is_refused(monkeypatch):
    """Drift guard: a class the model prices and EXEMPLARS lacks is a MicrobenchError naming it."""
    monkeypatch.delitem(microbench.EXEMPLARS, "rot_imm")
    with pytest.raises(MicrobenchError, match="rot_imm"):
        kernels(load_model("zen3"), pairs=False)


def test_every_rule_is_fitted_or_says_why():
    """Every rule of the model loader is either fitted from kernels or listed with the reason it is not."""
    assert set(RULE_NAMES) == set(FITTED_RULES) | set(NOT_FITTED)
    assert not set(FITTED_RULES) & set(NOT_FITTED)


def test_scheduler_kernels_show_the_size_as_a_knee():
    """rules.scheduler is fitted from ``rule.scheduler.N``: priced by zen4 they stay at one load chain's latency
    without a scheduler row and climb from N = 80 on with an 80-entry one; they are evidence for the size alone
    (``fit_params.SCHEDULER``)."""
    import dataclasses
    from sha1opt.search.cost.fit_params import SCHEDULER
    from sha1opt.search.cost.model import Scheduler
    from sha1opt.search.cost.simulator import simulate
    base = load_model("zen4")
    sized = dataclasses.replace(base, rules=dataclasses.replace(base.rules, scheduler=Scheduler("full", 80, "t")))
    ks = [k for k in kernels(base, pairs=False) if k.name.startswith("rule.scheduler.")]
    assert [k.name for k in ks] == [f"rule.scheduler.{n}" for n in microbench.SCHEDULER_FILLERS]
    assert all(k.classes == {SCHEDULER} for k in ks)
    flat = [simulate(k.items(), base, loop=True).cycles for k in ks]
    knee = [simulate(k.items(), sized, loop=True).cycles for k in ks]
    small = [n < 80 for n in microbench.SCHEDULER_FILLERS]      # the adds and the 16 loads fit in 80 entries
    assert all(f == flat[0] for f, s in zip(flat, small) if s) and all(k == flat[0] for k, s in zip(knee, small) if s)
    assert all(k > f for k, f, s in zip(knee, flat, small) if not s)


def test_pairs_reveal_shared_units_within_a_pool():
    """zen3: rot_imm (alu1|alu2) is paired with bswap (any ALU) and vec_alu with vec_shift, never across pools."""
    names = {k.name for k in kernels(load_model("zen3"))}
    assert "mix.rot_imm+bswap" in names and "mix.vec_alu+vec_shift" in names
    assert not any(n.startswith("mix.") and "rot_imm" in n and "vec_" in n for n in names)


@native_tools
def test_every_zen3_kernel_assembles_and_is_what_it_says():
    """All of zen3's kernels (every class, rule, mix) pass the checks: assembled, decoded, same classes in order."""
    m = load_model("zen3")
    refused = [r for r in validate_all(kernels(m), m) if isinstance(r, str)]
    assert refused == []


@native_tools
@pytest.mark.parametrize("body,why", [
    ("decq %rdi\n", "harness owns"),
    ("movl %eax, 600(%rsp)\n", "outside the 512-byte buffer"),
    ("movl %eax, (%rax)\n", "private buffer"),
    ("movq 8(%rsp), %rbp\n", "pointer chase"),
    ("pushq %rax\n", "do not balance"),
    (".Lback:\njmp .Lback\n", "forward"),
    ("addq $8, %rsp\n", "harness owns"),
    ("pushq %rax\npopq %rdi\n", "harness owns"),
])
def test_validation_refuses_unsafe_bodies(body, why):
    with pytest.raises(MicrobenchError, match=why):
        validate(Kernel("bad", body, frozenset(), frozenset(), ""), load_model("zen3"))


def test_kernel_items_include_the_loop_control():
    """What the simulator prices is the body and the harness's loop control (dec, jnz), as run natively."""
    k = next(k for k in kernels(load_model("zen3"), pairs=False) if k.name == "lat.rot_imm")
    items = k.items()
    assert [str(i) for i in items[-2:]] == ["dec %rdi", "jnz 1b"]


# Classes whose own latency no chain can show, and why (every other ``lat.`` kernel must show it).
LATENCY_UNSEEN = {
    "mov_ri": "no register input: a chain runs through its reader, never through it",
    "store": "a reload sees the store-forwarding rule's latency, not the store's",
    "vec_store": "a reload sees the vector store-forwarding rule's latency, not the store's",
    "push": "a reload (pop) sees the store-forwarding rule's latency, not the push's",
    "pop": "its data is its load uop's: the load row's latency",
}


@pytest.mark.parametrize("name", [n for n in model_names() if load_model(n).arch == "x86_64"])
def test_regression_lat_vec_shuffle_was_no_chain(name):
    """A latency kernel measures its class's latency: priced with that latency 4 clocks longer, it takes longer.

    The bug: ``lat.vec_shuffle`` was ``pshufd $27, %xmm15, %xmm0`` repeated -- pshufd's destination is
    write-only, so no copy read another's result: the kernel timed throughput (on the Zen 4 host
    ``lat.`` and ``tput.vec_shuffle`` both measured 18.53 clocks), and the second stage was free to set the
    latency to 7 (bench/results/calibrate_holdout_zen4.txt). And ``lat.vec_load`` showed nothing either:
    the engine gave every load the integer ``load`` row's latency, so the ``vec_load`` row's (Zen: 7) was
    never used. Every class with a ``lat.`` kernel, every x86-64 model, but ``LATENCY_UNSEEN`` and the
    moves the model's renamer eliminates (``rules.move_elimination``: no latency at all).
    """
    from dataclasses import replace

    from sha1opt.search.cost.simulator import Simulator
    m = load_model(name)
    blind = []
    for k in kernels(m, pairs=False):
        cls = k.name[4:]
        if not k.name.startswith("lat.") or cls in LATENCY_UNSEEN or cls in m.rules.move_elimination:
            continue
        slower = replace(m, classes={**m.classes, cls: replace(m.classes[cls], latency=m.classes[cls].latency + 4)})
        before = Simulator(m).simulate(k.items(), loop=True).cycles
        after = Simulator(slower).simulate(k.items(), loop=True).cycles
        if not after > before:
            blind.append(f"{k.name}: {before} -> {after}")
    assert blind == [], blind
