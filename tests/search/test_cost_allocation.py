"""The out-of-order allocation rules of issue 10 (``search/cost/allocation.py``): the reservation station's size,
ports bound at allocation, the renamer's room for eliminating moves, and the delay from allocation to
dispatch (``rules.dispatch_delay``, applied in ``execute.Execute``).

Each test states the rule, its source (the ``source`` of the TOML row) and a case where the
rule alone changes the schedule (the same model without the rule is the control).
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from sha1opt.search.cost import load_model, simulate
from sha1opt.search.cost import model as uarch
from sha1opt.semantics.errors import CorpusError
from sha1opt.semantics.att import parse_text

# One SHA-1-like round's mix: rotates, adds, logic, a three-term lea and a move, 8 independent-ish uops.
ROUND_MIX = ("roll $5, %eax\naddl %ebx, %eax\nxorl %ecx, %edx\nandl %esi, %edi\n"
             "leal 1(%rax,%rbx), %ecx\nrorl $2, %esi\naddl %edx, %edi\nmovl %eax, %r8d")


def without(model, rule: str):
    return dataclasses.replace(model, rules=dataclasses.replace(model.rules, **{rule: None}))


def test_reservation_station_full_delays_allocation():
    """Intel optimization manual, Core microarchitecture: the RS holds 32 uops (ROB 96). Behind 80
    dependent adds (one dispatch per clock from clock 7, four allocated per clock) the station fills,
    so the first independent mov after them waits for an entry: it dispatches at clock 60, where
    without the limit it dispatches at clock 25 (5 clocks after the front end reaches it at clock 20,
    the ROB having room; rules.dispatch_delay). Before that rule (dispatch one clock after allocation):
    50 / 22."""
    core2 = load_model("core2")
    items = parse_text("\n".join(["addl %eax, %eax"] * 80 + ["movl $1, %ebx"]), "i386")
    with_rs, free = simulate(items, core2), simulate(items, without(core2, "scheduler"))
    assert core2.rules.scheduler.entries == 32
    assert (with_rs.timeline[80].issue, free.timeline[80].issue) == (60.0, 25.0)
    assert with_rs.cycles == free.cycles == 86.0              # the chain itself is not slowed (6 + 80)


@pytest.mark.parametrize("uarch, entries", [("core2", 32), ("nehalem", 36), ("skylake", 97)])
def test_reservation_station_sizes(uarch, entries):
    """Intel optimization manual: Core 2 32, Nehalem 36, Skylake 97 entries (uiCA: SKL RSWidth 97)."""
    assert load_model(uarch).rules.scheduler.entries == entries


def test_ports_are_bound_by_issue_slot_at_allocation():
    """uiCA (Abel and Reineke, ICS 2022), the allocator's port choice: counts taken before the issue
    group, even slots take the least-used port, odd slots the second least, ties to the higher port.
    Four independent adds allocated together on Skylake (p0156, all counts 0) go to p6, p5, p6, p5."""
    s = simulate(parse_text("addl $1, %eax\naddl $1, %ebx\naddl $1, %ecx\naddl $1, %edx", "x86_64"),
                 load_model("skylake"))
    assert [slot.unit for slot in s.timeline] == ["p6", "p5", "p6", "p5"]


@pytest.mark.parametrize("uarch, bound, free", [("skylake", 2.7083, 2.0), ("core2", 3.0833, 2.6667)])
def test_port_binding_loses_clocks_on_a_port_bound_round(uarch, bound, free):
    """The same rule: ports chosen before the inputs are ready leave a port idle while another has
    a queue, so a port-bound round mix runs slower than with a free choice at dispatch (the cause of
    most of the Core 2 / Westmere / Skylake gap to OpenSSL's published figures in issue 10)."""
    m = load_model(uarch)
    items = parse_text(ROUND_MIX, "x86_64")
    assert simulate(items, m, loop=True).cycles == pytest.approx(bound, abs=1e-3)
    assert simulate(items, without(m, "port_binding"), loop=True).cycles == pytest.approx(free, abs=1e-3)


@pytest.mark.parametrize("uarch", ["skylake", "goldencove"])
def test_regression_both_uops_of_roll_1_were_bound_to_one_port(uarch):
    """The same rule, per fused uop: ``roll $1`` is 2 fused uops on p0/p6 (uops.info SKL: ROL (R32, 1)
    2 uops p06, latency 1, throughput 1.0), so its uops sit in two issue slots and are bound to two
    ports. Both were bound to one (the instruction's slot was used for each), which serialized them:
    a chain of 240 cost 480 clocks. On this host (goldencove's CPU) 'xorl %ebx, %eax; roll $1, %eax'
    x120 measures 239.5 core cycles (p10 221, p90 252; emit.clock.loop_cycles, 31 rounds, load 0.2,
    2026-12-01 23:07 UTC): rol's latency is 1."""
    m = load_model(uarch)
    chain = parse_text("\n".join(["roll $1, %eax"] * 240), "x86_64")
    assert simulate(chain, m, loop=True).cycles == pytest.approx(240.0, abs=1e-3)
    pair = parse_text("\n".join(["xorl %ebx, %eax", "roll $1, %eax"] * 120), "x86_64")
    assert simulate(pair, m, loop=True).cycles == pytest.approx(240.0, abs=1e-3)
    assert simulate(chain, without(m, "port_binding"), loop=True).cycles == pytest.approx(240.0, abs=1e-3)



def test_a_uop_dispatches_no_sooner_than_five_clocks_after_allocation():
    """uiCA (microArchConfigs.py issueDispatchDelay = 5 on every microarchitecture it models, Skylake
    among them; uiCA.py Scheduler.getReadyForDispatchCycle; assumed for Core 2 and Nehalem): a lone add
    allocated at clock 0 dispatches at clock 5 and completes at 6 on skylake, core2 and nehalem -- at 1
    and 2 on a model without the rule (goldencove, zen3); the 4 extra clocks are charged to the rule's
    name."""
    add = parse_text("addl $1, %eax", "x86_64")
    for uarch in ("skylake", "core2", "nehalem"):
        s = simulate(add, load_model(uarch))
        assert load_model(uarch).rules.dispatch_delay.cycles == 5
        assert (s.timeline[0].issue, s.cycles) == (5.0, 6.0)
        assert s.breakdown["issue-to-dispatch delay"] == 4.0 and s.bottleneck == "issue-to-dispatch delay"
        assert (simulate(add, without(load_model(uarch), "dispatch_delay")).timeline[0].issue) == 1.0
    for uarch in ("goldencove", "zen3"):
        assert load_model(uarch).rules.dispatch_delay is None
        assert simulate(add, load_model(uarch)).cycles == 2.0


def test_an_input_arriving_as_a_uop_may_first_dispatch_is_seen_a_clock_late():
    """uiCA.py Scheduler.getReadyForDispatchCycle, the same rule's second part: when a uop's last input
    is ready exactly at its issue cycle + 5 or one clock after, it is ready for dispatch one clock after
    that input. Two dependent adds allocated together on skylake: the first dispatches at 5 (result 6);
    the second's input arrives at 6, one clock after its own earliest dispatch, so it dispatches at 7,
    not 6 (8 clocks in all, 3 without the rule)."""
    chain = parse_text("addl $1, %eax\naddl $1, %eax", "x86_64")
    s = simulate(chain, load_model("skylake"))
    assert [slot.issue for slot in s.timeline] == [5.0, 7.0] and s.cycles == 8.0
    assert s.breakdown["issue-to-dispatch delay"] == 5.0
    assert simulate(chain, without(load_model("skylake"), "dispatch_delay")).cycles == 3.0


def test_loader_refuses_dispatch_delay_on_an_in_order_model(tmp_path, monkeypatch):
    """rules.dispatch_delay is read by the out-of-order engine only; on an in-order model it would be
    silently ignored, so the loader refuses it."""
    for p in uarch.uarch_dir().glob("*.toml"):
        shutil.copy(p, tmp_path / p.name)
    text = (tmp_path / "atom.toml").read_text()
    (tmp_path / "atom.toml").write_text(text + '\n[rules.dispatch_delay]\nname = "d"\ncycles = 5\nsource = "x"\n')
    monkeypatch.setattr(uarch, "uarch_dir", lambda: tmp_path)
    uarch._load.cache_clear()
    try:
        with pytest.raises(CorpusError, match="dispatch_delay applies to out-of-order models only"):
            load_model("atom")
    finally:
        uarch._load.cache_clear()


def test_dispatch_delay_holds_reservation_station_entries():
    """The same rule in a loop: a uop waiting out its 5 clocks holds its reservation-station entry, so
    Core 2's 32 entries hold fewer uops that could run. 80 dependent adds then 80 independent moves,
    as a loop: 80 clocks per iteration (the chain) with an unlimited station, 87 with 32 entries,
    90.5 with 32 entries each also held for the 5 clocks after allocation."""
    core2 = load_model("core2")
    items = parse_text("\n".join(["addl %eax, %eax"] * 80 + [f"movl ${k}, %ebx" for k in range(80)]), "x86_64")
    no_delay = without(core2, "dispatch_delay")
    assert simulate(items, without(no_delay, "scheduler"), loop=True).cycles == 80.0
    assert simulate(items, no_delay, loop=True).cycles == 87.0
    s = simulate(items, core2, loop=True)
    assert s.cycles == 90.5 and s.bottleneck == "scheduler full"


# uiCA (Renamer.cycle; microArchConfigs.py SKL): 4 GPR move-elimination slots per two rename clocks,
# less the alias groups still alive two clocks before.
EIGHT_MOVES = "\n".join(f"movl %{a}, %{b}" for a, b in [("eax", "ebx"), ("ecx", "edx"), ("esi", "edi"), ("r8d", "r9d"),
                                                         ("r10d", "r11d"), ("r12d", "r13d"), ("r14d", "r15d"),
                                                         ("ebp", "eax")])
MOVE_CHAIN = ("movl %eax, %ebx\naddl %ebx, %eax\nmovl %eax, %ecx\naddl %ecx, %eax\n"
              "movl %eax, %edx\naddl %edx, %eax\nmovl %eax, %esi\naddl %esi, %eax")


def test_renamer_eliminates_at_most_four_moves_per_two_clocks():
    """uiCA, Skylake: eight independent moves in two rename clocks -- the first four are eliminated,
    the next four (no slot left in clock 1; four alias groups alive in clock 0 for clock 2) run on
    ALU ports."""
    s = simulate(parse_text(EIGHT_MOVES, "x86_64"), load_model("skylake"))
    units = [slot.unit for slot in s.timeline]
    assert units[:4] == ["eliminated"] * 4 and "eliminated" not in units[4:]


def test_a_move_not_eliminated_costs_its_latency():
    """The same rule on a chain through moves: where the renamer has no slot the move is a 1-clock
    ALU op on the chain (5.33 clocks per iteration instead of 4 with unlimited elimination)."""
    m = load_model("skylake")
    items = parse_text(MOVE_CHAIN, "x86_64")
    assert m.rules.move_elimination_slots == 4
    assert simulate(items, m, loop=True).cycles == pytest.approx(5.3333, abs=1e-3)
    assert simulate(items, without(m, "move_elimination_slots"), loop=True).cycles == 4.0
